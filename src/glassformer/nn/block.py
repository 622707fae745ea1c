"""One Transformer block: attention then FFN, each wrapped in a residual connection + LayerNorm.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂          W₁: C -> F, W₂: F -> C      (Vaswani et al. §3.3)
    act is ReLU (the paper), GELU (BERT), or GELU with the tanh approximation (GPT-2).

    norm="pre"   x = x + Drop(Attn(LN₁(x)));   x = x + Drop(FFN(LN₂(x)))     (GPT-2, most LLMs)
    norm="post"  x = LN₁(x + Drop(Attn(x)));   x = LN₂(x + Drop(FFN(x)))     (the 2017 paper)
    norm="none"  x = x + Attn(x);              x = x + FFN(x)                (2nd tutorial)

Hook points: ln1, resid_mid (stream after the attention half), ln2, resid_post (block output);
the attention and FFN modules carry their own (attn.q ... attn.result, attn.out, ffn.hidden, ffn.out).
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.formula import ParamFormula, counted, layer_norm_formula, linear_formula
from glassformer.nn.hooks import HookPoint, Term, hook
from glassformer.nn.position import position_scheme


def layer_norm(cfg: ModelConfig) -> nn.Module:
    """LayerNorm over C, or the identity when the config has no normalisation."""
    if cfg.norm == "none":
        return nn.Identity()
    return nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias)


def norm_hook(stage: str, means: str, active: bool, **fields) -> HookPoint:
    """The hook after a LayerNorm; where the config has none, it says so (same tensor as before)."""
    if active:
        return hook(stage, "B T C", means, **fields)
    return hook("identity", "B T C", "identity", stage=Term(f"stage.{stage}", **fields))


def norm_formula(part: str, cfg: ModelConfig, active: bool) -> ParamFormula:
    if active:
        return layer_norm_formula(part, cfg.bias, cfg.d_model)
    return counted(part, "0", note="identity_norm")


def self_attention(cfg: ModelConfig) -> MultiHeadAttention:
    """A block's self-attention, with the in-attention part of the config's position scheme."""
    scheme = position_scheme(cfg.position)
    return MultiHeadAttention(
        cfg.d_model,
        cfg.n_heads,
        cfg.bias,
        cfg.dropout,
        cfg.mha_style,
        cfg.attention,
        scheme.attention(cfg) if scheme.attention else None,
    )


ACTIVATION_FNS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


class FeedForward(nn.Module):
    """(B, T, C) -> (B, T, F) -> (B, T, C)."""

    fc1: nn.Linear
    fc2: nn.Linear
    act: Callable[[torch.Tensor], torch.Tensor]

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        if activation not in ACTIVATION_FNS:
            raise UsageError("error.ffn.activation", activation=activation, names=list(ACTIVATION_FNS))
        self.fc1 = nn.Linear(d_model, d_ff, bias=bias)
        self.fc2 = nn.Linear(d_ff, d_model, bias=bias)
        self.act, self.bias = ACTIVATION_FNS[activation], bias
        self.hook_hidden = hook("ffn_hidden", "B T F", "ffn_hidden")
        self.hook_out = hook("ffn_out", "B T C", "ffn_out")

    def param_formulas(self) -> list[ParamFormula]:
        C, F = self.fc1.in_features, self.fc1.out_features
        return [
            linear_formula("fc1", "C", "F", self.bias, symbolic="C -> F", C=C, F=F),
            linear_formula("fc2", "F", "C", self.bias, symbolic="F -> C", C=C, F=F),
        ]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.hook_hidden(self.act(self.fc1(x)))  # (B, T, F)
        return self.hook_out(self.fc2(hidden))  # (B, T, C)


class Block(nn.Module):
    """(B, T, C) -> (B, T, C)."""

    ln1: nn.Module  # nn.LayerNorm, or nn.Identity for norm="none"
    attn: MultiHeadAttention
    ln2: nn.Module
    ffn: FeedForward

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg, self.norm = cfg, cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = self_attention(cfg)
        self.ln2 = layer_norm(cfg)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias)
        self.drop = nn.Dropout(cfg.dropout)  # on the FFN branch; attn drops its own output
        on, placement = cfg.norm != "none", "post" if cfg.norm == "post" else "pre"
        self.hook_ln1 = norm_hook("layer_norm", f"ln1.{placement}", on, i=1)
        self.hook_ln2 = norm_hook("layer_norm", f"ln2.{placement}", on, i=2)
        self.hook_resid_mid = hook("residual", "B T C", "resid_mid")
        self.hook_resid_post = hook("residual", "B T C", "resid_post")

    def param_formulas(self) -> list[ParamFormula]:
        on = self.norm != "none"
        return [norm_formula("ln1", self.cfg, on), norm_formula("ln2", self.cfg, on)]

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        if self.norm == "post":
            x = self.hook_resid_mid(x + self.attn(x, mask, cache))  # (B, T, C)
            x = self.hook_ln1(self.ln1(x))  # (B, T, C)
            x = self.hook_resid_post(x + self.drop(self.ffn(x)))  # (B, T, C)
            return self.hook_ln2(self.ln2(x))  # (B, T, C)
        # pre-norm (and no-norm, where ln1/ln2 are identities)
        x = self.hook_resid_mid(x + self.attn(self.hook_ln1(self.ln1(x)), mask, cache))  # (B, T, C)
        return self.hook_resid_post(x + self.drop(self.ffn(self.hook_ln2(self.ln2(x)))))  # (B, T, C)

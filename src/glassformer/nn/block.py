"""One Transformer block: attention then FFN, each wrapped in a residual connection + LayerNorm.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂          W₁: C -> F, W₂: F -> C      (Vaswani et al. §3.3)
    act is ReLU (the paper), GELU (BERT), or GELU with the tanh approximation (GPT-2).

    norm="pre"   x = x + Drop(Attn(LN₁(x)));   x = x + Drop(FFN(LN₂(x)))     (GPT-2, most LLMs)
    norm="post"  x = LN₁(x + Drop(Attn(x)));   x = LN₂(x + Drop(FFN(x)))     (the 2017 paper)
    norm="none"  x = x + Attn(x);              x = x + FFN(x)                (2nd tutorial)

Hook points: ln1, resid_mid (stream after the attention half), ln2, resid_post (block output);
the attention and FFN modules carry their own (attn.q ... attn.out, ffn.hidden).
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.config import ModelConfig
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.formula import ParamFormula, layer_norm_formula, linear_formula
from glassformer.nn.hooks import HookPoint
from glassformer.nn.position import position_scheme


def layer_norm(cfg: ModelConfig) -> nn.Module:
    """LayerNorm over C, or the identity when the config has no normalisation."""
    if cfg.norm == "none":
        return nn.Identity()
    return nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias)


def norm_hook(stage: str, stage_zh: str, what: str, what_zh: str, active: bool) -> HookPoint:
    """The hook after a LayerNorm; where the config has none, it says so (same tensor as before)."""
    if active:
        return HookPoint(stage, "B T C", what, what_zh, stage_zh)
    return HookPoint(
        stage + " (identity)",
        "B T C",
        "no normalisation in this config: the hook sees its input unchanged",
        "此配置没有归一化：这里看到的就是输入本身",
        stage_zh + "（恒等）",
    )


def norm_formula(part: str, cfg: ModelConfig, active: bool) -> ParamFormula:
    if active:
        return layer_norm_formula(part, cfg.bias, cfg.d_model)
    return ParamFormula(part, "0", {}, "norm='none': identity", zh="norm='none'：恒等映射")


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
            raise ValueError(f"activation={activation!r} is not one of {list(ACTIVATION_FNS)}.")
        self.fc1 = nn.Linear(d_model, d_ff, bias=bias)
        self.fc2 = nn.Linear(d_ff, d_model, bias=bias)
        self.act, self.bias = ACTIVATION_FNS[activation], bias
        self.hook_hidden = HookPoint(
            "FFN hidden",
            "B T F",
            "after the first Linear and the activation",
            "第一个线性层和激活函数之后",
            "前馈隐藏层",
        )

    def param_formulas(self) -> list[ParamFormula]:
        C, F = self.fc1.in_features, self.fc1.out_features
        return [
            linear_formula("fc1", "C", "F", self.bias, "C -> F", C=C, F=F),
            linear_formula("fc2", "F", "C", self.bias, "F -> C", C=C, F=F),
        ]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.hook_hidden(self.act(self.fc1(x)))  # (B, T, F)
        return self.fc2(hidden)  # (B, T, C)


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
        on, post = cfg.norm != "none", cfg.norm == "post"
        self.hook_ln1 = norm_hook(
            "LayerNorm 1",
            "层归一化 1",
            "attention's residual sum, normalised (fed to the FFN)" if post else "normalised stream fed to attention",
            "注意力残差和，归一化后（送入前馈网络）" if post else "归一化后送入注意力的残差流",
            on,
        )
        self.hook_ln2 = norm_hook(
            "LayerNorm 2",
            "层归一化 2",
            "the FFN's residual sum, normalised: the block's output" if post else "normalised stream fed to the FFN",
            "前馈残差和，归一化后：本块的输出" if post else "归一化后送入前馈网络的残差流",
            on,
        )
        self.hook_resid_mid = HookPoint(
            "residual", "B T C", "stream after adding attention", "加上注意力之后的残差流", "残差"
        )
        self.hook_resid_post = HookPoint(
            "residual",
            "B T C",
            "stream after adding the FFN: the block's output",
            "加上前馈网络之后的残差流：本块的输出",
            "残差",
        )

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

"""One Transformer block: attention then FFN, each wrapped in a residual connection + LayerNorm.

    norm="pre"   x = x + Drop(Attn(LN₁(x)));   x = x + Drop(FFN(LN₂(x)))     (GPT-2, most LLMs)
    norm="post"  x = LN₁(x + Drop(Attn(x)));   x = LN₂(x + Drop(FFN(x)))     (the 2017 paper)
    norm="none"  x = x + Attn(x);              x = x + FFN(x)                (2nd tutorial)

Hook points: ln1, resid_mid (stream after the attention half), ln2, resid_post (block output);
the attention and FFN modules carry their own (attn.q ... attn.out, ffn.hidden).
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.feedforward import FeedForward
from glassformer.nn.hooks import HookPoint


def layer_norm(cfg: ModelConfig) -> nn.Module:
    """LayerNorm over C, or the identity when the config has no normalisation."""
    if cfg.norm == "none":
        return nn.Identity()
    return nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias)


class Block(nn.Module):
    """(B, T, C) -> (B, T, C)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.norm = cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.bias, cfg.dropout,
                                       cfg.mha_style, cfg.attention)
        self.ln2 = layer_norm(cfg)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias)
        self.drop = nn.Dropout(cfg.dropout)  # on the FFN branch; attn drops its own output
        self.hook_ln1, self.hook_ln2 = HookPoint(), HookPoint()
        self.hook_resid_mid, self.hook_resid_post = HookPoint(), HookPoint()

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        if self.norm == "post":
            x = self.hook_resid_mid(x + self.attn(x, mask, cache))  # (B, T, C)
            x = self.hook_ln1(self.ln1(x))  # (B, T, C)
            x = self.hook_resid_post(x + self.drop(self.ffn(x)))  # (B, T, C)
            return self.hook_ln2(self.ln2(x))  # (B, T, C)
        # pre-norm (and no-norm, where ln1/ln2 are identities)
        x = self.hook_resid_mid(x + self.attn(self.hook_ln1(self.ln1(x)), mask, cache))  # (B, T, C)
        return self.hook_resid_post(x + self.drop(self.ffn(self.hook_ln2(self.ln2(x)))))  # (B, T, C)

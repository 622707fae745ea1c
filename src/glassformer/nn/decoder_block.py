"""One decoder block of the original Transformer: three sublayers, each in a residual connection.

    1) masked self-attention   the target tokens look at each other, never at later ones
    2) cross-attention         each target token reads the encoder's output (cross_attention.py)
    3) feed-forward            the per-position MLP

    norm="pre"   x = x + f(LN(x))         for f = self-attn, cross-attn, FFN in turn
    norm="post"  x = LN(x + f(x))         (the 2017 paper; PyTorch's nn.TransformerDecoderLayer)
    norm="none"  x = x + f(x)

Hook points: ln1, resid_self (stream after self-attention), ln2, resid_cross (after
cross-attention), ln3, resid_post (block output); the three modules carry their own
(attn.*, cross.*, ffn.hidden). The LayerNorm helpers are the encoder block's (block.py).
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.nn.block import FeedForward, layer_norm, norm_formula, norm_hook, self_attention
from glassformer.nn.cross_attention import CrossAttention
from glassformer.nn.formula import ParamFormula
from glassformer.nn.hooks import HookPoint


def _norm_hook(i: int, before: str, before_zh: str, on: bool, post: bool) -> HookPoint:
    """The hook after LayerNorm i: pre-norm normalises what a sublayer reads, post-norm its sum."""
    if post:
        return norm_hook(
            f"LayerNorm {i}",
            f"层归一化 {i}",
            f"the {before} sublayer's residual sum, normalised",
            f"{before_zh}子层的残差和，归一化后",
            on,
        )
    return norm_hook(
        f"LayerNorm {i}",
        f"层归一化 {i}",
        f"normalised stream fed to the {before}",
        f"归一化后送入{before_zh}的残差流",
        on,
    )


class DecoderBlock(nn.Module):
    """(B, T, C) target stream and (B, S, C) encoder output -> (B, T, C)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg, self.norm = cfg, cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = self_attention(cfg)
        self.ln2 = layer_norm(cfg)
        self.cross = CrossAttention(cfg.d_model, cfg.n_heads, cfg.bias, cfg.dropout, cfg.attention)
        self.ln3 = layer_norm(cfg)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias)
        self.drop = nn.Dropout(cfg.dropout)  # on the FFN branch; the attentions drop their own outputs
        on, post = cfg.norm != "none", cfg.norm == "post"
        self.hook_ln1 = _norm_hook(1, "self-attention", "自注意力", on, post)
        self.hook_resid_self = HookPoint(
            "residual", "B T C", "stream after adding masked self-attention", "加上掩码自注意力之后的残差流", "残差"
        )
        self.hook_ln2 = _norm_hook(2, "cross-attention", "交叉注意力", on, post)
        self.hook_resid_cross = HookPoint(
            "residual", "B T C", "stream after adding cross-attention", "加上交叉注意力之后的残差流", "残差"
        )
        self.hook_ln3 = _norm_hook(3, "FFN", "前馈网络", on, post)
        self.hook_resid_post = HookPoint(
            "residual",
            "B T C",
            "stream after adding the FFN: the block's sum",
            "加上前馈网络之后的残差流：本块的和",
            "残差",
        )

    def param_formulas(self) -> list[ParamFormula]:
        on = self.norm != "none"
        return [norm_formula(f"ln{i}", self.cfg, on) for i in (1, 2, 3)]

    def sublayer(self, x: torch.Tensor, f, ln: nn.Module, hook_ln: HookPoint, hook_resid: HookPoint) -> torch.Tensor:
        """One residual sublayer around f: pre-norm x + f(LN(x)), post-norm LN(x + f(x))."""
        if self.norm == "post":
            return hook_ln(ln(hook_resid(x + f(x))))  # (B, T, C)
        return hook_resid(x + f(hook_ln(ln(x))))  # (B, T, C); ln is the identity for norm="none"

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        source_mask: torch.Tensor | None = None,
        cache=None,
    ) -> torch.Tensor:
        """x (B, T, C), memory (B, S, C); self_mask (T, T)-like: causal ∧ target padding; source_mask
        (B, 1, 1, S): source padding. cache: a DecoderLayerCache (decoder_cache.py) or None."""
        own = cache.self_attn if cache is not None else None
        x = self.sublayer(
            x, lambda h: self.attn(h, self_mask, own), self.ln1, self.hook_ln1, self.hook_resid_self
        )  # (B, T, C)
        x = self.sublayer(
            x, lambda h: self.cross(h, memory, source_mask, cache), self.ln2, self.hook_ln2, self.hook_resid_cross
        )  # (B, T, C)
        return self.sublayer(
            x, lambda h: self.drop(self.ffn(h)), self.ln3, self.hook_ln3, self.hook_resid_post
        )  # (B, T, C)

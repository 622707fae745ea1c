"""One decoder block, NumPy edition: masked self-attention, cross-attention, FFN.

    norm="pre"   x = x + SelfAttn(LN₁(x));  x = x + Cross(LN₂(x), m);  x = x + FFN(LN₃(x))
    norm="post"  x = LN₁(x + SelfAttn(x));  x = LN₂(x + Cross(x, m));  x = LN₃(x + FFN(x))
    norm="none"  the same sums without LayerNorm

No dropout: the twin is the model in eval mode.
"""

from __future__ import annotations

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.attention import AttentionTouch, cross_attention, multi_head_attention
from glassformer.numpy_ref.block import layer_norm
from glassformer.numpy_ref.feedforward import feed_forward
from glassformer.numpy_ref.linear import scope
from glassformer.numpy_ref.position import NUMPY_POSITIONS


def decoder_block(
    x: np.ndarray,
    memory: np.ndarray,
    params: dict,
    cfg: ModelConfig,
    self_mask: np.ndarray | None = None,
    source_mask: np.ndarray | None = None,
) -> np.ndarray:
    """x (B, T, C), memory (B, S, C) -> (B, T, C) with the weights of one DecoderBlock."""
    positions = AttentionTouch(NUMPY_POSITIONS[cfg.position], cfg)
    sublayers = [  # (the sublayer, its LayerNorm)
        (lambda h: multi_head_attention(h, scope(params, "attn."), cfg.n_heads, self_mask, positions), "ln1"),
        (lambda h: cross_attention(h, memory, scope(params, "cross."), cfg.n_heads, source_mask), "ln2"),
        (lambda h: feed_forward(h, scope(params, "ffn."), cfg.activation), "ln3"),
    ]

    def ln(h, which):
        return h if cfg.norm == "none" else layer_norm(h, scope(params, which + "."), cfg.ln_eps)

    for f, which in sublayers:
        x = ln(x + f(x), which) if cfg.norm == "post" else x + f(ln(x, which))  # (B, T, C)
    return x

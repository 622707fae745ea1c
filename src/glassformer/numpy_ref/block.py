"""LayerNorm and one Transformer block, NumPy edition.

    LayerNorm(x) = γ · (x - mean) / √(var + ε) + β     over the C features of each token,
                   var the biased (divide-by-C) variance             (Ba et al. 2016)

    norm="pre"   x = x + Attn(LN₁(x));   x = x + FFN(LN₂(x))
    norm="post"  x = LN₁(x + Attn(x));   x = LN₂(x + FFN(x))
    norm="none"  x = x + Attn(x);        x = x + FFN(x)

No dropout anywhere: the twin is the model in eval mode.
"""

from __future__ import annotations

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.attention import AttentionTouch, multi_head_attention
from glassformer.numpy_ref.feedforward import feed_forward
from glassformer.numpy_ref.linear import scope
from glassformer.numpy_ref.position import NUMPY_POSITIONS


def layer_norm(x: np.ndarray, params: dict, eps: float) -> np.ndarray:
    """x (..., C) -> (..., C); params["weight"] is γ, params["bias"] is β (absent when bias=False)."""
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # (..., 1)
    y = (x - mean) / np.sqrt(var + eps) * params["weight"]  # (..., C)
    return y + params["bias"] if "bias" in params else y  # (..., C)


def block(x: np.ndarray, params: dict, cfg: ModelConfig, mask: np.ndarray | None = None) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one Block (scoped to "blocks.{i}.")."""
    positions = AttentionTouch(NUMPY_POSITIONS[cfg.position], cfg)

    def attn(h):
        return multi_head_attention(h, scope(params, "attn."), cfg.n_heads, mask, positions)  # (B, T, C)

    def ffn(h):
        return feed_forward(h, scope(params, "ffn."), cfg.activation)  # (B, T, C)

    def ln(h, which):
        return h if cfg.norm == "none" else layer_norm(h, scope(params, which + "."), cfg.ln_eps)

    if cfg.norm == "post":
        x = ln(x + attn(x), "ln1")  # (B, T, C)
        return ln(x + ffn(x), "ln2")  # (B, T, C)
    x = x + attn(ln(x, "ln1"))  # (B, T, C)
    return x + ffn(ln(x, "ln2"))  # (B, T, C)

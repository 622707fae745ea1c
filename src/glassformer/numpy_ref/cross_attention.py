"""Cross-attention, NumPy edition: queries from the target stream, keys and values from the source.

    CrossAttention(x, m) = softmax((x W_Q)(m W_K)ᵀ / √D, source padding masked) (m W_V)

x (B, T, C) is the decoder's stream, m (B, S, C) the encoder's output; the weights are (B, H, T, S).
Weights: "q.*" (C -> C), "kv.*" (C -> 2C, keys first, then values), "proj.*" (C -> C).
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.attention import attend_and_merge, split_heads
from glassformer.numpy_ref.linear import linear, scope


def cross_attention(
    x: np.ndarray, memory: np.ndarray, params: dict, n_heads: int, mask: np.ndarray | None = None
) -> np.ndarray:
    """x (B, T, C), memory (B, S, C) -> (B, T, C), with the weights of one CrossAttention."""
    # 1) queries from the target stream, keys and values from the source
    q = split_heads(linear(x, scope(params, "q.")), n_heads)  # (B, H, T, D)
    k, v = np.split(linear(memory, scope(params, "kv.")), 2, axis=-1)  # 2 × (B, S, C)
    k, v = split_heads(k, n_heads), split_heads(v, n_heads)  # 2 × (B, H, S, D)
    # 2) and 3) as in self-attention
    return attend_and_merge(q, k, v, params, mask)  # (B, T, C)

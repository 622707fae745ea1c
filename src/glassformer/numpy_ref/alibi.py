"""ALiBi, NumPy edition: a linear penalty on the attention scores, nothing added to the stream.

    Press et al. 2022, "Train Short, Test Long", §3:  scores[h, i, j] += -m_h · |i - j|

The slopes are written the way the paper's authors describe them, as a recursion: for H a power
of two, the geometric sequence starting at and multiplying by 2^(-8/H); otherwise the sequence of
the closest lower power of two P, then every other slope of the sequence for 2P.
glassformer.nn.alibi computes them by a direct formula; the two agree only if both are right.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer.numpy_ref.position import NUMPY_POSITIONS, NumpyScheme


def alibi_slopes(n_heads: int) -> list[float]:
    if math.log2(n_heads).is_integer():
        ratio = 2.0 ** (-8.0 / n_heads)  # the first slope is also the ratio of the sequence
        return [ratio ** (h + 1) for h in range(n_heads)]
    P = 2 ** math.floor(math.log2(n_heads))
    return alibi_slopes(P) + alibi_slopes(2 * P)[0::2][: n_heads - P]


def alibi_bias(n_heads: int, T_q: int, T_k: int, offset: int = 0) -> np.ndarray:
    """(H, T_q, T_k): -m_h·|i - j| for queries at offset..offset+T_q-1 and keys at 0..T_k-1."""
    i = np.arange(offset, offset + T_q)[:, None]  # (T_q, 1)
    j = np.arange(T_k)[None, :]  # (1, T_k)
    m = np.array(alibi_slopes(n_heads))[:, None, None]  # (H, 1, 1)
    return -m * np.abs(i - j)  # (H, T_q, T_k)


NUMPY_POSITIONS["alibi"] = NumpyScheme(bias=lambda cfg, T_q, T_k, offset: alibi_bias(cfg.n_heads, T_q, T_k, offset))

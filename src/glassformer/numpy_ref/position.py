"""How tokens and their positions get in, NumPy edition: the twin of glassformer.nn's embedding.py
and position.py (its built-in schemes: learned, sinusoidal, rotary, alibi, none).

Token embedding: row ids[b, t] of the (V, C) table.  x[b, t] = E[ids[b, t]]

Each position scheme of glassformer.nn.position has its twin here, registered under the same name
in NUMPY_POSITIONS with the same touch points: `stream` (params, cfg, T) -> (T, C) added to the
residual stream; `rotate` (q, k, cfg, offset) -> (q, k) and `bias` (cfg, T_q, T_k, offset) ->
(H, T_q, T_k) inside attention. A scheme that does not use a touch point leaves it None; "none"
(NoPE) touches nothing. Each equation is written differently from the torch version, so the two
agree only if both are right (tests/reference/test_numpy_twin.py):

Learned: rows 0..T-1 of a trained (max_len, C) table.

Sinusoidal (Vaswani et al. 2017, §3.5), written the way the paper prints it:

    PE[p, 2i]   = sin(p / 10000^(2i / C))
    PE[p, 2i+1] = cos(p / 10000^(2i / C))

The torch version computes 1/10000^(2i/C) as exp(-ln(10000)·2i/C); here it is a plain power.

Rotary (RoPE), written with complex numbers. Su et al. 2021, "RoFormer", §3.2: read each pair of
features (x_2i, x_2i+1) as the complex number z_i = x_2i + i·x_2i+1; the token at position p
multiplies it by e^(i·p·θ_i), θ_i = 10000^(-2i/D). Turning by an angle is multiplying by a unit
complex number; glassformer.nn.position.RotaryPositions writes the same turn as a 2×2 rotation of real numbers.

ALiBi: a linear penalty on the attention scores, nothing added to the stream.

    Press et al. 2022, "Train Short, Test Long", §3:  scores[h, i, j] += -m_h · |i - j|

The slopes are written the way the paper's authors describe them, as a recursion: for H a power
of two, the geometric sequence starting at and multiplying by 2^(-8/H); otherwise the sequence of
the closest lower power of two P, then every other slope of the sequence for 2P.
glassformer.nn.position.ALiBi computes them by a direct formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


def token_embedding(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """ids (B, T) integers in [0, V) -> (B, T, C)."""
    ids = np.asarray(ids)
    assert np.issubdtype(ids.dtype, np.integer), f"token ids must be integers, got {ids.dtype}"
    assert ids.min() >= 0 and ids.max() < table.shape[0], "token id outside the vocabulary"
    return table[ids]  # (B, T, C)


def learned_positions(table: np.ndarray, T: int) -> np.ndarray:
    """(max_len, C) table -> its first T rows (T, C)."""
    assert T <= table.shape[0], f"sequence length T={T} exceeds max_len {table.shape[0]}"
    return table[:T]  # (T, C)


def sinusoidal_table(max_len: int, d_model: int) -> np.ndarray:
    """(max_len, C) float64 table; an odd C simply has one more sine column than cosine columns."""
    p = np.arange(max_len, dtype=np.float64)[:, None]  # (L, 1) positions
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]  # (1, ceil(C/2)) even feature indices
    angle = p / np.power(10000.0, two_i / d_model)  # (L, ceil(C/2)) the angle p·ω_i
    table = np.zeros((max_len, d_model))  # (L, C)
    table[:, 0::2] = np.sin(angle)  # (L, ceil(C/2))
    table[:, 1::2] = np.cos(angle[:, : d_model // 2])  # (L, floor(C/2))
    return table


def _sinusoidal_rows(cfg, T: int) -> np.ndarray:
    assert T <= cfg.max_len, f"sequence length T={T} exceeds max_len {cfg.max_len}"
    return sinusoidal_table(cfg.max_len, cfg.d_model)[:T]  # (T, C)


def rotary(x: np.ndarray, offset: int = 0, base: float = 10000.0) -> np.ndarray:
    """x (..., T, D) of tokens at positions offset..offset+T-1 -> x turned, (..., T, D)."""
    T, D = x.shape[-2:]
    assert D % 2 == 0, f"rotary turns pairs of features: d_head must be even, got {D}"
    p = np.arange(offset, offset + T, dtype=np.float64)[:, None]  # (T, 1) positions
    theta = np.power(base, -np.arange(0, D, 2, dtype=np.float64) / D)  # (D/2,)
    z = x[..., 0::2] + 1j * x[..., 1::2]  # (..., T, D/2) complex: one number per pair
    z = z * np.exp(1j * p * theta)  # (..., T, D/2): each pair turned by p·θ_i
    out = np.empty(x.shape)  # (..., T, D)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


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


@dataclass(frozen=True)
class NumpyScheme:
    stream: Callable | None = None  # (params, cfg, T) -> (T, C)
    rotate: Callable | None = None  # (q, k, cfg, offset) -> (q, k), each (B, H, T, D)
    bias: Callable | None = None  # (cfg, T_q, T_k, offset) -> (H, T_q, T_k)


NUMPY_POSITIONS: dict[str, NumpyScheme] = {
    "learned": NumpyScheme(stream=lambda params, cfg, T: learned_positions(params["pos_embed.table.weight"], T)),
    "sinusoidal": NumpyScheme(stream=lambda params, cfg, T: _sinusoidal_rows(cfg, T)),
    "rotary": NumpyScheme(rotate=lambda q, k, cfg, offset: (rotary(q, offset), rotary(k, offset))),
    "alibi": NumpyScheme(bias=lambda cfg, T_q, T_k, offset: alibi_bias(cfg.n_heads, T_q, T_k, offset)),
    "none": NumpyScheme(),
}

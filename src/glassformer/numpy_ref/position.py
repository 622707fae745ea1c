"""Positions, NumPy edition.

Each position scheme of glassformer.nn.position has its twin here, registered under the same name
in NUMPY_POSITIONS with the same touch points: `stream` (params, cfg, T) -> (T, C) added to the
residual stream; `rotate` (q, k, cfg, offset) -> (q, k) and `bias` (cfg, T_q, T_k, offset) ->
(H, T_q, T_k) inside attention. A scheme that does not use a touch point leaves it None.
Rotary and ALiBi register themselves from their own files, rotary.py and alibi.py; "none" (NoPE)
touches nothing.

Learned: rows 0..T-1 of a trained (max_len, C) table.
Sinusoidal (Vaswani et al. 2017, §3.5), written the way the paper prints it:

    PE[p, 2i]   = sin(p / 10000^(2i / C))
    PE[p, 2i+1] = cos(p / 10000^(2i / C))

The torch version computes 1/10000^(2i/C) as exp(-ln(10000)·2i/C); here it is a plain power,
so the two agree only if both are right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


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


@dataclass(frozen=True)
class NumpyScheme:
    stream: Callable | None = None  # (params, cfg, T) -> (T, C)
    rotate: Callable | None = None  # (q, k, cfg, offset) -> (q, k), each (B, H, T, D)
    bias: Callable | None = None  # (cfg, T_q, T_k, offset) -> (H, T_q, T_k)


NUMPY_POSITIONS: dict[str, NumpyScheme] = {
    "learned": NumpyScheme(stream=lambda params, cfg, T: learned_positions(params["pos_embed.table.weight"], T)),
    "sinusoidal": NumpyScheme(stream=lambda params, cfg, T: _sinusoidal_rows(cfg, T)),
    "none": NumpyScheme(),
}


def _sinusoidal_rows(cfg, T: int) -> np.ndarray:
    assert T <= cfg.max_len, f"sequence length T={T} exceeds max_len {cfg.max_len}"
    return sinusoidal_table(cfg.max_len, cfg.d_model)[:T]  # (T, C)

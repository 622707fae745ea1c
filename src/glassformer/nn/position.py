"""Positional information: attention itself is blind to order, so each position adds a vector.

Learned:     P is an (max_len, C) table trained like any weight (GPT-2).
Sinusoidal:  P[p, 2i]   = sin(p / 10000^(2i/C))
             P[p, 2i+1] = cos(p / 10000^(2i/C))            (Vaswani et al. 2017, §3.5)
  For every frequency, (P[p, 2i], P[p, 2i+1]) is a point on a circle at angle p·ω_i, so
  P[p+k] is P[p] rotated by k·ω_i in each pair, and P[p]·P[p+k] = Σ cos(k·ω_i) depends on k only.

Both return (T, C) for a length T and refuse T > max_len with a message saying what to do.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def check_length(T: int, max_len: int) -> None:
    if T > max_len:
        raise ValueError(
            f"sequence length T={T} exceeds max_len {max_len}: the model has positions for at "
            f"most {max_len} tokens. Crop the input to its last {max_len} tokens (the sampler "
            "does this), or build the model with a larger max_len."
        )


def sinusoidal_table(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The (max_len, C) sinusoidal table of the paper, computed in float64 then cast."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),)
    omega = torch.exp(-math.log(10000.0) * two_i / d_model)  # (ceil(C/2),) = 1 / 10000^(2i/C)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(pos * omega)  # even features
    table[:, 1::2] = torch.cos(pos * omega[: d_model // 2])  # odd features (C may be odd)
    return table.to(dtype)  # (L, C)


class LearnedPositions(nn.Module):
    """A trained (max_len, C) table, indexed by position."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.table = nn.Embedding(max_len, d_model)

    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        check_length(offset + T, self.max_len)
        pos = torch.arange(offset, offset + T, device=self.table.weight.device)  # (T,)
        return self.table(pos)  # (T, C)


class SinusoidalPositions(nn.Module):
    """The fixed table above, kept as a non-persistent buffer (recomputed, never checkpointed)."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", sinusoidal_table(max_len, d_model), persistent=False)

    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        check_length(offset + T, self.max_len)
        return self.table[offset: offset + T]  # (T, C)

    def _apply(self, fn, recurse=True):
        # keep the table exact: converting the module to float64 recomputes it in float64
        out = super()._apply(fn, recurse)
        if self.table.dtype != torch.float32:
            self.table = sinusoidal_table(self.max_len, self.table.size(1), self.table.dtype).to(
                self.table.device)
        return out

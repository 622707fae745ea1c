"""What enters the residual stream: x[b, t] = E[ids[b, t]] + P[t], E (V, C) the token table.

P (max_len, C) is a position table, for the two schemes that add one to the stream (touch point 1
of nn/position.py, where every scheme is registered):

    learned      P trained like any weight (GPT-2)
    sinusoidal   P[p, 2i] = sin(p·ω_i),  P[p, 2i+1] = cos(p·ω_i),  ω_i = 1 / 10000^(2i/C)   (Vaswani §3.5)

Each (sin, cos) pair is a point on a circle at angle p·ω_i, so P[p+k] is P[p] turned by k·ω_i in
every pair, and P[p]·P[p+k] = Σ cos(k·ω_i) depends on the distance k only.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from glassformer.errors import Clause, UsageError, WrongType


def check_token_ids(ids: Tensor, vocab_size: int) -> None:
    """nn.Embedding meets a bad id with a bare IndexError (a device-side assert on a GPU): say what is wrong."""
    if not isinstance(ids, Tensor):
        raise WrongType("error.ids.type", type=type(ids).__name__)
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise UsageError("error.ids.dtype", dtype=ids.dtype)
    if ids.dim() != 2:
        raise UsageError("error.ids.shape", shape=tuple(ids.shape))
    if not ids.numel():
        return
    lo, hi = torch.aminmax(ids)  # one pass over the ids
    if ids.device.type != "cpu":  # reading lo/hi would stall the GPU every step: assert on-device
        torch._assert_async(
            (lo >= 0) & (hi < vocab_size), str(Clause("model.ids_outside_on_device", vocab_size=vocab_size))
        )
        return
    if int(lo) < 0 or int(hi) >= vocab_size:
        bad = ids[(ids < 0) | (ids >= vocab_size)].unique()[:10].tolist()
        raise UsageError("error.ids.outside", bad=bad, vocab_size=vocab_size)


class TokenEmbedding(nn.Module):
    """(B, T) integer ids -> (B, T, C) vectors."""

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.table = nn.Embedding(vocab_size, d_model)

    @property
    def weight(self) -> Tensor:
        return self.table.weight  # (V, C)

    def forward(self, ids: Tensor) -> Tensor:
        if not torch.compiler.is_compiling():  # the check reads values: a graph break under compile
            check_token_ids(ids, self.vocab_size)
        return self.table(ids)  # (B, T, C)


def check_length(T: int, max_len: int) -> None:
    if T > max_len:
        raise UsageError("error.position.too_long", T=T, max_len=max_len)


def sinusoidal_table(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """P above, computed in float64 then cast."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),)
    omega = torch.exp(-math.log(10000.0) * two_i / d_model)  # (ceil(C/2),) = 1 / 10000^(2i/C)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(pos * omega)  # even features
    table[:, 1::2] = torch.cos(pos * omega[: d_model // 2])  # odd features (C may be odd)
    return table.to(dtype)  # (L, C)


class LearnedPositions(nn.Module):
    """(T, offset) -> the (T, C) rows offset..offset+T-1 of a trained table."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.table = nn.Embedding(max_len, d_model)

    def forward(self, T: int, offset: int = 0) -> Tensor:
        check_length(offset + T, self.max_len)
        pos = torch.arange(offset, offset + T, device=self.table.weight.device)  # (T,)
        return self.table(pos)  # (T, C)


class SinusoidalPositions(nn.Module):
    """The same rows of the fixed table, a non-persistent buffer (recomputed, never checkpointed)."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", sinusoidal_table(max_len, d_model), persistent=False)

    def forward(self, T: int, offset: int = 0) -> Tensor:
        check_length(offset + T, self.max_len)
        return self.table[offset : offset + T]  # (T, C)

    def _apply(self, fn, recurse=True):
        # keep the table exact: converting the module to float64 recomputes it in float64
        out = super()._apply(fn, recurse)
        if self.table.dtype != torch.float32:
            self.table = sinusoidal_table(self.max_len, self.table.size(1), self.table.dtype).to(self.table.device)
        return out

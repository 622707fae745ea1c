"""What enters the residual stream: token vectors, then (for a table scheme) the position's vector.

    x[b, t] = E[ids[b, t]] + P[t]          E (V, C) the token table, P (max_len, C) the position table

nn.Embedding on a bad id fails with a bare IndexError (or a device-side assert on a GPU); the token
embedding checks the ids first and says what is wrong.

The two position schemes that add a vector to the stream (touch point 1 of nn/position.py, where
they are registered with the others):

Learned:     P is an (max_len, C) table trained like any weight (GPT-2).
Sinusoidal:  P[p, 2i]   = sin(p / 10000^(2i/C))
             P[p, 2i+1] = cos(p / 10000^(2i/C))            (Vaswani et al. 2017, §3.5)
  For every frequency, (P[p, 2i], P[p, 2i+1]) is a point on a circle at angle p·ω_i, so
  P[p+k] is P[p] rotated by k·ω_i in each pair, and P[p]·P[p+k] = Σ cos(k·ω_i) depends on k only.
Both tables refuse T > max_len with a message saying what to do.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from glassformer.errors import UsageError
from glassformer.nn.formula import ParamFormula


def check_token_ids(ids: torch.Tensor, vocab_size: int) -> None:
    """Raise a ValueError naming the problem if ids are not valid indices into the vocabulary."""
    if not isinstance(ids, torch.Tensor):
        raise TypeError(
            f"token ids must be a torch.Tensor of integers, got {type(ids).__name__}; "
            "wrap them with torch.tensor(ids, dtype=torch.long)."
        )
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise ValueError(
            f"token ids must be integers (torch.long), got dtype {ids.dtype}; "
            "convert with ids.long() — or, for numbers, use SequenceRegressor."
        )
    if ids.dim() != 2:
        raise ValueError(
            f"token ids must have shape (B, T), got {tuple(ids.shape)}; add a batch axis with ids.unsqueeze(0)."
        )
    if not ids.numel():
        return
    lo, hi = torch.aminmax(ids)  # one pass over the ids
    if ids.device.type != "cpu":  # reading lo/hi would stall the GPU every step: assert on-device
        msg = f"token ids outside the vocabulary [0, {vocab_size}): encode with the model's tokenizer"
        torch._assert_async((lo >= 0) & (hi < vocab_size), msg)
        return
    if int(lo) < 0 or int(hi) >= vocab_size:
        bad = ids[(ids < 0) | (ids >= vocab_size)].unique()[:10].tolist()
        raise ValueError(
            f"token ids {bad} are outside the vocabulary [0, {vocab_size}): "
            "encode with the model's own tokenizer, or build the model with a "
            "larger vocab_size."
        )


class TokenEmbedding(nn.Module):
    """(B, T) integer ids -> (B, T, C) vectors."""

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.table = nn.Embedding(vocab_size, d_model)

    def param_formulas(self) -> list[ParamFormula]:
        V, C = self.table.weight.shape
        return [ParamFormula("", "V·C", {"V": V, "C": C}, "one C-vector per token", zh="每个词元一个 C 维向量")]

    @property
    def weight(self) -> torch.Tensor:
        return self.table.weight  # (V, C)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if not torch.compiler.is_compiling():  # the check reads values: a graph break under compile
            check_token_ids(ids, self.vocab_size)
        return self.table(ids)  # (B, T, C)


def check_length(T: int, max_len: int) -> None:
    if T > max_len:
        raise UsageError("error.position.too_long", T=T, max_len=max_len)


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

    def param_formulas(self) -> list[ParamFormula]:
        L, C = self.table.weight.shape
        return [ParamFormula("", "L·C", {"L": L, "C": C}, "one C-vector per position", zh="每个位置一个 C 维向量")]

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

    def param_formulas(self) -> list[ParamFormula]:
        return [
            ParamFormula(
                "",
                "0",
                {},
                "fixed sin/cos table: a buffer, not a parameter",
                zh="固定的 sin/cos 表：是缓冲区，不是参数",
            )
        ]

    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        check_length(offset + T, self.max_len)
        return self.table[offset : offset + T]  # (T, C)

    def _apply(self, fn, recurse=True):
        # keep the table exact: converting the module to float64 recomputes it in float64
        out = super()._apply(fn, recurse)
        if self.table.dtype != torch.float32:
            self.table = sinusoidal_table(self.max_len, self.table.size(1), self.table.dtype).to(self.table.device)
        return out

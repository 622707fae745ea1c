"""Token embedding: a lookup table from token id to a d_model-wide vector.

    x[b, t] = E[ids[b, t]]          E has shape (V, C)

nn.Embedding on a bad id fails with a bare IndexError (or a device-side assert on a GPU); this
wrapper checks the ids first and says what is wrong.
"""

from __future__ import annotations

import torch
from torch import nn

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

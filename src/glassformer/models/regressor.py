"""SequenceRegressor: a Transformer for numbers (the third tutorial's sine-wave model).

    x (B, T, d_in) ─► Linear(d_in, C) ─► + positions ─► blocks ─► Linear(C, d_out) ─► (B, T, d_out)

There is no vocabulary: each step's numbers are embedded by a Linear layer instead of a table.
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.models.base import TransformerStack
from glassformer.nn.hooks import HookPoint


class SequenceRegressor(TransformerStack):
    """(B, T, d_in) floats -> (B, T, d_out) floats."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__(cfg)
        self.in_proj = nn.Linear(cfg.d_in, cfg.d_model, bias=cfg.bias)
        self.out_proj = nn.Linear(cfg.d_model, cfg.d_out, bias=cfg.bias)
        self.hook_pred = HookPoint()
        self.finish_init()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.dtype.is_floating_point or x.dim() != 3 or x.size(-1) != self.cfg.d_in:
            raise ValueError(f"SequenceRegressor expects floats of shape (B, T, {self.cfg.d_in}), "
                             f"got {tuple(x.shape)} {x.dtype}; use x.unsqueeze(-1).float() for (B, T) numbers.")
        h = self.trunk(self.in_proj(x), self.attention_mask(x))  # (B, T, C)
        return self.hook_pred(self.out_proj(h))  # (B, T, d_out)

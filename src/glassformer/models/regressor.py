"""SequenceRegressor: a Transformer for numbers (the third tutorial's sine-wave model).

    x (B, T, d_in) ─► Linear(d_in, C) ─► + positions ─► blocks ─► Linear(C, d_out) ─► (B, T, d_out)

There is no vocabulary: each step's numbers are embedded by a Linear layer instead of a table, so
this kind builds its own ends (models/gpt.py reads a kind's ends as `tok_embed` and `head`).
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.gpt import GPT
from glassformer.models.kinds import register_model_kind
from glassformer.nn.hooks import HookPoint


class NumbersIn(nn.Linear):
    """(B, T, d_in) numbers -> (B, T, C): a Linear that refuses anything else by name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.dtype.is_floating_point or x.dim() != 3 or x.size(-1) != self.in_features:
            raise UsageError(
                "model.regressor_input",
                "SequenceRegressor expects floats of shape (B, T, {d_in}), "
                "got {shape} {dtype}; use x.unsqueeze(-1).float() for (B, T) "
                "numbers.",
                d_in=self.in_features,
                shape=tuple(x.shape),
                dtype=x.dtype,
            )
        return super().forward(x)  # (B, T, C)


@register_model_kind("regressor")
class SequenceRegressor(GPT):
    """(B, T, d_in) floats -> (B, T, d_out) floats: a GPT with numbers at both ends."""

    inputs, loss, samples, causal_only = "numbers", "mse", False, False
    new_cache = None  # type: ignore[assignment]  # it writes no text

    # ---- the ends: numbers in, numbers out -----------------------------------------------------
    def build_ends(self, cfg: ModelConfig) -> None:
        self.in_proj = NumbersIn(cfg.d_in, cfg.d_model, bias=cfg.bias)
        self.out_proj = nn.Linear(cfg.d_model, cfg.d_out, bias=cfg.bias)
        self.hook_embed = HookPoint("embedding", "B T C", "embedding.numbers")
        self.hook_pred = HookPoint("prediction", "B T d_out", "prediction")

    def tie_ends(self, cfg: ModelConfig) -> None:
        """Nothing to tie: numbers in and out share no table."""

    # GPT.forward's ends, under the names a regressor's saved runs and hook points have always had
    @property
    def tok_embed(self) -> NumbersIn:  # type: ignore[override]
        return self.in_proj

    @property
    def head(self) -> nn.Linear:  # type: ignore[override]
        return self.out_proj

    @property
    def hook_logits(self) -> HookPoint:  # type: ignore[override]
        return self.hook_pred

    @property
    def n_outputs(self) -> int:
        return self.cfg.d_out

    def example_input(self, B: int = 1, T: int = 4) -> torch.Tensor:
        steps = torch.arange(T, dtype=torch.float32)[None, :, None]  # (1, T, 1)
        return torch.sin(steps / 2).expand(B, T, self.cfg.d_in).contiguous()  # (B, T, d_in)

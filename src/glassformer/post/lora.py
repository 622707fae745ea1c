"""LoRA, written out: a frozen linear layer plus a trainable low-rank update.

Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models", eq. 3 and §4.1:

    h = W₀x + ΔWx = W₀x + (α/r)·B A x        W₀ (d_out, d_in) frozen
                                               A (r, d_in)  Kaiming-uniform, B (d_out, r) zeros

B starts at zero, so the wrapped model is exactly the pretrained one at step 0, and only A and B —
r·(d_in + d_out) numbers instead of d_out·d_in — are trained. Dividing by r (the α/r scaling) lets one
α serve every rank: the paper tunes α once and keeps it when r changes. Dropout acts on the input of
the low-rank branch only (``B A dropout(x)``), as in the authors' loralib and peft. A is initialised as
``nn.Linear`` initialises its weight, ``kaiming_uniform_(a=√5)``, as loralib and peft do.

**Merge.** For inference ΔW can be folded into the weight, W = W₀ + (α/r)·B A, and the layer costs what
it did before. Unmerging here restores the saved W₀ itself rather than subtracting ΔW again (peft
subtracts; in floating point (W₀ + ΔW) − ΔW is not always W₀ bit for bit), so merge then unmerge is
exact. ``merge_and_unload`` replaces each wrapper by its merged ``nn.Linear``.

**Where.** ``apply_lora(model, pattern, r, alpha)`` wraps every ``nn.Linear`` whose full name (as
``named_modules`` spells it) matches the regular expression ``pattern`` entirely (peft's
``target_modules`` given as a string works the same way), freezes every other parameter, and returns
the wrapped names. Which projections LoRA reaches (queries and values in the paper; every linear layer
in QLoRA) is then one pattern.
"""

from __future__ import annotations

import math
import re

import torch
import torch.nn as nn
from torch import Tensor

from glassformer.errors import UsageError


def check_lora(base: nn.Linear, r: int, alpha: float, dropout: float, name: str = "") -> None:
    """Refuse a rank outside 1..min(d_out, d_in), a non-positive alpha, a dropout outside [0, 1)."""
    d_out, d_in = base.weight.shape
    if type(r) is not int or not 1 <= r <= min(d_out, d_in):
        raise UsageError(
            "lora.rank",
            "LoRA rank r={r} for {name} ({d_out} × {d_in}) must be a "
            "whole number from 1 to {most}: a rank above min(out, in) "
            "adds parameters, not expressiveness.",
            r=r,
            name=name or "linear",
            d_out=d_out,
            d_in=d_in,
            most=min(d_out, d_in),
        )
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0:
        raise UsageError(
            "lora.alpha",
            "LoRA alpha={alpha} must be a positive number (the update is scaled by alpha / r).",
            alpha=alpha,
        )
    if not 0.0 <= dropout < 1.0:
        raise UsageError("lora.dropout", "LoRA dropout={p} must be at least 0 and below 1.", p=dropout)


class LoRALinear(nn.Module):
    """``base(x) + (alpha / r) · B(A(dropout(x)))`` with ``base`` frozen."""

    def __init__(self, base: nn.Linear, r: int, alpha: float, dropout: float = 0.0, name: str = "") -> None:
        super().__init__()
        check_lora(base, r, alpha, dropout, name)
        d_out, d_in = base.weight.shape
        self.base, self.r, self.alpha, self.name = base, r, alpha, name
        self.scaling = alpha / r
        base.requires_grad_(False)
        kind = {"device": base.weight.device, "dtype": base.weight.dtype}
        self.A = nn.Parameter(torch.empty(r, d_in, **kind))  # (r, d_in)
        self.B = nn.Parameter(torch.zeros(d_out, r, **kind))  # (d_out, r)
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.dropout = nn.Dropout(dropout)
        self.merged = False
        self._unmerged: Tensor | None = None  # W₀ kept while merged, so unmerge restores it exactly

    def delta_weight(self) -> Tensor:
        """ΔW = (α/r)·B A, the update the branch adds: (d_out, d_in)."""
        return (self.B @ self.A) * self.scaling  # (d_out, d_in)

    def forward(self, x: Tensor) -> Tensor:
        """x (..., d_in) -> (..., d_out)."""
        h = self.base(x)  # (..., d_out)  W₀x + b (W₀ + ΔW when merged)
        if self.merged:
            return h
        low = self.dropout(x) @ self.A.T  # (..., r)
        return h + (low @ self.B.T) * self.scaling  # (..., d_out)

    @torch.no_grad()
    def merge(self) -> None:
        """W ← W₀ + ΔW; the branch is then skipped."""
        if self.merged:
            raise UsageError(
                "lora.merged",
                "{name} is merged already: unmerge it before merging again or training it.",
                name=self.name or "linear",
            )
        self._unmerged = self.base.weight.detach().clone()  # (d_out, d_in)
        self.base.weight += self.delta_weight()
        self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        """W ← the saved W₀, bit for bit."""
        if not self.merged or self._unmerged is None:
            raise UsageError(
                "lora.not_merged", "{name} is not merged, so there is nothing to unmerge.", name=self.name or "linear"
            )
        self.base.weight.copy_(self._unmerged)
        self._unmerged, self.merged = None, False

    def extra_repr(self) -> str:
        return f"r={self.r}, alpha={self.alpha}, scaling={self.scaling:g}, merged={self.merged}"


def _set(model: nn.Module, name: str, module: nn.Module) -> None:
    parent, _, child = name.rpartition(".")
    setattr(model.get_submodule(parent) if parent else model, child, module)


def apply_lora(model: nn.Module, pattern: str, r: int, alpha: float, dropout: float = 0.0) -> list[str]:
    """Wrap every ``nn.Linear`` of ``model`` whose full name matches ``pattern`` (``re.fullmatch``) in
    a LoRALinear, in place; freeze every other parameter. Returns the wrapped names, in model order."""
    linears = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    chosen = [n for n in linears if re.fullmatch(pattern, n)]
    if not chosen:
        raise UsageError(
            "lora.no_match",
            "the pattern {pattern!r} matches no linear layer by its full name; the linear layers are: {names}.",
            pattern=pattern,
            names=", ".join(linears) or "-",
        )
    for name in chosen:  # every setting checked before the model is touched
        check_lora(model.get_submodule(name), r, alpha, dropout, name)
    model.requires_grad_(False)
    for name in chosen:
        _set(model, name, LoRALinear(model.get_submodule(name), r, alpha, dropout, name))
    return chosen


def lora_layers(model: nn.Module) -> dict[str, LoRALinear]:
    """Every LoRALinear of ``model`` by its name."""
    return {n: m for n, m in model.named_modules() if isinstance(m, LoRALinear)}


def merge_lora(model: nn.Module) -> None:
    """Merge every LoRA layer (see LoRALinear.merge)."""
    for layer in lora_layers(model).values():
        layer.merge()


def unmerge_lora(model: nn.Module) -> None:
    """Unmerge every LoRA layer, restoring each W₀ exactly."""
    for layer in lora_layers(model).values():
        layer.unmerge()


def merge_and_unload(model: nn.Module) -> nn.Module:
    """Fold each update into its weight and put the plain ``nn.Linear`` back (peft's ``merge_and_unload``):
    the model is its original architecture again, with new weights (still frozen, as apply_lora left
    every parameter; ``model.requires_grad_(True)`` trains it whole)."""
    for name, layer in lora_layers(model).items():
        if not layer.merged:
            layer.merge()
        layer._unmerged = None
        _set(model, name, layer.base)
    return model

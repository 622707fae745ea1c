"""When a loss turns NaN or inf: say where, with what learning rate, and which gradient was largest.

The trainer does not read each step's loss back from the device (that would stall a GPU every
step). `PendingSteps` keeps the losses and every parameter's gradient norm of the steps not yet
checked (the norms cost nothing extra: the global norm for clipping is built from them), and
checks them all at the next log; when a loss is not finite it names the parameter that blew up,
at that step and at the last healthy one.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from glassformer.messages import t

ADVISED_CLIP = 1.0  # the grad_clip a non-finite loss's message suggests


class NonFiniteLoss(RuntimeError):
    """The loss became NaN or inf; the message names the step, the lr and the largest gradient."""


def largest_gradient(names: tuple[str, ...], norms: torch.Tensor) -> str:
    """One phrase: how many norms are not finite (and the first), or the largest and its norm."""
    bad = ~torch.isfinite(norms)  # (P,)
    if bad.any():
        first = names[int(bad.nonzero()[0])]
        return t("train.nonfinite.grads", bad=int(bad.sum()), total=len(norms), first=first)
    i = int(norms.argmax())
    return t("train.nonfinite.largest", name=names[i], norm=float(norms[i]))


def explain_nonfinite(
    names: tuple[str, ...],
    step: int,
    loss: float,
    lr: float,
    norms: torch.Tensor,
    previous: tuple[int, torch.Tensor] | None,
) -> str:
    """The message of a NonFiniteLoss: the bad step, and the last finite one if there was one."""
    before = ""
    if previous is not None:
        prev_step, prev = previous
        before = t("train.nonfinite.before", step=prev_step, gradient=largest_gradient(names, prev))
    return t(
        "train.nonfinite",
        loss=loss,
        step=step,
        lr=lr,
        gradient=largest_gradient(names, norms),
        before=before,
        clip=ADVISED_CLIP,
    )


class PendingSteps:
    """Losses and gradient norms of the steps since the last check, still on the device."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.steps: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        self.last_finite: tuple[int, torch.Tensor] | None = None  # (step, grad norms) last known good

    def add(self, step: int, loss: torch.Tensor, norms: torch.Tensor, total: torch.Tensor) -> None:
        self.steps.append((step, loss, norms, total))

    def __bool__(self) -> bool:
        return bool(self.steps)

    def check(self, lr_at: Callable[[int], float]) -> tuple[list[float], list[float]]:
        """The one host sync: read the losses and global norms back; raise NonFiniteLoss on a bad one."""
        losses = torch.stack([loss for _, loss, _, _ in self.steps]).tolist()  # host sync
        totals = torch.stack([total for *_, total in self.steps]).tolist()
        for (step, _, norms, _), loss in zip(self.steps, losses, strict=False):
            if not math.isfinite(loss):
                raise NonFiniteLoss(explain_nonfinite(self.names, step, loss, lr_at(step - 1), norms, self.last_finite))
            self.last_finite = (step, norms)
        self.steps = []
        return losses, totals

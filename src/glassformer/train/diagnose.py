"""When a loss turns NaN or inf: say where, with what learning rate, and which gradient was largest.

The trainer keeps every parameter's gradient norm of the steps it has not yet checked (they cost
nothing extra: the global norm for clipping is built from them), so when a loss is found
non-finite it can name the parameter that blew up, at that step and at the last healthy one.
"""

from __future__ import annotations

import torch


class NonFiniteLoss(RuntimeError):
    """The loss became NaN or inf; the message names the step, the lr and the largest gradient."""


def largest_gradient(names: tuple[str, ...], norms: torch.Tensor) -> str:
    """One phrase: how many norms are not finite (and the first), or the largest and its norm."""
    bad = ~torch.isfinite(norms)  # (P,)
    if bad.any():
        first = names[int(bad.nonzero()[0])]
        return f"{int(bad.sum())} of {len(norms)} gradient norms are not finite (first: {first})"
    i = int(norms.argmax())
    return f"largest gradient {names[i]} (norm {float(norms[i]):.3g})"


def explain_nonfinite(names: tuple[str, ...], step: int, loss: float, lr: float, norms: torch.Tensor,
                      previous: tuple[int, torch.Tensor] | None) -> str:
    """The message of a NonFiniteLoss: the bad step, and the last finite one if there was one."""
    text = f"loss became {loss} at step {step} (lr {lr:.3g}); {largest_gradient(names, norms)}"
    if previous is not None:
        prev_step, prev = previous
        text += f"; at step {prev_step}, the last finite one: {largest_gradient(names, prev)}"
    return text + ". Try a lower lr, grad_clip=1.0, or a longer warmup."

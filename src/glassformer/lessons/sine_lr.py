"""Lesson 3's learning-rate schedules, all from glassformer.train.optim.

The tutorial writes   Adam(lr=1e-3) + LambdaLR(lambda s: min((s+1)^-0.5, (s+1)·4000^-1.5)).
LambdaLR multiplies the base lr by the lambda, so the learning rate actually used is

    1e-3 · min((s+1)^-0.5, (s+1)·4000^-1.5)  =  1e-3 · noam(s, d_model=1, warmup=4000)

The lambda is the Noam formula without its d_model^-0.5 factor; Noam's formula is already a
learning rate (Vaswani et al. 2017, eq. 3), and scaling it by 1e-3 again leaves a peak of
1e-3 · 4000^-0.5, reached only after 4000 steps (the lesson prints the curve). The alternatives:

    noam    the paper's formula used as the learning rate, d_model = 32, warmup WARMUP_STEPS
    cosine  linear warmup to COSINE_LR, cosine decay to COSINE_MIN over the planned run
"""

from __future__ import annotations

from typing import Callable

from glassformer.lessons.published import TUTORIAL_BASE_LR, TUTORIAL_WARMUP
from glassformer.train.optim import cosine, noam

SCHEDULES = ("noam", "cosine", "tutorial")  # the first is the default
WARMUP_STEPS = 400  # a few epochs of the lesson's run; Noam then peaks at (d_model · 400)^-0.5
COSINE_LR, COSINE_MIN = 3e-3, 1e-5


def lr_function(name: str, total_steps: int, d_model: int) -> Callable[[int], float]:
    """step -> learning rate for the named schedule over a run of total_steps."""
    if name == "tutorial":
        return lambda s: TUTORIAL_BASE_LR * noam(s, d_model=1, warmup=TUTORIAL_WARMUP)
    if name == "noam":
        return lambda s: noam(s, d_model=d_model, warmup=WARMUP_STEPS)
    if name == "cosine":
        warmup = min(WARMUP_STEPS, total_steps // 10)
        return lambda s: cosine(s, lr=COSINE_LR, min_lr=COSINE_MIN, warmup=warmup, max_steps=total_steps)
    raise ValueError(f"--schedule {name!r} is not one of {list(SCHEDULES)}.")


def curves(total_steps: int, d_model: int) -> dict[str, list[float]]:
    """Every schedule's learning rate at every step of the run (for the table and the PNG)."""
    return {name: [lr_function(name, total_steps, d_model)(s) for s in range(total_steps)] for name in SCHEDULES}


def report_steps(total_steps: int) -> list[int]:
    """A few steps worth printing: the start, inside and at the end of warmups, the end."""
    marks = [0, 100, WARMUP_STEPS - 1, 1000, TUTORIAL_WARMUP - 1, total_steps - 1]
    return sorted({s for s in marks if 0 <= s < total_steps})

"""Learning-rate schedules as plain functions of the step, so any of them can be printed.

constant   lr
cosine     linear warmup 0 -> lr over `warmup` steps, then cosine decay to `min_lr` at
           `max_steps` (nanoGPT's get_lr; Loshchilov & Hutter 2017 without restarts)
noam       d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)        (Vaswani et al. 2017, eq. 3)
           This is already a learning rate (it peaks at (d_model·warmup)^-0.5); multiplying it by
           a base lr, as a LambdaLR with base lr 1e-3 does, shrinks it a thousandfold.
"""

from __future__ import annotations

import math


def constant(step: int, lr: float) -> float:
    return lr


def cosine(step: int, lr: float, min_lr: float, warmup: int, max_steps: int) -> float:
    """Warmup then cosine; `step` counts from 0."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step >= max_steps:
        return min_lr
    progress = (step - warmup) / max(1, max_steps - warmup)  # 0 -> 1
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr - min_lr)


def noam(step: int, d_model: int, warmup: int) -> float:
    """The paper's schedule; `step` counts from 0 here (the formula's step is step + 1)."""
    s = step + 1
    return d_model**-0.5 * min(s**-0.5, s * warmup**-1.5)


def lr_at(step: int, train_cfg) -> float:
    """The learning rate a TrainConfig asks for at `step`."""
    if train_cfg.lr_schedule == "cosine":
        return cosine(step, train_cfg.lr, train_cfg.min_lr, train_cfg.warmup_steps, train_cfg.max_steps)
    return constant(step, train_cfg.lr)

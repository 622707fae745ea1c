"""The losses the trainer minimises, one per kind of output.

    next-token cross-entropy   loss = -1/N Σ log softmax(logits[b, t])[targets[b, t]]
                               over the N targets not equal to ignore_index (padding)
    mean squared error         loss = 1/N Σ (pred - target)²   over every number

logits (B, T, V) are flattened to (B·T, V) and targets (B, T) to (B·T,). A model kind names its
loss (`model.loss`: "next_token" or "mse"); the trainer looks it up in LOSSES.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"logits {tuple(logits.shape)} and targets {tuple(targets.shape)} disagree: "
                         "targets must be (B, T) for logits (B, T, V).")
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=ignore_index)  # ()


def mse_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if pred.shape != target.shape:
        raise ValueError(f"predictions {tuple(pred.shape)} and targets {tuple(target.shape)} disagree: "
                         "a regressor's targets have the shape of its output (B, T, d_out).")
    return ((pred - target) ** 2).mean()  # ()


LOSSES = {"next_token": next_token_loss, "mse": mse_loss}

"""The losses the trainer minimises, one per kind of output.

    next-token cross-entropy   loss = -1/N Σ log softmax(logits[b, t])[targets[b, t]]
                               over the N targets not equal to ignore_index (padding)
    label-smoothed             loss = 1/N Σ [ (1-ε)·(-log p[target]) + ε·mean_v(-log p[v]) ]
      cross-entropy            the cross-entropy against the target (1-ε)·one-hot + ε/V: the model
                               is trained to keep a little probability on every token, so it never
                               grows its logits without bound. ε = 0.1 in the paper (Vaswani et al.
                               2017, §5.4; Szegedy et al. 2016, §7). ε = 0 is next-token cross-entropy.
    mean squared error         loss = 1/N Σ (pred - target)²   over every number

logits (B, T, V) are flattened to (B·T, V) and targets (B, T) to (B·T,). A model kind names its
loss (`model.loss`: "next_token", "label_smoothed" or "mse"); the trainer looks it up in LOSSES.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.errors import UsageError


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    if logits.shape[:-1] != targets.shape:
        raise UsageError(
            "loss.shapes",
            "logits {logits} and targets {targets} disagree: targets must be (B, T) for logits (B, T, V).",
            logits=tuple(logits.shape),
            targets=tuple(targets.shape),
        )
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=ignore_index)  # ()


def label_smoothed_loss(
    logits: torch.Tensor, targets: torch.Tensor, smoothing: float = 0.1, ignore_index: int = -100
) -> torch.Tensor:
    if logits.shape[:-1] != targets.shape:
        raise UsageError(
            "loss.shapes",
            "logits {logits} and targets {targets} disagree: targets must be (B, T) for logits (B, T, V).",
            logits=tuple(logits.shape),
            targets=tuple(targets.shape),
        )
    if not 0.0 <= smoothing < 1.0:
        raise UsageError("loss.smoothing", "label smoothing must be in [0, 1), got {smoothing}.", smoothing=smoothing)
    log_p = F.log_softmax(logits, dim=-1)  # (B, T, V)
    keep = targets != ignore_index  # (B, T) the positions that have a target
    nll = -log_p.gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)  # (B, T) -log p[target]
    spread = -log_p.mean(dim=-1)  # (B, T) the cross-entropy against a uniform guess
    per_token = (1.0 - smoothing) * nll + smoothing * spread  # (B, T)
    return per_token[keep].mean()  # () over the kept positions only


def mse_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if pred.shape != target.shape:
        raise UsageError(
            "loss.mse_shapes",
            "predictions {pred} and targets {target} disagree: a "
            "regressor's targets have the shape of its output (B, T, "
            "d_out).",
            pred=tuple(pred.shape),
            target=tuple(target.shape),
        )
    return ((pred - target) ** 2).mean()  # ()


LOSSES = {"next_token": next_token_loss, "label_smoothed": label_smoothed_loss, "mse": mse_loss}

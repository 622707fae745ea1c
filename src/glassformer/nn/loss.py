"""Next-token cross-entropy: the loss every language model here is trained with.

    loss = -1/N Σ log softmax(logits[b, t])[targets[b, t]]     over the N targets not ignored

logits (B, T, V) are flattened to (B·T, V) and targets (B, T) to (B·T,).
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

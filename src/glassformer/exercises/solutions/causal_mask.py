"""Solution: the causal mask."""

import torch


def causal_mask(T: int) -> torch.Tensor:
    """(T, T) bool, True = may attend: query i sees key j exactly when j <= i."""
    i = torch.arange(T)[:, None]  # (T, 1) query positions
    j = torch.arange(T)[None, :]  # (1, T) key positions
    return j <= i  # (T, T)

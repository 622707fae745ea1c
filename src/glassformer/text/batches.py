"""Batches: random windows of a long id array, as (input, target) pairs for next-token prediction.

A language model sees ``x = data[s : s+T]`` and must predict ``y = data[s+1 : s+T+1]``: every position's
target is the token after it, so one window of T+1 ids gives T training examples at once.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer.errors import UsageError


def get_batch(
    data: np.ndarray,
    batch_size: int,
    seq_len: int,
    generator: torch.Generator,
    device: str | torch.device = "cpu",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw ``batch_size`` random windows of ``seq_len`` tokens from ``data`` (e.g. a prepared memmap).

    Why this shape of code: the start offsets come from a torch.Generator (a CPU one), so a seed fixes
    the batches exactly and the caller's checkpoint can save and restore that generator's state; the
    windows are gathered with one NumPy fancy-index op, so a memmap reads only the bytes it needs and
    no Python loop copies samples one by one.

    Returns x, y: int64 tensors of shape (B, T) with y[:, t] == x[:, t + 1] for t < T - 1.
    """
    n = len(data)
    if n < seq_len + 1:
        raise UsageError("error.batch.short", n=n, need=seq_len + 1)
    # 1) random start offsets; the largest start still leaves room for the shifted target
    starts = torch.randint(0, n - seq_len, (batch_size,), generator=generator)  # (B,)
    # 2) one index matrix: row b is s_b, s_b+1, ..., s_b+T
    index = starts.numpy()[:, None] + np.arange(seq_len + 1)  # (B, T+1)
    # 3) one gather from the (possibly on-disk) array, widened to int64 for nn.Embedding / cross_entropy
    windows = torch.from_numpy(np.asarray(data[index], dtype=np.int64))  # (B, T+1) int64
    # 4) input and target are the same window, offset by one
    x = windows[:, :-1].contiguous()  # (B, T)
    y = windows[:, 1:].contiguous()  # (B, T)
    return x.to(device), y.to(device)

"""Solution: the padding mask."""

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """ids (B, T) -> (B, 1, 1, T) bool: True where the KEY is a real token.

    The two axes of size 1 broadcast over heads and queries: every query of every head is
    stopped from looking at a padding key.
    """
    return (ids != pad_id)[:, None, None, :]  # (B, T) -> (B, 1, 1, T)

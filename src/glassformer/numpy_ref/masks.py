"""Masks, NumPy edition. Same convention as glassformer.nn.attention: bool, True = may attend."""

from __future__ import annotations

import numpy as np


def causal_mask(T: int) -> np.ndarray:
    """(T, T): query i may see key j exactly when j <= i."""
    i = np.arange(T)[:, None]  # (T, 1) query positions
    j = np.arange(T)[None, :]  # (1, T) key positions
    return j <= i  # (T, T)


def padding_mask(ids: np.ndarray, pad_id: int) -> np.ndarray:
    """(B, 1, 1, T): no query may look at a padding key."""
    return (np.asarray(ids) != pad_id)[:, None, None, :]  # (B, 1, 1, T)

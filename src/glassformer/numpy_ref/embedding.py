"""Token embedding: row ids[b, t] of the (V, C) table.  x[b, t] = E[ids[b, t]]"""

from __future__ import annotations

import numpy as np


def token_embedding(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """ids (B, T) integers in [0, V) -> (B, T, C)."""
    ids = np.asarray(ids)
    assert np.issubdtype(ids.dtype, np.integer), f"token ids must be integers, got {ids.dtype}"
    assert ids.min() >= 0 and ids.max() < table.shape[0], "token id outside the vocabulary"
    return table[ids]  # (B, T, C)

"""The NumPy twin of nn/attention_variants.py, float64: key-value heads repeated, QK-norm, and the
sliding-window mask written as one comparison of positions.

    query head h reads key-value head ⌊h / g⌋        (Ainslie et al. 2023)
    query at i sees key j  ⟺  i - W < j ≤ i           (Mistral 7B, as transformers counts W)
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.linear import scope
from glassformer.numpy_ref.rmsnorm import rms_norm


def repeat_kv(x: np.ndarray, groups: int) -> np.ndarray:
    """(B, H_kv, T, D) -> (B, H_kv·g, T, D): each key-value head repeated g times in place."""
    return np.repeat(x, groups, axis=1)  # (B, H, T, D)


def qk_norm(q: np.ndarray, k: np.ndarray, params: dict[str, np.ndarray], eps: float) -> tuple[np.ndarray, np.ndarray]:
    """q (B, H, T, D), k (B, H_kv, T, D) normalised over D with a QKNorm's weights ("q_norm.", "k_norm.")."""
    return rms_norm(q, scope(params, "q_norm."), eps), rms_norm(k, scope(params, "k_norm."), eps)


def sliding_window_mask(T: int, window: int, offset: int = 0) -> np.ndarray:
    """(T, offset+T) bool: query offset+i sees key j exactly when offset+i - W < j <= offset+i."""
    i = np.arange(offset, offset + T)[:, None]  # (T, 1) query positions
    j = np.arange(offset + T)[None, :]  # (1, offset+T) key positions
    return (j <= i) & (j > i - window)  # (T, offset+T)

"""The NumPy twin of nn/rmsnorm.py, float64: RMSNorm written as a sum of squares.

RMSNorm(x) = x / √(Σ x² / C + ε) · g        Zhang & Sennrich 2019, eq. 4 (ε inside the root)
"""

from __future__ import annotations

import numpy as np


def rms_norm(x: np.ndarray, params: dict[str, np.ndarray], eps: float) -> np.ndarray:
    """x (..., C) -> (..., C) with params["weight"] (C,), the gain g."""
    sum_sq = np.einsum("...c,...c->...", x, x)  # (...,) Σ x²
    rms = np.sqrt(sum_sq / x.shape[-1] + eps)  # (...,)
    return x / rms[..., None] * params["weight"]  # (..., C)

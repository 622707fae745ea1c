"""Rotary position embedding (RoPE), NumPy edition, written with complex numbers.

    Su et al. 2021, "RoFormer", §3.2: read each pair of features (x_2i, x_2i+1) as the complex
    number z_i = x_2i + i·x_2i+1; the token at position p multiplies it by e^(i·p·θ_i),
    θ_i = 10000^(-2i/D). Turning by an angle is multiplying by a unit complex number.

glassformer.nn.rotary writes the same turn as a 2×2 rotation of real numbers; the two agree only
if both are right (tests/reference/test_numpy_twin.py).
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.position import NUMPY_POSITIONS, NumpyScheme


def rotary(x: np.ndarray, offset: int = 0, base: float = 10000.0) -> np.ndarray:
    """x (..., T, D) of tokens at positions offset..offset+T-1 -> x turned, (..., T, D)."""
    T, D = x.shape[-2:]
    assert D % 2 == 0, f"rotary turns pairs of features: d_head must be even, got {D}"
    p = np.arange(offset, offset + T, dtype=np.float64)[:, None]  # (T, 1) positions
    theta = np.power(base, -np.arange(0, D, 2, dtype=np.float64) / D)  # (D/2,)
    z = x[..., 0::2] + 1j * x[..., 1::2]  # (..., T, D/2) complex: one number per pair
    z = z * np.exp(1j * p * theta)  # (..., T, D/2): each pair turned by p·θ_i
    out = np.empty(x.shape)  # (..., T, D)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


NUMPY_POSITIONS["rotary"] = NumpyScheme(rotate=lambda q, k, cfg, offset: (rotary(q, offset), rotary(k, offset)))

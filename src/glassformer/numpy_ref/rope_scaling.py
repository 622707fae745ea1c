"""The NumPy twin of nn/rope_scaling.py, float64: the scaled frequencies one pair at a time, and the
half-split rotation as complex numbers.

Each frequency is written as the formula for one pair i, in a loop (the torch version works on
whole vectors), and the rotation multiplies z = x_i + j·x_{i+D/2} by m·e^(j·p·θ_i) (the torch version
uses cos and sin). `scaling` is anything with nn/rope_scaling.py's RopeScaling fields.
"""

from __future__ import annotations

import math

import numpy as np


def scaled_frequency(i: int, d_head: int, base: float, scaling, seq_len: int | None = None) -> float:
    """θ'_i of pair i under the scaling (see nn/rope_scaling.py's docstring for each equation)."""
    kind, s, L = scaling.kind, scaling.factor, scaling.original_max_len
    if kind == "dynamic":
        length = max(seq_len or 0, L)
        base = base * (s * length / L - (s - 1)) ** (d_head / (d_head - 2))
    theta = 1.0 / base ** (2 * i / d_head)
    if kind in ("none", "dynamic"):
        return theta
    if kind == "linear":
        return theta / s
    if kind == "llama3":
        wavelength = 2 * math.pi / theta
        lo, hi = scaling.low_freq_factor, scaling.high_freq_factor
        if wavelength < L / hi:
            return theta
        if wavelength > L / lo:
            return theta / s
        kappa = (L / wavelength - lo) / (hi - lo)
        return (1 - kappa) * theta / s + kappa * theta
    # yarn: the ramp's bounds are the pair indices where θ_i·L/(2π) equals beta_fast and beta_slow turns
    low = d_head * math.log(L / (scaling.beta_fast * 2 * math.pi)) / (2 * math.log(base))
    high = d_head * math.log(L / (scaling.beta_slow * 2 * math.pi)) / (2 * math.log(base))
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d_head - 1)
    if low == high:
        high += 0.001
    gamma = 1 - min(max((i - low) / (high - low), 0.0), 1.0)
    return (1 - gamma) * theta / s + gamma * theta


def rope_parameters(d_head: int, base: float, scaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """(θ' (D/2,), attention factor m)."""
    inv_freq = np.array([scaled_frequency(i, d_head, base, scaling, seq_len) for i in range(d_head // 2)])  # (D/2,)
    m = 1.0
    if scaling.kind == "yarn":
        m = scaling.attention_factor if scaling.attention_factor is not None else 1.0
        if scaling.attention_factor is None and scaling.factor > 1:
            m = 0.1 * math.log(scaling.factor) + 1
    return inv_freq, m


def rotate_half_split(x: np.ndarray, inv_freq: np.ndarray, offset: int = 0, m: float = 1.0) -> np.ndarray:
    """x (..., T, D) of tokens at positions offset..offset+T-1 -> turned, pair i = features i, i + D/2."""
    T, D = x.shape[-2:]
    p = np.arange(offset, offset + T, dtype=np.float64)[:, None]  # (T, 1)
    z = x[..., : D // 2] + 1j * x[..., D // 2 :]  # (..., T, D/2) one complex number per pair
    z = z * m * np.exp(1j * p * inv_freq)  # (..., T, D/2) turned by p·θ_i, scaled by m
    return np.concatenate([z.real, z.imag], axis=-1)  # (..., T, D)

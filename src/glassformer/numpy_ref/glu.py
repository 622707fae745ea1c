"""The NumPy twin of nn/glu.py, float64: the gated feed-forward, with SiLU written through exp.

FFN_GLU(x) = W_down (act(x W_gateᵀ) ⊙ x W_upᵀ)     Shazeer 2020, eq. 5-6
SwiGLU: act(z) = z / (1 + e^(-z));   GeGLU: act(z) = z · Φ(z) (forward.py's erf GELU)
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.activations import gelu
from glassformer.numpy_ref.linear import linear, scope


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


GATES = {"swiglu": silu, "geglu": gelu}


def gated_feed_forward(x: np.ndarray, params: dict[str, np.ndarray], variant: str) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one GatedFeedForward ("gate.", "up.", "down.")."""
    gate = GATES[variant](linear(x, scope(params, "gate.")))  # (B, T, F)
    up = linear(x, scope(params, "up."))  # (B, T, F)
    return linear(gate * up, scope(params, "down."))  # (B, T, C)

"""The position-wise feed-forward network, NumPy edition, and its three activations.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂                      (Vaswani et al. 2017, §3.3)

    relu(x)      = max(x, 0)
    gelu(x)      = x · Φ(x) = x · ½ (1 + erf(x / √2))       (Hendrycks & Gimpel 2016)
    gelu_tanh(x) = ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))) (their approximation; GPT-2 uses it)

NumPy has no erf, so the exact GELU maps Python's math.erf over the array.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer.numpy_ref.linear import linear, scope

_erf = np.vectorize(math.erf, otypes=[np.float64])


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def gelu(x: np.ndarray) -> np.ndarray:
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


ACTIVATIONS = {"relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh}


def feed_forward(x: np.ndarray, params: dict, activation: str) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one FeedForward (scoped to "ffn.")."""
    hidden = ACTIVATIONS[activation](linear(x, scope(params, "fc1.")))  # (B, T, F)
    return linear(hidden, scope(params, "fc2."))  # (B, T, C)

"""Solution: the position-wise feed-forward network."""

import math

import torch


def feed_forward(x, w1, b1, w2, b2, activation="relu"):
    """x (B, T, C) -> (B, T, C):  act(x·W₁ᵀ + b₁)·W₂ᵀ + b₂.

    w1 (F, C), b1 (F,) or None, w2 (C, F), b2 (C,) or None: PyTorch's (out, in) layout.
    activation: "relu", "gelu" (exact, x·Φ(x)) or "gelu_tanh" (GPT-2's approximation).
    """
    h = x @ w1.T  # (B, T, F)
    if b1 is not None:
        h = h + b1  # (B, T, F)
    h = _activate(h, activation)  # (B, T, F)
    y = h @ w2.T  # (B, T, C)
    return y + b2 if b2 is not None else y  # (B, T, C)


def _activate(h, activation):
    if activation == "relu":
        return torch.clamp(h, min=0.0)
    if activation == "gelu":  # x·Φ(x), Φ the standard normal CDF
        return h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
    if activation == "gelu_tanh":
        return 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    raise ValueError(f"unknown activation {activation!r}")

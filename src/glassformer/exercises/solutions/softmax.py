"""Solution: a numerically stable softmax."""

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m), with m = max_j x_j along `dim`.

    Subtracting m changes nothing mathematically (it cancels between numerator and denominator)
    but keeps every exponent <= 0, so exp never overflows and the largest term is exactly 1.
    """
    m = x.amax(dim=dim, keepdim=True)  # x's shape with `dim` of size 1
    e = torch.exp(x - m)  # x's shape, entries in (0, 1]; exactly 0 where x is -inf
    return e / e.sum(dim=dim, keepdim=True)  # x's shape, sums to 1 along `dim`

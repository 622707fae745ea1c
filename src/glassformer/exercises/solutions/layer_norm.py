"""Solution: LayerNorm over the last axis."""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    """x (..., C) -> (..., C):  γ · (x - mean) / √(var + ε) + β, per token, over its C features.

    var is the biased variance (divide by C, not C - 1): it describes these C numbers, it does
    not estimate a population. weight = γ (C,), bias = β (C,) or None.
    """
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    centred = x - mean  # (..., C)
    var = (centred**2).mean(dim=-1, keepdim=True)  # (..., 1)
    y = centred / torch.sqrt(var + eps) * weight  # (..., C)
    return y + bias if bias is not None else y  # (..., C)

"""Solution: scaled dot-product attention that stays NaN-free when a query row sees no key."""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q·Kᵀ/√D, hidden keys at -inf)·V.  q (..., T_q, D), k and v (..., T_k, D);
    mask bool, True = may attend, broadcastable to (..., T_q, T_k).
    Returns (output (..., T_q, D), weights (..., T_q, T_k))."""
    D = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # (..., T_q, T_k)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)
        return weights @ v, weights  # (..., T_q, D), (..., T_q, T_k)
    scores = scores.masked_fill(~mask, float("-inf"))  # hidden keys can get no weight
    alive = mask.any(dim=-1, keepdim=True)  # (..., T_q or 1, 1): does the row see any key?
    # a row with every key hidden would be softmax(all -inf) = 0/0 = NaN: give it zeros
    # before the softmax (so no NaN is ever made, not even in the backward pass) ...
    scores = scores.masked_fill(~alive, 0.0)  # (..., T_q, T_k)
    # ... and zero weights after it, so that row's output is 0
    weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, D), (..., T_q, T_k)

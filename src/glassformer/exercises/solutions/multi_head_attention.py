"""Solution: multi-head self-attention with one packed Q/K/V projection."""

import math

import torch


def multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    """x (B, T, C) -> (B, T, C).

    w_qkv (3C, C), b_qkv (3C,) or None: the rows are [queries | keys | values] (PyTorch's
    (out, in) layout, so the projection is x @ w_qkv.T). w_out (C, C), b_out (C,) or None.
    """
    B, T, C = x.shape
    # 1) project once for all heads, then cut into q, k, v and into heads
    qkv = x @ w_qkv.T  # (B, T, 3C)
    if b_qkv is not None:
        qkv = qkv + b_qkv  # (B, T, 3C)
    q, k, v = qkv.split(C, dim=-1)  # 3 × (B, T, C)
    q, k, v = (_split_heads(t, n_heads) for t in (q, k, v))  # 3 × (B, H, T, D)
    # 2) attend within each head
    z = _attend(q, k, v, mask)  # (B, H, T, D)
    # 3) heads side by side again, then the output projection mixes them
    out = _merge_heads(z) @ w_out.T  # (B, T, C)
    return out + b_out if b_out is not None else out  # (B, T, C)


def _split_heads(t, n_heads):
    B, T, C = t.shape
    return t.reshape(B, T, n_heads, C // n_heads).transpose(1, 2)  # (B, H, T, D)


def _merge_heads(z):
    B, H, T, D = z.shape
    return z.transpose(1, 2).reshape(B, T, H * D)  # (B, T, C)


def _attend(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, H, T, T)
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v  # (B, H, T, D)
    alive = mask.any(dim=-1, keepdim=True)  # rows that see at least one key
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)  # (B, H, T, T)
    weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (B, H, T, T)
    return weights @ v  # (B, H, T, D)

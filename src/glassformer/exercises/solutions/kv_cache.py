"""Solution: one decoding step of multi-head attention with a key/value cache."""

import math

import torch


def decode_step(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    """Attention output for ONE new token, reusing the keys and values of the L earlier ones.

    x_new (B, 1, C); k_cache, v_cache (B, H, L, D) (L may be 0); weights as in
    multi_head_attention: w_qkv (3C, C), b_qkv (3C,) or None, w_out (C, C), b_out (C,) or None.
    Returns (output (B, 1, C), keys (B, H, L+1, D), values (B, H, L+1, D)).
    """
    B, T, C = x_new.shape
    D = C // n_heads
    # 1) project only the new token
    qkv = x_new @ w_qkv.T + (b_qkv if b_qkv is not None else 0.0)  # (B, 1, 3C)
    q, k, v = (t.reshape(B, T, n_heads, D).transpose(1, 2) for t in qkv.split(C, dim=-1))  # 3 × (B, H, 1, D)
    # 2) append its key and value after the cached ones (the time axis is dim 2)
    keys = torch.cat([k_cache, k], dim=2)  # (B, H, L+1, D)
    values = torch.cat([v_cache, v], dim=2)  # (B, H, L+1, D)
    # 3) the new query may see every key: all of them are in its past (or itself), so no mask
    scores = q @ keys.transpose(-2, -1) / math.sqrt(D)  # (B, H, 1, L+1)
    z = torch.softmax(scores, dim=-1) @ values  # (B, H, 1, D)
    # 4) merge the heads and project, as in the full forward pass
    out = z.transpose(1, 2).reshape(B, T, C) @ w_out.T + (b_out if b_out is not None else 0.0)  # (B, 1, C)
    return out, keys, values

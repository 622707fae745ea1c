"""The fast path: PyTorch's fused scaled_dot_product_attention.

This is the ONE place in the model code where a built-in attention is allowed. It computes the
same function as the hand-written path in attention.py (tests/reference/test_fused_path.py
proves it) but never materialises the (B, H, T, T) weights, so hooks on `scores` and `weights`
do not fire here: use attention="glass" to see them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.nn.attention import _check_mask


def fused_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    mask: torch.Tensor | None = None, dropout: float = 0.0) -> torch.Tensor:
    """Same contract as attention.scaled_dot_product_attention, output only.  -> (B, H, T_q, D)"""
    if mask is not None:
        mask = _check_mask(mask, q.new_empty(q.shape[:-1] + (k.size(-2),)))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)  # (B, H, T, D)
    if mask is not None:
        # rows with every key masked: SDPA gives NaN, the glass path gives 0 — match the glass path
        out = out.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)  # (B, H, T, D)
    return out

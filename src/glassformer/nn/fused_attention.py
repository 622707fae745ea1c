"""The fast path: PyTorch's fused scaled_dot_product_attention.

This is the ONE place in the model code where a built-in attention is allowed. It computes the
same function as the hand-written path in attention.py (tests/reference/test_fused_path.py
proves it) but never materialises the (B, H, T, T) weights, so hooks on `scores` and `weights`
do not fire here: use attention="glass" to see them. It registers itself as attention "fused" in
attention.py's FAST_PATHS (it reads attention.py's masks, so attention.py cannot import it).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.nn.attention import FAST_PATHS, causal_mask, check_mask


def fused_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout: float = 0.0,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """Same contract as attention.scaled_dot_product_attention (plus a position bias), output
    only.  -> (B, H, T_q, D)"""
    T_q, T_k = q.size(-2), k.size(-2)
    # (reading the mask's values would split a torch.compile graph at every layer, so a compiled
    # model passes the causal mask as a mask; the compiled kernel takes it at about the same speed)
    if (
        bias is None
        and mask is not None
        and T_q == T_k
        and mask.shape == (T_q, T_k)
        and not torch.compiler.is_compiling()
        and torch.equal(mask, causal_mask(T_q, mask.device))
    ):
        # the plain causal mask: let the kernel skip the upper triangle instead of reading a mask
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True)  # (B, H, T, D)
    if mask is not None:
        mask = check_mask(mask, q.new_empty(q.shape[:-1] + (T_k,)))
    attn_mask = mask
    if bias is not None:  # an additive float mask: the bias where allowed, -inf where masked
        bias = bias.to(q.dtype)  # (H, T_q, T_k)
        attn_mask = bias if mask is None else torch.where(mask, bias, float("-inf"))  # (B or 1, H, T_q, T_k)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout)  # (B, H, T, D)
    if mask is not None:
        # rows with every key masked: SDPA gives NaN, the glass path gives 0 — match the glass path
        out = out.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)  # (B, H, T, D)
    return out


FAST_PATHS["fused"] = fused_attention  # attention="fused" (nn/attention.py reads it there)

"""Scaled dot-product attention, written out, and the modules built on it.

    Attention(Q, K, V) = softmax(Q Kᵀ / √D  masked) V        (Vaswani et al. 2017, eq. 1)

The function is split into its two halves, `attention_scores` and `attention_weights`, so the
modules can put a hook point between every step and a reader can see each step on its own.

Fully masked query rows (every key hidden, e.g. a padding query with a padding-only batch row)
have no defined softmax. Given the mask, `attention_weights` gives them all-zero weights and
therefore a zero output, never NaN. (PyTorch's F.scaled_dot_product_attention returns NaN or 0
for such rows depending on version and backend; torch 2.13 on CPU returns 0.)
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.nn.hooks import HookPoint


def _check_mask(mask: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """Validate a boolean mask against the scores and return it in a broadcastable layout."""
    if mask.dtype != torch.bool:
        raise ValueError(
            f"attention mask must be boolean (True = may attend), got dtype {mask.dtype}. "
            "Convert a 0/1 mask with mask.bool(); an additive float mask with (mask == 0)."
        )
    if mask.dim() == 3 and scores.dim() == 4:
        mask = mask.unsqueeze(1)  # (B, T_q, T_k) -> (B, 1, T_q, T_k): same mask for every head
    try:
        shape = torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError:
        shape = None
    if shape != scores.shape:
        raise ValueError(
            f"attention mask of shape {tuple(mask.shape)} cannot broadcast to the scores' shape "
            f"{tuple(scores.shape)} (B, H, T_q, T_k). Give it one of the shapes (T_q, T_k), "
            "(B, T_q, T_k), (B, 1, T_q, T_k), (B, H, T_q, T_k) or (B, 1, 1, T_k), with T_q and "
            "T_k equal to the query and key lengths."
        )
    return mask


def attention_scores(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Q Kᵀ / √D, with masked positions set to -inf.  q (..., T_q, D), k (..., T_k, D)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., T_q, T_k)
    if mask is not None:
        mask = _check_mask(mask, scores)
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., T_q, T_k)
    return scores


def attention_weights(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the keys. Give the same mask as attention_scores: query rows it hides
    entirely then get all-zero weights instead of NaN (checked on the small mask, not the scores;
    on a GPU that check reads one bool back per layer, a sync the fused path does not make)."""
    if mask is not None:
        live = _check_mask(mask, scores).any(dim=-1, keepdim=True)  # (..., T_q, 1): sees some key?
        if not bool(live.all()):
            scores = scores.masked_fill(~live, 0.0)  # a dead row becomes uniform here ...
            return torch.softmax(scores, dim=-1).masked_fill(~live, 0.0)  # ... and zero here
    return torch.softmax(scores, dim=-1)  # (..., T_q, T_k), each row sums to 1


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √D) V for q (..., T_q, D), k and v (..., T_k, D); returns (output, weights).

    `mask` is boolean, True = may attend, any shape broadcastable to (..., T_q, T_k).
    `dropout` is applied to the weights used for the output; the returned weights are the
    pre-dropout ones (what the model "looks at").
    """
    weights = attention_weights(attention_scores(q, k, mask), mask)  # (..., T_q, T_k)
    dropped = F.dropout(weights, p=dropout) if dropout > 0 else weights
    return dropped @ v, weights  # (..., T_q, D), (..., T_q, T_k)


class SingleHeadAttention(nn.Module):
    """One head, as the first tutorial writes it: its own q, k, v projections C -> D."""

    def __init__(self, d_model: int, d_head: int, bias: bool = True, dropout: float = 0.0) -> None:
        super().__init__()
        self.q = nn.Linear(d_model, d_head, bias=bias)
        self.k = nn.Linear(d_model, d_head, bias=bias)
        self.v = nn.Linear(d_model, d_head, bias=bias)
        self.dropout = dropout

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.q(x), self.k(x), self.v(x)  # 3 × (B, T, D)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        q, k, v = self.project(x)  # 3 × (B, T, D)
        drop = self.dropout if self.training else 0.0
        return scaled_dot_product_attention(q, k, v, mask, drop)[0]  # (B, T, D)


class MultiHeadAttention(nn.Module):
    """H heads side by side, concatenated, then an output projection C -> C.

    style="fused": one Linear C -> 3C makes Q, K, V for all heads at once, reshaped
        (B, T, C) -> (B, T, H, D) -> (B, H, T, D). This is how GPT-2 and nanoGPT do it.
    style="heads": a ModuleList of SingleHeadAttention, as the first tutorial writes it.
    Both compute exactly the same function (tests/reference copies weights across).

    attention="glass" runs the hand-written steps above with a hook point at each;
    attention="fused" calls the one clearly separated fast path (nn/fused_attention.py).
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, dropout: float = 0.0,
                 style: str = "fused", attention: str = "glass") -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.style, self.attention, self.dropout = style, attention, dropout
        if style == "fused":
            self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        else:
            self.heads = nn.ModuleList(
                SingleHeadAttention(d_model, self.d_head, bias, dropout) for _ in range(n_heads))
        self.proj = nn.Linear(d_model, d_model, bias=bias)
        self.resid_dropout = nn.Dropout(dropout)
        self.hook_q, self.hook_k, self.hook_v = HookPoint(), HookPoint(), HookPoint()
        self.hook_scores, self.hook_weights = HookPoint(), HookPoint()
        self.hook_z, self.hook_out = HookPoint(), HookPoint()

    def split_qkv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(B, T, C) -> q, k, v, each (B, H, T, D)."""
        B, T, C = x.shape
        if self.style == "fused":
            q, k, v = self.qkv(x).split(C, dim=-1)  # 3 × (B, T, C)
            q, k, v = (t.view(B, T, self.n_heads, self.d_head).transpose(1, 2) for t in (q, k, v))
            return q, k, v  # 3 × (B, H, T, D)
        per_head = [h.project(x) for h in self.heads]  # H × 3 × (B, T, D)
        q, k, v = (torch.stack(ts, dim=1) for ts in zip(*per_head))  # 3 × (B, H, T, D)
        return q, k, v

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C). With a LayerCache (nn/kv_cache.py), the keys and values of
        earlier tokens come from the cache and the mask is (T, L+T)."""
        B, T, C = x.shape
        # 1) project to queries, keys, values and split into heads
        q, k, v = self.split_qkv(x)  # 3 × (B, H, T, D)
        q, k, v = self.hook_q(q), self.hook_k(k), self.hook_v(v)
        if cache is not None:
            k, v = cache.append(k, v)  # 2 × (B, H, L+T, D)
        # 2) attend within each head
        drop = self.dropout if self.training else 0.0
        if self.attention == "fused":
            from glassformer.nn.fused_attention import fused_attention

            z = fused_attention(q, k, v, mask, drop)  # (B, H, T, D)
        else:
            scores = self.hook_scores(attention_scores(q, k, mask))  # (B, H, T, T_k)
            weights = self.hook_weights(attention_weights(scores, mask))  # (B, H, T, T_k)
            z = (F.dropout(weights, drop) if drop > 0 else weights) @ v  # (B, H, T, D)
        z = self.hook_z(z)  # (B, H, T, D)
        # 3) merge heads back into the residual width and project
        merged = z.transpose(1, 2).reshape(B, T, C)  # (B, T, C)
        return self.hook_out(self.resid_dropout(self.proj(merged)))  # (B, T, C)

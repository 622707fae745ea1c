"""Attention, written out, and the heads built on it.

    Attention(Q, K, V) = softmax(Q Kᵀ / √D + bias, masked) V        (Vaswani et al. 2017, eq. 1)

A mask is boolean, True = may attend (as torch.tril(torch.ones(T, T, dtype=torch.bool))), of any shape
that broadcasts against the scores (B, H, T_q, T_k): (T, T), (B, 1, T, T), (B, 1, 1, T) ...; a 3-D
(B, T_q, T_k) one gets a head axis. A query row it hides entirely gets all-zero weights and a zero
output, never NaN (F.scaled_dot_product_attention gives NaN or 0 there, by version and backend).
`bias` is a position scheme's (ALiBi); most have none. The padding mask is the encoder's
(models/encoder.py).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from glassformer.errors import UsageError
from glassformer.nn.attention_variants import kv_groups, repeat_kv
from glassformer.nn.hooks import HookPoint
from glassformer.nn.position import AttentionPositions


def check_mask(mask: Tensor, scores: Tensor) -> Tensor:
    """A boolean mask that broadcasts against scores (B, H, T_q, T_k), in that layout, or an error.
    The (T_q, T_k) boolean mask a model builds for itself (models/gpt.py) needs neither, so the
    attention checks every other mask only (a user's, a padding one)."""
    if mask.dtype != torch.bool:
        raise UsageError(
            "mask.dtype",
            "attention mask must be boolean (True = may attend), got "
            "dtype {dtype}. Convert a 0/1 mask with mask.bool(); an "
            "additive float mask with (mask == 0).",
            dtype=mask.dtype,
        )
    if mask.dim() == 3 and scores.dim() == 4:
        mask = mask.unsqueeze(1)  # (B, T_q, T_k) -> (B, 1, T_q, T_k): same mask for every head
    try:
        shape = torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError:
        shape = None
    if shape != scores.shape:
        raise UsageError(
            "mask.shape",
            "attention mask of shape {mask} cannot broadcast to the "
            "scores' shape {scores} (B, H, T_q, T_k). Give it one of the "
            "shapes (T_q, T_k), (B, T_q, T_k), (B, 1, T_q, T_k), (B, H, "
            "T_q, T_k) or (B, 1, 1, T_k), with T_q and T_k equal to the "
            "query and key lengths.",
            mask=tuple(mask.shape),
            scores=tuple(scores.shape),
        )
    return mask


def causal_mask(T: int, device: torch.device | str | None = None, offset: int = 0, window: int = 0) -> Tensor:
    """Query i, at position offset+i, may see keys 0..offset+i, never the future; `offset`: tokens
    already in a KV cache. The one place a causal mask is built. `window` W > 0: only the keys
    offset+i-W+1..offset+i, itself and W - 1 before it (sliding window, nn/attention_variants.py)."""
    if window < 0:
        raise UsageError(
            "window.size",
            "a sliding window holds at least one key (the query's own); got window={window}.",
            window=window,
        )
    full = torch.ones(T, offset + T, dtype=torch.bool, device=device)  # (T, L+T)
    if window:  # keys j with j - (offset+i) > -W: above the diagonal offset - W + 1
        return torch.triu(torch.tril(full, diagonal=offset), diagonal=offset - window + 1)  # (T, L+T)
    return torch.tril(full, diagonal=offset)  # (T, L+T)


class Dropout(nn.Dropout):
    """nn.Dropout that costs nothing where it does nothing (evaluation, or p = 0): the same numbers
    and random draws, without nn.Module's call machinery and F.dropout's checks (~2 µs a call, nine
    calls a token when decoding `baby`). A module hook on it (inspect/params.py's first-use order)
    still sees every call. Every dropout of the models is this one."""

    def __call__(self, x: Tensor) -> Tensor:
        if (self.training and self.p) or self._forward_pre_hooks or self._forward_hooks:
            return super().__call__(x)
        return x


# attention name -> kernel, for every path but the glass one (nn/fused_attention.py registers "fused").
# Contract: scaled_dot_product_attention's arguments (q, k, v, mask, dropout, bias), its output only.
FAST_PATHS: dict[str, Callable[..., Tensor]] = {}


def attention_scores(q: Tensor, k: Tensor, mask: Tensor | None = None, bias: Tensor | None = None) -> Tensor:
    """Q Kᵀ / √D (+ bias), -inf where masked; q (..., T_q, D), k (..., T_k, D). Dividing q first
    (T_q·D numbers, not T_q·T_k) and masking in place keep this near the fused kernel (docs/performance.md)."""
    scores = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)  # (..., T_q, T_k)
    if bias is not None:
        scores = scores + bias  # (..., T_q, T_k) + (H, T_q, T_k): a position scheme's bias
    if mask is not None:
        if mask.dtype != torch.bool or mask.shape != scores.shape[-2:]:  # not a model's own (T_q, T_k) mask
            mask = check_mask(mask, scores)  # a given one: checked, and laid out against the scores
        scores = scores.masked_fill_(~mask, float("-inf"))  # (..., T_q, T_k), -inf where hidden
    return scores


def attention_weights(scores: Tensor, mask: Tensor | None = None) -> Tensor:
    """Softmax over the keys; with the scores' mask, a row it hides entirely gets zeros, not NaN.
    Every row takes the same two steps, whatever the mask: nothing is read back to choose (no GPU
    sync, no split of a torch.compile graph), and a live row's numbers are exactly softmax's."""
    if mask is None:
        return torch.softmax(scores, dim=-1)  # (..., T_q, T_k), each row sums to 1
    if mask.dtype != torch.bool or mask.shape != scores.shape[-2:]:  # as in attention_scores
        mask = check_mask(mask, scores)
    live = mask.any(dim=-1, keepdim=True)  # (..., T_q, 1): sees some key?
    # a dead row (all -inf) becomes uniform here, and zero at the end; a live row is unchanged
    return torch.softmax(scores.masked_fill(~live, 0.0), dim=-1) * live  # (..., T_q, T_k)


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    dropout: float = 0.0,
    bias: Tensor | None = None,
    hook_scores: Callable[[Tensor], Tensor] = lambda t: t,
    hook_weights: Callable[[Tensor], Tensor] = lambda t: t,
) -> tuple[Tensor, Tensor]:
    """q (..., T_q, D), k and v (..., T_k, D) -> (output (..., T_q, D), weights): eq. 1 as a function
    (the lessons, the exercises, the latent attention); AttentionHeads.attend makes the same two calls
    in its own lines, where a reader of the model meets them. Dropout acts on the weights the output
    uses; those returned are the pre-dropout ones. The hooks are a module's points for the scores and
    the weights (each may read or replace its tensor)."""
    scores = hook_scores(attention_scores(q, k, mask, bias))  # (..., T_q, T_k)
    weights = hook_weights(attention_weights(scores, mask))  # (..., T_q, T_k)
    dropped = F.dropout(weights, p=dropout) if dropout > 0 else weights  # (..., T_q, T_k)
    return dropped @ v, weights  # (..., T_q, D), (..., T_q, T_k)


class HeadQKV(nn.Module):
    """One head's own q, k, v projections C -> D, as the first tutorial writes each head."""

    def __init__(self, d_model: int, d_head: int, bias: bool = True) -> None:
        super().__init__()
        self.q = nn.Linear(d_model, d_head, bias=bias)
        self.k = nn.Linear(d_model, d_head, bias=bias)
        self.v = nn.Linear(d_model, d_head, bias=bias)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return self.q(x), self.k(x), self.v(x)  # 3 × (B, T, D)


class AttentionHeads(nn.Module):
    """Steps 2 and 3 of multi-head attention, after step 1 (q, k, v, each cut by `split_heads`), which
    is what self-attention (below) and cross-attention (models/seq2seq.py) do differently:

        2) attend within each head    z = softmax(q·kᵀ/√D + bias, masked) · v          (B, H, T_q, D)
        3) merge the heads            (B, H, T_q, D) -> (B, T_q, H·D = C) -> proj -> (B, T_q, C)

    A subclass makes its step-1 projections and their hook points, then calls `build_heads` for
    steps 2 and 3 (weights are drawn in the order the data uses them)."""

    def __init__(self, d_model: int, n_heads: int, bias: bool, dropout: float, attention: str, d_head: int = 0) -> None:
        super().__init__()
        self.n_heads, self.d_head, self.bias = n_heads, d_head or d_model // n_heads, bias
        self.d_model = d_model  # C; the heads side by side are H·D wide, C unless d_head is set apart
        self.attention, self.dropout = attention, dropout  # attention: "glass" | "fused"

    def build_heads(self, site: str, keys: str) -> None:
        """Steps 2 and 3's projection and hook points; `site` names them ("attn", "cross"), `keys`
        is the key axis (T_k, or S for a source)."""
        self.proj = nn.Linear(self.n_heads * self.d_head, self.d_model, bias=self.bias)  # H·D -> C
        self.resid_dropout = Dropout(self.dropout)
        self.hook_scores = HookPoint("scores", f"B H T_q {keys}", f"{site}.scores")
        self.hook_weights = HookPoint("weights", f"B H T_q {keys}", f"{site}.weights")
        self.hook_z = HookPoint("z", "B H T D", f"{site}.z")
        self.hook_merged = HookPoint("merged", "B T C", "merged")
        self.hook_result = HookPoint("result", "B T H C", f"{site}.result")
        self.hook_out = HookPoint(f"{site}_out", "B T C", f"{site}.out")

    def split_heads(self, t: Tensor) -> Tensor:
        """(B, L, H·D) -> (B, H, L, D): feature block h·D..(h+1)·D belongs to head h (H_kv heads for
        the keys and values of grouped-query attention)."""
        B, L, C = t.shape
        return t.view(B, L, C // self.d_head, self.d_head).transpose(1, 2)  # (B, H, L, D)

    def attend(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, bias: Tensor | None = None) -> Tensor:
        """Steps 2 and 3: q (B, H, T_q, D), k and v (B, H, T_k, D) -> z (B, H, T_q, D) -> heads side
        by side (B, T_q, C) -> output projection (B, T_q, C)."""
        drop = self.dropout if self.training else 0.0
        if self.attention != "glass":  # the one separated fast path: no (T_q, T_k) matrix, no hooks inside
            z = FAST_PATHS[self.attention](q, k, v, mask, drop, bias)  # (B, H, T_q, D)
        else:  # eq. 1, as scaled_dot_product_attention composes it, with a hook point at each step
            scores = self.hook_scores(attention_scores(q, k, mask, bias))  # (B, H, T_q, T_k)
            weights = self.hook_weights(attention_weights(scores, mask))  # (B, H, T_q, T_k)
            z = (F.dropout(weights, p=drop) if drop > 0 else weights) @ v  # (B, H, T_q, D)
        B, H, T, D = z.shape
        z = self.hook_z(z)  # (B, H, T_q, D)
        merged = self.hook_merged(z.transpose(1, 2).reshape(B, T, H * D))  # (B, T_q, C)
        out = self.proj(merged)  # (B, T_q, C)
        if self.hook_result.fns:  # someone reads each head's share of out (TransformerLens's hook_result)
            out = self.from_heads(merged, out)  # (B, T_q, C): out itself, unless a listener replaced a share
        return self.hook_out(self.resid_dropout(out))  # (B, T_q, C)

    def from_heads(self, merged: Tensor, out: Tensor) -> Tensor:
        """Each head's share of the projection, result_h = z_h W_O,hᵀ (B, T_q, H, C), shown at the
        result hook point; Σ_h result_h + b = out. A listener that only reads leaves `out` exactly as
        it is; one that returns other shares (a patch, an ablation, a gradient leaf) gets the output
        those shares make, Σ_h seen_h + b, instead."""
        B, T, HD = merged.shape
        H = self.n_heads
        W_O = self.proj.weight.view(-1, H, HD // H)  # (C, H, D): the columns that read head h
        result = torch.einsum("bthd,chd->bthc", merged.view(B, T, H, HD // H), W_O)  # (B, T_q, H, C)
        seen = self.hook_result(result)  # (B, T_q, H, C)
        if seen is result:
            return out  # (B, T_q, C): read, not replaced
        bias = self.proj.bias if self.proj.bias is not None else 0.0
        return seen.sum(2) + bias  # (B, T_q, C)


class MultiHeadAttention(AttentionHeads):
    """Self-attention: step 1 makes q, k and v from the same x (B, T, C).

    style="packed": one Linear C -> 3C for every head at once (GPT-2, nanoGPT); style="heads": one
    HeadQKV per head (the first tutorial); the same function (tests/reference copies weights across).
    attention="glass" runs the steps above, a hook point at each; "fused" the fast path
    (nn/fused_attention.py). `positions`, the in-attention part of a position scheme (nn/position.py),
    may rotate q and k (rotary) or bias the scores (ALiBi), told the first query's absolute position.
    The q and k hook points show the projections before rotation; the cache keeps keys after it.

    The modern decoder's choices (nn/attention_variants.py), made here when the module is built:
    `n_kv_heads` H_kv < H projects keys and values to H_kv heads (grouped-query attention; the cache
    holds those, and `repeat_kv` lays each beside its H / H_kv query heads just before attending);
    `d_head` sets D apart from C // H; `qk_norm` (a QKNorm) normalises q and k before the rotation."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        bias: bool = True,
        dropout: float = 0.0,
        style: str = "packed",
        attention: str = "glass",
        positions: AttentionPositions | None = None,
        n_kv_heads: int = 0,
        d_head: int = 0,
        qk_norm: nn.Module | None = None,
    ) -> None:
        super().__init__(d_model, n_heads, bias, dropout, attention, d_head)
        self.style = style
        self.groups = kv_groups(n_heads, n_kv_heads or n_heads)  # g query heads per key-value head
        q_width, kv_width = n_heads * self.d_head, n_heads // self.groups * self.d_head  # H·D, H_kv·D
        self.widths = (q_width, kv_width, kv_width)  # the packed projection's q, k, v blocks
        self.head_counts = (n_heads, n_heads // self.groups, n_heads // self.groups)  # H, H_kv, H_kv
        if style == "packed":
            self.qkv = nn.Linear(d_model, sum(self.widths), bias=bias)  # C -> (H + 2·H_kv)·D
        else:
            self.heads = nn.ModuleList(HeadQKV(d_model, self.d_head, bias) for _ in range(n_heads))
        self.qk_norm = qk_norm
        self.positions = positions
        kv = "H_kv" if self.groups > 1 else "H"  # the key-value heads' letter
        self.hook_q = HookPoint("qkv", "B H T D", "attn.q")
        self.hook_k = HookPoint("qkv", f"B {kv} T D", "attn.k")
        self.hook_v = HookPoint("qkv", f"B {kv} T D", "attn.v")
        self.build_heads("attn", "T_k")

    def forward(self, x: Tensor, mask: Tensor | None = None, cache=None) -> Tensor:
        """x (B, T, C) -> (B, T, C). With a LayerCache (nn/kv_cache.py), earlier tokens' keys and
        values come from the cache and the mask is (T, L+T)."""
        T = x.size(1)
        offset = cache.length if cache is not None else 0  # absolute position of the first query
        # 1) project to queries, keys, values and split into heads (H_kv = H unless grouped)
        if self.style == "packed":  # columns [q | k | v]: H, H_kv, H_kv heads of D, cut apart by one view
            packed = self.qkv(x).view(x.size(0), T, -1, self.d_head).transpose(1, 2)  # (B, H + 2·H_kv, T, D)
            q, k, v = packed.split_with_sizes(self.head_counts, dim=1)  # (B, H, T, D), 2 × (B, H_kv, T, D)
        else:  # one HeadQKV per head, stacked on the head axis
            per_head = [head(x) for head in self.heads]  # H × 3 × (B, T, D)
            q, k, v = (torch.stack(ts, dim=1) for ts in zip(*per_head, strict=False))  # 3 × (B, H, T, D)
        q, k, v = self.hook_q(q), self.hook_k(k), self.hook_v(v)  # (B, H, T, D), 2 × (B, H_kv, T, D)
        if self.qk_norm is not None:  # QK-norm (Qwen3): each head's q and k RMS-normalised
            q, k = self.qk_norm(q, k)  # (B, H, T, D), (B, H_kv, T, D)
        if self.positions is not None:  # rotary turns q and k here (and shows them at positions.q/k)
            q, k = self.positions.rotate(q, k, offset)  # (B, H, T, D), (B, H_kv, T, D); unchanged unless rotary
        if cache is not None:
            k, v = cache.append(k, v)  # 2 × (B, H_kv, L+T, D)
        if self.groups > 1:  # grouped-query attention: each key-value head beside its g query heads
            k, v = repeat_kv(k, self.groups), repeat_kv(v, self.groups)  # 2 × (B, H, L+T, D)
        # a score bias depends on distances only: queries counted from the first key held (offset, unless windowed)
        bias = self.positions.score_bias(T, k.size(2), k.size(2) - T) if self.positions is not None else None
        # 2) attend within each head, 3) merge heads back into the residual width and project
        return self.attend(q, k, v, mask, bias)  # (B, T, C)

"""Scaled dot-product attention, written out, and the modules built on it.

    Attention(Q, K, V) = softmax(Q Kᵀ / √D  + bias, masked) V        (Vaswani et al. 2017, eq. 1)

`scaled_dot_product_attention` is the function the model runs (the glass path): its two halves,
`attention_scores` and `attention_weights`, are functions of their own so a reader can see each
step, and the modules hand it their hook points for the scores and the weights.
`AttentionHeads` holds what every multi-head attention does once it has q, k and v (attend,
merge heads, project): `MultiHeadAttention` here (self-attention) and `CrossAttention`
(models/seq2seq.py: queries from the decoder, keys and values from the encoder) build on it.
`bias` is where a position scheme that biases the scores (ALiBi) comes in; most have none.

Fully masked query rows (every key hidden, e.g. a padding query with a padding-only batch row)
have no defined softmax. Given the mask, `attention_weights` gives them all-zero weights and
therefore a zero output, never NaN. (PyTorch's F.scaled_dot_product_attention returns NaN or 0
for such rows depending on version and backend; torch 2.13 on CPU returns 0.)

Masks (who may attend to whom) come first. Convention everywhere in glassformer: a boolean tensor,
True = may attend, as `torch.tril(torch.ones(T, T, dtype=torch.bool))`. A mask is any shape that
broadcasts against the attention scores (B, H, T_q, T_k): (T, T), (B, 1, T, T), (B, H, T, T),
(B, 1, 1, T) ... A 3-D mask (B, T_q, T_k) is given a head axis (check_mask). The one mask a GPT
needs, `causal_mask`, is here; the padding mask and the AND of masks are the encoder's
(models/encoder.py: the Encoder and the EncoderDecoder hide <PAD> keys).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.errors import UsageError
from glassformer.nn.formula import ParamFormula, counted, linear_formula
from glassformer.nn.hooks import HookPoint, hook
from glassformer.nn.position import AttentionPositions


def check_mask(mask: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """Validate a boolean mask against attention scores (B, H, T_q, T_k) and return it in a
    broadcastable layout; a 3-D mask (B, T_q, T_k) gets a head axis."""
    if mask.dtype != torch.bool:
        raise UsageError("error.mask.dtype", dtype=mask.dtype)
    if mask.dim() == 3 and scores.dim() == 4:
        mask = mask.unsqueeze(1)  # (B, T_q, T_k) -> (B, 1, T_q, T_k): same mask for every head
    try:
        shape = torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError:
        shape = None
    if shape != scores.shape:
        raise UsageError("error.mask.shape", mask=tuple(mask.shape), scores=tuple(scores.shape))
    return mask


def causal_mask(T: int, device: torch.device | str | None = None, offset: int = 0) -> torch.Tensor:
    """Lower-triangular mask: query i, at position offset+i, may attend to keys 0..offset+i, never
    the future. `offset` = tokens already in a KV cache: (T, offset+T); without one, (T, T).
    The one place a causal mask is built (models and decoders all ask here)."""
    full = torch.ones(T, offset + T, dtype=torch.bool, device=device)  # (T, L+T)
    return torch.tril(full, diagonal=offset)  # (T, L+T)


FAST_PATHS: dict[str, Callable[..., torch.Tensor]] = {}
"""attention name -> kernel, for every path but the glass one: nn/fused_attention.py registers "fused"
(it reads this file's masks, so this file does not import it). Contract: scaled_dot_product_attention's
arguments (q, k, v, mask, dropout, bias), its output only (no weights, no hooks inside)."""


def _unchanged(t: torch.Tensor) -> torch.Tensor:
    return t


def attention_scores(
    q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None = None, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """Q Kᵀ / √D (+ bias), with masked positions set to -inf.  q (..., T_q, D), k (..., T_k, D).

    q is divided by √D before the product, (Q/√D) Kᵀ = Q Kᵀ/√D: one pass over T_q·D numbers
    instead of T_q·T_k, and the mask is written into the fresh scores in place (masked_fill_),
    which keeps the glass path within reach of the fused kernel at block 256 (docs/performance.md).
    """
    scores = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)  # (..., T_q, T_k)
    if bias is not None:
        scores = scores + bias  # (..., T_q, T_k) + (H, T_q, T_k): a position scheme's bias
    if mask is not None:
        mask = check_mask(mask, scores)
        scores = scores.masked_fill_(~mask, float("-inf"))  # (..., T_q, T_k), -inf where hidden
    return scores


def attention_weights(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the keys. Give the same mask as attention_scores: query rows it hides
    entirely then get all-zero weights instead of NaN (checked on the small mask, not the scores;
    on a GPU that check reads one bool back per layer, a sync the fused path does not make)."""
    if mask is not None:
        live = check_mask(mask, scores).any(dim=-1, keepdim=True)  # (..., T_q, 1): sees some key?
        # under torch.compile, take the dead-row branch always (same numbers for live rows): reading
        # live.all() back would split the compiled graph in two at every layer
        if torch.compiler.is_compiling() or not bool(live.all()):
            scores = scores.masked_fill(~live, 0.0)  # a dead row becomes uniform here ...
            return torch.softmax(scores, dim=-1).masked_fill(~live, 0.0)  # ... and zero here
    return torch.softmax(scores, dim=-1)  # (..., T_q, T_k), each row sums to 1


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout: float = 0.0,
    bias: torch.Tensor | None = None,
    hook_scores: Callable[[torch.Tensor], torch.Tensor] = _unchanged,
    hook_weights: Callable[[torch.Tensor], torch.Tensor] = _unchanged,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √D + bias) V for q (..., T_q, D), k and v (..., T_k, D); returns (output, weights).

    The glass path of every attention module is this function. `mask` is boolean, True = may
    attend, any shape broadcastable to (..., T_q, T_k); `bias` (H, T_q, T_k) is a position scheme's
    (ALiBi). `dropout` is applied to the weights used for the output; the returned weights are the
    pre-dropout ones (what the model "looks at"). `hook_scores`, `hook_weights`: the modules' hook
    points, called on the scores and the weights (each may read or replace its tensor).
    """
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

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.q(x), self.k(x), self.v(x)  # 3 × (B, T, D)


class AttentionHeads(nn.Module):
    """Steps 2 and 3 of multi-head attention, shared by self-attention (below) and cross-attention
    (models/seq2seq.py), which differ only in step 1: where q, k and v come from. Both cut
    their projections into heads the same way (`split_heads`).

        2) attend within each head    z = softmax(q·kᵀ/√D + bias, masked) · v          (B, H, T_q, D)
        3) merge the heads            (B, H, T_q, D) -> (B, T_q, H·D = C) -> proj -> (B, T_q, C)

    A subclass builds what is declared here (after its own step-1 projections, so weights are
    drawn in the order the data uses them): the settings, `proj` (C -> C), `resid_dropout`, and the
    hook points these steps fire, each with the axes of its own keys.
    """

    n_heads: int
    d_head: int
    dropout: float
    attention: str  # "glass" | "fused"
    proj: nn.Linear
    resid_dropout: nn.Dropout
    hook_scores: HookPoint
    hook_weights: HookPoint
    hook_z: HookPoint
    hook_merged: HookPoint
    hook_result: HookPoint
    hook_out: HookPoint

    def split_heads(self, t: torch.Tensor) -> torch.Tensor:
        """(B, L, C) -> (B, H, L, D): feature block h·D..(h+1)·D belongs to head h."""
        B, L, C = t.shape
        return t.view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, D)

    def attend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None,
        bias: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """q (B, H, T_q, D), k and v (B, H, T_k, D) -> z (B, H, T_q, D)."""
        drop = self.dropout if self.training else 0.0
        if self.attention != "glass":  # the one separated fast path: no (T_q, T_k) matrix, no hooks inside
            return self.hook_z(FAST_PATHS[self.attention](q, k, v, mask, drop, bias))  # (B, H, T_q, D)
        z, _ = scaled_dot_product_attention(q, k, v, mask, drop, bias, self.hook_scores, self.hook_weights)
        return self.hook_z(z)  # (B, H, T_q, D)

    def merge(self, z: torch.Tensor) -> torch.Tensor:
        """z (B, H, T_q, D) -> heads side by side (B, T_q, C) -> output projection (B, T_q, C)."""
        B, H, T, D = z.shape
        merged = self.hook_merged(z.transpose(1, 2).reshape(B, T, H * D))  # (B, T_q, C)
        out = self.proj(merged)  # (B, T_q, C)
        if self.hook_result.fns:  # each head's share of out, made only for a listener (TL's hook_result)
            W_O = self.proj.weight.view(-1, H, D)  # (C, H, D): the columns that read head h
            result = torch.einsum("bthd,chd->bthc", merged.view(B, T, H, D), W_O)  # (B, T_q, H, C)
            seen = self.hook_result(result)  # (B, T_q, H, C)
            if seen is not result:  # replaced (a patch, an ablation, a gradient leaf): out = Σ_h seen + b,
                out = out + (seen - result).sum(2)  # (B, T_q, C) written as a change, so an unchanged copy is exact
        return self.hook_out(self.resid_dropout(out))  # (B, T_q, C)


class MultiHeadAttention(AttentionHeads):
    """H heads side by side, concatenated, then an output projection C -> C.

    style="packed": one Linear C -> 3C makes Q, K, V for all heads at once, reshaped
        (B, T, C) -> (B, T, H, D) -> (B, H, T, D). This is how GPT-2 and nanoGPT do it.
    style="heads": a ModuleList of HeadQKV, one per head, as the first tutorial writes it.
    Both compute exactly the same function (tests/reference copies weights across).

    attention="glass" runs the hand-written steps above with a hook point at each;
    attention="fused" calls the one clearly separated fast path (nn/fused_attention.py).

    positions: the in-attention part of a position scheme (nn/position.py), or None. It may
    rotate q and k (rotary) and/or add a bias to the scores (ALiBi); it is told the absolute
    position of the first query, so a KV cache keeps working. The hook points q and k show the
    projections before any rotation; the cache stores keys after it (a key's turn depends on its
    own position only, so it never changes).
    """

    style: str  # "packed" | "heads"
    bias: bool
    qkv: nn.Linear  # style "packed"
    heads: nn.ModuleList  # style "heads": H × HeadQKV
    positions: AttentionPositions | None

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        bias: bool = True,
        dropout: float = 0.0,
        style: str = "packed",
        attention: str = "glass",
        positions: AttentionPositions | None = None,
    ) -> None:
        super().__init__()
        self.n_heads, self.d_head, self.bias = n_heads, d_model // n_heads, bias
        self.style, self.attention, self.dropout = style, attention, dropout
        if style == "packed":
            self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        else:
            self.heads = nn.ModuleList(HeadQKV(d_model, self.d_head, bias) for _ in range(n_heads))
        self.positions = positions
        self.proj = nn.Linear(d_model, d_model, bias=bias)
        self.resid_dropout = nn.Dropout(dropout)
        self.hook_q = hook("qkv", "B H T D", "attn.q")
        self.hook_k = hook("qkv", "B H T D", "attn.k")
        self.hook_v = hook("qkv", "B H T D", "attn.v")
        self.hook_scores = hook("scores", "B H T_q T_k", "attn.scores")
        self.hook_weights = hook("weights", "B H T_q T_k", "attn.weights")
        self.hook_z = hook("z", "B H T D", "attn.z")
        self.hook_merged = hook("merged", "B T C", "merged")
        self.hook_result = hook("result", "B T H C", "attn.result")
        self.hook_out = hook("attn_out", "B T C", "attn.out")

    def param_formulas(self) -> list[ParamFormula]:
        C, D, H = self.proj.in_features, self.d_head, self.n_heads
        if self.style == "packed":
            qkv = linear_formula("qkv", "C", "3C", self.bias, "qkv", C=C)
        else:
            one = "C·D + D" if self.bias else "C·D"
            qkv = counted("heads", f"H·3({one})", {"C": C, "D": D, "H": H}, "heads")
        return [
            qkv,
            linear_formula("proj", "C", "C", self.bias, "proj", C=C),
        ]

    def split_qkv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(B, T, C) -> q, k, v, each (B, H, T, D)."""
        B, T, C = x.shape
        if self.style == "packed":
            q, k, v = self.qkv(x).split(C, dim=-1)  # 3 × (B, T, C)
            return self.split_heads(q), self.split_heads(k), self.split_heads(v)  # 3 × (B, H, T, D)
        per_head = [head(x) for head in self.heads]  # H × 3 × (B, T, D)
        q, k, v = (torch.stack(ts, dim=1) for ts in zip(*per_head, strict=False))  # 3 × (B, H, T, D)
        return q, k, v

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C). With a LayerCache (nn/kv_cache.py), the keys and values of
        earlier tokens come from the cache and the mask is (T, L+T)."""
        T = x.size(1)
        offset = cache.length if cache is not None else 0  # absolute position of the first query
        # 1) project to queries, keys, values and split into heads
        q, k, v = self.split_qkv(x)  # 3 × (B, H, T, D)
        q, k, v = self.hook_q(q), self.hook_k(k), self.hook_v(v)  # 3 × (B, H, T, D)
        if self.positions is not None:  # rotary turns q and k here (and shows them at positions.q/k)
            q, k = self.positions.rotate(q, k, offset)  # 2 × (B, H, T, D); unchanged unless rotary
        if cache is not None:
            k, v = cache.append(k, v)  # 2 × (B, H, L+T, D)
        bias = self.positions.score_bias(T, k.size(2), offset) if self.positions is not None else None
        # 2) attend within each head
        z = self.attend(q, k, v, mask, bias)  # (B, H, T, D)
        # 3) merge heads back into the residual width and project
        return self.merge(z)  # (B, T, C)

"""Attention, NumPy edition: who may attend to whom, scaled dot-product attention, multi-head
self-attention and cross-attention (the twin of glassformer.nn's attention.py and models/seq2seq.py's CrossAttention).

    Attention(Q, K, V) = softmax(Q Kᵀ / √D  masked) V        (Vaswani et al. 2017, eq. 1)

Masks are boolean, True = may attend (the convention of glassformer.nn.attention), broadcastable
to the scores (..., T_q, T_k). A query row whose keys are all masked gets all-zero weights and a
zero output, never NaN.

Self-attention takes q, k and v from the one stream x (B, T, C). Cross-attention takes the queries
from the target stream x (B, T, C) and keys and values from the source m (B, S, C), the encoder's
output; its weights are (B, H, T, S):

    CrossAttention(x, m) = softmax((x W_Q)(m W_K)ᵀ / √D, source padding masked) (m W_V)

with "q.*" (C -> C), "kv.*" (C -> 2C, keys first, then values), "proj.*" (C -> C). The two differ
in step 1 only (where q, k and v come from, and self-attention's position touch points); steps 2
and 3 are `attend_and_merge`.
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.linear import linear, scope


def causal_mask(T: int) -> np.ndarray:
    """(T, T): query i may see key j exactly when j <= i."""
    i = np.arange(T)[:, None]  # (T, 1) query positions
    j = np.arange(T)[None, :]  # (1, T) key positions
    return j <= i  # (T, T)


def padding_mask(ids: np.ndarray, pad_id: int) -> np.ndarray:
    """(B, 1, 1, T): no query may look at a padding key."""
    return (np.asarray(ids) != pad_id)[:, None, None, :]  # (B, 1, 1, T)


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; -inf entries get weight 0, an all -inf row gets all zeros."""
    alive = (scores > -np.inf).any(axis=-1, keepdims=True)  # (..., T_q, 1) rows with a visible key
    # subtract each row's largest score so exp never overflows (softmax ignores a shift);
    # a dead row has max -inf, so shift it by 0 instead and let every entry stay -inf
    row_max = np.where(alive, scores.max(axis=-1, keepdims=True), 0.0)  # (..., T_q, 1)
    e = np.exp(scores - row_max)  # (..., T_q, T_k), exactly 0 where the score is -inf
    total = e.sum(axis=-1, keepdims=True)  # (..., T_q, 1): >= 1 on live rows, 0 on dead ones
    return e / np.where(alive, total, 1.0)  # (..., T_q, T_k)


def attention_scores(
    q: np.ndarray, k: np.ndarray, mask: np.ndarray | None = None, bias: np.ndarray | None = None
) -> np.ndarray:
    """Q Kᵀ / √D (+ a position bias) with hidden positions at -inf.
    q (..., T_q, D), k (..., T_k, D) -> (..., T_q, T_k)."""
    D = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(D)  # (..., T_q, T_k)
    if bias is not None:
        scores = scores + bias  # (..., T_q, T_k) + (H, T_q, T_k)
    if mask is not None:
        assert mask.dtype == bool, f"mask must be boolean (True = may attend), got {mask.dtype}"
        if mask.ndim == 3 and scores.ndim == 4:
            mask = mask[:, None]  # (B, T_q, T_k) -> (B, 1, T_q, T_k): one mask for every head
        scores = np.where(mask, scores, -np.inf)  # (..., T_q, T_k)
    return scores


def attention_weights(scores: np.ndarray) -> np.ndarray:
    """Softmax over the keys: each row sums to 1 (or is all 0 when every key is hidden)."""
    return softmax(scores)  # (..., T_q, T_k)


def scaled_dot_product_attention(q, k, v, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """q (..., T_q, D), k and v (..., T_k, D) -> (output (..., T_q, D), weights (..., T_q, T_k))."""
    weights = attention_weights(attention_scores(q, k, mask))  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, D), (..., T_q, T_k)


def split_heads(t: np.ndarray, n_heads: int) -> np.ndarray:
    """(B, T, C) -> (B, H, T, D): feature block h·D..(h+1)·D belongs to head h."""
    B, T, C = t.shape
    return t.reshape(B, T, n_heads, C // n_heads).transpose(0, 2, 1, 3)  # (B, H, T, D)


def project_qkv(x: np.ndarray, params: dict, n_heads: int) -> tuple[np.ndarray, ...]:
    """x (B, T, C) -> q, k, v each (B, H, T, D), for either weight layout of MultiHeadAttention.

    packed layout: one "qkv" matrix (3C, C) whose output is [q | k | v] along the features.
    heads layout: "heads.{h}.q" etc., one (D, C) matrix per head and role.
    """
    if "qkv.weight" in params:
        qkv = linear(x, scope(params, "qkv."))  # (B, T, 3C)
        q, k, v = np.split(qkv, 3, axis=-1)  # 3 × (B, T, C)
        return split_heads(q, n_heads), split_heads(k, n_heads), split_heads(v, n_heads)
    out = []
    for role in ("q", "k", "v"):
        per_head = [linear(x, scope(params, f"heads.{h}.{role}.")) for h in range(n_heads)]  # H × (B, T, D)
        out.append(np.stack(per_head, axis=1))  # (B, H, T, D)
    return tuple(out)


class AttentionTouch:
    """A position scheme's in-attention touch points for one model config (a NumpyScheme twin)."""

    def __init__(self, scheme, cfg) -> None:
        self.scheme, self.cfg = scheme, cfg

    def rotate(self, q: np.ndarray, k: np.ndarray, offset: int = 0):
        return (q, k) if self.scheme.rotate is None else self.scheme.rotate(q, k, self.cfg, offset)

    def bias(self, T_q: int, T_k: int, offset: int = 0) -> np.ndarray | None:
        return None if self.scheme.bias is None else self.scheme.bias(self.cfg, T_q, T_k, offset)


def attend_and_merge(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    params: dict,
    mask: np.ndarray | None = None,
    bias: np.ndarray | None = None,
) -> np.ndarray:
    """Steps 2 and 3, the same for self- and cross-attention: q (B, H, T_q, D), k and v
    (B, H, T_k, D) -> (B, T_q, C), with the module's output projection in params["proj.*"]."""
    B, H, T_q, D = q.shape
    # 2) attend within each head
    weights = attention_weights(attention_scores(q, k, mask, bias))  # (B, H, T_q, T_k)
    z = weights @ v  # (B, H, T_q, D)
    # 3) put the heads side by side again and mix them with the output projection
    merged = z.transpose(0, 2, 1, 3).reshape(B, T_q, H * D)  # (B, T_q, C)
    return linear(merged, scope(params, "proj."))  # (B, T_q, C)


def multi_head_attention(
    x: np.ndarray, params: dict, n_heads: int, mask: np.ndarray | None = None, positions: AttentionTouch | None = None
) -> np.ndarray:
    """x (B, T, C) -> (B, T, C), with the weights of one MultiHeadAttention (scoped to "attn.")."""
    T = x.shape[1]
    # 1) project to queries, keys and values, one set per head (rotated, if the scheme rotates)
    q, k, v = project_qkv(x, params, n_heads)  # 3 × (B, H, T, D)
    bias = None
    if positions is not None:
        q, k = positions.rotate(q, k)  # 2 × (B, H, T, D)
        bias = positions.bias(T, T)  # (H, T, T) or None
    return attend_and_merge(q, k, v, params, mask, bias)  # (B, T, C)


def cross_attention(
    x: np.ndarray, memory: np.ndarray, params: dict, n_heads: int, mask: np.ndarray | None = None
) -> np.ndarray:
    """x (B, T, C), memory (B, S, C) -> (B, T, C), with the weights of one CrossAttention."""
    # 1) queries from the target stream, keys and values from the source
    q = split_heads(linear(x, scope(params, "q.")), n_heads)  # (B, H, T, D)
    k, v = np.split(linear(memory, scope(params, "kv.")), 2, axis=-1)  # 2 × (B, S, C)
    k, v = split_heads(k, n_heads), split_heads(v, n_heads)  # 2 × (B, H, S, D)
    # 2) and 3) as in self-attention
    return attend_and_merge(q, k, v, params, mask)  # (B, T, C)

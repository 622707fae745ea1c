"""The NumPy twin's forward passes, in the order data flows: linear → position → attention → block → models.

    ids ─► token rows + positions ─► [ attention ─► FFN, each with its LayerNorm ] × n_layers ─► head

Every function takes its weights explicitly, as a dict of float64 NumPy arrays (`state_to_numpy`
of a module's state_dict, narrowed to that module by `scope`), and never imports torch. Each of the
five parts below opens with its equations and sources (part 1's code lives in linear.py). The first
four are the twin of glassformer.nn (embedding.py, position.py, attention.py) and the block of
models/gpt.py and models/seq2seq.py; the fifth stacks them into the whole models of glassformer.models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.activations import ACTIVATIONS
from glassformer.numpy_ref.attention_variants import qk_norm, repeat_kv, sliding_window_mask
from glassformer.numpy_ref.glu import gated_feed_forward
from glassformer.numpy_ref.linear import linear, scope
from glassformer.numpy_ref.rmsnorm import rms_norm
from glassformer.numpy_ref.rope_scaling import rope_parameters, rotate_half_split

# ---- 1. linear: weights in, and the affine map (numpy_ref/linear.py) ----------------------------
#
# state_to_numpy, scope and linear live in numpy_ref/linear.py, read by every twin.


# ---- 2. position: how tokens and their positions get in ------------------------------------------
#
# The twin of glassformer.nn's embedding.py and position.py (its built-in schemes: learned,
# sinusoidal, rotary, alibi, none).
#
# Token embedding: row ids[b, t] of the (V, C) table.  x[b, t] = E[ids[b, t]]
#
# Each position scheme of glassformer.nn.position has its twin here, registered under the same name
# in NUMPY_POSITIONS with the same touch points: `stream` (params, cfg, T) -> (T, C) added to the
# residual stream; `rotate` (q, k, cfg, offset) -> (q, k) and `bias` (cfg, T_q, T_k, offset) ->
# (H, T_q, T_k) inside attention. A scheme that does not use a touch point leaves it None; "none"
# (NoPE) touches nothing. Each equation is written differently from the torch version, so the two
# agree only if both are right (tests/reference/test_numpy_twin.py):
#
# Learned: rows 0..T-1 of a trained (max_len, C) table.
#
# Sinusoidal (Vaswani et al. 2017, §3.5), written the way the paper prints it:
#
#     PE[p, 2i]   = sin(p / 10000^(2i / C))
#     PE[p, 2i+1] = cos(p / 10000^(2i / C))
#
# The torch version computes 1/10000^(2i/C) as exp(-ln(10000)·2i/C); here it is a plain power.
#
# Rotary (RoPE), written with complex numbers. Su et al. 2021, "RoFormer", §3.2: read each pair of
# features (x_2i, x_2i+1) as the complex number z_i = x_2i + i·x_2i+1; the token at position p
# multiplies it by e^(i·p·θ_i), θ_i = 10000^(-2i/D). Turning by an angle is multiplying by a unit
# complex number; glassformer.nn.position.RotaryPositions writes the same turn as a 2×2 rotation of real numbers.
#
# ALiBi: a linear penalty on the attention scores, nothing added to the stream.
#
#     Press et al. 2022, "Train Short, Test Long", §3:  scores[h, i, j] += -m_h · |i - j|
#
# The slopes are written the way the paper's authors describe them, as a recursion: for H a power
# of two, the geometric sequence starting at and multiplying by 2^(-8/H); otherwise the sequence of
# the closest lower power of two P, then every other slope of the sequence for 2P.
# glassformer.nn.position.ALiBi computes them by a direct formula.


def token_embedding(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """ids (B, T) integers in [0, V) -> (B, T, C)."""
    ids = np.asarray(ids)
    assert np.issubdtype(ids.dtype, np.integer), f"token ids must be integers, got {ids.dtype}"
    assert ids.min() >= 0 and ids.max() < table.shape[0], "token id outside the vocabulary"
    return table[ids]  # (B, T, C)


def learned_positions(table: np.ndarray, T: int) -> np.ndarray:
    """(max_len, C) table -> its first T rows (T, C)."""
    assert T <= table.shape[0], f"sequence length T={T} exceeds max_len {table.shape[0]}"
    return table[:T]  # (T, C)


def sinusoidal_table(max_len: int, d_model: int) -> np.ndarray:
    """(max_len, C) float64 table; an odd C simply has one more sine column than cosine columns."""
    p = np.arange(max_len, dtype=np.float64)[:, None]  # (L, 1) positions
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]  # (1, ceil(C/2)) even feature indices
    angle = p / np.power(10000.0, two_i / d_model)  # (L, ceil(C/2)) the angle p·ω_i
    table = np.zeros((max_len, d_model))  # (L, C)
    table[:, 0::2] = np.sin(angle)  # (L, ceil(C/2))
    table[:, 1::2] = np.cos(angle[:, : d_model // 2])  # (L, floor(C/2))
    return table


def _sinusoidal_rows(cfg, T: int) -> np.ndarray:
    assert T <= cfg.max_len, f"sequence length T={T} exceeds max_len {cfg.max_len}"
    return sinusoidal_table(cfg.max_len, cfg.d_model)[:T]  # (T, C)


def rotary(x: np.ndarray, offset: int = 0, base: float = 10000.0) -> np.ndarray:
    """x (..., T, D) of tokens at positions offset..offset+T-1 -> x turned, (..., T, D)."""
    T, D = x.shape[-2:]
    assert D % 2 == 0, f"rotary turns pairs of features: d_head must be even, got {D}"
    p = np.arange(offset, offset + T, dtype=np.float64)[:, None]  # (T, 1) positions
    theta = np.power(base, -np.arange(0, D, 2, dtype=np.float64) / D)  # (D/2,)
    z = x[..., 0::2] + 1j * x[..., 1::2]  # (..., T, D/2) complex: one number per pair
    z = z * np.exp(1j * p * theta)  # (..., T, D/2): each pair turned by p·θ_i
    out = np.empty(x.shape)  # (..., T, D)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def rope(x: np.ndarray, cfg, offset: int = 0) -> np.ndarray:
    """The "rope" scheme (nn/rope_scaling.py): pairs i, i + D/2 turned by complex numbers, with the
    config's base and scaling (the twin in numpy_ref/rope_scaling.py, one pair at a time)."""
    scaling = RopeFields(cfg.rope_scaling, cfg.rope_factor, cfg.rope_original_max_len)
    inv_freq, m = rope_parameters(x.shape[-1], cfg.rope_base, scaling, offset + x.shape[-2])  # (D/2,)
    return rotate_half_split(x, inv_freq, offset, m)  # (..., T, D)


@dataclass(frozen=True)
class RopeFields:
    """The scaling a ModelConfig describes, with RopeScaling's other fields at the values the
    config cannot change (nn/rope_scaling.py states them; tests/reference compare the two)."""

    kind: str
    factor: float
    original_max_len: int
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    attention_factor: float | None = None
    truncate: bool = True


def alibi_slopes(n_heads: int) -> list[float]:
    if math.log2(n_heads).is_integer():
        ratio = 2.0 ** (-8.0 / n_heads)  # the first slope is also the ratio of the sequence
        return [ratio ** (h + 1) for h in range(n_heads)]
    P = 2 ** math.floor(math.log2(n_heads))
    return alibi_slopes(P) + alibi_slopes(2 * P)[0::2][: n_heads - P]


def alibi_bias(n_heads: int, T_q: int, T_k: int, offset: int = 0) -> np.ndarray:
    """(H, T_q, T_k): -m_h·|i - j| for queries at offset..offset+T_q-1 and keys at 0..T_k-1."""
    i = np.arange(offset, offset + T_q)[:, None]  # (T_q, 1)
    j = np.arange(T_k)[None, :]  # (1, T_k)
    m = np.array(alibi_slopes(n_heads))[:, None, None]  # (H, 1, 1)
    return -m * np.abs(i - j)  # (H, T_q, T_k)


@dataclass(frozen=True)
class NumpyScheme:
    stream: Callable | None = None  # (params, cfg, T) -> (T, C)
    rotate: Callable | None = None  # (q, k, cfg, offset) -> (q, k), each (B, H, T, D)
    bias: Callable | None = None  # (cfg, T_q, T_k, offset) -> (H, T_q, T_k)


NUMPY_POSITIONS: dict[str, NumpyScheme] = {
    "learned": NumpyScheme(stream=lambda params, cfg, T: learned_positions(params["pos_embed.table.weight"], T)),
    "sinusoidal": NumpyScheme(stream=lambda params, cfg, T: _sinusoidal_rows(cfg, T)),
    "rotary": NumpyScheme(rotate=lambda q, k, cfg, offset: (rotary(q, offset), rotary(k, offset))),
    "alibi": NumpyScheme(bias=lambda cfg, T_q, T_k, offset: alibi_bias(cfg.n_heads, T_q, T_k, offset)),
    "none": NumpyScheme(),
    "rope": NumpyScheme(rotate=lambda q, k, cfg, offset: (rope(q, cfg, offset), rope(k, cfg, offset))),
}


# ---- 3. attention: who may attend to whom, and how -----------------------------------------------
#
# The masks, scaled dot-product attention, multi-head self-attention and cross-attention (the twin
# of glassformer.nn's attention.py and models/seq2seq.py's CrossAttention).
#
#     Attention(Q, K, V) = softmax(Q Kᵀ / √D  masked) V        (Vaswani et al. 2017, eq. 1)
#
# Masks are boolean, True = may attend (the convention of glassformer.nn.attention), broadcastable
# to the scores (..., T_q, T_k). A query row whose keys are all masked gets all-zero weights and a
# zero output, never NaN.
#
# Self-attention takes q, k and v from the one stream x (B, T, C). Cross-attention takes the queries
# from the target stream x (B, T, C) and keys and values from the source m (B, S, C), the encoder's
# output; its weights are (B, H, T, S):
#
#     CrossAttention(x, m) = softmax((x W_Q)(m W_K)ᵀ / √D, source padding masked) (m W_V)
#
# with "q.*" (C -> C), "kv.*" (C -> 2C, keys first, then values), "proj.*" (C -> C). The two differ
# in step 1 only (where q, k and v come from, and self-attention's position touch points); steps 2
# and 3 are `attend_and_merge`.


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
    """(B, T, H·D) -> (B, H, T, D): feature block h·D..(h+1)·D belongs to head h."""
    B, T, width = t.shape
    return t.reshape(B, T, n_heads, width // n_heads).transpose(0, 2, 1, 3)  # (B, H, T, D)


def project_qkv(x: np.ndarray, params: dict, n_heads: int, n_kv_heads: int = 0) -> tuple[np.ndarray, ...]:
    """x (B, T, C) -> q (B, H, T, D), k and v (B, H_kv, T, D), for either weight layout of
    MultiHeadAttention. n_kv_heads: H_kv, the key-value heads (0: H, multi-head attention).

    packed layout: one "qkv" matrix ((H + 2·H_kv)·D, C) whose output is [q | k | v] along the features.
    heads layout: "heads.{h}.q" etc., one (D, C) matrix per head and role (H_kv = H only).
    """
    if "qkv.weight" in params:
        qkv = linear(x, scope(params, "qkv."))  # (B, T, (H + 2·H_kv)·D)
        n_kv = n_kv_heads or n_heads
        D = qkv.shape[-1] // (n_heads + 2 * n_kv)
        q, k, v = np.split(qkv, [n_heads * D, (n_heads + n_kv) * D], axis=-1)  # (B, T, H·D), 2 × (B, T, H_kv·D)
        return split_heads(q, n_heads), split_heads(k, n_kv), split_heads(v, n_kv)
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
    merged = z.transpose(0, 2, 1, 3).reshape(B, T_q, H * D)  # (B, T_q, H·D)
    return linear(merged, scope(params, "proj."))  # (B, T_q, C)


def multi_head_attention(
    x: np.ndarray,
    params: dict,
    n_heads: int,
    mask: np.ndarray | None = None,
    positions: AttentionTouch | None = None,
    n_kv_heads: int = 0,
    eps: float = 1e-5,
) -> np.ndarray:
    """x (B, T, C) -> (B, T, C), with the weights of one MultiHeadAttention (scoped to "attn.").
    n_kv_heads: H_kv key-value heads, each shared by H / H_kv query heads (0: H); eps: QK-norm's,
    read when the weights hold one ("qk_norm.*")."""
    T = x.shape[1]
    # 1) project to queries, keys and values, one set per head (QK-normed and rotated, if configured)
    q, k, v = project_qkv(x, params, n_heads, n_kv_heads)  # (B, H, T, D), 2 × (B, H_kv, T, D)
    if "qk_norm.q_norm.weight" in params:
        q, k = qk_norm(q, k, scope(params, "qk_norm."), eps)  # (B, H, T, D), (B, H_kv, T, D)
    bias = None
    if positions is not None:
        q, k = positions.rotate(q, k)  # (B, H, T, D), (B, H_kv, T, D)
        bias = positions.bias(T, T)  # (H, T, T) or None
    groups = n_heads // k.shape[1]  # g = H / H_kv query heads read each key-value head
    k, v = repeat_kv(k, groups), repeat_kv(v, groups)  # 2 × (B, H, T, D)
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


# ---- 4. block: the FFN, LayerNorm, the block and the decoder block -------------------------------
#
# The feed-forward network and its three activations, LayerNorm, the block (GPT's and the
# encoder's) and the decoder block (the twin of models/gpt.py's and models/seq2seq.py's).
# The modern decoder's choices are read from the config the same way the model builds them:
# norm_type="rms" takes numpy_ref/rmsnorm.py's RMSNorm for every LayerNorm, ffn="swiglu"|"geglu"
# numpy_ref/glu.py's gated FFN, and attention shares its H_kv key-value heads, QK-norms and slides
# its window with numpy_ref/attention_variants.py (part 3 and `_mask` in part 5).
#
#     FFN(x) = W₂ · act(W₁ x + b₁) + b₂                      (Vaswani et al. 2017, §3.3)
#
#     relu(x)      = max(x, 0)
#     gelu(x)      = x · Φ(x) = x · ½ (1 + erf(x / √2))       (Hendrycks & Gimpel 2016)
#     gelu_tanh(x) = ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))) (their approximation; GPT-2 uses it)
#
#     LayerNorm(x) = γ · (x - mean) / √(var + ε) + β     over the C features of each token,
#                    var the biased (divide-by-C) variance             (Ba et al. 2016)
#
# One block:
#     norm="pre"   x = x + Attn(LN₁(x));   x = x + FFN(LN₂(x))
#     norm="post"  x = LN₁(x + Attn(x));   x = LN₂(x + FFN(x))
#     norm="none"  x = x + Attn(x);        x = x + FFN(x)
#
# One decoder block (masked self-attention, cross-attention to the memory m, FFN):
#     norm="pre"   x = x + SelfAttn(LN₁(x));  x = x + Cross(LN₂(x), m);  x = x + FFN(LN₃(x))
#     norm="post"  x = LN₁(x + SelfAttn(x));  x = LN₂(x + Cross(x, m));  x = LN₃(x + FFN(x))
#     norm="none"  the same sums without LayerNorm
#
# The activations live in numpy_ref/activations.py (NumPy has no erf: the exact GELU maps Python's
# math.erf over the array). No dropout anywhere: the twin is the model in eval mode.


def feed_forward(x: np.ndarray, params: dict, activation: str, ffn: str = "mlp") -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one FeedForward (scoped to "ffn."); ffn swiglu or
    geglu: a GatedFeedForward's (numpy_ref/glu.py)."""
    if ffn != "mlp":
        return gated_feed_forward(x, params, ffn)  # (B, T, C)
    hidden = ACTIVATIONS[activation](linear(x, scope(params, "fc1.")))  # (B, T, F)
    return linear(hidden, scope(params, "fc2."))  # (B, T, C)


def layer_norm(x: np.ndarray, params: dict, eps: float) -> np.ndarray:
    """x (..., C) -> (..., C); params["weight"] is γ, params["bias"] is β (absent when bias=False)."""
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # (..., 1)
    y = (x - mean) / np.sqrt(var + eps) * params["weight"]  # (..., C)
    return y + params["bias"] if "bias" in params else y  # (..., C)


def norm(x: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """The config's norm: LayerNorm, or RMSNorm (numpy_ref/rmsnorm.py) for norm_type="rms"."""
    if cfg.norm_type == "rms":
        return rms_norm(x, params, cfg.ln_eps)  # (..., C)
    return layer_norm(x, params, cfg.ln_eps)  # (..., C)


def self_attention(x: np.ndarray, params: dict, cfg: ModelConfig, mask, positions: AttentionTouch) -> np.ndarray:
    """x (B, T, C) -> (B, T, C): multi_head_attention with the config's heads, key-value heads and eps."""
    return multi_head_attention(x, params, cfg.n_heads, mask, positions, cfg.n_kv_heads, cfg.ln_eps)  # (B, T, C)


def block(x: np.ndarray, params: dict, cfg: ModelConfig, mask: np.ndarray | None = None) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one Block (scoped to "blocks.{i}.")."""
    positions = AttentionTouch(NUMPY_POSITIONS[cfg.position], cfg)

    def attn(h):
        return self_attention(h, scope(params, "attn."), cfg, mask, positions)  # (B, T, C)

    def ffn(h):
        return feed_forward(h, scope(params, "ffn."), cfg.activation, cfg.ffn)  # (B, T, C)

    def ln(h, which):
        return h if cfg.norm == "none" else norm(h, scope(params, which + "."), cfg)

    if cfg.norm == "post":
        x = ln(x + attn(x), "ln1")  # (B, T, C)
        return x if cfg.ffn == "none" else ln(x + ffn(x), "ln2")  # (B, T, C)
    x = x + attn(ln(x, "ln1"))  # (B, T, C)
    return x if cfg.ffn == "none" else x + ffn(ln(x, "ln2"))  # (B, T, C): ffn="none", attention only


def decoder_block(
    x: np.ndarray,
    memory: np.ndarray,
    params: dict,
    cfg: ModelConfig,
    self_mask: np.ndarray | None = None,
    source_mask: np.ndarray | None = None,
) -> np.ndarray:
    """x (B, T, C), memory (B, S, C) -> (B, T, C) with the weights of one DecoderBlock."""
    positions = AttentionTouch(NUMPY_POSITIONS[cfg.position], cfg)
    sublayers = [  # (the sublayer, its LayerNorm)
        (lambda h: self_attention(h, scope(params, "attn."), cfg, self_mask, positions), "ln1"),
        (lambda h: cross_attention(h, memory, scope(params, "cross."), cfg.n_heads, source_mask), "ln2"),
        (lambda h: feed_forward(h, scope(params, "ffn."), cfg.activation, cfg.ffn), "ln3"),
    ]

    def ln(h, which):
        return h if cfg.norm == "none" else norm(h, scope(params, which + "."), cfg)

    for f, which in sublayers:
        x = ln(x + f(x), which) if cfg.norm == "post" else x + f(ln(x, which))  # (B, T, C)
    return x


# ---- 5. models: GPT, Encoder, SequenceRegressor and the encoder-decoder -------------------------
#
# The layers above, stacked as glassformer.models stacks them (models/gpt.py, encoder.py, regressor.py):
#
#     inputs ─► embed ─► + positions ─► [block] × n_layers ─► final LN ─► head
#
# The encoder-decoder (models/seq2seq.py):
#
#     memory = LN(encoder blocks(E[src]·√C + P))              source padding hidden
#     logits = head(LN(decoder blocks(E[tgt]·√C + P, memory))) causal ∧ target padding; source padding
#
# A tied or shared matrix appears in the state dict under each of its names, so the twin simply
# reads "src_embed", "tgt_embed" and "head" whatever the config shares.
#
# `params` is the whole model's state_dict through `state_to_numpy`; `cfg` is the ModelConfig
# the model was built with. Positions come from the scheme's twin in part 2 (the sinusoidal
# table is not in a state_dict, so it is computed there from the formula).


def trunk(x: np.ndarray, params: dict, cfg: ModelConfig, mask: np.ndarray | None) -> np.ndarray:
    """Embedded inputs (B, T, C) -> final hidden states (B, T, C)."""
    T = x.shape[1]
    scheme = NUMPY_POSITIONS[cfg.position]
    if scheme.stream is not None:
        x = x + scheme.stream(params, cfg, T)  # (B, T, C) + (T, C)
    for i in range(cfg.n_layers):
        x = block(x, scope(params, f"blocks.{i}."), cfg, mask)  # (B, T, C)
    return _final_norm(x, params, cfg, "ln_final")  # (B, T, C)


def _mask(cfg: ModelConfig, T: int, ids: np.ndarray | None = None) -> np.ndarray | None:
    """causal (T, T) if configured (within the sliding window, if one is), AND padding (B, 1, 1, T)
    if there are ids and a pad_id."""
    mask = None  # (T, T) or None
    if cfg.causal:
        mask = sliding_window_mask(T, cfg.sliding_window) if cfg.sliding_window else causal_mask(T)
    if ids is not None and cfg.pad_id is not None:
        pad = padding_mask(ids, cfg.pad_id)  # (B, 1, 1, T)
        mask = pad if mask is None else mask & pad  # (B, 1, T, T)
    return mask


def _token_model(ids: np.ndarray, params: dict, cfg: ModelConfig, with_padding: bool) -> np.ndarray:
    x = token_embedding(ids, params["tok_embed.table.weight"])  # (B, T, C)
    h = trunk(x, params, cfg, _mask(cfg, x.shape[1], ids if with_padding else None))  # (B, T, C)
    # a tied head's weight is the embedding table itself; the state_dict lists it under both names
    return linear(h, scope(params, "head."))  # (B, T, V)


def gpt_forward(ids: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """GPT: ids (B, T) -> next-token logits (B, T, V). Always causal, no padding mask."""
    return _token_model(ids, params, cfg, with_padding=False)  # (B, T, V)


def encoder_forward(ids: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """Encoder: ids (B, T) -> logits (B, T, V); padding keys are hidden when cfg.pad_id is set."""
    return _token_model(ids, params, cfg, with_padding=True)  # (B, T, V)


def regressor_forward(x: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """SequenceRegressor: numbers (B, T, d_in) -> numbers (B, T, d_out)."""
    h = trunk(linear(x, scope(params, "in_proj.")), params, cfg, _mask(cfg, x.shape[1]))  # (B, T, C)
    return linear(h, scope(params, "out_proj."))  # (B, T, d_out)


def _embed(ids: np.ndarray, table: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    x = token_embedding(ids, table) * np.sqrt(cfg.d_model)  # (B, L, C)
    scheme = NUMPY_POSITIONS[cfg.position]
    return x if scheme.stream is None else x + scheme.stream(params, cfg, ids.shape[1])  # (B, L, C)


def _final_norm(x: np.ndarray, params: dict, cfg: ModelConfig, which: str) -> np.ndarray:
    if cfg.final_norm and cfg.norm != "none":
        return norm(x, scope(params, which + "."), cfg)  # (B, L, C)
    return x


def seq2seq_forward(src: np.ndarray, tgt: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """src (B, S), tgt_in (B, T) ids -> logits (B, T, V)."""
    source_mask = padding_mask(src, cfg.pad_id)  # (B, 1, 1, S)
    x = _embed(src, params["src_embed.table.weight"], params, cfg)  # (B, S, C)
    for i in range(cfg.n_layers):
        x = block(x, scope(params, f"encoder.{i}."), cfg, source_mask)  # (B, S, C)
    memory = _final_norm(x, params, cfg, "enc_ln_final")  # (B, S, C)

    self_mask = padding_mask(tgt, cfg.pad_id)  # (B, 1, 1, T)
    if cfg.causal:
        self_mask = self_mask & causal_mask(tgt.shape[1])  # (B, 1, T, T)
    y = _embed(tgt, params["tgt_embed.table.weight"], params, cfg)  # (B, T, C)
    for i in range(cfg.n_layers):
        y = decoder_block(y, memory, scope(params, f"decoder.{i}."), cfg, self_mask, source_mask)  # (B, T, C)
    return linear(_final_norm(y, params, cfg, "dec_ln_final"), scope(params, "head."))  # (B, T, V)

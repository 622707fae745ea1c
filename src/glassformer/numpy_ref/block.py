"""One Transformer block and its parts, NumPy edition: the feed-forward network and its three
activations, LayerNorm, the block (GPT's and the encoder's) and the decoder block.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂                      (Vaswani et al. 2017, §3.3)

    relu(x)      = max(x, 0)
    gelu(x)      = x · Φ(x) = x · ½ (1 + erf(x / √2))       (Hendrycks & Gimpel 2016)
    gelu_tanh(x) = ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))) (their approximation; GPT-2 uses it)

    LayerNorm(x) = γ · (x - mean) / √(var + ε) + β     over the C features of each token,
                   var the biased (divide-by-C) variance             (Ba et al. 2016)

One block:
    norm="pre"   x = x + Attn(LN₁(x));   x = x + FFN(LN₂(x))
    norm="post"  x = LN₁(x + Attn(x));   x = LN₂(x + FFN(x))
    norm="none"  x = x + Attn(x);        x = x + FFN(x)

One decoder block (masked self-attention, cross-attention to the memory m, FFN):
    norm="pre"   x = x + SelfAttn(LN₁(x));  x = x + Cross(LN₂(x), m);  x = x + FFN(LN₃(x))
    norm="post"  x = LN₁(x + SelfAttn(x));  x = LN₂(x + Cross(x, m));  x = LN₃(x + FFN(x))
    norm="none"  the same sums without LayerNorm

NumPy has no erf, so the exact GELU maps Python's math.erf over the array. No dropout anywhere:
the twin is the model in eval mode.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.attention import AttentionTouch, cross_attention, multi_head_attention
from glassformer.numpy_ref.linear import linear, scope
from glassformer.numpy_ref.position import NUMPY_POSITIONS

_erf = np.vectorize(math.erf, otypes=[np.float64])


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def gelu(x: np.ndarray) -> np.ndarray:
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


ACTIVATIONS = {"relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh}


def feed_forward(x: np.ndarray, params: dict, activation: str) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one FeedForward (scoped to "ffn.")."""
    hidden = ACTIVATIONS[activation](linear(x, scope(params, "fc1.")))  # (B, T, F)
    return linear(hidden, scope(params, "fc2."))  # (B, T, C)


def layer_norm(x: np.ndarray, params: dict, eps: float) -> np.ndarray:
    """x (..., C) -> (..., C); params["weight"] is γ, params["bias"] is β (absent when bias=False)."""
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # (..., 1)
    y = (x - mean) / np.sqrt(var + eps) * params["weight"]  # (..., C)
    return y + params["bias"] if "bias" in params else y  # (..., C)


def block(x: np.ndarray, params: dict, cfg: ModelConfig, mask: np.ndarray | None = None) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with the weights of one Block (scoped to "blocks.{i}.")."""
    positions = AttentionTouch(NUMPY_POSITIONS[cfg.position], cfg)

    def attn(h):
        return multi_head_attention(h, scope(params, "attn."), cfg.n_heads, mask, positions)  # (B, T, C)

    def ffn(h):
        return feed_forward(h, scope(params, "ffn."), cfg.activation)  # (B, T, C)

    def ln(h, which):
        return h if cfg.norm == "none" else layer_norm(h, scope(params, which + "."), cfg.ln_eps)

    if cfg.norm == "post":
        x = ln(x + attn(x), "ln1")  # (B, T, C)
        return ln(x + ffn(x), "ln2")  # (B, T, C)
    x = x + attn(ln(x, "ln1"))  # (B, T, C)
    return x + ffn(ln(x, "ln2"))  # (B, T, C)


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
        (lambda h: multi_head_attention(h, scope(params, "attn."), cfg.n_heads, self_mask, positions), "ln1"),
        (lambda h: cross_attention(h, memory, scope(params, "cross."), cfg.n_heads, source_mask), "ln2"),
        (lambda h: feed_forward(h, scope(params, "ffn."), cfg.activation), "ln3"),
    ]

    def ln(h, which):
        return h if cfg.norm == "none" else layer_norm(h, scope(params, which + "."), cfg.ln_eps)

    for f, which in sublayers:
        x = ln(x + f(x), which) if cfg.norm == "post" else x + f(ln(x, which))  # (B, T, C)
    return x

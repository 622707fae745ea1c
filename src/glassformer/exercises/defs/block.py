"""How the block exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

`params` holds the block's weights under the names a glassformer Block's state_dict uses, so a
passing block can run with a trained model's weights as they are. Reference:
glassformer.models.gpt.Block (norm="pre", the case's weights put in with functional_call) and
numpy_ref.block. (Pre-LN as in GPT-2; Xiong et al. 2020 on why it trains easily.)
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
from glassformer.config import ModelConfig
from glassformer.exercises.catalog import (
    ATTENTION,
    Case,
    Exercise,
    Function,
    Variant,
    noncontiguous,
    numpy_twin,
    randn,
    solution_functions,
)
from glassformer.messages import N_
from glassformer.models.gpt import Block
from glassformer.nn.attention import causal_mask

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: one pre-LN Transformer block (GPT-2's arrangement)."""

import math

import torch


def block(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    p = params
    h = _layer_norm(x, p["ln1.weight"], p.get("ln1.bias"), eps)  # (B, T, C)
    x = x + _multi_head_attention(
        h, p["attn.qkv.weight"], p.get("attn.qkv.bias"), p["attn.proj.weight"], p.get("attn.proj.bias"), n_heads, mask
    )  # (B, T, C)
    h = _layer_norm(x, p["ln2.weight"], p.get("ln2.bias"), eps)  # (B, T, C)
    return x + _feed_forward(
        h, p["ffn.fc1.weight"], p.get("ffn.fc1.bias"), p["ffn.fc2.weight"], p.get("ffn.fc2.bias"), activation
    )  # (B, T, C)


def _layer_norm(x, weight, bias, eps):
    mean = x.mean(dim=-1, keepdim=True)  # (B, T, 1)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # (B, T, 1)
    y = (x - mean) / torch.sqrt(var + eps) * weight  # (B, T, C)
    return y + bias if bias is not None else y


def _multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask):
    B, T, C = x.shape
    qkv = x @ w_qkv.T + (b_qkv if b_qkv is not None else 0.0)  # (B, T, 3C)
    q, k, v = (t.reshape(B, T, n_heads, C // n_heads).transpose(1, 2) for t in qkv.split(C, dim=-1))  # 3 × (B, H, T, D)
    scores = q @ k.transpose(-2, -1) / math.sqrt(C // n_heads)  # (B, H, T, T)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
    else:
        alive = mask.any(dim=-1, keepdim=True)  # rows that see at least one key
        scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (B, H, T, T)
    merged = (weights @ v).transpose(1, 2).reshape(B, T, C)  # (B, T, C)
    return merged @ w_out.T + (b_out if b_out is not None else 0.0)  # (B, T, C)


def _feed_forward(x, w1, b1, w2, b2, activation):
    h = x @ w1.T + (b1 if b1 is not None else 0.0)  # (B, T, F)
    if activation == "relu":
        h = torch.clamp(h, min=0.0)
    elif activation == "gelu":
        h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
    elif activation == "gelu_tanh":
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    else:
        raise ValueError(f"unknown activation {activation!r}")
    return h @ w2.T + (b2 if b2 is not None else 0.0)  # (B, T, C)
'''

_feed_forward, _layer_norm, _multi_head_attention = solution_functions(
    SOLUTION, "_feed_forward", "_layer_norm", "_multi_head_attention"
)  # the variants reuse them


def config(x, params, n_heads, activation, eps) -> ModelConfig:
    C, F = x.shape[-1], params["ffn.fc1.weight"].shape[0]
    return ModelConfig(
        d_model=C,
        n_heads=n_heads,
        d_ff=F,
        norm="pre",
        activation=activation,
        dropout=0.0,
        bias="ln1.bias" in params,
        ln_eps=eps,
    )


def reference(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    block = Block(config(x, params, n_heads, activation, eps)).double()
    return (functional_call(block, params, (x, mask)),)  # (B, T, C)


def twin(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    return numpy_ref.block(x, params, config(x, params, n_heads, activation, eps), mask)


# ------------------------------------------------------------------ known-wrong variants
# (each calls the solution's helpers in the wrong arrangement)


def _halves(params, n_heads, mask, activation, eps):
    p = params

    def ln(h, which):
        return _layer_norm(h, p[f"{which}.weight"], p.get(f"{which}.bias"), eps)

    def attn(h, m=mask):
        return _multi_head_attention(
            h, p["attn.qkv.weight"], p.get("attn.qkv.bias"), p["attn.proj.weight"], p.get("attn.proj.bias"), n_heads, m
        )

    def ffn(h):
        return _feed_forward(
            h, p["ffn.fc1.weight"], p.get("ffn.fc1.bias"), p["ffn.fc2.weight"], p.get("ffn.fc2.bias"), activation
        )

    return ln, attn, ffn


def post_ln(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, mask, activation, eps)
    x = ln(x + attn(x), "ln1")  # the 2017 paper's order
    return ln(x + ffn(x), "ln2")


def no_residual(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, mask, activation, eps)
    x = attn(ln(x, "ln1"))  # the input is not added back
    return ffn(ln(x, "ln2"))


def ln_on_stream(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, mask, activation, eps)
    x = ln(x, "ln1")  # the residual stream itself is normalised
    x = x + attn(x)
    x = ln(x, "ln2")
    return x + ffn(x)


def same_ln(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, mask, activation, eps)
    x = x + attn(ln(x, "ln1"))
    return x + ffn(ln(x, "ln1"))  # ln1's γ and β used twice


def parallel(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, mask, activation, eps)
    return x + attn(ln(x, "ln1")) + ffn(ln(x, "ln2"))  # the FFN reads the block's input


def mask_ignored(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    ln, attn, ffn = _halves(params, n_heads, None, activation, eps)
    x = x + attn(ln(x, "ln1"))  # every position sees the future
    return x + ffn(ln(x, "ln2"))


# -------------------------------------------------------------------------------- cases


def _params(rng, C, F, bias=True) -> dict:
    def w(o, i):
        return randn(rng, o, i, scale=1 / math.sqrt(i))

    p = {
        "ln1.weight": 1 + randn(rng, C, scale=0.3),
        "ln1.bias": randn(rng, C, scale=0.3),
        "attn.qkv.weight": w(3 * C, C),
        "attn.qkv.bias": randn(rng, 3 * C, scale=0.1),
        "attn.proj.weight": w(C, C),
        "attn.proj.bias": randn(rng, C, scale=0.1),
        "ln2.weight": 1 + randn(rng, C, scale=0.3),
        "ln2.bias": randn(rng, C, scale=0.3),
        "ffn.fc1.weight": w(F, C),
        "ffn.fc1.bias": randn(rng, F, scale=0.1),
        "ffn.fc2.weight": w(C, F),
        "ffn.fc2.bias": randn(rng, C, scale=0.1),
    }
    return p if bias else {k: v for k, v in p.items() if not k.endswith(".bias")}


def _case(label, rng, B, T, H, D, F, mask, activation="relu", eps=1e-5, bias=True, contiguous=True, fields=None):
    x = randn(rng, B, T, H * D)
    params = _params(rng, H * D, F, bias)
    grad = (0,) + tuple((1, k) for k in params)
    args = (x if contiguous else noncontiguous(x), params, H, mask, activation, eps)
    return Case(label, "block", args, grad, fields or {})


def make_cases(rng: np.random.Generator) -> list[Case]:
    padding = (torch.arange(4)[None, :] < torch.tensor([4, 0])[:, None])[:, None, None, :]  # (2, 1, 1, 4)
    cases = [
        _case(N_("a causal mask"), rng, 2, 5, 2, 4, 16, causal_mask(5)),
        _case(N_("a small ordinary input"), rng, 2, 4, 2, 4, 16, None),
        _case(N_("one head (H = 1)"), rng, 2, 4, 1, 6, 12, causal_mask(4)),
        _case(N_("T = 1 (a single position)"), rng, 2, 1, 2, 4, 8, causal_mask(1)),
        _case(N_("a batch of 1"), rng, 1, 5, 2, 3, 12, causal_mask(5)),
        _case(N_("activation = 'gelu'"), rng, 2, 4, 2, 4, 16, causal_mask(4), activation="gelu"),
        _case(N_("eps = {eps} (not the default)"), rng, 2, 4, 2, 4, 8, causal_mask(4), eps=1e-2, fields={"eps": 1e-2}),
        _case(N_("no biases (None)"), rng, 2, 4, 2, 4, 8, causal_mask(4), bias=False),
        _case(N_("a query row whose keys are all masked"), rng, 2, 4, 2, 4, 8, padding),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 2, 3, 8, causal_mask(5), contiguous=False),
    ]
    for i in range(2):
        B, T, H, D = (int(n) for n in rng.integers(1, 5, size=4))
        F = int(rng.integers(1, 20))
        cases.append(_case(N_("random case #{i}"), rng, B, T, H, D, F, causal_mask(T), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="block",
    title=N_("a pre-LN Transformer block"),
    todo=N_("TODO: the attention half with its residual, then the FFN half with its residual."),
    hints=(
        N_(
            "Use your own layer_norm, multi_head_attention and "
            "feed_forward (import them from your files). The block only "
            "arranges them."
        ),
        N_(
            "Pre-LN: the LayerNorm is applied to what goes INTO each "
            "half, and the half's output is ADDED to the unnormalised x. "
            "Two different LayerNorms: ln1 before attention, ln2 before "
            "the FFN."
        ),
        N_(
            "Nearly the answer: x = x + "
            "multi_head_attention(layer_norm(x, p['ln1.weight'], "
            "p.get('ln1.bias'), eps), p['attn.qkv.weight'], ...); return "
            "x + feed_forward(layer_norm(x, p['ln2.weight'], ...), ...)"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "block",
            '(x, params, n_heads, mask=None, activation="relu", eps=1e-5)',
            ("x", "params", "n_heads", "mask", "activation", "eps"),
            ("output",),
            doc=N_(
                "One block as GPT-2 arranges it (pre-LN): each half reads a "
                "normalised copy of the\nstream and adds its result back; the "
                "stream itself is never normalised.\n\n    x = x + "
                "MultiHeadAttention(LN₁(x), mask)\n    x = x + FFN(LN₂(x))\n\n"
                "params: the block's weights named as in a glassformer "
                "Block's state_dict:\nln1.weight ln1.bias attn.qkv.weight "
                "attn.qkv.bias attn.proj.weight attn.proj.bias\nln2.weight "
                "ln2.bias ffn.fc1.weight ffn.fc1.bias ffn.fc2.weight "
                "ffn.fc2.bias\n(without biases they are absent: use "
                "params.get(...)).\n\nShapes: x (B, T, C) -> (B, T, C); mask "
                "as in attention; activation and eps as in\nfeed_forward and "
                "layer_norm."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"block": reference},
    numpy_reference={"block": numpy_twin(twin)},
    variants=(
        Variant(
            "post_ln",
            "block",
            post_ln,
            N_(
                "You normalise after the residual addition: that is the 2017 "
                "paper's post-LN block, x = LN(x + f(x)). This exercise is "
                "pre-LN: x = x + f(LN(x))."
            ),
        ),
        Variant(
            "no_residual",
            "block",
            no_residual,
            N_(
                "The residual connections are missing: add each half's "
                "output to its input (x = x + ...), otherwise the stream "
                "forgets what it carried."
            ),
        ),
        Variant(
            "ln_on_stream",
            "block",
            ln_on_stream,
            N_(
                "You normalise the residual stream itself (x = LN(x), then x "
                "= x + f(x)). In a pre-LN block only the branch input is "
                "normalised: x = x + f(LN(x))."
            ),
        ),
        Variant(
            "same_ln",
            "block",
            same_ln,
            N_("You use ln1's weights for both halves; the FFN half has its own LayerNorm, ln2."),
        ),
        Variant(
            "parallel",
            "block",
            parallel,
            N_(
                "Your FFN reads the block's input, in parallel with "
                "attention. It must read the stream AFTER the attention half "
                "was added: x = x + attn(...), then x = x + ffn(LN₂(x))."
            ),
        ),
        Variant(
            "mask_ignored",
            "block",
            mask_ignored,
            N_(
                "The mask does not reach the attention: pass it on to "
                "multi_head_attention, or every position sees the future."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=(
        "from layer_norm import layer_norm",
        "from multi_head_attention import multi_head_attention",
        "from feed_forward import feed_forward",
        "params.get(name)",
    ),
    seed=111,
    plugs_into="glassformer.models.gpt.Block.forward (norm='pre')",
)

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
        _case("exercise.case.causal", rng, 2, 5, 2, 4, 16, causal_mask(5)),
        _case("exercise.case.basic", rng, 2, 4, 2, 4, 16, None),
        _case("exercise.case.one_head", rng, 2, 4, 1, 6, 12, causal_mask(4)),
        _case("exercise.case.t1", rng, 2, 1, 2, 4, 8, causal_mask(1)),
        _case("exercise.case.batch1", rng, 1, 5, 2, 3, 12, causal_mask(5)),
        _case("exercise.block.case.gelu", rng, 2, 4, 2, 4, 16, causal_mask(4), activation="gelu"),
        _case("exercise.layer_norm.case.eps", rng, 2, 4, 2, 4, 8, causal_mask(4), eps=1e-2, fields={"eps": 1e-2}),
        _case("exercise.case.no_bias", rng, 2, 4, 2, 4, 8, causal_mask(4), bias=False),
        _case("exercise.case.dead_row", rng, 2, 4, 2, 4, 8, padding),
        _case("exercise.case.noncontig", rng, 2, 5, 2, 3, 8, causal_mask(5), contiguous=False),
    ]
    for i in range(2):
        B, T, H, D = (int(n) for n in rng.integers(1, 5, size=4))
        F = int(rng.integers(1, 20))
        cases.append(_case("exercise.case.random", rng, B, T, H, D, F, causal_mask(T), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="block",
    title=N_("exercise.block.title"),
    todo=N_("exercise.block.todo"),
    hints=(N_("exercise.block.hint.1"), N_("exercise.block.hint.2"), N_("exercise.block.hint.3")),
    solution=SOLUTION,
    functions=(
        Function(
            "block",
            '(x, params, n_heads, mask=None, activation="relu", eps=1e-5)',
            ("x", "params", "n_heads", "mask", "activation", "eps"),
            ("output",),
            doc=N_("exercise.block.doc.block"),
        ),
    ),
    make_cases=make_cases,
    reference={"block": reference},
    numpy_reference={"block": numpy_twin(twin)},
    variants=(
        Variant("post_ln", "block", post_ln, N_("exercise.block.wrong.post_ln")),
        Variant("no_residual", "block", no_residual, N_("exercise.block.wrong.no_residual")),
        Variant("ln_on_stream", "block", ln_on_stream, N_("exercise.block.wrong.ln_on_stream")),
        Variant("same_ln", "block", same_ln, N_("exercise.block.wrong.same_ln")),
        Variant("parallel", "block", parallel, N_("exercise.block.wrong.parallel")),
        Variant("mask_ignored", "block", mask_ignored, N_("exercise.block.wrong.mask_ignored")),
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

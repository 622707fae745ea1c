"""How the multi_head_attention exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.attention.MultiHeadAttention (style="packed", GPT-2's layout, the
case's weights put in with torch.func.functional_call, so gradients reach them) and
numpy_ref.multi_head_attention.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
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
from glassformer.nn.attention import MultiHeadAttention, causal_mask

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: multi-head self-attention with one packed Q/K/V projection."""

import math

import torch


def multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    # 1) project once for all heads, then cut into q, k, v and into heads
    qkv = x @ w_qkv.T  # (B, T, 3C)
    if b_qkv is not None:
        qkv = qkv + b_qkv  # (B, T, 3C)
    q, k, v = qkv.split(C, dim=-1)  # 3 × (B, T, C)
    q, k, v = (_split_heads(t, n_heads) for t in (q, k, v))  # 3 × (B, H, T, D)
    # 2) attend within each head
    z = _attend(q, k, v, mask)  # (B, H, T, D)
    # 3) heads side by side again, then the output projection mixes them
    out = _merge_heads(z) @ w_out.T  # (B, T, C)
    return out + b_out if b_out is not None else out  # (B, T, C)


def _split_heads(t, n_heads):
    B, T, C = t.shape
    return t.reshape(B, T, n_heads, C // n_heads).transpose(1, 2)  # (B, H, T, D)


def _merge_heads(z):
    B, H, T, D = z.shape
    return z.transpose(1, 2).reshape(B, T, H * D)  # (B, T, C)


def _attend(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, H, T, T)
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v  # (B, H, T, D)
    alive = mask.any(dim=-1, keepdim=True)  # rows that see at least one key
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)  # (B, H, T, T)
    weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (B, H, T, T)
    return weights @ v  # (B, H, T, D)
'''

_attend, _merge_heads, _split_heads = solution_functions(
    SOLUTION, "_attend", "_merge_heads", "_split_heads"
)  # the variants reuse them


def weights_by_name(w_qkv, b_qkv, w_out, b_out) -> dict:
    """The four tensors under the names MultiHeadAttention's state_dict uses (biases optional)."""
    named = {"qkv.weight": w_qkv, "qkv.bias": b_qkv, "proj.weight": w_out, "proj.bias": b_out}
    return {k: v for k, v in named.items() if v is not None}


def reference(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    mha = MultiHeadAttention(x.size(-1), n_heads, bias=b_qkv is not None).double()
    return (functional_call(mha, weights_by_name(w_qkv, b_qkv, w_out, b_out), (x, mask)),)  # (B, T, C)


def twin(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    return numpy_ref.multi_head_attention(x, weights_by_name(w_qkv, b_qkv, w_out, b_out), n_heads, mask)


# ------------------------------------------------------------------ known-wrong variants
# (each makes one mistake and otherwise calls the solution's helpers)


def _project(x, w, b):
    return x @ w.T + (b if b is not None else 0.0)


def merge_no_transpose(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    q, k, v = (_split_heads(t, n_heads) for t in _project(x, w_qkv, b_qkv).split(C, dim=-1))
    z = _attend(q, k, v, mask)  # (B, H, T, D)
    return _project(z.reshape(B, T, C), w_out, b_out)  # heads merged without the transpose


def scale_by_d_model(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    q, k, v = (_split_heads(t, n_heads) for t in _project(x, w_qkv, b_qkv).split(C, dim=-1))
    q = q * math.sqrt(C // n_heads) / math.sqrt(C)  # as if the scores were divided by √C, not √D
    return _project(_merge_heads(_attend(q, k, v, mask)), w_out, b_out)


def no_scale(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    q, k, v = (_split_heads(t, n_heads) for t in _project(x, w_qkv, b_qkv).split(C, dim=-1))
    q = q * math.sqrt(C // n_heads)  # (B, H, T, D): as if the scores were never divided by √D
    return _project(_merge_heads(_attend(q, k, v, mask)), w_out, b_out)


def no_out_proj(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    q, k, v = (_split_heads(t, n_heads) for t in _project(x, w_qkv, b_qkv).split(C, dim=-1))
    return _merge_heads(_attend(q, k, v, mask))  # the heads are never mixed


def qkv_per_head(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    D = C // n_heads
    qkv = _project(x, w_qkv, b_qkv).reshape(B, T, n_heads, 3 * D).transpose(1, 2)  # (B, H, T, 3D)
    q, k, v = qkv.split(D, dim=-1)  # reads the rows as [q k v of head 0 | of head 1 | ...]
    return _project(_merge_heads(_attend(q, k, v, mask)), w_out, b_out)


def split_no_transpose(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    B, T, C = x.shape
    q, k, v = (t.reshape(B, n_heads, T, C // n_heads) for t in _project(x, w_qkv, b_qkv).split(C, dim=-1))
    return _project(_merge_heads(_attend(q, k, v, mask)), w_out, b_out)


# -------------------------------------------------------------------------------- cases


def _weights(rng, C, bias=True):
    s = 1.0 / math.sqrt(C)
    w_qkv, w_out = randn(rng, 3 * C, C, scale=s), randn(rng, C, C, scale=s)
    b_qkv, b_out = (randn(rng, 3 * C, scale=0.1), randn(rng, C, scale=0.1)) if bias else (None, None)
    return w_qkv, b_qkv, w_out, b_out


def _case(label, rng, B, T, H, D, mask, fields=None, bias=True, contiguous=True):
    x = randn(rng, B, T, H * D)
    x = x if contiguous else noncontiguous(x)
    args = (x, *_weights(rng, H * D, bias), H, mask)
    grad = tuple(i for i in range(5) if args[i] is not None)
    return Case(label, "multi_head_attention", args, grad, fields or {})


def make_cases(rng: np.random.Generator) -> list[Case]:
    padding = (torch.arange(4)[None, :] < torch.tensor([4, 2, 0])[:, None])[:, None, None, :]  # (3, 1, 1, 4)
    cases = [
        _case(N_("a small ordinary input"), rng, 2, 5, 2, 4, None),
        _case(N_("a causal mask"), rng, 2, 6, 3, 4, causal_mask(6)),
        _case(N_("one head (H = 1)"), rng, 2, 4, 1, 6, causal_mask(4)),
        _case(N_("T = 1 (a single position)"), rng, 2, 1, 4, 2, causal_mask(1)),
        _case(N_("a batch of 1"), rng, 1, 5, 2, 4, causal_mask(5)),
        _case(N_("no biases (None)"), rng, 2, 4, 2, 4, causal_mask(4), bias=False),
        _case(N_("a query row whose keys are all masked"), rng, 3, 4, 2, 4, padding),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 2, 3, causal_mask(5), contiguous=False),
    ]
    for i in range(3):
        B, T, H, D = (int(n) for n in rng.integers(1, 6, size=4))
        cases.append(_case(N_("random case #{i}"), rng, B, T, H, D, causal_mask(T) if i else None, {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="multi_head_attention",
    title=N_("multi-head self-attention"),
    todo=N_("TODO: project, split into q, k, v and heads, attend, merge, project."),
    hints=(
        N_(
            "You have written every piece already: attention.py and "
            "heads.py. Import them (from attention import "
            "scaled_dot_product_attention) or copy them in."
        ),
        N_(
            "x @ w_qkv.T gives (B, T, 3C); .split(C, dim=-1) gives q, k, "
            "v (B, T, C) each; split each into heads. The scale is √D of "
            "one head, not √C."
        ),
        N_(
            "Nearly the answer: q, k, v = (split_heads(t, H) for t in (x "
            "@ w_qkv.T + b_qkv).split(C, -1)); z, _ = "
            "scaled_dot_product_attention(q, k, v, mask); return "
            "merge_heads(z) @ w_out.T + b_out"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "multi_head_attention",
            "(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None)",
            ("x", "w_qkv", "b_qkv", "w_out", "b_out", "n_heads", "mask"),
            ("output",),
            doc=N_(
                "Multi-head self-attention with one packed projection for Q, "
                "K and V (GPT-2's layout).\n\n    1) qkv = x·W_qkvᵀ + b_qkv; "
                "the rows of W_qkv are [all queries | all keys | all "
                "values]\n    2) split q, k, v into H heads; attend within "
                "each head (scale √D, D = C / H)\n    3) merge the heads; out "
                "= merged·W_outᵀ + b_out\n\nWeights use PyTorch's (out, in) "
                "layout. A bias may be None. mask as in attention:\nbool, "
                "True = may attend; fully masked rows give 0, never NaN.\n\n"
                "Shapes: x (B, T, C), w_qkv (3C, C), b_qkv (3C,), w_out (C, "
                "C), b_out (C,) -> (B, T, C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"multi_head_attention": reference},
    numpy_reference={"multi_head_attention": numpy_twin(twin)},
    variants=(
        Variant(
            "merge_no_transpose",
            "multi_head_attention",
            merge_no_transpose,
            N_(
                "Heads merged without the transpose: z (B, H, T, D) reshaped "
                "straight to (B, T, C) mixes tokens across heads. Transpose "
                "to (B, T, H, D) first."
            ),
        ),
        Variant(
            "split_no_transpose",
            "multi_head_attention",
            split_no_transpose,
            N_(
                "Heads split without the transpose: (B, T, C) reshaped "
                "straight to (B, H, T, D) cuts across tokens. Reshape to (B, "
                "T, H, D), then transpose(1, 2)."
            ),
        ),
        Variant(
            "scale_by_d_model",
            "multi_head_attention",
            scale_by_d_model,
            N_("You scale by √C (d_model); each head's scores must be divided by √D, its own width D = C / H."),
        ),
        Variant(
            "no_scale",
            "multi_head_attention",
            no_scale,
            N_(
                "The scores are not scaled: in each head divide Q·Kᵀ by √D, "
                "the head's width D = C / H, before the softmax."
            ),
        ),
        Variant(
            "no_out_proj",
            "multi_head_attention",
            no_out_proj,
            N_(
                "The output projection is missing: after merging the heads, "
                "multiply by w_out.T and add b_out. It is what mixes the "
                "heads' results."
            ),
        ),
        Variant(
            "qkv_per_head",
            "multi_head_attention",
            qkv_per_head,
            N_(
                "You read w_qkv's rows as [q k v of head 0 | q k v of head 1 "
                "| ...]. glassformer's layout is [all queries | all keys | "
                "all values]: split the projection into three C-wide parts "
                "first, then into heads."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=(
        "@ / torch.matmul",
        "Tensor.split",
        "Tensor.reshape",
        "Tensor.transpose",
        "from attention import scaled_dot_product_attention",
        "from heads import split_heads, merge_heads",
    ),
    seed=107,
    plugs_into="glassformer.nn.attention.MultiHeadAttention.forward (style='packed')",
)

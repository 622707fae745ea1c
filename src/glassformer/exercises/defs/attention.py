"""How the attention exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

A query row whose keys are ALL hidden (a padding-only sequence, say) has no defined softmax:
all -inf gives 0/0 = NaN, and one NaN spreads to the whole batch's loss and gradients.
glassformer's convention: such a row gets all-zero weights and a zero output. Reference:
glassformer.nn.attention.scaled_dot_product_attention and its NumPy twin; both return
(output, weights).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import ATTENTION, Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.attention import causal_mask, scaled_dot_product_attention

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: scaled dot-product attention that stays NaN-free when a query row sees no key."""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    D = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # (..., T_q, T_k)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)
        return weights @ v, weights  # (..., T_q, D), (..., T_q, T_k)
    scores = scores.masked_fill(~mask, float("-inf"))  # hidden keys can get no weight
    alive = mask.any(dim=-1, keepdim=True)  # (..., T_q or 1, 1): does the row see any key?
    # a row with every key hidden would be softmax(all -inf) = 0/0 = NaN: give it zeros
    # before the softmax (so no NaN is ever made, not even in the backward pass) ...
    scores = scores.masked_fill(~alive, 0.0)  # (..., T_q, T_k)
    # ... and zero weights after it, so that row's output is 0
    weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, D), (..., T_q, T_k)
'''


def reference(q, k, v, mask=None):
    return scaled_dot_product_attention(q, k, v, mask)  # (..., T_q, D), (..., T_q, T_k)


def twin(q, k, v, mask=None):
    return numpy_ref.scaled_dot_product_attention(q, k, v, mask)


# ------------------------------------------------------------------ known-wrong variants


def nan_dead_rows(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # a row of all -inf -> softmax NaN
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def minus_big(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)  # a dead row becomes uniform over hidden keys
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def inverted_mask(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))  # hides what may be seen
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def softmax_over_queries(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-2)  # columns sum to 1 instead of rows
    return weights @ v, weights


def scale_by_d(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.size(-1)
    if mask is not None:
        alive = mask.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def no_scale(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1)  # (..., T_q, T_k): the 1/√D is forgotten
    if mask is not None:
        alive = mask.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def mask_after_softmax(q, k, v, mask=None):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # rows no longer sum to 1
    return weights @ v, weights


# -------------------------------------------------------------------------------- cases


def _qkv(rng, *lead, T_q, T_k, D, scale=1.0):
    return randn(rng, *lead, T_q, D, scale=scale), randn(rng, *lead, T_k, D), randn(rng, *lead, T_k, D)


def _padding(lengths, T):
    return (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None])[:, None, None, :]  # (B, 1, 1, T)


def make_cases(rng: np.random.Generator) -> list[Case]:
    g = (0, 1, 2)
    cross = torch.from_numpy(rng.random((3, 6)) < 0.6) | torch.eye(3, 6, dtype=torch.bool)  # (T_q, T_k), no dead row
    dead = torch.zeros(2, 1, 4, 4, dtype=torch.bool)  # (B, 1, T, T)
    dead[0, 0] = torch.tril(torch.ones(4, 4, dtype=torch.bool), diagonal=-1)  # query 0 sees nothing
    # batch row 1 sees nothing at all (a sequence of padding only)
    cases = [
        Case(
            N_("a small ordinary input"), "scaled_dot_product_attention", (*_qkv(rng, 2, 2, T_q=4, T_k=4, D=3), None), g
        ),
        Case(
            N_("a causal mask"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 2, 2, T_q=5, T_k=5, D=4), causal_mask(5)),
            g,
        ),
        Case(
            N_("a padding mask (B, 1, 1, T)"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 3, 2, T_q=5, T_k=5, D=4), _padding([5, 3, 1], 5)),
            g,
        ),
        Case(
            N_("a query row whose keys are all masked"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 2, 2, T_q=4, T_k=4, D=3), dead),
            g,
        ),
        Case(
            N_("T = 1 (a single position)"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 1, 1, T_q=1, T_k=1, D=4), causal_mask(1)),
            g,
        ),
        Case(
            N_("no head axis: (B, T, D) inputs, a (T, T) mask"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 2, T_q=5, T_k=5, D=4), causal_mask(5)),
            g,
        ),
        Case(
            N_("large values (around {scale})"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 2, 2, T_q=4, T_k=4, D=4, scale=30.0), causal_mask(4)),
            g,
            {"scale": 30},
        ),
        Case(
            N_("non-contiguous inputs (transposed views)"),
            "scaled_dot_product_attention",
            (*(noncontiguous(t) for t in _qkv(rng, 2, 2, T_q=5, T_k=5, D=3)), causal_mask(5)),
            g,
        ),
        Case(
            N_("a batch of 1"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 1, 3, T_q=4, T_k=4, D=2), _padding([3], 4)),
            g,
        ),
        Case(
            N_("T_q ≠ T_k (queries and keys of different lengths)"),
            "scaled_dot_product_attention",
            (*_qkv(rng, 2, 2, T_q=3, T_k=6, D=4), cross),
            g,
        ),
    ]
    for i in range(3):
        B, H, T, D = (int(n) for n in rng.integers(1, 6, size=4))
        mask = [None, causal_mask(T), torch.from_numpy(rng.random((B, 1, T, T)) < 0.5)][i]
        cases.append(
            Case(
                N_("random case #{i}"),
                "scaled_dot_product_attention",
                (*_qkv(rng, B, H, T_q=T, T_k=T, D=D), mask),
                g,
                {"i": i + 1},
            )
        )
    return cases


EXERCISE = Exercise(
    name="attention",
    title=N_("scaled dot-product attention, NaN-free"),
    todo=N_("TODO: scores, hide masked keys, softmax over the keys (dead rows -> 0), weights @ v; return both."),
    hints=(
        N_(
            "Three steps: scores = q·kᵀ/√D; weights = softmax over the "
            "LAST axis (the keys); output = weights @ v. Masking happens "
            "to the scores, before the softmax."
        ),
        N_(
            "Hidden keys: scores.masked_fill(~mask, float('-inf')). A "
            "row with every key hidden: find it with mask.any(dim=-1, "
            "keepdim=True), put 0 in its scores before the softmax and 0 "
            "in its weights after."
        ),
        N_(
            "Nearly the answer: alive = mask.any(-1, keepdim=True); "
            "scores = scores.masked_fill(~mask, "
            "-inf).masked_fill(~alive, 0.0); weights = "
            "torch.softmax(scores, -1).masked_fill(~alive, 0.0); return "
            "weights @ v, weights"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "scaled_dot_product_attention",
            "(q, k, v, mask=None)",
            ("q", "k", "v", "mask"),
            ("output", "weights"),
            doc=N_(
                "Attention(Q, K, V) = softmax(Q·Kᵀ/√D with hidden keys at "
                "-inf)·V     (Vaswani et al. 2017)\n\nmask: None, or bool "
                "broadcastable to (..., T_q, T_k), True = may attend.\nA "
                "query row whose keys are ALL hidden must give all-zero "
                "weights and a zero output,\nnever NaN (softmax of a row of "
                "-inf is 0/0; one NaN spoils the whole batch's loss).\n\n"
                "Shapes: q (..., T_q, D), k and v (..., T_k, D) -> (output "
                "(..., T_q, D),\nweights (..., T_q, T_k)); each weights row "
                "sums to 1, or is all 0 when fully masked."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"scaled_dot_product_attention": reference},
    numpy_reference={"scaled_dot_product_attention": numpy_twin(twin)},
    variants=(
        Variant(
            "nan_dead_rows",
            "scaled_dot_product_attention",
            nan_dead_rows,
            N_(
                "A fully masked query row gives NaN: softmax of a row that "
                "is all -inf is 0/0. Detect such rows (mask.any(dim=-1, "
                "keepdim=True) is False), give them finite scores before the "
                "softmax and zero weights after it."
            ),
        ),
        Variant(
            "minus_big",
            "scaled_dot_product_attention",
            minus_big,
            N_(
                "You hide keys with a large negative number (-1e9) instead "
                "of -inf. A fully masked row then spreads its weight evenly "
                "over the hidden keys, so padding leaks into the output. "
                "glassformer gives such rows zero weights: use -inf and "
                "handle the all-hidden rows explicitly."
            ),
        ),
        Variant(
            "inverted_mask",
            "scaled_dot_product_attention",
            inverted_mask,
            N_(
                "Your mask is used the wrong way round: glassformer's True "
                "means MAY attend, so fill the scores where the mask is "
                "False: masked_fill(~mask, -inf)."
            ),
        ),
        Variant(
            "softmax_over_queries",
            "scaled_dot_product_attention",
            softmax_over_queries,
            N_(
                "Your softmax runs over the queries (dim=-2): each COLUMN "
                "sums to 1. Each query's weights over the keys must sum to "
                "1: softmax over dim=-1."
            ),
        ),
        Variant(
            "scale_by_d", "scaled_dot_product_attention", scale_by_d, N_("You divide the scores by D; the scale is √D.")
        ),
        Variant(
            "no_scale",
            "scaled_dot_product_attention",
            no_scale,
            N_(
                "The scores are not scaled: divide Q·Kᵀ by √D before the "
                "softmax. Without it their spread grows like √D and the "
                "softmax turns nearly one-hot."
            ),
        ),
        Variant(
            "mask_after_softmax",
            "scaled_dot_product_attention",
            mask_after_softmax,
            N_(
                "You zero the masked weights after the softmax, so the rows "
                "no longer sum to 1. Mask the SCORES (with -inf) before the "
                "softmax; then the visible keys share all the weight."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=(
        "@ / torch.matmul",
        "Tensor.transpose(-2, -1)",
        "math.sqrt",
        "Tensor.masked_fill",
        "torch.softmax",
        "from softmax import softmax",
        "Tensor.any(dim, keepdim=True)",
    ),
    seed=105,
    plugs_into="glassformer.nn.attention.scaled_dot_product_attention",
)

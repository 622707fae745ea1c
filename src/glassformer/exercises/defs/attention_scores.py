"""How the attention_scores exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.attention.attention_scores and numpy_ref.attention_scores. The cases
use D different from T_q, T_k and d_model, so dividing by the wrong one shows, and T_q ≠ T_k
once, so scores with queries and keys swapped cannot hide behind a square shape.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer import numpy_ref
from glassformer.exercises.catalog import ATTENTION, Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.attention import attention_scores

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the attention scores Q·Kᵀ/√D."""

import math

import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    D = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(D)  # (..., T_q, D) @ (..., D, T_k) -> (..., T_q, T_k)
'''


def reference(q, k):
    return (attention_scores(q, k),)  # (..., T_q, T_k)


def twin(q, k):
    return numpy_ref.attention_scores(q, k)  # (..., T_q, T_k)


# ------------------------------------------------------------------ known-wrong variants


def scale_by_d(q, k):
    return q @ k.transpose(-2, -1) / q.size(-1)  # ÷ D instead of ÷ √D


def no_scale(q, k):
    return q @ k.transpose(-2, -1)


def keys_first(q, k):
    return k @ q.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., T_k, T_q): rows are keys


def scale_by_t(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(k.size(-2))  # ÷ √T_k: the sequence length, not the width


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    g = (0, 1)

    def qk(*lead, T_q, T_k, D, scale=1.0):
        return randn(rng, *lead, T_q, D, scale=scale), randn(rng, *lead, T_k, D, scale=scale)

    cases = [
        Case(N_("a small ordinary input"), "attention_scores", qk(2, T_q=5, T_k=5, D=4), g),
        Case(N_("several heads (B, H, T, D)"), "attention_scores", qk(2, 3, T_q=6, T_k=6, D=4), g),
        Case(
            N_("T_q ≠ T_k (queries and keys of different lengths)"), "attention_scores", qk(2, 2, T_q=3, T_k=7, D=5), g
        ),
        Case(N_("T = 1 (a single position)"), "attention_scores", qk(1, 1, T_q=1, T_k=1, D=8), g),
        Case(N_("one head (H = 1)"), "attention_scores", qk(2, 1, T_q=5, T_k=5, D=4), g),
        Case(N_("a batch of 1"), "attention_scores", qk(1, 2, T_q=4, T_k=4, D=6), g),
        Case(
            N_("large values (around {scale})"),
            "attention_scores",
            qk(2, 2, T_q=3, T_k=3, D=4, scale=100.0),
            g,
            {"scale": 100},
        ),
        Case(
            N_("non-contiguous inputs (transposed views)"),
            "attention_scores",
            tuple(noncontiguous(t) for t in qk(2, 2, T_q=5, T_k=5, D=3)),
            g,
        ),
    ]
    for i in range(4):
        B, H, T_q, T_k, D = (int(n) for n in rng.integers(1, 7, size=5))
        cases.append(Case(N_("random case #{i}"), "attention_scores", qk(B, H, T_q=T_q, T_k=T_k, D=D), g, {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="attention_scores",
    title=N_("the attention scores Q·Kᵀ/√D"),
    todo=N_("TODO: multiply q by the transpose of k's last two axes, divide by √D."),
    hints=(
        N_(
            "The result must be (..., T_q, T_k): rows are queries, "
            "columns are keys. Which matrix product of q (T_q, D) and k "
            "(T_k, D) gives that?"
        ),
        N_(
            "k.T reverses ALL axes of a batched tensor; to swap only the "
            "last two use k.transpose(-2, -1). D is q.size(-1)."
        ),
        N_("Nearly the answer: return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))"),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "attention_scores",
            "(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor",
            ("q", "k"),
            ("scores",),
            doc=N_(
                "How well each query matches each key: a dot product per "
                "(query, key) pair, scaled.\n\n    scores = Q·Kᵀ / √D        "
                "(Vaswani et al. 2017, eq. 1)\n\nDividing by √D keeps the "
                "scores' spread independent of the head width D, so the\n"
                "softmax that follows does not saturate.\n\nShapes: q (..., "
                "T_q, D), k (..., T_k, D), any leading axes (B, or B and H)\n"
                "-> (..., T_q, T_k); row i holds query i against every key."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"attention_scores": reference},
    numpy_reference={"attention_scores": numpy_twin(twin)},
    variants=(
        Variant(
            "scale_by_d",
            "attention_scores",
            scale_by_d,
            N_(
                "You divide by D; the scale is √D (math.sqrt(D)). Dividing "
                "by D shrinks the scores too much as heads get wider."
            ),
        ),
        Variant("no_scale", "attention_scores", no_scale, N_("The scores are not scaled: divide Q·Kᵀ by √D.")),
        Variant(
            "keys_first",
            "attention_scores",
            keys_first,
            N_("Your scores are transposed: rows must be queries and columns keys, q @ kᵀ, not k @ qᵀ."),
        ),
        Variant(
            "scale_by_t",
            "attention_scores",
            scale_by_t,
            N_(
                "You divide by √T (the sequence length); the scale is √D, "
                "the width of one query/key vector (q.size(-1))."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=("@ / torch.matmul", "Tensor.transpose(-2, -1)", "math.sqrt"),
    error_hints=(
        (
            r"Expected size for first two dimensions of batch2",
            N_(
                "k.T on a 3-D or 4-D tensor reverses every axis, so the "
                "batch axes no longer line up. Use k.transpose(-2, -1) (or "
                "k.mT)."
            ),
        ),
    ),
    seed=102,
)

"""How the causal_mask exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.attention.causal_mask and numpy_ref.causal_mask. glassformer's masks are
boolean with True = may attend everywhere; an additive float mask (0 / -inf) or a 0/1 float
mask is a different convention, and the report says so.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import Case, Exercise, Function, Variant, numpy_twin
from glassformer.messages import N_
from glassformer.nn.attention import causal_mask

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the causal mask."""

import torch


def causal_mask(T: int) -> torch.Tensor:
    i = torch.arange(T)[:, None]  # (T, 1) query positions
    j = torch.arange(T)[None, :]  # (1, T) key positions
    return j <= i  # (T, T)
'''


def reference(T):
    return (causal_mask(T),)  # (T, T) bool


def twin(T):
    return numpy_ref.causal_mask(T)  # (T, T) bool


# ------------------------------------------------------------------ known-wrong variants


def inverted(T):
    return ~torch.tril(torch.ones(T, T, dtype=torch.bool))  # True where attending is NOT allowed


def upper(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool))  # keys >= query: the future instead of the past


def strict(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)  # a token may not see itself


def float_01(T):
    return torch.tril(torch.ones(T, T))  # 1.0 / 0.0 floats instead of True / False


def additive(T):
    return torch.triu(torch.full((T, T), float("-inf")), diagonal=1)  # 0 / -inf, added to the scores


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        Case(N_("T = 1 (a single position)"), "causal_mask", (1,)),
        Case(N_("T = {T}"), "causal_mask", (2,), fields={"T": 2}),
        Case(N_("T = {T}"), "causal_mask", (5,), fields={"T": 5}),
    ]
    for T in sorted({int(t) for t in rng.integers(3, 40, size=3)}):
        cases.append(Case(N_("T = {T}"), "causal_mask", (T,), fields={"T": T}))
    return cases


EXERCISE = Exercise(
    name="causal_mask",
    title=N_("the causal mask"),
    todo=N_("TODO: build the (T, T) boolean matrix that is True on and below the diagonal."),
    hints=(
        N_("Row = query position i, column = key position j. Which (i, j) are allowed? Draw it for T = 3."),
        N_(
            "Compare a column of positions with a row of positions: "
            "torch.arange(T)[:, None] and torch.arange(T)[None, :] "
            "broadcast to (T, T)."
        ),
        N_(
            "Nearly the answer: i = torch.arange(T)[:, None]; j = "
            "torch.arange(T)[None, :]; return j <= i   (or "
            "torch.tril(torch.ones(T, T, dtype=torch.bool)))"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "causal_mask",
            "(T: int) -> torch.Tensor",
            ("T",),
            ("mask",),
            doc=N_(
                "Who may attend to whom in a decoder: position i may look at "
                "positions 0..i, never ahead.\n\n    mask[i, j] = True  if j "
                "<= i   (key j is in query i's past, or is i "
                "itself)\n                 False if j >  i   (the future)\n\n"
                "glassformer's convention: a BOOLEAN mask, True = may "
                "attend.\n\nShapes: T int -> (T, T) bool."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"causal_mask": reference},
    numpy_reference={"causal_mask": numpy_twin(twin)},
    variants=(
        Variant(
            "inverted",
            "causal_mask",
            inverted,
            N_(
                "Your mask is inverted: True marks the future. In "
                "glassformer True means MAY attend: query i sees keys j <= i."
            ),
        ),
        Variant(
            "upper",
            "causal_mask",
            upper,
            N_(
                "Your mask lets each query see itself and the FUTURE (upper "
                "triangle). It must be the lower triangle: j <= i."
            ),
        ),
        Variant(
            "strict",
            "causal_mask",
            strict,
            N_(
                "Your mask hides the diagonal: a token may not see itself, "
                "and query 0 sees nothing at all (a fully masked row). Use j "
                "<= i, not j < i."
            ),
        ),
        Variant(
            "float_01",
            "causal_mask",
            float_01,
            N_(
                "Your mask holds floats 1.0/0.0. glassformer's masks are "
                "boolean (True = may attend): build it with "
                "dtype=torch.bool, or compare positions (j <= i)."
            ),
        ),
        Variant(
            "additive",
            "causal_mask",
            additive,
            N_(
                "You built an additive mask (0 and -inf, added to the "
                "scores). That is another convention; here the mask is "
                "boolean, True = may attend, and attention turns False into "
                "-inf itself."
            ),
        ),
    ),
    allowed=("torch.arange", "<=", "torch.tril", "torch.ones(..., dtype=torch.bool)"),
    header="import torch\n",
    seed=103,
)

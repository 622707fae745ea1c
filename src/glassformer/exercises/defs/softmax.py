"""How the softmax exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.attention.attention_weights (softmax over the last axis; other axes
are moved there and back) and numpy_ref.softmax. The cases that matter: logits near ±800
(exp overflows float64 above ~709), rows far apart in scale (one global max underflows the
others), -inf entries (masked), and a `dim` other than the last.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import SOFTMAX, Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.attention import attention_weights

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: a numerically stable softmax."""

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)  # x's shape with `dim` of size 1
    e = torch.exp(x - m)  # x's shape, entries in (0, 1]; exactly 0 where x is -inf
    return e / e.sum(dim=dim, keepdim=True)  # x's shape, sums to 1 along `dim`
'''


def reference(x, dim=-1):
    return (attention_weights(x.movedim(dim, -1)).movedim(-1, dim),)  # x's shape


def twin(x, dim=-1):
    return np.moveaxis(numpy_ref.softmax(np.moveaxis(x, dim, -1)), -1, dim)  # x's shape


# ------------------------------------------------------------------ known-wrong variants


def global_max(x, dim=-1):
    e = torch.exp(x - x.max())  # one shift for the whole tensor: rows far below it underflow to 0
    return e / e.sum(dim=dim, keepdim=True)


def no_shift(x, dim=-1):
    e = torch.exp(x)  # exp(800) = inf, exp(-800) = 0
    return e / e.sum(dim=dim, keepdim=True)


def ignores_dim(x, dim=-1):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))  # always the last axis
    return e / e.sum(dim=-1, keepdim=True)


def sum_other_axis(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    other = 0 if dim % x.dim() != 0 else -1
    return e / e.sum(dim=other, keepdim=True)  # normalised along the wrong axis


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    g = (0,)  # the gradient with respect to x is graded
    masked = randn(rng, 3, 5)
    masked[0, [1, 3]] = float("-inf")
    masked[2, 0] = float("-inf")
    apart = torch.stack([randn(rng, 5) + 800.0, randn(rng, 5) - 800.0, randn(rng, 5)])  # (3, 5)
    cases = [
        Case(N_("a small ordinary input"), "softmax", (randn(rng, 3, 5), -1), g),
        Case(N_("a batch of 1"), "softmax", (randn(rng, 1, 4), -1), g),
        Case(N_("a softmax over a single entry (must give 1)"), "softmax", (randn(rng, 3, 1), -1), g),
        Case(
            N_("large values (around {scale})"),
            "softmax",
            (randn(rng, 4, 6, scale=30.0) + 800.0, -1),
            g,
            {"scale": 800},
        ),
        Case(N_("rows at very different scales (around +800, -800 and 0)"), "softmax", (apart, -1), g),
        Case(N_("some entries already -inf"), "softmax", (masked, -1), g),
        Case(N_("softmax over dim = {dim}"), "softmax", (randn(rng, 4, 3), 0), g, {"dim": 0}),
        Case(N_("softmax over dim = {dim}"), "softmax", (randn(rng, 2, 5, 3), 1), g, {"dim": 1}),
        Case(N_("non-contiguous inputs (transposed views)"), "softmax", (noncontiguous(randn(rng, 3, 4, 5)), -1), g),
    ]
    for i in range(4):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
        dim = int(rng.integers(-len(shape), len(shape)))
        x = randn(rng, *shape, scale=float(rng.uniform(0.1, 10.0)))
        cases.append(Case(N_("random case #{i}"), "softmax", (x, dim), g, {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="softmax",
    title=N_("a numerically stable softmax"),
    todo=N_("TODO: shift by the max along dim, exponentiate, divide by the sum along dim."),
    hints=(
        N_(
            "Work along `dim` only: every reduction (max, sum) takes "
            "dim=dim and keepdim=True, so the result broadcasts back "
            "against x."
        ),
        N_(
            "Subtract the max of each slice along dim (x.amax(dim=dim, "
            "keepdim=True)), not one max for the whole tensor: rows far "
            "below the global max would all underflow to 0."
        ),
        N_(
            "Nearly the answer: e = torch.exp(x - x.amax(dim=dim, "
            "keepdim=True)); return e / e.sum(dim=dim, keepdim=True)"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "softmax",
            "(x: torch.Tensor, dim: int = -1) -> torch.Tensor",
            ("x", "dim"),
            ("probabilities",),
            doc=N_(
                "Softmax along `dim`: turn scores into probabilities that "
                "sum to 1.\n\n    softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - "
                "m),   m = max_j x_j\n\nSubtracting m changes nothing "
                "mathematically but keeps exp from overflowing\n(exp of "
                "anything above ~709 is inf in float64). Entries equal to "
                "-inf get probability 0.\n\nShapes: x any shape, dim any axis "
                "(negative counts from the end) -> same shape as x,\nsumming "
                "to 1 along dim."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"softmax": reference},
    numpy_reference={"softmax": numpy_twin(twin)},
    variants=(
        Variant(
            "global_max",
            "softmax",
            global_max,
            N_(
                "You shift by one max for the whole tensor. A row far below "
                "that max becomes exp(very negative) = 0 everywhere, and 0/0 "
                "= NaN. Shift each slice by its own max: x.amax(dim=dim, "
                "keepdim=True)."
            ),
        ),
        Variant(
            "no_shift",
            "softmax",
            no_shift,
            N_(
                "You exponentiate without subtracting the max first: exp "
                "overflows to inf for large logits (inf/inf = NaN) and "
                "underflows to 0 for very negative ones (0/0 = NaN). "
                "Subtract the max along dim first; the result is "
                "mathematically the same."
            ),
        ),
        Variant(
            "ignores_dim",
            "softmax",
            ignores_dim,
            N_(
                "Your softmax always runs over the last axis; it must run "
                "over `dim`. Pass dim=dim to every max and sum."
            ),
        ),
        Variant(
            "sum_other_axis",
            "softmax",
            sum_other_axis,
            N_(
                "You normalise along the wrong axis: the sum in the "
                "denominator must be taken along `dim` (the same axis as the "
                "max), with keepdim=True."
            ),
        ),
    ),
    forbidden=(SOFTMAX,),
    allowed=("torch.exp", "Tensor.amax(dim, keepdim=True)", "Tensor.sum(dim, keepdim=True)", "torch.logsumexp"),
    header="import torch\n",
    seed=101,
)

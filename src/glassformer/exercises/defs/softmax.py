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
        Case("exercise.case.basic", "softmax", (randn(rng, 3, 5), -1), g),
        Case("exercise.case.batch1", "softmax", (randn(rng, 1, 4), -1), g),
        Case("exercise.softmax.case.one_element", "softmax", (randn(rng, 3, 1), -1), g),
        Case("exercise.case.large", "softmax", (randn(rng, 4, 6, scale=30.0) + 800.0, -1), g, {"scale": 800}),
        Case("exercise.softmax.case.rows_apart", "softmax", (apart, -1), g),
        Case("exercise.case.masked_entries", "softmax", (masked, -1), g),
        Case("exercise.softmax.case.dim", "softmax", (randn(rng, 4, 3), 0), g, {"dim": 0}),
        Case("exercise.softmax.case.dim", "softmax", (randn(rng, 2, 5, 3), 1), g, {"dim": 1}),
        Case("exercise.case.noncontig", "softmax", (noncontiguous(randn(rng, 3, 4, 5)), -1), g),
    ]
    for i in range(4):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
        dim = int(rng.integers(-len(shape), len(shape)))
        x = randn(rng, *shape, scale=float(rng.uniform(0.1, 10.0)))
        cases.append(Case("exercise.case.random", "softmax", (x, dim), g, {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="softmax",
    title=N_("exercise.softmax.title"),
    todo=N_("exercise.softmax.todo"),
    hints=(N_("exercise.softmax.hint.1"), N_("exercise.softmax.hint.2"), N_("exercise.softmax.hint.3")),
    solution=SOLUTION,
    functions=(
        Function(
            "softmax",
            "(x: torch.Tensor, dim: int = -1) -> torch.Tensor",
            ("x", "dim"),
            ("probabilities",),
            doc=N_("exercise.softmax.doc.softmax"),
        ),
    ),
    make_cases=make_cases,
    reference={"softmax": reference},
    numpy_reference={"softmax": numpy_twin(twin)},
    variants=(
        Variant("global_max", "softmax", global_max, N_("exercise.softmax.wrong.global_max")),
        Variant("no_shift", "softmax", no_shift, N_("exercise.softmax.wrong.no_shift")),
        Variant("ignores_dim", "softmax", ignores_dim, N_("exercise.softmax.wrong.ignores_dim")),
        Variant("sum_other_axis", "softmax", sum_other_axis, N_("exercise.softmax.wrong.sum_other_axis")),
    ),
    forbidden=(SOFTMAX,),
    allowed=("torch.exp", "Tensor.amax(dim, keepdim=True)", "Tensor.sum(dim, keepdim=True)", "torch.logsumexp"),
    header="import torch\n",
    seed=101,
)

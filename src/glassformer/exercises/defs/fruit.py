"""How the fruit exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

The first case is the lesson's own example (glassformer.lessons.fruit: E and the three hand-set
projections). Reference: glassformer.nn.attention.scaled_dot_product_attention on E·W_Q, E·W_K,
E·W_V, and numpy_ref's. The tutorial this lesson follows printed some rows computed as x·Wᵀ;
that slip is one of the known mistakes here.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import ATTENTION, Case, Exercise, Function, Variant, numpy_twin, randn
from glassformer.lessons import fruit as lesson
from glassformer.messages import N_
from glassformer.nn.attention import scaled_dot_product_attention

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: attention by hand on the fruit example (row vectors: a word is a row of E)."""

import math

import torch


def fruit_attention(E, W_Q, W_K, W_V):
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V  # (T, d_k), (T, d_k), (T, d_v)
    scores = Q @ K.T / math.sqrt(K.size(-1))  # (T, T): row i = word i's query against every key
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))  # (T, T), largest entry per row is 1
    weights = e / e.sum(dim=-1, keepdim=True)  # (T, T), every row sums to 1
    return weights, weights @ V  # (T, T), (T, d_v)
'''


def reference(E, W_Q, W_K, W_V):
    out, weights = scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V)  # (T, d_v), (T, T)
    return weights, out


def twin(E, W_Q, W_K, W_V):
    out, weights = numpy_ref.scaled_dot_product_attention(E @ W_Q, E @ W_K, E @ W_V)
    return weights, out


# ------------------------------------------------------------------ known-wrong variants


def _attend(Q, K, V, scale, dim=-1):
    weights = torch.softmax(Q @ K.T / scale, dim=dim)
    return weights, weights @ V


def column_convention(E, W_Q, W_K, W_V):
    return _attend(E @ W_Q.T, E @ W_K.T, E @ W_V.T, math.sqrt(W_K.size(1)))  # W·x habit on row vectors


def softmax_over_columns(E, W_Q, W_K, W_V):
    return _attend(E @ W_Q, E @ W_K, E @ W_V, math.sqrt(W_K.size(1)), dim=0)


def no_scale(E, W_Q, W_K, W_V):
    return _attend(E @ W_Q, E @ W_K, E @ W_V, 1.0)


def scale_by_d(E, W_Q, W_K, W_V):
    return _attend(E @ W_Q, E @ W_K, E @ W_V, float(W_K.size(1)))


def weights_transposed(E, W_Q, W_K, W_V):
    weights = torch.softmax(E @ W_Q @ (E @ W_K).T / math.sqrt(W_K.size(1)), dim=-1)
    return weights, weights.T @ (E @ W_V)  # each output row mixes with a column of weights


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    f, g = "fruit_attention", (0, 1, 2, 3)
    E, W = torch.from_numpy(lesson.E), {n: torch.from_numpy(w) for n, w in lesson.PROJECTIONS.items()}
    fruit = (E, W["Q"], W["K"], W["V"])
    order = torch.tensor([2, 0, 1])
    cases = [
        Case(N_("the lesson's apple, banana, orange"), f, fruit, g),
        Case(N_("the same three words in another order"), f, (E[order], W["Q"], W["K"], W["V"]), g),
        Case(N_("a single word"), f, (E[:1], W["Q"], W["K"], W["V"]), g),
        Case(
            N_("T = {T}, d_model = {d_model}, d_k = {d_k}, d_v = {d_v} (non-square projections)"),
            f,
            (randn(rng, 5, 3), randn(rng, 3, 2), randn(rng, 3, 2), randn(rng, 3, 4)),
            g,
            {"T": 5, "d_model": 3, "d_k": 2, "d_v": 4},
        ),
    ]
    for i in range(2):
        T, d = int(rng.integers(2, 7)), int(rng.integers(2, 5))
        cases.append(
            Case(
                N_("random case #{i}"),
                f,
                (randn(rng, T, d, scale=3.0), *(randn(rng, d, d) for _ in range(3))),
                g,
                {"i": i + 1},
            )
        )
    return cases


EXERCISE = Exercise(
    name="fruit",
    title=N_("lesson 1's fruit attention, by hand"),
    todo=N_("TODO: project, score, scale, softmax each row, mix the value rows."),
    hints=(
        N_("A word is a ROW of E, so a projection is E @ W (not W @ x, the column-vector habit)."),
        N_(
            "scores = Q @ K.T is (T, T): row i is word i's query against "
            "every key. Scale by √d_k, d_k = K's number of columns; "
            "softmax along each row (dim=-1)."
        ),
        N_(
            "Nearly the answer: Q, K, V = E @ W_Q, E @ W_K, E @ W_V; w = "
            "torch.softmax(Q @ K.T / math.sqrt(K.size(1)), dim=-1); "
            "return w, w @ V"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "fruit_attention",
            "(E, W_Q, W_K, W_V)",
            ("E", "W_Q", "W_K", "W_V"),
            ("weights", "output"),
            doc=N_(
                "Lesson 1 (glassformer lesson fruit): apple, banana and "
                "orange, each a row of E\n(sweetness, sourness), and three "
                "hand-set projections. Row vectors throughout:\n\n    Q = "
                "E·W_Q   K = E·W_K   V = E·W_V\n    weights = softmax over "
                "each row of (Q·Kᵀ / √d_k)        output = weights·V\n\n"
                "Shapes: E (T, d_model), W_Q and W_K (d_model, d_k), W_V "
                "(d_model, d_v)\n-> (weights (T, T), output (T, d_v))."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"fruit_attention": reference},
    numpy_reference={"fruit_attention": numpy_twin(twin)},
    variants=(
        Variant(
            "column_convention",
            "fruit_attention",
            column_convention,
            N_(
                "You project with the transposed matrices (E·Wᵀ), the "
                "column-vector habit W·x applied to row vectors. With words "
                "as rows, Q = E·W_Q. (The tutorial behind lesson 1 printed "
                "some rows computed this way.)"
            ),
        ),
        Variant(
            "softmax_over_columns",
            "fruit_attention",
            softmax_over_columns,
            N_(
                "Your softmax runs down the columns (dim=0). Each word's "
                "weights over the words it looks at form a ROW that sums to "
                "1: dim=-1."
            ),
        ),
        Variant("no_scale", "fruit_attention", no_scale, N_("The scores are not scaled: divide Q·Kᵀ by √d_k.")),
        Variant("scale_by_d", "fruit_attention", scale_by_d, N_("You divide by d_k; the scale is √d_k.")),
        Variant(
            "weights_transposed",
            "fruit_attention",
            weights_transposed,
            N_(
                "You mix the value rows with the transposed weights. Output "
                "row i = Σ_j weights[i, j]·V[j]: weights @ V."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=(
        "@",
        "Tensor.T",
        "torch.exp",
        "Tensor.amax(dim=-1, keepdim=True)",
        "Tensor.sum(dim=-1, keepdim=True)",
        "math.sqrt",
    ),
    seed=115,
)

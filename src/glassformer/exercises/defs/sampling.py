"""How the sampling exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.sample.top_k_filter / top_p_filter and NumPy versions written here.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import Case, Exercise, Function, Variant, numpy_twin, randn
from glassformer.messages import N_
from glassformer.sample import top_k_filter, top_p_filter

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: top-k and top-p (nucleus) filtering of next-token logits."""

import torch


def top_k_filter(logits: torch.Tensor, k: int) -> torch.Tensor:
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest per row
    return logits.masked_fill(logits < kth, float("-inf"))  # (B, V)


def top_p_filter(logits: torch.Tensor, p: float) -> torch.Tensor:
    if p >= 1:
        return logits
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)  # (B, V), (B, V)
    probs = torch.softmax(sorted_logits, dim=-1)  # (B, V), most likely first
    mass_before = torch.cumsum(probs, dim=-1) - probs  # (B, V): probability ranked above each token
    drop_sorted = mass_before >= p  # (B, V): the tokens above already reach p without this one
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)  # (B, V) vocabulary order
    return logits.masked_fill(drop, float("-inf"))  # (B, V)
'''


def top_k_reference(logits, k):
    return (top_k_filter(logits, k),)  # (B, V)


def top_p_reference(logits, p):
    return (top_p_filter(logits, p),)  # (B, V)


def top_k_twin(logits, k):
    k = min(k, logits.shape[-1])
    kth = np.sort(logits, axis=-1)[:, -k][:, None]  # (B, 1)
    return np.where(logits < kth, -np.inf, logits)  # (B, V)


def top_p_twin(logits, p):
    if p >= 1:
        return logits
    order = np.argsort(-logits, axis=-1, kind="stable")  # (B, V) most likely first
    probs = numpy_ref.softmax(np.take_along_axis(logits, order, axis=-1))  # (B, V) sorted
    drop_sorted = np.cumsum(probs, axis=-1) - probs >= p  # (B, V)
    drop = np.empty_like(drop_sorted)
    np.put_along_axis(drop, order, drop_sorted, axis=-1)  # back to vocabulary order
    return np.where(drop, -np.inf, logits)


# ------------------------------------------------------------------ known-wrong variants


def top_k_exactly_k(logits, k):
    k = min(k, logits.size(-1))
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, torch.topk(logits, k, dim=-1).indices, True)
    return logits.masked_fill(~keep, float("-inf"))  # ties with the k-th are cut arbitrarily


def top_k_drops_kth(logits, k):
    kth = torch.topk(logits, min(k, logits.size(-1)), dim=-1).values[:, -1:]
    return logits.masked_fill(logits <= kth, float("-inf"))  # only k - 1 survive


def top_p_drops_crossing(logits, p):
    if p >= 1:
        return logits
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    drop_sorted = torch.cumsum(torch.softmax(sorted_logits, dim=-1), dim=-1) > p  # drops the token that crosses p
    return logits.masked_fill(torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted), float("-inf"))


def top_p_unsorted(logits, p):
    if p >= 1:
        return logits
    probs = torch.softmax(logits, dim=-1)
    return logits.masked_fill(torch.cumsum(probs, dim=-1) - probs >= p, float("-inf"))  # vocabulary order


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    k, p = "top_k_filter", "top_p_filter"
    ties = torch.tensor([[3.0, 1.0, 3.0, 2.0, 3.0, 0.0], [0.5, 2.0, 2.0, -1.0, 1.0, 2.0]], dtype=torch.float64)
    masked = randn(rng, 2, 8)
    masked[:, [1, 4, 6]] = float("-inf")  # already filtered, e.g. by top-k before top-p
    peaked = randn(rng, 2, 10)
    peaked[:, 3] += 12.0  # one token holds nearly all the probability
    cases = [
        Case("exercise.sampling.case.k", k, (randn(rng, 2, 10), 3), fields={"k": 3}),
        Case("exercise.sampling.case.ties", k, (ties, 2), fields={"k": 2}),
        Case("exercise.sampling.case.k", k, (randn(rng, 3, 7), 1), fields={"k": 1}),
        Case("exercise.sampling.case.k", k, (randn(rng, 2, 5), 5), fields={"k": 5}),
        Case("exercise.sampling.case.k_large", k, (randn(rng, 2, 4), 9), fields={"k": 9}),
        Case("exercise.case.batch1", k, (randn(rng, 1, 12), 4)),
        Case("exercise.case.masked_entries", k, (masked, 6)),
        Case("exercise.sampling.case.p", p, (randn(rng, 2, 10), 0.9), fields={"p": 0.9}),
        Case("exercise.sampling.case.p", p, (randn(rng, 3, 8, scale=2.0), 0.5), fields={"p": 0.5}),
        Case("exercise.sampling.case.p", p, (randn(rng, 2, 6), 0.01), fields={"p": 0.01}),
        Case("exercise.sampling.case.p", p, (randn(rng, 2, 6), 1.0), fields={"p": 1.0}),
        Case("exercise.sampling.case.peaked", p, (peaked, 0.9), fields={"p": 0.9}),
        Case("exercise.case.batch1", p, (randn(rng, 1, 9), 0.7)),
        Case("exercise.case.masked_entries", p, (masked, 0.8)),
    ]
    for i in range(2):
        B, V = int(rng.integers(1, 5)), int(rng.integers(2, 30))
        top_k, top_p = int(rng.integers(1, V + 1)), float(rng.uniform(0.05, 0.95))
        cases.append(Case("exercise.case.random", k, (randn(rng, B, V, scale=3.0), top_k), fields={"i": i + 1}))
        cases.append(Case("exercise.case.random", p, (randn(rng, B, V, scale=3.0), top_p), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="sampling",
    title=N_("exercise.sampling.title"),
    todo=N_("exercise.sampling.todo"),
    hints=(N_("exercise.sampling.hint.1"), N_("exercise.sampling.hint.2"), N_("exercise.sampling.hint.3")),
    solution=SOLUTION,
    functions=(
        Function(
            "top_k_filter",
            "(logits: torch.Tensor, k: int) -> torch.Tensor",
            ("logits", "k"),
            ("logits",),
            doc=N_("exercise.sampling.doc.top_k_filter"),
        ),
        Function(
            "top_p_filter",
            "(logits: torch.Tensor, p: float) -> torch.Tensor",
            ("logits", "p"),
            ("logits",),
            doc=N_("exercise.sampling.doc.top_p_filter"),
        ),
    ),
    make_cases=make_cases,
    reference={"top_k_filter": top_k_reference, "top_p_filter": top_p_reference},
    numpy_reference={"top_k_filter": numpy_twin(top_k_twin), "top_p_filter": numpy_twin(top_p_twin)},
    variants=(
        Variant("top_k_exactly_k", "top_k_filter", top_k_exactly_k, N_("exercise.sampling.wrong.top_k_exactly_k")),
        Variant("top_k_drops_kth", "top_k_filter", top_k_drops_kth, N_("exercise.sampling.wrong.top_k_drops_kth")),
        Variant(
            "top_p_drops_crossing",
            "top_p_filter",
            top_p_drops_crossing,
            N_("exercise.sampling.wrong.top_p_drops_crossing"),
        ),
        Variant("top_p_unsorted", "top_p_filter", top_p_unsorted, N_("exercise.sampling.wrong.top_p_unsorted")),
    ),
    allowed=(
        "torch.topk",
        "torch.sort(descending=True)",
        "torch.softmax",
        "torch.cumsum",
        "Tensor.scatter",
        "Tensor.masked_fill",
    ),
    header="import torch\n",
    seed=113,
    plugs_into="glassformer.sample.top_k_filter / top_p_filter",
)

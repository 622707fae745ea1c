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
        Case(N_("k = {k}"), k, (randn(rng, 2, 10), 3), fields={"k": 3}),
        Case(N_("ties at the k-th largest (k = {k})"), k, (ties, 2), fields={"k": 2}),
        Case(N_("k = {k}"), k, (randn(rng, 3, 7), 1), fields={"k": 1}),
        Case(N_("k = {k}"), k, (randn(rng, 2, 5), 5), fields={"k": 5}),
        Case(N_("k = {k}, larger than the vocabulary"), k, (randn(rng, 2, 4), 9), fields={"k": 9}),
        Case(N_("a batch of 1"), k, (randn(rng, 1, 12), 4)),
        Case(N_("some entries already -inf"), k, (masked, 6)),
        Case(N_("p = {p}"), p, (randn(rng, 2, 10), 0.9), fields={"p": 0.9}),
        Case(N_("p = {p}"), p, (randn(rng, 3, 8, scale=2.0), 0.5), fields={"p": 0.5}),
        Case(N_("p = {p}"), p, (randn(rng, 2, 6), 0.01), fields={"p": 0.01}),
        Case(N_("p = {p}"), p, (randn(rng, 2, 6), 1.0), fields={"p": 1.0}),
        Case(N_("one token with nearly all the probability (p = {p})"), p, (peaked, 0.9), fields={"p": 0.9}),
        Case(N_("a batch of 1"), p, (randn(rng, 1, 9), 0.7)),
        Case(N_("some entries already -inf"), p, (masked, 0.8)),
    ]
    for i in range(2):
        B, V = int(rng.integers(1, 5)), int(rng.integers(2, 30))
        top_k, top_p = int(rng.integers(1, V + 1)), float(rng.uniform(0.05, 0.95))
        cases.append(Case(N_("random case #{i}"), k, (randn(rng, B, V, scale=3.0), top_k), fields={"i": i + 1}))
        cases.append(Case(N_("random case #{i}"), p, (randn(rng, B, V, scale=3.0), top_p), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="sampling",
    title=N_("top-k and top-p filtering"),
    todo=N_("TODO: see the docstring; return logits with the filtered entries set to -inf."),
    hints=(
        N_(
            "top-k: torch.topk(logits, k).values[:, -1:] is the k-th "
            "largest per row, (B, 1). top-p: work in sorted order, then "
            "put the decision back in vocabulary order."
        ),
        N_(
            "top-p: probs = softmax of the sorted logits; mass_before = "
            "cumsum(probs) - probs is what the tokens ranked above hold. "
            "Drop where mass_before >= p. Undo the sort with scatter(-1, "
            "order, ...)."
        ),
        N_(
            "Nearly the answer: top-k: logits.masked_fill(logits < kth, "
            "-inf).  top-p: s, order = torch.sort(logits, -1, "
            "descending=True); pr = s.softmax(-1); drop = (pr.cumsum(-1) "
            "- pr) >= p; return "
            "logits.masked_fill(torch.zeros_like(drop).scatter(-1, "
            "order, drop), -inf)"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "top_k_filter",
            "(logits: torch.Tensor, k: int) -> torch.Tensor",
            ("logits", "k"),
            ("logits",),
            doc=N_(
                "Keep the k largest logits of each row; every other logit "
                "becomes -inf, so after the\nsoftmax it has probability "
                "exactly 0.            (Fan et al. 2018)\n\nLogits tied with "
                "the k-th largest are all kept. k larger than V keeps "
                "everything.\n\nShapes: logits (B, V), k int >= 1 -> (B, V)."
            ),
        ),
        Function(
            "top_p_filter",
            "(logits: torch.Tensor, p: float) -> torch.Tensor",
            ("logits", "p"),
            ("logits",),
            doc=N_(
                "Nucleus filtering: keep the most likely tokens until their "
                "probability reaches "
                "p.\n                                                  "
                "(Holtzman et al. 2020)\n\nSort by probability, descending. "
                "Token r (in that order) is kept when the tokens ranked\n"
                "above it hold less than p: the token that carries the total "
                "to p or beyond is KEPT, and\nthe most likely token is always "
                "kept. p >= 1 keeps everything. Dropped logits -> -inf.\n\n"
                "Shapes: logits (B, V), p float in (0, 1] -> (B, V), in the "
                "original vocabulary order."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"top_k_filter": top_k_reference, "top_p_filter": top_p_reference},
    numpy_reference={"top_k_filter": numpy_twin(top_k_twin), "top_p_filter": numpy_twin(top_p_twin)},
    variants=(
        Variant(
            "top_k_exactly_k",
            "top_k_filter",
            top_k_exactly_k,
            N_(
                "You keep exactly k tokens (by index), cutting ties with the "
                "k-th largest arbitrarily. Keep every logit >= the k-th "
                "largest value: logits < kth become -inf."
            ),
        ),
        Variant(
            "top_k_drops_kth",
            "top_k_filter",
            top_k_drops_kth,
            N_(
                "You drop the k-th largest itself (logits <= kth): only k - "
                "1 survive. Drop strictly smaller logits: logits < kth."
            ),
        ),
        Variant(
            "top_p_drops_crossing",
            "top_p_filter",
            top_p_drops_crossing,
            N_(
                "You drop the token that carries the total over p (cumsum > "
                "p), and when the top token alone exceeds p you drop "
                "everything. Keep a token when the mass ranked ABOVE it is "
                "still below p: (cumsum - probs) < p."
            ),
        ),
        Variant(
            "top_p_unsorted",
            "top_p_filter",
            top_p_unsorted,
            N_(
                "Your cumulative sum runs in vocabulary order. Sort by "
                "probability first (descending), decide there, then scatter "
                "the decision back."
            ),
        ),
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

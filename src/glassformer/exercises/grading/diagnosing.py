"""Diagnosing a failure: which usual mistake the learner made, in one sentence.

    diagnose(ex, prep, report, calls)   a known-wrong variant whose outputs equal the learner's,
                                        else what the kind of problem usually means (WHY), else
                                        a hint read from the learner's error message
    error_hint(name, error)             the hint an error message gives (an exercise's own
                                        patterns, then the ones every exercise shares)

Each returns (text key, fields), or None when nothing more telling than the report can be said.
"""

from __future__ import annotations

import re

import glassformer.exercises.catalog as catalog
from glassformer.exercises.catalog import Exercise
from glassformer.exercises.grading.comparing import Prepared, same_values, unpack, variant_outputs
from glassformer.messages import N_

# what a kind of problem (Problem.what) usually means, when no known-wrong variant explains it
WHY = {
    "dtype": N_(
        "The dtype differs from the reference's. The inputs are "
        "float64: create new tensors with dtype=x.dtype "
        "(torch.zeros(..., dtype=x.dtype)); masks are bool."
    ),
    "type": N_("Return torch tensors (not NumPy arrays, lists or Python numbers)."),
    "count": N_("The function returns the wrong number of values; the docstring lists what to return, in order."),
    "grad_missing": N_(
        "No gradient flows back to an input. Did you use .detach(), "
        ".data, .item(), .tolist(), NumPy, or torch.tensor(...) on "
        "an input? Keep every step a torch operation on the inputs."
    ),
    "twin_slope": N_(
        "Your outputs match, your gradients match glassformer's "
        "autograd, yet the NumPy twin's finite difference disagrees: "
        "this should not happen with plain torch operations. Look "
        "for custom autograd Functions or .detach() tricks."
    ),
    "shape": N_(
        "The shape differs from the reference's: compare each step's shape with the docstring's shape contract."
    ),
    "nan": N_(
        "Your output contains NaN where the reference has a number: "
        "look for 0/0, inf - inf or inf/inf (exp of large values, a "
        "row with nothing to normalise)."
    ),
}


# errors whose message says enough to name the mistake, in every exercise
COMMON_ERROR_HINTS = (
    (
        r"view size is not compatible with input tensor's size and stride",
        N_(
            ".view() needs a contiguous tensor, and a transposed one is "
            "not. Use .reshape() (it copies when it must), or "
            ".contiguous().view()."
        ),
    ),
    (
        r"mat1 and mat2 shapes cannot be multiplied",
        N_(
            "A matrix product's inner sizes disagree. Weights are stored "
            "(out, in): multiply by W.T (x @ W.T), and check each "
            "tensor's shape against the docstring."
        ),
    ),
    (
        r"leaf Variable that requires grad is being used in an in-place operation",
        N_(
            "You change an input in place (+=, x[...] = , an op ending "
            "in _). Inputs must stay untouched: build new tensors (x = x "
            "- m instead of x -= m)."
        ),
    ),
    (
        r"must match the size of tensor b|shape mismatch|cannot broadcast|not broadcastable",
        N_(
            "Two tensors' shapes do not line up. Print the shapes of "
            "both operands and compare them with the shape contract in "
            "the docstring (keepdim=True keeps reduced axes for "
            "broadcasting)."
        ),
    ),
    (
        r"can't allocate memory|MemoryError|out of memory",
        N_(
            "Your code asked for more memory than a check allows (the "
            "cases are tiny): look for a tensor whose size grows with "
            "something it should not, e.g. a (V, V) or (T, T, T) "
            "intermediate."
        ),
    ),
    (
        r"expected .*(Double|Float)|dtype",
        N_(
            "Tensors of different dtypes meet. The inputs are float64: "
            "make new tensors with dtype=x.dtype (and device=x.device)."
        ),
    ),
)


def diagnose(ex: Exercise, prep: Prepared, report, calls: list) -> tuple[str, dict] | None:
    """The most telling explanation of the failures: a known-wrong variant the learner's outputs
    equal, else a message for the kind of problem, else a hint read from the error message."""
    failing = [c for c in report.cases if not c.ok and not c.error and c.problem is not None]
    best, best_score = None, (0, 0)
    for variant in ex.variants:
        # a variant explains a failure when the learner's outputs equal the variant's there and
        # the variant's differ from the reference's; among the variants explaining at least one,
        # the one agreeing with the learner on the most cases (passing ones too) wins
        explains = agrees = 0
        for c in report.cases:
            outs = variant_outputs(ex.name, variant.id, c.index)
            mine = unpack(calls[c.index]["outputs"]) if "outputs" in calls[c.index] else None
            if outs is not None and mine is not None and _same(mine, outs, ex.atol):
                agrees += 1
                explains += c in failing and not _same(prep.ref[c.index], outs, ex.atol)
        if explains and (agrees, explains) > best_score:
            best, best_score = variant, (agrees, explains)
    if best is not None:
        return best.note, {}
    for c in failing:
        if c.problem.what in WHY:
            return WHY[c.problem.what], {}
    errors = [c.error for c in report.cases if c.error and not c.todo]
    return error_hint(ex.name, errors[0]) if errors else None


def _same(a, b, atol: float) -> bool:
    return len(a) == len(b) and all(same_values(x, y, max(atol, 1e-9)) for x, y in zip(a, b, strict=False))


def error_hint(name: str, error: dict) -> tuple[str, dict] | None:
    text = f"{error['type']}: {error['message']}"
    for pattern, key in catalog.get(name).error_hints + COMMON_ERROR_HINTS:
        if re.search(pattern, text):
            return key, {}
    return None

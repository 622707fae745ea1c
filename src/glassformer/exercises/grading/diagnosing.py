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
    "dtype": N_("exercise.msg.why.dtype"),
    "type": N_("exercise.msg.why.type"),
    "count": N_("exercise.msg.why.count"),
    "grad_missing": N_("exercise.msg.why.grad_missing"),
    "twin_slope": N_("exercise.msg.why.twin_slope"),
    "shape": N_("exercise.msg.why.shape"),
    "nan": N_("exercise.msg.why.nan"),
}


# errors whose message says enough to name the mistake, in every exercise
COMMON_ERROR_HINTS = (
    (r"view size is not compatible with input tensor's size and stride", "exercise.err.view"),
    (r"mat1 and mat2 shapes cannot be multiplied", "exercise.err.matmul"),
    (r"leaf Variable that requires grad is being used in an in-place operation", "exercise.err.inplace"),
    (r"must match the size of tensor b|shape mismatch|cannot broadcast|not broadcastable", "exercise.err.broadcast"),
    (r"can't allocate memory|MemoryError|out of memory", "exercise.err.memory"),
    (r"expected .*(Double|Float)|dtype", "exercise.err.dtype"),
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

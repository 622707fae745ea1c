"""Naming the mistake behind a failure, so the learner reads a cause and not only numbers.

In order: a known-wrong variant whose outputs equal the learner's where the learner fails (and
differ from the reference there); else a message for the kind of problem (dtype, shape, NaN, a
missing gradient ...); else a hint read from the text of the learner's error.
"""

from __future__ import annotations

import re

from glassformer.exercises import catalog
from glassformer.exercises.compare import same_values, unpack
from glassformer.exercises.expected import Prepared, variant_outputs
from glassformer.exercises.spec import Exercise

# errors whose message says enough to name the mistake, in every exercise
COMMON_ERROR_HINTS = (
    (r"view size is not compatible with input tensor's size and stride", "err.view"),
    (r"mat1 and mat2 shapes cannot be multiplied", "err.matmul"),
    (r"leaf Variable that requires grad is being used in an in-place operation", "err.inplace"),
    (r"must match the size of tensor b|shape mismatch|cannot broadcast|not broadcastable", "err.broadcast"),
    (r"can't allocate memory|MemoryError|out of memory", "err.memory"),
    (r"expected .*(Double|Float)|dtype", "err.dtype"),
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
        return f"{ex.name}.wrong.{best.id}", {}
    for c in failing:
        if c.problem.what in ("dtype", "type", "count", "grad_missing", "twin_slope", "shape", "nan"):
            return f"msg.why.{c.problem.what}", {}
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

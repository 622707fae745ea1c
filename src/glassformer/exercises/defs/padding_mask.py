"""How the padding_mask exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.models.encoder.padding_mask and numpy_ref.padding_mask.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import Case, Exercise, Function, Variant, numpy_twin
from glassformer.messages import N_
from glassformer.models.encoder import padding_mask

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the padding mask."""

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    return (ids != pad_id)[:, None, None, :]  # (B, T) -> (B, 1, 1, T)
'''


def reference(ids, pad_id):
    return (padding_mask(ids, pad_id),)  # (B, 1, 1, T)


def twin(ids, pad_id):
    return numpy_ref.padding_mask(ids, pad_id)  # (B, 1, 1, T)


# ------------------------------------------------------------------ known-wrong variants


def inverted(ids, pad_id):
    return (ids == pad_id)[:, None, None, :]  # True on the padding


def flat(ids, pad_id):
    return ids != pad_id  # (B, T): against (B, H, T, T) scores B would line up with the queries


def query_axis(ids, pad_id):
    return (ids != pad_id)[:, None, :, None]  # (B, 1, T, 1): hides padding queries, not keys


def pad_is_zero(ids, pad_id):
    return (ids != 0)[:, None, None, :]  # pad_id ignored: 0 assumed


# -------------------------------------------------------------------------------- cases


def _ids(rng, B, T, pad_id, lengths):
    """(B, T) int64 token ids in [0, 20), row b padded after lengths[b] real tokens."""
    ids = torch.from_numpy(rng.integers(0, 20, size=(B, T)))
    ids[ids == pad_id] = (pad_id + 1) % 20  # real tokens are never the pad id
    for b, n in enumerate(lengths):
        ids[b, n:] = pad_id
    return ids


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        Case("exercise.case.basic", "padding_mask", (_ids(rng, 3, 6, 0, [6, 4, 2]), 0)),
        Case(
            "exercise.padding_mask.case.pad_id", "padding_mask", (_ids(rng, 2, 5, 3, [3, 5]), 3), fields={"pad_id": 3}
        ),
        Case("exercise.case.batch1", "padding_mask", (_ids(rng, 1, 4, 0, [2]), 0)),
        Case("exercise.case.t1", "padding_mask", (_ids(rng, 2, 1, 0, [1, 1]), 0)),
        Case("exercise.padding_mask.case.no_padding", "padding_mask", (_ids(rng, 2, 5, 0, [5, 5]), 0)),
        Case("exercise.padding_mask.case.all_padding", "padding_mask", (_ids(rng, 3, 4, 1, [4, 0, 2]), 1)),
    ]
    for i in range(3):
        B, T = (int(n) for n in rng.integers(1, 8, size=2))
        pad_id = int(rng.integers(0, 20))
        lengths = [int(n) for n in rng.integers(0, T + 1, size=B)]
        ids = _ids(rng, B, T, pad_id, lengths)
        cases.append(Case("exercise.case.random", "padding_mask", (ids, pad_id), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="padding_mask",
    title=N_("exercise.padding_mask.title"),
    todo=N_("exercise.padding_mask.todo"),
    hints=(N_("exercise.padding_mask.hint.1"), N_("exercise.padding_mask.hint.2"), N_("exercise.padding_mask.hint.3")),
    solution=SOLUTION,
    functions=(
        Function(
            "padding_mask",
            "(ids: torch.Tensor, pad_id: int) -> torch.Tensor",
            ("ids", "pad_id"),
            ("mask",),
            doc=N_("exercise.padding_mask.doc.padding_mask"),
        ),
    ),
    make_cases=make_cases,
    reference={"padding_mask": reference},
    numpy_reference={"padding_mask": numpy_twin(twin)},
    variants=(
        Variant("inverted", "padding_mask", inverted, N_("exercise.padding_mask.wrong.inverted")),
        Variant("flat", "padding_mask", flat, N_("exercise.padding_mask.wrong.flat")),
        Variant("query_axis", "padding_mask", query_axis, N_("exercise.padding_mask.wrong.query_axis")),
        Variant("pad_is_zero", "padding_mask", pad_is_zero, N_("exercise.padding_mask.wrong.pad_is_zero")),
    ),
    allowed=("!=", "t[:, None, None, :]", "Tensor.unsqueeze"),
    header="import torch\n",
    seed=104,
)

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
        Case(N_("a small ordinary input"), "padding_mask", (_ids(rng, 3, 6, 0, [6, 4, 2]), 0)),
        Case(N_("pad_id = {pad_id} (not 0)"), "padding_mask", (_ids(rng, 2, 5, 3, [3, 5]), 3), fields={"pad_id": 3}),
        Case(N_("a batch of 1"), "padding_mask", (_ids(rng, 1, 4, 0, [2]), 0)),
        Case(N_("T = 1 (a single position)"), "padding_mask", (_ids(rng, 2, 1, 0, [1, 1]), 0)),
        Case(N_("no padding at all"), "padding_mask", (_ids(rng, 2, 5, 0, [5, 5]), 0)),
        Case(N_("a sequence that is all padding"), "padding_mask", (_ids(rng, 3, 4, 1, [4, 0, 2]), 1)),
    ]
    for i in range(3):
        B, T = (int(n) for n in rng.integers(1, 8, size=2))
        pad_id = int(rng.integers(0, 20))
        lengths = [int(n) for n in rng.integers(0, T + 1, size=B)]
        ids = _ids(rng, B, T, pad_id, lengths)
        cases.append(Case(N_("random case #{i}"), "padding_mask", (ids, pad_id), fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="padding_mask",
    title=N_("the padding mask"),
    todo=N_("TODO: compare ids with pad_id, then add the head and query axes."),
    hints=(
        N_("Which tokens may be looked at? The real ones: ids != pad_id, a (B, T) boolean."),
        N_(
            "Scores are (B, H, T_q, T_k). The mask's last axis must be "
            "the KEY axis, with size-1 axes for H and T_q: (B, 1, 1, T)."
        ),
        N_("Nearly the answer: return (ids != pad_id)[:, None, None, :]"),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "padding_mask",
            "(ids: torch.Tensor, pad_id: int) -> torch.Tensor",
            ("ids", "pad_id"),
            ("mask",),
            doc=N_(
                "Hide <PAD> tokens from every query: a padding KEY must get "
                "no attention weight.\n\n    mask[b, 0, 0, j] = (ids[b, j] != "
                "pad_id)\n\nThe two axes of size 1 broadcast over heads and "
                "queries, so the same keys are hidden for\nevery head and "
                "every query of sequence b. (A padding QUERY still gets an "
                "output; the loss\nignores it.)\n\nShapes: ids (B, T) integers, "
                "pad_id int -> (B, 1, 1, T) bool, True = may attend."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"padding_mask": reference},
    numpy_reference={"padding_mask": numpy_twin(twin)},
    variants=(
        Variant(
            "inverted",
            "padding_mask",
            inverted,
            N_("Your mask is True on the padding. True must mean MAY attend: ids != pad_id."),
        ),
        Variant(
            "flat",
            "padding_mask",
            flat,
            N_(
                "Your mask is (B, T). Against scores (B, H, T, T) it would "
                "broadcast the batch axis onto the query axis. Give it the "
                "shape (B, 1, 1, T)."
            ),
        ),
        Variant(
            "query_axis",
            "padding_mask",
            query_axis,
            N_(
                "Your mask is (B, 1, T, 1): it hides padding QUERIES, not "
                "padding KEYS. Put the token axis last: (B, 1, 1, T)."
            ),
        ),
        Variant(
            "pad_is_zero",
            "padding_mask",
            pad_is_zero,
            N_("You compare with 0 instead of pad_id. The padding id is an argument: use ids != pad_id."),
        ),
    ),
    allowed=("!=", "t[:, None, None, :]", "Tensor.unsqueeze"),
    header="import torch\n",
    seed=104,
)

"""The exercises, in data-flow order: each name is a file in defs/ (its definition), a file in
solutions/ (its reference solution) and the file the learner writes (`exercises/<name>.py`)."""

from __future__ import annotations

import difflib
import functools
import importlib

from glassformer.errors import UsageError
from glassformer.exercises.spec import Exercise
from glassformer.messages import t

ORDER = (
    "softmax",  # the one nonlinearity attention needs
    "attention_scores",  # Q·Kᵀ/√D
    "causal_mask",  # who may attend to whom: no peeking at the future ...
    "padding_mask",  # ... nor at padding
    "attention",  # softmax(scores, masked)·V, NaN-free
    "heads",  # (B, T, C) <-> (B, H, T, D)
    "multi_head_attention",  # project, split, attend, merge, project
    "sinusoidal",  # + where each token sits
    "layer_norm",  # the normalisation around each half of a block
    "feed_forward",  # the per-token MLP
    "block",  # LN -> attention -> + -> LN -> FFN -> +
    "loss",  # next-token cross-entropy
    "sampling",  # top-k / top-p before drawing the next token
    "kv_cache",  # one decoding step that reuses the past keys and values
    "fruit",  # lesson 1's apple/banana/orange attention, by hand
)


@functools.cache
def all_exercises() -> dict[str, Exercise]:
    return {name: importlib.import_module(f"glassformer.exercises.defs.{name}").EXERCISE for name in ORDER}


def get(name: str) -> Exercise:
    """The exercise called `name` (hyphens accepted for underscores); a clear error otherwise."""
    key = name.strip().replace("-", "_").removesuffix(".py")
    if key not in ORDER:
        near = difflib.get_close_matches(key, ORDER, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.exercise.unknown", name=name, hint=hint, n=len(ORDER))
    return all_exercises()[key]


def number(name: str) -> int:
    """1-based position in the data-flow order."""
    return ORDER.index(get(name).name) + 1

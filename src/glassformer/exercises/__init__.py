"""手撕 mode: the learner writes each part of a Transformer by hand; glassformer grades it.

The exercises follow the data flow (catalog.ORDER): softmax, scores, masks, attention, heads,
multi-head attention, positions, LayerNorm, FFN, a block, the loss, sampling filters, a KV-cache
step, and the fruit example of lesson 1. Each one is one file, defs/NAME.py: its definition
(references, cases, forbidden calls), its reference solution, its known-wrong variants and the
keys of its words (title, docstrings, hints, the note on each mistake), whose sentences are in the
one catalogue (glassformer.messages).

The machinery, one module per job a newcomer can name:

    catalog.py    what an exercise is made of (Exercise, Function, Case, Variant, Rule), the list
    grading/      check(): read, refuse shortcuts, run, compare, diagnose -> Report; render(Report),
                  one module per job (grading/__init__.py lists them)
    sandbox.py    the learner's code in a child process with a time limit (this file is the child)
    session.py    the learner's verbs (list, start, check, hint, solution), skeletons, progress
    educator.py   the teacher's verbs (grade a class, export golden files, known-mistake files)
    plug.py       `--use-mine`: train with the learner's own passing functions plugged in

docs/exercises.md explains how to use it, how grading works and how passing functions plug into
the model (`glassformer train --use-mine DIR`).

The package imports nothing itself (its names come on first use), so `python -m glassformer`
can import sandbox.py and start the grader's worker before it imports torch (sandbox.prestart_for).
"""

import importlib

__all__ = ["ORDER", "Report", "all_exercises", "check", "check_many", "get"]
_HOME = {"ORDER": "catalog", "all_exercises": "catalog", "get": "catalog"}  # the others: grading


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME.get(name, 'grading')}"), name)

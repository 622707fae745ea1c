"""手撕 mode: the learner writes each part of a Transformer by hand; glassformer grades it.

The exercises follow the data flow (catalog.ORDER): softmax, scores, masks, attention, heads,
multi-head attention, positions, LayerNorm, FFN, a block, the loss, sampling filters, a KV-cache
step, and the fruit example of lesson 1. For each one:

    defs/NAME.py        the definition: references, cases, known-wrong variants, forbidden calls
    solutions/NAME.py   the reference solution, a learner-shaped file (`solution` prints it)

and the machinery, one concept a file:

    spec.py       what an exercise is made of (Exercise, Function, Case, Variant, Rule)
    forbidden.py  refusing shortcuts by reading the learner's syntax tree
    runner.py     the learner's code in a child process with a time limit (worker.py is the child)
    compare.py    values against references and variants: first mismatch, largest error
    grader.py     check(): static checks, run, compare, diagnose -> Report
    report.py     a Report as text in the learner's language (text.py, text_en.py, text_zh.py)
    skeleton.py   the file `start` writes
    progress.py   the learner's progress JSON
    session.py    the learner's verbs; educator.py the teacher's (grade, export-golden)

docs/exercises.md explains how to use it, how grading works and how a passing function will
plug into the model (`--use-mine`, planned).
"""

from glassformer.exercises.catalog import ORDER, all_exercises, get
from glassformer.exercises.grader import Report, check, check_many

__all__ = ["ORDER", "Report", "all_exercises", "check", "check_many", "get"]

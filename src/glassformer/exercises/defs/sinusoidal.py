"""How the sinusoidal exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.position.sinusoidal_table (computed as exp(-ln(10000)·2i/C)) and
numpy_ref.sinusoidal_table (written as a plain power): the two agree only if both are right.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.exercises.catalog import Case, Exercise, Function, Variant, numpy_twin
from glassformer.messages import N_
from glassformer.nn.position import sinusoidal_table

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the sinusoidal position table of "Attention Is All You Need" (§3.5)."""

import torch


def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    p = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1) positions
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),) even feature indices
    angle = p / 10000.0 ** (two_i / d_model)  # (L, ceil(C/2)): the angle p·ω_i
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(angle)  # even features
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])  # odd features (one fewer when C is odd)
    return table
'''


def reference(max_len, d_model):
    return (sinusoidal_table(max_len, d_model, dtype=torch.float64),)  # (L, C)


def twin(max_len, d_model):
    return numpy_ref.sinusoidal_table(max_len, d_model)  # (L, C)


# ------------------------------------------------------------------ known-wrong variants


def _angles(max_len, d_model, exponent, first=0):
    p = torch.arange(first, first + max_len, dtype=torch.float64)[:, None]  # (L, 1)
    return p / 10000.0 ** (exponent / d_model)  # (L, n)


def sin_cos_swapped(max_len, d_model):
    angle = _angles(max_len, d_model, torch.arange(0, d_model, 2, dtype=torch.float64))
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.cos(angle)  # cosine on the even features
    table[:, 1::2] = torch.sin(angle[:, : d_model // 2])
    return table


def halves(max_len, d_model):
    angle = _angles(max_len, d_model, torch.arange(0, d_model, 2, dtype=torch.float64))
    return torch.cat([torch.sin(angle), torch.cos(angle[:, : d_model // 2])], dim=1)  # [sin … | cos …]


def column_frequency(max_len, d_model):
    angle = _angles(max_len, d_model, torch.arange(d_model, dtype=torch.float64))  # 10000^(j/C) for column j
    table = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, 1::2])
    return table


def starts_at_one(max_len, d_model):
    angle = _angles(max_len, d_model, torch.arange(0, d_model, 2, dtype=torch.float64), first=1)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    f = "sinusoidal_table"
    cases = [
        Case(N_("max_len = {L}, d_model = {C}"), f, (8, 4), fields={"L": 8, "C": 4}),
        Case(N_("a single position (max_len = 1)"), f, (1, 4)),
        Case(N_("max_len = {L}, d_model = {C}"), f, (5, 2), fields={"L": 5, "C": 2}),
        Case(N_("odd d_model = {C}"), f, (6, 5), fields={"C": 5}),
        Case(N_("odd d_model = {C}"), f, (3, 1), fields={"C": 1}),
        Case(N_("max_len = {L}, d_model = {C}"), f, (128, 64), fields={"L": 128, "C": 64}),
    ]
    for _ in range(2):
        L, C = int(rng.integers(1, 100)), int(rng.integers(1, 40))
        cases.append(Case(N_("max_len = {L}, d_model = {C}"), f, (L, C), fields={"L": L, "C": C}))
    return cases


EXERCISE = Exercise(
    name="sinusoidal",
    title=N_("the sinusoidal position table"),
    todo=N_(
        "TODO: positions as a column, frequencies as a row, their "
        "product = the angles; sin on even features, cos on odd."
    ),
    hints=(
        N_(
            "i counts PAIRS of features: features 2i and 2i+1 share the "
            "frequency 1/10000^(2i/C). torch.arange(0, C, 2) lists the "
            "2i."
        ),
        N_(
            "angles = positions (L, 1) / 10000 ** (two_i / C) (1, "
            "ceil(C/2)) by broadcasting; then table[:, 0::2] = "
            "sin(angles), table[:, 1::2] = cos(angles[:, :C // 2])."
        ),
        N_(
            "Nearly the answer: p = torch.arange(L, "
            "dtype=torch.float64)[:, None]; a = p / 10000.0 ** "
            "(torch.arange(0, C, 2, dtype=torch.float64) / C); t = "
            "torch.zeros(L, C, dtype=torch.float64); t[:, 0::2] = "
            "a.sin(); t[:, 1::2] = a[:, :C // 2].cos()"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "sinusoidal_table",
            "(max_len: int, d_model: int) -> torch.Tensor",
            ("max_len", "d_model"),
            ("table",),
            doc=N_(
                "The fixed position table of 'Attention Is All You Need' "
                "(§3.5):\n\n    P[p, 2i]   = sin(p / 10000^(2i/C))\n    P[p, "
                "2i+1] = cos(p / 10000^(2i/C))\n\nEach (sin, cos) pair turns "
                "at its own frequency; an odd C has one more sine column.\n"
                "Compute in float64.\n\nShapes: max_len L, d_model C -> (L, C) "
                "float64; row p is position p (starting at 0)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"sinusoidal_table": reference},
    numpy_reference={"sinusoidal_table": numpy_twin(twin)},
    variants=(
        Variant(
            "sin_cos_swapped",
            "sinusoidal_table",
            sin_cos_swapped,
            N_(
                "Sine and cosine are swapped: the paper puts sin on the EVEN "
                "features (2i) and cos on the odd ones (2i+1). Row 0 must be "
                "[0, 1, 0, 1, ...]."
            ),
        ),
        Variant(
            "halves",
            "sinusoidal_table",
            halves,
            N_(
                "You put all sines in the first half and all cosines in the "
                "second. glassformer (and the paper) interleave them: sin at "
                "2i, cos at 2i+1."
            ),
        ),
        Variant(
            "column_frequency",
            "sinusoidal_table",
            column_frequency,
            N_(
                "Your frequency uses the column index j (10000^(j/C)); it "
                "must use the pair's even index 2i, so features 2i and 2i+1 "
                "share one frequency."
            ),
        ),
        Variant(
            "starts_at_one",
            "sinusoidal_table",
            starts_at_one,
            N_("Your positions start at 1; the first position is 0 (row 0 must be [0, 1, 0, 1, ...])."),
        ),
    ),
    allowed=(
        "torch.arange(..., dtype=torch.float64)",
        "torch.sin",
        "torch.cos",
        "**",
        "torch.exp",
        "math.log",
        "table[:, 0::2]",
    ),
    header="import math\n\nimport torch\n",
    seed=108,
    plugs_into="glassformer.nn.position.sinusoidal_table",
)

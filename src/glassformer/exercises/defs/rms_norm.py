"""How the rms_norm exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.rmsnorm.RMSNorm (the norm of Llama, Qwen3 and Mistral blocks, and of
QK-norm; the case's gain put in with torch.func.functional_call, so its gradient is graded) and
numpy_ref.rmsnorm.rms_norm. The cases include vectors whose mean square is far below ε (where the place of
ε shows) and vectors far from zero (where subtracting the mean, LayerNorm's step, shows).
"""

from __future__ import annotations

import numpy as np
import torch
from torch.func import functional_call

from glassformer.exercises.catalog import (
    LAYER_NORM,
    Case,
    Exercise,
    Function,
    Variant,
    noncontiguous,
    numpy_twin,
    randn,
)
from glassformer.messages import N_
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.numpy_ref.rmsnorm import rms_norm as numpy_rms_norm

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: RMSNorm over the last axis."""

import torch


def rms_norm(x, weight, eps=1e-6):
    mean_square = (x * x).mean(dim=-1, keepdim=True)  # (..., 1)
    return x / torch.sqrt(mean_square + eps) * weight  # (..., C)
'''


def reference(x, weight, eps=1e-6):
    norm = RMSNorm(x.size(-1), eps).double()
    return (functional_call(norm, {"weight": weight}, (x,)),)  # (..., C)


def twin(x, weight, eps=1e-6):
    return numpy_rms_norm(x, {"weight": weight}, eps)


# ------------------------------------------------------------------ known-wrong variants


def eps_outside(x, weight, eps=1e-6):
    rms = (x * x).mean(dim=-1, keepdim=True).sqrt()  # (..., 1)
    return x / (rms + eps) * weight  # ε added to the root mean square, not under the root


def wrong_axis(x, weight, eps=1e-6):
    mean_square = (x * x).mean(dim=1, keepdim=True)  # over the tokens of a (B, T, C) batch
    return x / torch.sqrt(mean_square + eps) * weight


def subtract_mean(x, weight, eps=1e-6):
    centred = x - x.mean(dim=-1, keepdim=True)  # LayerNorm's first step
    return centred / torch.sqrt((centred * centred).mean(dim=-1, keepdim=True) + eps) * weight


def no_gain(x, weight, eps=1e-6):
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)  # g unused


def no_root(x, weight, eps=1e-6):
    return x / ((x * x).mean(dim=-1, keepdim=True) + eps) * weight  # divides by the mean square


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    def case(label, x, eps=1e-6, fields=None):
        weight = 1.0 + randn(rng, x.size(-1), scale=0.3)  # (C,)
        return Case(label, "rms_norm", (x, weight, eps), (0, 1), fields or {})

    return [
        case(N_("a small ordinary input"), randn(rng, 2, 4, 8)),
        case(N_("a batch of 1"), randn(rng, 1, 3, 6)),
        case(N_("T = 1 (a single position)"), randn(rng, 2, 1, 8)),
        case(N_("vectors near zero (mean square as small as ε)"), randn(rng, 2, 3, 8, scale=1e-3)),
        case(
            N_("features far from zero (all near {offset})"), 5.0 + randn(rng, 2, 3, 8, scale=0.5), fields={"offset": 5}
        ),
        case(N_("eps = {eps} (not the default)"), randn(rng, 2, 3, 6, scale=0.05), eps=1e-2, fields={"eps": 1e-2}),
        case(N_("a 2-D input (T, C)"), randn(rng, 5, 7)),
        case(N_("non-contiguous inputs (transposed views)"), noncontiguous(randn(rng, 2, 6, 6))),
        case(N_("random case #{i}"), randn(rng, 3, 5, 9, scale=3.0), fields={"i": 1}),
        case(N_("random case #{i}"), randn(rng, 1, 7, 2, scale=0.5), fields={"i": 2}),
    ]


EXERCISE = Exercise(
    name="rms_norm",
    title=N_("RMSNorm"),
    todo=N_("TODO: the mean of x² over the last axis, divide by its square root (ε inside), then the gain."),
    hints=(
        N_(
            "RMSNorm is LayerNorm without the mean: nothing is "
            "subtracted and there is no bias. One statistic per token, "
            "over dim=-1 with keepdim=True."
        ),
        N_(
            "The statistic is the mean of the squares, (x * x).mean(-1, "
            "keepdim=True), and ε goes under the root: √(mean(x²) + ε). "
            "Then multiply by weight."
        ),
        N_("Nearly the answer: ms = (x * x).mean(dim=-1, keepdim=True); return x / torch.sqrt(ms + eps) * weight"),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "rms_norm",
            "(x, weight, eps=1e-6)",
            ("x", "weight", "eps"),
            ("output",),
            doc=N_(
                "Divide each token's vector by its root mean square, then "
                "scale each feature by a learned gain:\n\n    RMSNorm(x) = "
                "x / √(mean(x²) + ε) · g        (Zhang & Sennrich 2019, "
                "eq. 4)\n\nmean over the LAST axis. Unlike LayerNorm, no "
                "mean is subtracted and there is no\nbias β: only the gain "
                "g is learned. ε goes inside the square root (Llama, Qwen3,\n"
                "Mistral).\n\nShapes: x (..., C), weight g (C,), eps float "
                "-> (..., C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"rms_norm": reference},
    numpy_reference={"rms_norm": numpy_twin(twin)},
    variants=(
        Variant(
            "eps_outside",
            "rms_norm",
            eps_outside,
            N_(
                "You add ε to the root mean square; it belongs inside the "
                "square root: x / √(mean(x²) + ε). The difference shows "
                "when a vector is close to zero."
            ),
        ),
        Variant(
            "wrong_axis",
            "rms_norm",
            wrong_axis,
            N_(
                "You take the mean over the wrong axis (the tokens, dim=1). "
                "RMSNorm divides each token by the RMS of its own C "
                "features: dim=-1."
            ),
        ),
        Variant(
            "subtract_mean",
            "rms_norm",
            subtract_mean,
            N_(
                "You subtract the mean first: that is LayerNorm. RMSNorm "
                "keeps the vector's offset and divides x itself by "
                "√(mean(x²) + ε)."
            ),
        ),
        Variant(
            "no_gain",
            "rms_norm",
            no_gain,
            N_("The gain g is not applied: multiply the normalised x by weight."),
        ),
        Variant(
            "no_root",
            "rms_norm",
            no_root,
            N_("You divide by the mean square itself, not by its square root: x / √(mean(x²) + ε)."),
        ),
    ),
    forbidden=(LAYER_NORM,),
    allowed=(
        "Tensor.mean(dim=-1, keepdim=True)",
        "torch.sqrt",
        "torch.rsqrt",
    ),
    header="import torch\n",
    seed=116,
    plugs_into="glassformer.nn.rmsnorm.RMSNorm.forward",
)

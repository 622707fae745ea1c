"""How the layer_norm exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.models.gpt.layer_norm (the nn.LayerNorm glassformer's blocks use) and
numpy_ref.layer_norm. The cases include rows whose variance is far below ε (where the place of
ε shows) and rows far from zero (where mean(x²) - mean² loses every digit).
"""

from __future__ import annotations

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
from glassformer.config import ModelConfig
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
from glassformer.models.gpt import layer_norm as make_layer_norm

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: LayerNorm over the last axis."""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    centred = x - mean  # (..., C)
    var = (centred**2).mean(dim=-1, keepdim=True)  # (..., 1)
    y = centred / torch.sqrt(var + eps) * weight  # (..., C)
    return y + bias if bias is not None else y  # (..., C)
'''


def reference(x, weight, bias, eps=1e-5):
    cfg = ModelConfig(d_model=x.size(-1), n_heads=1, ln_eps=eps, bias=bias is not None)
    ln = make_layer_norm(cfg).double()
    params = {"weight": weight} if bias is None else {"weight": weight, "bias": bias}
    return (functional_call(ln, params, (x,)),)  # (..., C)


def twin(x, weight, bias, eps=1e-5):
    params = {"weight": weight} if bias is None else {"weight": weight, "bias": bias}
    return numpy_ref.layer_norm(x, params, eps)


# ------------------------------------------------------------------ known-wrong variants


def _affine(y, weight, bias):
    return y * weight + (bias if bias is not None else 0.0)


def bessel(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)  # ÷ (C - 1)
    return _affine((x - mean) / torch.sqrt(var + eps), weight, bias)


def eps_outside(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    std = ((x - mean) ** 2).mean(dim=-1, keepdim=True).sqrt()
    return _affine((x - mean) / (std + eps), weight, bias)  # ε added to the std, not the variance


def no_eps(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return _affine((x - mean) / ((x - mean) ** 2).mean(dim=-1, keepdim=True).sqrt(), weight, bias)


def wrong_axis(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=1, keepdim=True)  # over the tokens of a (B, T, C) batch
    var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
    return _affine((x - mean) / torch.sqrt(var + eps), weight, bias)


def no_affine(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(((x - mean) ** 2).mean(dim=-1, keepdim=True) + eps)  # γ, β unused


def var_from_squares(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = (x**2).mean(dim=-1, keepdim=True) - mean**2  # cancels catastrophically far from 0
    return _affine((x - mean) / torch.sqrt(var + eps), weight, bias)


# -------------------------------------------------------------------------------- cases


def _params(rng, C, bias=True):
    return 1.0 + randn(rng, C, scale=0.3), (randn(rng, C, scale=0.3) if bias else None)


def make_cases(rng: np.random.Generator) -> list[Case]:
    def case(label, x, eps=1e-5, bias=True, fields=None):
        w, b = _params(rng, x.size(-1), bias)
        return Case(label, "layer_norm", (x, w, b, eps), (0, 1, 2) if bias else (0, 1), fields or {})

    return [
        case("exercise.case.basic", randn(rng, 2, 4, 8)),
        case("exercise.case.batch1", randn(rng, 1, 3, 6)),
        case("exercise.case.t1", randn(rng, 2, 1, 8)),
        case("exercise.case.no_bias", randn(rng, 2, 3, 5), bias=False),
        case("exercise.layer_norm.case.tiny_var", 1.0 + randn(rng, 2, 3, 8, scale=1e-4)),
        case("exercise.layer_norm.case.offset", 1e6 + randn(rng, 2, 3, 8)),
        case("exercise.layer_norm.case.eps", randn(rng, 2, 3, 6, scale=0.05), eps=1e-2, fields={"eps": 1e-2}),
        case("exercise.case.no_batch_axis", randn(rng, 5, 7)),
        case("exercise.case.noncontig", noncontiguous(randn(rng, 2, 6, 6))),
        case("exercise.case.random", randn(rng, 3, 5, 9, scale=3.0), fields={"i": 1}),
        case("exercise.case.random", randn(rng, 1, 7, 2, scale=0.5), fields={"i": 2}),
    ]


EXERCISE = Exercise(
    name="layer_norm",
    title=N_("exercise.layer_norm.title"),
    todo=N_("exercise.layer_norm.todo"),
    hints=(N_("exercise.layer_norm.hint.1"), N_("exercise.layer_norm.hint.2"), N_("exercise.layer_norm.hint.3")),
    solution=SOLUTION,
    functions=(
        Function(
            "layer_norm",
            "(x, weight, bias, eps=1e-5)",
            ("x", "weight", "bias", "eps"),
            ("output",),
            doc=N_("exercise.layer_norm.doc.layer_norm"),
        ),
    ),
    make_cases=make_cases,
    reference={"layer_norm": reference},
    numpy_reference={"layer_norm": numpy_twin(twin)},
    variants=(
        Variant("bessel", "layer_norm", bessel, N_("exercise.layer_norm.wrong.bessel")),
        Variant("eps_outside", "layer_norm", eps_outside, N_("exercise.layer_norm.wrong.eps_outside")),
        Variant("no_eps", "layer_norm", no_eps, N_("exercise.layer_norm.wrong.no_eps")),
        Variant("wrong_axis", "layer_norm", wrong_axis, N_("exercise.layer_norm.wrong.wrong_axis")),
        Variant("no_affine", "layer_norm", no_affine, N_("exercise.layer_norm.wrong.no_affine")),
        Variant("var_from_squares", "layer_norm", var_from_squares, N_("exercise.layer_norm.wrong.var_from_squares")),
    ),
    forbidden=(LAYER_NORM,),
    allowed=(
        "Tensor.mean(dim=-1, keepdim=True)",
        "torch.sqrt",
        "torch.rsqrt",
        "Tensor.var(dim=-1, keepdim=True, unbiased=False)",
    ),
    atol=1e-9,
    header="import torch\n",
    seed=109,
    plugs_into="nn.LayerNorm.forward (glassformer.models.gpt.layer_norm)",
)

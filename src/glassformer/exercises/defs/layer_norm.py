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
        case(N_("a small ordinary input"), randn(rng, 2, 4, 8)),
        case(N_("a batch of 1"), randn(rng, 1, 3, 6)),
        case(N_("T = 1 (a single position)"), randn(rng, 2, 1, 8)),
        case(N_("no biases (None)"), randn(rng, 2, 3, 5), bias=False),
        case(N_("features nearly equal (variance far below ε)"), 1.0 + randn(rng, 2, 3, 8, scale=1e-4)),
        case(N_("features far from zero (around a million)"), 1e6 + randn(rng, 2, 3, 8)),
        case(N_("eps = {eps} (not the default)"), randn(rng, 2, 3, 6, scale=0.05), eps=1e-2, fields={"eps": 1e-2}),
        case(N_("a 2-D input (T, C)"), randn(rng, 5, 7)),
        case(N_("non-contiguous inputs (transposed views)"), noncontiguous(randn(rng, 2, 6, 6))),
        case(N_("random case #{i}"), randn(rng, 3, 5, 9, scale=3.0), fields={"i": 1}),
        case(N_("random case #{i}"), randn(rng, 1, 7, 2, scale=0.5), fields={"i": 2}),
    ]


EXERCISE = Exercise(
    name="layer_norm",
    title=N_("LayerNorm"),
    todo=N_("TODO: mean and variance over the last axis, normalise, then weight and bias."),
    hints=(
        N_(
            "Every statistic is per token: reduce over dim=-1 with "
            "keepdim=True, so it broadcasts back over the C features."
        ),
        N_(
            "var = ((x - mean) ** 2).mean(-1, keepdim=True), the biased "
            "variance. torch.var defaults to dividing by C - 1: pass "
            "unbiased=False if you use it. And ε goes under the root: "
            "√(var + ε)."
        ),
        N_(
            "Nearly the answer: mean = x.mean(-1, keepdim=True); var = "
            "((x - mean) ** 2).mean(-1, keepdim=True); y = (x - mean) / "
            "torch.sqrt(var + eps) * weight; return y + bias if bias is "
            "not None else y"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "layer_norm",
            "(x, weight, bias, eps=1e-5)",
            ("x", "weight", "bias", "eps"),
            ("output",),
            doc=N_(
                "Normalise each token's features to mean 0, variance 1, then "
                "scale and shift:\n\n    LayerNorm(x) = γ · (x - mean) / √(var "
                "+ ε) + β        (Ba, Kiros & Hinton 2016)\n\nmean and var "
                "over the LAST axis; var is the biased variance (divide by "
                "C, not C - 1):\nit describes these C numbers, it estimates "
                "nothing. ε goes inside the square root.\n\nShapes: x (..., "
                "C), weight γ (C,), bias β (C,) or None, eps float -> (..., "
                "C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"layer_norm": reference},
    numpy_reference={"layer_norm": numpy_twin(twin)},
    variants=(
        Variant(
            "bessel",
            "layer_norm",
            bessel,
            N_(
                "Your variance divides by C - 1 (Bessel's correction, "
                "torch.var's default). LayerNorm uses the biased variance, "
                "dividing by C: torch.var(..., unbiased=False) or ((x - "
                "mean) ** 2).mean(-1)."
            ),
        ),
        Variant(
            "eps_outside",
            "layer_norm",
            eps_outside,
            N_(
                "You add ε to the standard deviation; it belongs inside the "
                "square root: (x - mean) / √(var + ε). The difference shows "
                "when a token's features are nearly equal."
            ),
        ),
        Variant(
            "no_eps",
            "layer_norm",
            no_eps,
            N_(
                "ε is missing: divide by √(var + ε). Without it a token "
                "whose features are (nearly) equal divides by (nearly) zero."
            ),
        ),
        Variant(
            "wrong_axis",
            "layer_norm",
            wrong_axis,
            N_(
                "You normalise over the wrong axis (the tokens, dim=1). "
                "LayerNorm normalises each token over its own C features: "
                "dim=-1."
            ),
        ),
        Variant(
            "no_affine",
            "layer_norm",
            no_affine,
            N_("The weight γ and bias β are not applied: multiply the normalised x by weight and add bias."),
        ),
        Variant(
            "var_from_squares",
            "layer_norm",
            var_from_squares,
            N_(
                "You compute var as mean(x²) - mean². Far from zero (here "
                "around a million) the two terms are huge and nearly equal, "
                "and their difference loses most of its digits. Centre "
                "first: mean((x - mean)²)."
            ),
        ),
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

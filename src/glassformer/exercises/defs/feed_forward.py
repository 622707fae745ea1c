"""How the feed_forward exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.models.gpt.FeedForward and numpy_ref.feed_forward, for each activation
(relu, exact gelu, gelu_tanh).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
from glassformer.exercises.catalog import (
    GELU,
    LINEAR,
    Case,
    Exercise,
    Function,
    Variant,
    noncontiguous,
    numpy_twin,
    randn,
)
from glassformer.messages import N_
from glassformer.models.gpt import FeedForward

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the position-wise feed-forward network."""

import math

import torch


def feed_forward(x, w1, b1, w2, b2, activation="relu"):
    h = x @ w1.T  # (B, T, F)
    if b1 is not None:
        h = h + b1  # (B, T, F)
    h = _activate(h, activation)  # (B, T, F)
    y = h @ w2.T  # (B, T, C)
    return y + b2 if b2 is not None else y  # (B, T, C)


def _activate(h, activation):
    if activation == "relu":
        return torch.clamp(h, min=0.0)
    if activation == "gelu":  # x·Φ(x), Φ the standard normal CDF
        return h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
    if activation == "gelu_tanh":
        return 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    raise ValueError(f"unknown activation {activation!r}")
'''


def _named(w1, b1, w2, b2) -> dict:
    named = {"fc1.weight": w1, "fc1.bias": b1, "fc2.weight": w2, "fc2.bias": b2}
    return {k: v for k, v in named.items() if v is not None}


def reference(x, w1, b1, w2, b2, activation="relu"):
    ffn = FeedForward(w1.size(1), w1.size(0), activation, bias=b1 is not None).double()
    return (functional_call(ffn, _named(w1, b1, w2, b2), (x,)),)  # (B, T, C)


def twin(x, w1, b1, w2, b2, activation="relu"):
    return numpy_ref.feed_forward(x, _named(w1, b1, w2, b2), activation)


# ------------------------------------------------------------------ known-wrong variants


def _affine(x, w, b):
    return x @ w.T + (b if b is not None else 0.0)


def _gelu_exact(h):
    return h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))


def _gelu_tanh(h):
    return 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))


def no_activation(x, w1, b1, w2, b2, activation="relu"):
    return _affine(_affine(x, w1, b1), w2, b2)  # two linear maps in a row are one linear map


def relu_always(x, w1, b1, w2, b2, activation="relu"):
    return _affine(torch.clamp(_affine(x, w1, b1), min=0.0), w2, b2)


def tanh_for_exact(x, w1, b1, w2, b2, activation="relu"):
    h = _affine(x, w1, b1)
    act = {"relu": lambda t: torch.clamp(t, min=0.0), "gelu": _gelu_tanh, "gelu_tanh": _gelu_tanh}[activation]
    return _affine(act(h), w2, b2)


def exact_for_tanh(x, w1, b1, w2, b2, activation="relu"):
    h = _affine(x, w1, b1)
    act = {"relu": lambda t: torch.clamp(t, min=0.0), "gelu": _gelu_exact, "gelu_tanh": _gelu_exact}[activation]
    return _affine(act(h), w2, b2)


def sigmoid_gelu(x, w1, b1, w2, b2, activation="relu"):
    h = _affine(x, w1, b1)
    return _affine(h * torch.sigmoid(1.702 * h), w2, b2)  # another approximation of GELU


def act_on_output(x, w1, b1, w2, b2, activation="relu"):
    act = {"relu": lambda t: torch.clamp(t, min=0.0), "gelu": _gelu_exact, "gelu_tanh": _gelu_tanh}[activation]
    return act(_affine(act(_affine(x, w1, b1)), w2, b2))  # the output is activated too


# -------------------------------------------------------------------------------- cases


def _case(label, rng, B, T, C, F, activation, bias=True, contiguous=True, fields=None):
    x = randn(rng, B, T, C)
    w1, w2 = randn(rng, F, C, scale=1 / math.sqrt(C)), randn(rng, C, F, scale=1 / math.sqrt(F))
    b1, b2 = (randn(rng, F, scale=0.3), randn(rng, C, scale=0.3)) if bias else (None, None)
    args = (x if contiguous else noncontiguous(x), w1, b1, w2, b2, activation)
    return Case(
        label,
        "feed_forward",
        args,
        tuple(i for i in range(5) if args[i] is not None),
        {"activation": activation, **(fields or {})},
    )


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        _case(N_("activation = '{activation}'"), rng, 2, 5, 4, 8, "relu"),
        _case(N_("activation = '{activation}'"), rng, 2, 4, 6, 12, "gelu"),
        _case(N_("activation = '{activation}'"), rng, 2, 3, 4, 8, "gelu_tanh"),
        _case(N_("T = 1 (a single position)"), rng, 2, 1, 4, 8, "gelu"),
        _case(N_("a batch of 1"), rng, 1, 4, 6, 10, "relu"),
        _case(N_("no biases (None)"), rng, 2, 3, 4, 8, "relu", bias=False),
        _case(N_("a hidden layer narrower than the input (F < C)"), rng, 2, 3, 6, 3, "gelu"),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 5, 5, "gelu_tanh", contiguous=False),
    ]
    for i in range(2):
        B, T, C, F = (int(n) for n in rng.integers(1, 9, size=4))
        act = ("relu", "gelu", "gelu_tanh")[int(rng.integers(0, 3))]
        cases.append(_case(N_("random case #{i}"), rng, B, T, C, F, act, fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="feed_forward",
    title=N_("the position-wise feed-forward network"),
    todo=N_("TODO: first affine map, activation, second affine map."),
    hints=(
        N_("W₁ is stored (out, in) = (F, C), so x (B, T, C) times W₁ᵀ (C, F) gives (B, T, F). Same for W₂."),
        N_(
            "Write the three activations by hand: relu with "
            "torch.clamp(h, min=0), gelu with torch.erf, gelu_tanh with "
            "torch.tanh. 'gelu' is the exact one."
        ),
        N_(
            "Nearly the answer: h = x @ w1.T + b1; h = h * 0.5 * (1 + "
            "torch.erf(h / math.sqrt(2)))  (for 'gelu'); return h @ w2.T "
            "+ b2"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "feed_forward",
            '(x, w1, b1, w2, b2, activation="relu")',
            ("x", "w1", "b1", "w2", "b2", "activation"),
            ("output",),
            doc=N_(
                "The same two-layer MLP applied to every token on its "
                "own:\n\n    FFN(x) = act(x·W₁ᵀ + b₁)·W₂ᵀ + b₂          "
                "(Vaswani et al. 2017, §3.3)\n\nact: 'relu' max(h, 0) | 'gelu' "
                "h·Φ(h) = h·½(1 + erf(h/√2)) (exact) |\n'gelu_tanh' ½h(1 + "
                "tanh(√(2/π)(h + 0.044715h³))) (GPT-2's approximation).\n"
                "Weights use PyTorch's (out, in) layout; a bias may be "
                "None.\n\nShapes: x (B, T, C), w1 (F, C), b1 (F,), w2 (C, F), "
                "b2 (C,) -> (B, T, C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"feed_forward": reference},
    numpy_reference={"feed_forward": numpy_twin(twin)},
    variants=(
        Variant(
            "no_activation",
            "feed_forward",
            no_activation,
            N_(
                "There is no activation between the two layers: two affine "
                "maps in a row are one affine map. Apply act() to the hidden "
                "layer."
            ),
        ),
        Variant(
            "relu_always",
            "feed_forward",
            relu_always,
            N_("You always use ReLU; use the activation the argument names ('relu', 'gelu' or 'gelu_tanh')."),
        ),
        Variant(
            "tanh_for_exact",
            "feed_forward",
            tanh_for_exact,
            N_(
                "For 'gelu' you use the tanh approximation. 'gelu' is the "
                "exact h·Φ(h) = h·½(1 + erf(h/√2)); the tanh formula is "
                "'gelu_tanh' (GPT-2)."
            ),
        ),
        Variant(
            "exact_for_tanh",
            "feed_forward",
            exact_for_tanh,
            N_(
                "For 'gelu_tanh' you use the exact erf GELU. 'gelu_tanh' is "
                "GPT-2's approximation ½h(1 + tanh(√(2/π)(h + 0.044715h³)))."
            ),
        ),
        Variant(
            "sigmoid_gelu",
            "feed_forward",
            sigmoid_gelu,
            N_(
                "You use h·sigmoid(1.702h), another approximation of GELU. "
                "Write the exact h·½(1 + erf(h/√2)) for 'gelu' (and the tanh "
                "formula for 'gelu_tanh')."
            ),
        ),
        Variant(
            "act_on_output",
            "feed_forward",
            act_on_output,
            N_(
                "You apply the activation to the output as well. Only the "
                "hidden layer is activated; the second affine map is the "
                "last step."
            ),
        ),
    ),
    forbidden=(LINEAR, GELU),
    allowed=("x @ w.T", "torch.clamp", "torch.relu", "torch.erf", "torch.tanh", "math.sqrt", "math.pi"),
    seed=110,
    plugs_into="glassformer.models.gpt.FeedForward.forward",
)

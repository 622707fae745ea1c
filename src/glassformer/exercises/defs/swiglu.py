"""How the swiglu exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.glu.GatedFeedForward (variant "swiglu", no biases, as Llama, Qwen3 and
Mistral; the case's three matrices put in with torch.func.functional_call, so their gradients are
graded) and numpy_ref.glu.gated_feed_forward.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer.exercises.catalog import (
    LINEAR,
    SILU,
    Case,
    Exercise,
    Function,
    Variant,
    noncontiguous,
    numpy_twin,
    randn,
)
from glassformer.messages import N_
from glassformer.nn.glu import GatedFeedForward
from glassformer.numpy_ref.glu import gated_feed_forward

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: the SwiGLU feed-forward (no biases)."""

import torch


def swiglu(x, w_gate, w_up, w_down):
    gate = x @ w_gate.T  # (B, T, F)
    up = x @ w_up.T  # (B, T, F)
    hidden = _silu(gate) * up  # (B, T, F): the gate opens or closes each unit of up
    return hidden @ w_down.T  # (B, T, C)


def _silu(z):
    return z * torch.sigmoid(z)  # SiLU = Swish₁
'''


def _named(w_gate, w_up, w_down) -> dict:
    return {"gate.weight": w_gate, "up.weight": w_up, "down.weight": w_down}


def reference(x, w_gate, w_up, w_down):
    ffn = GatedFeedForward(w_gate.size(1), w_gate.size(0), "swiglu", bias=False).double()
    return (functional_call(ffn, _named(w_gate, w_up, w_down), (x,)),)  # (B, T, C)


def twin(x, w_gate, w_up, w_down):
    return gated_feed_forward(x, _named(w_gate, w_up, w_down), "swiglu")


# ------------------------------------------------------------------ known-wrong variants


def _swish(z):
    return z * torch.sigmoid(z)


def silu_on_up(x, w_gate, w_up, w_down):
    return (_swish(x @ w_up.T) * (x @ w_gate.T)) @ w_down.T  # gate and up swapped


def gelu_for_silu(x, w_gate, w_up, w_down):
    g = x @ w_gate.T
    return (g * 0.5 * (1.0 + torch.erf(g / 2.0**0.5)) * (x @ w_up.T)) @ w_down.T  # GeGLU


def sigmoid_gate(x, w_gate, w_up, w_down):
    return (torch.sigmoid(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T  # Dauphin's GLU, σ not SiLU


def act_after_product(x, w_gate, w_up, w_down):
    return _swish((x @ w_gate.T) * (x @ w_up.T)) @ w_down.T  # SiLU of the product


def sum_for_product(x, w_gate, w_up, w_down):
    return (_swish(x @ w_gate.T) + (x @ w_up.T)) @ w_down.T  # added, not multiplied


# -------------------------------------------------------------------------------- cases


def _case(label, rng, B, T, C, F, contiguous=True, fields=None):
    x = randn(rng, B, T, C)
    w_gate, w_up = randn(rng, F, C, scale=1 / math.sqrt(C)), randn(rng, F, C, scale=1 / math.sqrt(C))
    w_down = randn(rng, C, F, scale=1 / math.sqrt(F))
    args = (x if contiguous else noncontiguous(x), w_gate, w_up, w_down)
    return Case(label, "swiglu", args, (0, 1, 2, 3), fields or {})


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        _case(N_("a small ordinary input"), rng, 2, 5, 4, 8),
        _case(N_("T = 1 (a single position)"), rng, 2, 1, 4, 8),
        _case(N_("a batch of 1"), rng, 1, 4, 6, 10),
        _case(N_("a hidden layer narrower than the input (F < C)"), rng, 2, 3, 6, 3),
        _case(N_("Llama's width F = 8C/3 (C = {C})"), rng, 2, 3, 6, 16, fields={"C": 6}),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 5, 5, contiguous=False),
    ]
    for i in range(2):
        B, T, C, F = (int(n) for n in rng.integers(1, 9, size=4))
        cases.append(_case(N_("random case #{i}"), rng, B, T, C, F, fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="swiglu",
    title=N_("the SwiGLU feed-forward"),
    todo=N_("TODO: the gate and up projections, SiLU on the gate, multiply, down projection."),
    hints=(
        N_(
            "Three matrices, all stored (out, in): w_gate and w_up (F, C) "
            "take x to two hidden paths of width F, w_down (C, F) comes "
            "back. No biases."
        ),
        N_(
            "SiLU(z) = z · σ(z): write it as z * torch.sigmoid(z). It acts "
            "on the gate path only; the up path is multiplied in "
            "untouched."
        ),
        N_("Nearly the answer: g = x @ w_gate.T; return (g * torch.sigmoid(g) * (x @ w_up.T)) @ w_down.T"),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "swiglu",
            "(x, w_gate, w_up, w_down)",
            ("x", "w_gate", "w_up", "w_down"),
            ("output",),
            doc=N_(
                "The gated feed-forward of Llama, Qwen3 and Mistral: one "
                "hidden path opens or closes the\nother, unit by unit.\n\n"
                "    FFN_SwiGLU(x) = (SiLU(x·W_gateᵀ) ⊙ x·W_upᵀ)·W_downᵀ      "
                "(Shazeer 2020, eq. 6)\n\nSiLU(z) = z · σ(z), σ the logistic "
                "sigmoid; ⊙ multiplies entry by entry. Weights use\n"
                "PyTorch's (out, in) layout; there are no biases.\n\nShapes: "
                "x (B, T, C), w_gate (F, C), w_up (F, C), w_down (C, F) -> "
                "(B, T, C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"swiglu": reference},
    numpy_reference={"swiglu": numpy_twin(twin)},
    variants=(
        Variant(
            "silu_on_up",
            "swiglu",
            silu_on_up,
            N_(
                "Gate and up are swapped: you apply SiLU to x·W_upᵀ. The "
                "activation goes on the gate path, SiLU(x·W_gateᵀ), which "
                "then multiplies x·W_upᵀ."
            ),
        ),
        Variant(
            "gelu_for_silu",
            "swiglu",
            gelu_for_silu,
            N_("You use GELU on the gate: that is GeGLU. SwiGLU's activation is SiLU(z) = z · σ(z)."),
        ),
        Variant(
            "sigmoid_gate",
            "swiglu",
            sigmoid_gate,
            N_(
                "You gate with σ(z) alone: that is the original GLU "
                "(Dauphin et al. 2017). SwiGLU uses SiLU(z) = z · σ(z), the "
                "sigmoid times z."
            ),
        ),
        Variant(
            "act_after_product",
            "swiglu",
            act_after_product,
            N_(
                "You apply SiLU after multiplying the two paths. SiLU acts "
                "on the gate path alone, before the product: "
                "SiLU(x·W_gateᵀ) ⊙ x·W_upᵀ."
            ),
        ),
        Variant(
            "sum_for_product",
            "swiglu",
            sum_for_product,
            N_(
                "You add the two paths; the gate multiplies the up path "
                "entry by entry (⊙), so a closed gate (near 0) switches a "
                "unit off."
            ),
        ),
    ),
    forbidden=(LINEAR, SILU),
    allowed=("x @ w.T", "torch.sigmoid"),
    header="import torch\n",
    seed=117,
    plugs_into="glassformer.nn.glu.GatedFeedForward.forward (variant='swiglu', bias=False)",
)

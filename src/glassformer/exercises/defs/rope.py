"""How the rope exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.rope_scaling.ScaledRotary (the "rope" position scheme of Llama, Qwen3 and
Mistral, without scaling: the half-split pairing, feature i with feature i + D/2) and the twin's
numpy_ref.rope_scaling.rotate_half_split (the rotation as complex numbers). The cases put the first
token at positions other than 0 (as in a KV cache), use Qwen3's base, and an odd number of pairs.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer.exercises.catalog import Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.rope_scaling import PLAIN, ScaledRotary
from glassformer.numpy_ref.rope_scaling import rope_parameters, rotate_half_split

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: rotary position embedding, half-split pairs (Llama's layout)."""

import torch


def rope(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    cos, sin = _angles(T, D, offset, base, x.dtype)  # 2 × (T, D/2)
    a, b = x[..., : D // 2], x[..., D // 2 :]  # 2 × (..., T, D/2): pair i = features i and i + D/2
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)  # (..., T, D)


def _angles(T, D, offset, base, dtype):
    positions = torch.arange(offset, offset + T, dtype=torch.float64)  # (T,)
    two_i = torch.arange(0, D, 2, dtype=torch.float64)  # (D/2,)
    theta = base ** (-two_i / D)  # (D/2,) θ_i = base^(-2i/D)
    angles = positions[:, None] * theta[None, :]  # (T, D/2)
    return angles.cos().to(dtype), angles.sin().to(dtype)  # 2 × (T, D/2)
'''


def reference(x, offset=0, base=10000.0):
    rotary = ScaledRotary(x.size(-1), base).double()
    return (rotary(x, offset),)  # (B, H, T, D)


def twin(x, offset=0, base=10000.0):
    inv_freq, m = rope_parameters(x.shape[-1], base, PLAIN)  # (D/2,)
    return rotate_half_split(x, inv_freq, offset, m)  # (B, H, T, D)


# ------------------------------------------------------------------ known-wrong variants


def _turn(x, theta, positions):
    """x (..., T, D) turned half-split by the angles positions·θ."""
    D = x.shape[-1]
    angles = positions[:, None] * theta[None, :]  # (T, D/2)
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., : D // 2], x[..., D // 2 :]
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)


def _theta(D, base):
    return base ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)


def _positions(T, offset):
    return torch.arange(offset, offset + T, dtype=torch.float64)


def interleaved(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    angles = _positions(T, offset)[:, None] * _theta(D, base)[None, :]  # (T, D/2)
    a, b = x[..., 0::2], x[..., 1::2]  # neighbours (2i, 2i+1): RoFormer's pairing, not Llama's
    turned = torch.stack((a * angles.cos() - b * angles.sin(), b * angles.cos() + a * angles.sin()), dim=-1)
    return turned.flatten(-2)


def exponent_i_over_d(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    theta = base ** (-torch.arange(0, D // 2, dtype=torch.float64) / D)  # base^(-i/D): the 2 is missing
    return _turn(x, theta, _positions(T, offset))


def theta_not_inverted(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    theta = base ** (torch.arange(0, D, 2, dtype=torch.float64) / D)  # base^(+2i/D): the minus is missing
    return _turn(x, theta, _positions(T, offset))


def position_plus_one(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    return _turn(x, _theta(D, base), _positions(T, offset) + 1)  # positions counted from 1


def offset_ignored(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    return _turn(x, _theta(D, base), _positions(T, 0))  # every call starts at position 0


def turned_backwards(x, offset=0, base=10000.0):
    T, D = x.shape[-2], x.shape[-1]
    return _turn(x, _theta(D, base), -_positions(T, offset))  # the sines' signs swapped


# -------------------------------------------------------------------------------- cases


def _case(label, rng, B, H, T, D, offset=0, base=10000.0, contiguous=True, fields=None):
    x = randn(rng, B, H, T, D)
    return Case(label, "rope", (x if contiguous else noncontiguous(x), offset, base), (0,), fields or {})


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        _case(N_("a small ordinary input"), rng, 2, 2, 5, 8),
        _case(N_("the first token at position {offset} (as in a KV cache)"), rng, 2, 2, 4, 8, 7, fields={"offset": 7}),
        _case(N_("T = 1 (a single position)"), rng, 2, 3, 1, 6, 5, fields={"offset": 5}),
        _case(N_("a batch of 1"), rng, 1, 2, 6, 4),
        _case(N_("base = {base} (Qwen3's)"), rng, 2, 2, 5, 8, 3, 1_000_000.0, fields={"base": 1_000_000}),
        _case(N_("far positions (from {offset})"), rng, 1, 2, 3, 8, 100_000, fields={"offset": 100_000}),
        _case(N_("an odd number of pairs (D = {D})"), rng, 2, 2, 4, 10, fields={"D": 10}),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 2, 6, 6, 2, contiguous=False),
    ]
    for i in range(2):
        B, H, T, half = (int(n) for n in rng.integers(1, 6, size=4))
        cases.append(
            _case(N_("random case #{i}"), rng, B, H, T, 2 * half, int(rng.integers(0, 50)), fields={"i": i + 1})
        )
    return cases


EXERCISE = Exercise(
    name="rope",
    title=N_("rotary position embedding (RoPE)"),
    todo=N_("TODO: the angle of each position and pair, then turn each pair (x_i, x_i+D/2) by it."),
    hints=(
        N_(
            "Pair i is features i and i + D/2 (the first half with the "
            "second half), not neighbours. The token at position p turns "
            "pair i by the angle p·θ_i."
        ),
        N_(
            "θ_i = base^(-2i/D) for i = 0 .. D/2-1: torch.arange(0, D, 2) "
            "gives 2i. The positions are offset, offset+1, ..., offset+T-1, "
            "so a cached decoding step turns its token where it sits."
        ),
        N_(
            "Nearly the answer: a, b = x[..., :D//2], x[..., D//2:]; "
            "return torch.cat((a * cos - b * sin, b * cos + a * sin), "
            "dim=-1) with cos, sin of positions[:, None] * theta[None, :]"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "rope",
            "(x, offset=0, base=10000.0)",
            ("x", "offset", "base"),
            ("output",),
            doc=N_(
                "Turn each query or key vector by its token's position "
                "(Su et al. 2021, RoFormer, eq. 14-16).\n\nThe token at "
                "position p (p = offset .. offset+T-1) turns pair i by the "
                "angle p·θ_i:\n\n    θ_i = base^(-2i/D),  i = 0 .. D/2-1\n"
                "    a = x[..., i],  b = x[..., i + D/2]      (Llama's "
                "half-split pairs)\n    a' = a·cos(pθ_i) - b·sin(pθ_i),   "
                "b' = b·cos(pθ_i) + a·sin(pθ_i)\n\nThen a query at m and a "
                "key at n score q·R(n - m)·k: only their distance counts.\n"
                "Values are not turned.\n\nShapes: x (B, H, T, D) with D "
                "even, offset int, base float -> (B, H, T, D)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"rope": reference},
    numpy_reference={"rope": numpy_twin(twin)},
    variants=(
        Variant(
            "interleaved",
            "rope",
            interleaved,
            N_(
                "You pair neighbouring features (2i, 2i+1), RoFormer's "
                "layout. Llama, Qwen3 and Mistral pair feature i with "
                "feature i + D/2: the first half with the second half."
            ),
        ),
        Variant(
            "exponent_i_over_d",
            "rope",
            exponent_i_over_d,
            N_(
                "Your frequencies are base^(-i/D); they are base^(-2i/D): "
                "the exponent counts features in steps of 2 "
                "(torch.arange(0, D, 2) / D)."
            ),
        ),
        Variant(
            "theta_not_inverted",
            "rope",
            theta_not_inverted,
            N_(
                "Your frequencies are base^(+2i/D), growing with i; θ_i = "
                "base^(-2i/D) = 1 / base^(2i/D) falls from 1 to about "
                "1/base."
            ),
        ),
        Variant(
            "position_plus_one",
            "rope",
            position_plus_one,
            N_(
                "You count positions from 1. The first token sits at "
                "position offset (0 without a cache) and is not turned at "
                "all when offset = 0."
            ),
        ),
        Variant(
            "offset_ignored",
            "rope",
            offset_ignored,
            N_(
                "You ignore offset: every call turns its first token as if "
                "it sat at position 0. With a KV cache the new token sits "
                "at offset; use positions offset .. offset+T-1."
            ),
        ),
        Variant(
            "turned_backwards",
            "rope",
            turned_backwards,
            N_("You turn the wrong way (the signs of the sines are swapped): a' = a·cos - b·sin, b' = b·cos + a·sin."),
        ),
    ),
    allowed=("torch.arange", "torch.cos", "torch.sin", "torch.cat", "Tensor.chunk"),
    header="import torch\n",
    seed=118,
    plugs_into="glassformer.nn.rope_scaling.ScaledRotary.forward (scaling 'none')",
)

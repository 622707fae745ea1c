"""How the heads exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

glassformer does both inside MultiHeadAttention (nn/attention.py), so that is the reference:
split = MultiHeadAttention's queries (its `attn.q` hook point) with an identity projection (x, split);
merge = the module's own merge line, reached by replacing its `attn.z` hook point with the
case's z and making the output projection the identity. The NumPy twin is numpy_ref's
split_heads, and merge as its exact inverse (scattering each entry back where split took it).
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer.exercises.catalog import Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.hooks import HookedModel
from glassformer.numpy_ref.forward import split_heads as np_split_heads

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: split the model width into heads, and put the heads back side by side."""

import torch


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    B, T, C = x.shape
    x = x.reshape(B, T, n_heads, C // n_heads)  # (B, T, H, D): cut each token's features into H blocks
    return x.transpose(1, 2)  # (B, H, T, D): the head axis in front, so each head is its own (T, D) matrix


def merge_heads(z: torch.Tensor) -> torch.Tensor:
    B, H, T, D = z.shape
    z = z.transpose(1, 2)  # (B, T, H, D): tokens first again (no longer contiguous)
    return z.reshape(B, T, H * D)  # (B, T, C); reshape copies when it must, view would fail here
'''


class _Attention(HookedModel):
    """One MultiHeadAttention whose projections are identities, with its hook points named."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads).double()
        with torch.no_grad():
            self.attn.qkv.weight.copy_(torch.eye(d_model, dtype=torch.float64).repeat(3, 1))  # q = k = v = x
            self.attn.qkv.bias.zero_()
            self.attn.proj.weight.copy_(torch.eye(d_model, dtype=torch.float64))
            self.attn.proj.bias.zero_()
        self.name_hook_points()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x)  # (B, T, C)


def split_reference(x, n_heads):
    seen: dict[str, torch.Tensor] = {}  # the queries as the hook point sees them, gradient kept
    _Attention(x.size(-1), n_heads).run_with_hooks(x, hooks={"attn.q": lambda q, name: seen.setdefault(name, q)})
    return (seen["attn.q"],)  # (B, H, T, D)


def merge_reference(z):
    B, H, T, D = z.shape
    model = _Attention(H * D, H)
    x = torch.zeros(B, T, H * D, dtype=z.dtype)  # any input: its z is replaced by the case's
    return (model.run_with_hooks(x, hooks={"attn.z": lambda _, name: z}),)  # (B, T, C)


def merge_twin(z):
    B, H, T, D = z.shape
    source = np_split_heads(np.arange(B * T * H * D).reshape(B, T, H * D), H)  # (B, H, T, D) flat index in (B, T, C)
    out = np.empty(B * T * H * D)
    out[source.ravel()] = z.ravel()  # every entry back to where split_heads took it from
    return out.reshape(B, T, H * D)  # (B, T, C)


# ------------------------------------------------------------------ known-wrong variants


def split_no_transpose(x, n_heads):
    B, T, C = x.shape
    return x.reshape(B, n_heads, T, C // n_heads)  # right shape, tokens and features scrambled


def split_features_interleaved(x, n_heads):
    B, T, C = x.shape
    return x.reshape(B, T, C // n_heads, n_heads).permute(0, 3, 1, 2)  # head h gets every H-th feature


def merge_no_transpose(z):
    B, H, T, D = z.shape
    return z.reshape(B, T, H * D)  # right shape, heads and tokens scrambled


def merge_features_interleaved(z):
    B, H, T, D = z.shape
    return z.permute(0, 2, 3, 1).reshape(B, T, H * D)  # (B, T, D, H): the heads' features interleaved


# -------------------------------------------------------------------------------- cases


def make_cases(rng: np.random.Generator) -> list[Case]:
    s, m = "split_heads", "merge_heads"
    cases = [
        Case(N_("a small ordinary input"), s, (randn(rng, 2, 5, 8), 2), (0,)),
        Case(N_("one head (H = 1)"), s, (randn(rng, 2, 4, 6), 1), (0,)),
        Case(N_("T = 1 (a single position)"), s, (randn(rng, 2, 1, 8), 4), (0,)),
        Case(N_("a batch of 1"), s, (randn(rng, 1, 3, 6), 3), (0,)),
        Case(N_("one feature per head (D = 1)"), s, (randn(rng, 2, 3, 4), 4), (0,)),
        Case(N_("non-contiguous inputs (transposed views)"), s, (noncontiguous(randn(rng, 2, 5, 8)), 2), (0,)),
        Case(N_("a small ordinary input"), m, (randn(rng, 2, 2, 5, 4),), (0,)),
        Case(N_("one head (H = 1)"), m, (randn(rng, 2, 1, 4, 6),), (0,)),
        Case(N_("T = 1 (a single position)"), m, (randn(rng, 2, 4, 1, 2),), (0,)),
        Case(N_("a batch of 1"), m, (randn(rng, 1, 3, 4, 2),), (0,)),
        Case(N_("non-contiguous inputs (transposed views)"), m, (noncontiguous(randn(rng, 2, 2, 5, 3)),), (0,)),
    ]
    for i in range(2):
        B, T, H, D = (int(n) for n in rng.integers(1, 6, size=4))
        cases.append(Case(N_("random case #{i}"), s, (randn(rng, B, T, H * D), H), (0,), {"i": i + 1}))
        cases.append(Case(N_("random case #{i}"), m, (randn(rng, B, H, T, D),), (0,), {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="heads",
    title=N_("split into heads and merge them back"),
    todo=N_("TODO: reshape to separate the heads, and transpose so the head axis sits where it should."),
    hints=(
        N_(
            "A reshape never moves numbers, it only regroups them. (B, "
            "T, C) -> (B, T, H, D) is a pure regrouping; getting H in "
            "front of T needs a transpose."
        ),
        N_(
            "After a transpose the tensor is not contiguous: .view() on "
            "it fails. Use .reshape() (or .contiguous().view())."
        ),
        N_(
            "Nearly the answer: split: x.reshape(B, T, H, C // "
            "H).transpose(1, 2)   merge: z.transpose(1, 2).reshape(B, T, "
            "H * D)"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "split_heads",
            "(x: torch.Tensor, n_heads: int) -> torch.Tensor",
            ("x", "n_heads"),
            ("heads",),
            doc=N_(
                "Cut each token's C features into H heads of D = C / H "
                "features, head axis in front.\n\n    (B, T, C) -> (B, T, H, "
                "D) -> transpose(1, 2) -> (B, H, T, D)\n\nFeatures h·D .. "
                "(h+1)·D of a token belong to head h. After this each head "
                "is its own\n(T, D) matrix, so attention runs on all heads at "
                "once.\n\nShapes: x (B, T, C), n_heads H dividing C -> (B, H, "
                "T, D)."
            ),
        ),
        Function(
            "merge_heads",
            "(z: torch.Tensor) -> torch.Tensor",
            ("z",),
            ("merged",),
            doc=N_(
                "The inverse of split_heads: put the heads' outputs side by "
                "side again.\n\n    (B, H, T, D) -> transpose(1, 2) -> (B, T, "
                "H, D) -> reshape -> (B, T, H·D)\n\nShapes: z (B, H, T, D) -> "
                "(B, T, C) with C = H·D."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"split_heads": split_reference, "merge_heads": merge_reference},
    numpy_reference={"split_heads": numpy_twin(np_split_heads), "merge_heads": numpy_twin(merge_twin)},
    variants=(
        Variant(
            "split_no_transpose",
            "split_heads",
            split_no_transpose,
            N_(
                "You reshape (B, T, C) straight to (B, H, T, D): the shape "
                "is right but each 'head' now holds pieces of several "
                "tokens. Reshape to (B, T, H, D) first, then transpose(1, 2)."
            ),
        ),
        Variant(
            "split_features_interleaved",
            "split_heads",
            split_features_interleaved,
            N_(
                "Your heads take every H-th feature (reshape to (B, T, D, "
                "H)). Head h must get the contiguous block of features h·D "
                ".. (h+1)·D: reshape to (B, T, H, D)."
            ),
        ),
        Variant(
            "merge_no_transpose",
            "merge_heads",
            merge_no_transpose,
            N_(
                "Heads merged without the transpose: reshaping (B, H, T, D) "
                "straight to (B, T, C) mixes tokens across heads. Transpose "
                "to (B, T, H, D) first, then reshape."
            ),
        ),
        Variant(
            "merge_features_interleaved",
            "merge_heads",
            merge_features_interleaved,
            N_(
                "Your merge interleaves the heads' features. Head h's D "
                "features must sit side by side at h·D .. (h+1)·D: "
                "z.transpose(1, 2).reshape(B, T, H·D)."
            ),
        ),
    ),
    allowed=("Tensor.reshape", "Tensor.transpose", "Tensor.contiguous", "Tensor.view"),
    header="import torch\n",
    seed=106,
)

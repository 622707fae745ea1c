"""How the gqa exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.attention.MultiHeadAttention with n_kv_heads (grouped-query attention,
no biases, as Llama, Qwen3 and Mistral; the case's three projections are its packed [q | k | v]
matrix, put in with torch.func.functional_call, so gradients reach each) and
numpy_ref.multi_head_attention with n_kv_heads. The cases cover grouped (1 < H_kv < H),
multi-query (H_kv = 1) and multi-head (H_kv = H) attention.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
from glassformer.exercises.catalog import (
    ATTENTION,
    Case,
    Exercise,
    Function,
    Variant,
    noncontiguous,
    numpy_twin,
    randn,
    solution_functions,
)
from glassformer.messages import N_
from glassformer.nn.attention import MultiHeadAttention, causal_mask

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: grouped-query self-attention (no biases)."""

import math

import torch


def grouped_query_attention(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    g = n_heads // n_kv_heads  # query heads per key-value head
    q = _split_heads(x @ w_q.T, n_heads)  # (B, H, T, D)
    k = _split_heads(x @ w_k.T, n_kv_heads)  # (B, H_kv, T, D)
    v = _split_heads(x @ w_v.T, n_kv_heads)  # (B, H_kv, T, D)
    # key-value head j serves query heads j·g .. j·g + g - 1: repeat each one g times in place
    k = k.repeat_interleave(g, dim=1)  # (B, H, T, D)
    v = v.repeat_interleave(g, dim=1)  # (B, H, T, D)
    z = _attend(q, k, v, mask)  # (B, H, T, D)
    return _merge_heads(z) @ w_out.T  # (B, T, C)


def _split_heads(t, n_heads):
    B, T, width = t.shape
    return t.reshape(B, T, n_heads, width // n_heads).transpose(1, 2)  # (B, heads, T, D)


def _merge_heads(z):
    B, H, T, D = z.shape
    return z.transpose(1, 2).reshape(B, T, H * D)  # (B, T, H·D)


def _attend(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, H, T, T)
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v  # (B, H, T, D)
    alive = mask.any(dim=-1, keepdim=True)  # rows that see at least one key
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)  # (B, H, T, T)
    weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (B, H, T, T)
    return weights @ v  # (B, H, T, D)
'''

_attend, _merge_heads, _split_heads = solution_functions(
    SOLUTION, "_attend", "_merge_heads", "_split_heads"
)  # the variants reuse them


def weights_by_name(w_q, w_k, w_v, w_out) -> dict:
    """The four matrices under the names MultiHeadAttention's state_dict uses: its packed projection's
    rows are [all queries | all keys | all values]."""
    return {"qkv.weight": torch.cat((w_q, w_k, w_v)), "proj.weight": w_out}


def reference(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    attn = MultiHeadAttention(x.size(-1), n_heads, bias=False, n_kv_heads=n_kv_heads).double()
    return (functional_call(attn, weights_by_name(w_q, w_k, w_v, w_out), (x, mask)),)  # (B, T, C)


def twin(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    weights = {"qkv.weight": np.concatenate((w_q, w_k, w_v)), "proj.weight": w_out}  # as weights_by_name
    return numpy_ref.multi_head_attention(x, weights, n_heads, mask, n_kv_heads=n_kv_heads)


# ------------------------------------------------------------------ known-wrong variants
# (each makes one mistake and otherwise calls the solution's helpers)


def _qkv(x, w_q, w_k, w_v, n_heads, n_kv_heads):
    return (
        _split_heads(x @ w_q.T, n_heads),
        _split_heads(x @ w_k.T, n_kv_heads),
        _split_heads(x @ w_v.T, n_kv_heads),
    )


def tiled(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    q, k, v = _qkv(x, w_q, w_k, w_v, n_heads, n_kv_heads)
    g = n_heads // n_kv_heads
    k, v = k.repeat(1, g, 1, 1), v.repeat(1, g, 1, 1)  # heads 0, 1, .., H_kv-1, 0, 1, ..: tiled
    return _merge_heads(_attend(q, k, v, mask)) @ w_out.T


def scale_by_d_model(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    q, k, v = _qkv(x, w_q, w_k, w_v, n_heads, n_kv_heads)
    g = n_heads // n_kv_heads
    C = x.size(-1)
    q = q * math.sqrt(C // n_heads) / math.sqrt(C)  # as if the scores were divided by √C, not √D
    return _merge_heads(_attend(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), mask)) @ w_out.T


def scale_by_kv_width(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    q, k, v = _qkv(x, w_q, w_k, w_v, n_heads, n_kv_heads)
    g = n_heads // n_kv_heads
    D = q.size(-1)
    q = q * math.sqrt(D) / math.sqrt(n_kv_heads * D)  # as if divided by √(H_kv·D), k's projected width
    return _merge_heads(_attend(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), mask)) @ w_out.T


def no_scale(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None):
    q, k, v = _qkv(x, w_q, w_k, w_v, n_heads, n_kv_heads)
    g = n_heads // n_kv_heads
    q = q * math.sqrt(q.size(-1))  # as if the scores were never divided by √D
    return _merge_heads(_attend(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), mask)) @ w_out.T


# -------------------------------------------------------------------------------- cases


def _case(label, rng, B, T, H, H_kv, D, mask, fields=None, contiguous=True):
    C = H * D
    s = 1.0 / math.sqrt(C)
    x = randn(rng, B, T, C)
    w_q, w_k, w_v = randn(rng, C, C, scale=s), randn(rng, H_kv * D, C, scale=s), randn(rng, H_kv * D, C, scale=s)
    w_out = randn(rng, C, C, scale=s)
    args = (x if contiguous else noncontiguous(x), w_q, w_k, w_v, w_out, H, H_kv, mask)
    return Case(label, "grouped_query_attention", args, (0, 1, 2, 3, 4), {"H": H, "H_kv": H_kv, **(fields or {})})


def make_cases(rng: np.random.Generator) -> list[Case]:
    padding = (torch.arange(5)[None, :] < torch.tensor([5, 3])[:, None])[:, None, None, :]  # (2, 1, 1, 5)
    cases = [
        _case(N_("H = {H} query heads, H_kv = {H_kv} key-value heads"), rng, 2, 5, 4, 2, 3, None),
        _case(N_("H = {H} query heads, H_kv = {H_kv} key-value heads"), rng, 2, 6, 6, 2, 2, causal_mask(6)),
        _case(N_("H = {H} query heads, H_kv = {H_kv} key-value heads"), rng, 2, 4, 6, 3, 2, causal_mask(4)),
        _case(N_("multi-query (H_kv = {H_kv})"), rng, 2, 5, 4, 1, 3, causal_mask(5)),
        _case(N_("multi-head (H_kv = H = {H})"), rng, 2, 4, 3, 3, 2, causal_mask(4)),
        _case(N_("T = 1 (a single position)"), rng, 2, 1, 4, 2, 2, causal_mask(1)),
        _case(N_("a batch of 1"), rng, 1, 5, 4, 2, 3, causal_mask(5)),
        _case(N_("a padding mask"), rng, 2, 5, 4, 2, 2, padding),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 4, 2, 3, causal_mask(5), contiguous=False),
    ]
    for i in range(2):
        H_kv, g, B, T, D = (int(n) for n in rng.integers(1, 5, size=5))
        cases.append(_case(N_("random case #{i}"), rng, B, T, H_kv * g, H_kv, D, causal_mask(T), {"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="gqa",
    title=N_("grouped-query attention"),
    todo=N_("TODO: project q to H heads, k and v to H_kv heads, repeat each key-value head, attend, merge, project."),
    hints=(
        N_(
            "w_q makes H heads of width D = C / H; w_k and w_v make only "
            "H_kv heads of the same width D. Split each with its own head "
            "count."
        ),
        N_(
            "Query head h reads key-value head h // g, g = H / H_kv: "
            "consecutive query heads share one. k.repeat_interleave(g, "
            "dim=1) lays them out so; k.repeat(1, g, 1, 1) does not."
        ),
        N_(
            "Nearly the answer: k = split(x @ w_k.T, H_kv)"
            ".repeat_interleave(g, dim=1) (v the same); z = "
            "attend(split(x @ w_q.T, H), k, v, mask) with the scale "
            "√D; return merge(z) @ w_out.T"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "grouped_query_attention",
            "(x, w_q, w_k, w_v, w_out, n_heads, n_kv_heads, mask=None)",
            ("x", "w_q", "w_k", "w_v", "w_out", "n_heads", "n_kv_heads", "mask"),
            ("output",),
            doc=N_(
                "Self-attention where H query heads share H_kv key-value "
                "heads (Ainslie et al. 2023, GQA):\ng = H / H_kv query heads "
                "each, so a KV cache holds H_kv / H of the keys and values.\n\n"
                "    1) q = x·W_qᵀ in H heads; k = x·W_kᵀ, v = x·W_vᵀ in H_kv "
                "heads, all of width D = C / H\n    2) query head h reads "
                "key-value head ⌊h / g⌋ (consecutive query heads share one)\n"
                "    3) attend in each query head (scale √D), merge the heads, "
                "out = merged·W_outᵀ\n\nH_kv = 1 is multi-query attention, "
                "H_kv = H multi-head attention. No biases. mask:\nbool, True "
                "= may attend.\n\nShapes: x (B, T, C), w_q (C, C), w_k and w_v "
                "(H_kv·D, C), w_out (C, C) -> (B, T, C)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"grouped_query_attention": reference},
    numpy_reference={"grouped_query_attention": numpy_twin(twin)},
    variants=(
        Variant(
            "tiled",
            "grouped_query_attention",
            tiled,
            N_(
                "You tile the key-value heads (0, 1, .., 0, 1, ..: "
                "k.repeat). Each key-value head serves g consecutive query "
                "heads: repeat each in place, k.repeat_interleave(g, dim=1)."
            ),
        ),
        Variant(
            "scale_by_d_model",
            "grouped_query_attention",
            scale_by_d_model,
            N_("You scale by √C (d_model); each head's scores must be divided by √D, its own width D = C / H."),
        ),
        Variant(
            "scale_by_kv_width",
            "grouped_query_attention",
            scale_by_kv_width,
            N_(
                "You scale by √(H_kv·D), the width of the whole key "
                "projection. Divide each head's scores by √D, one head's "
                "width."
            ),
        ),
        Variant(
            "no_scale",
            "grouped_query_attention",
            no_scale,
            N_(
                "The scores are not scaled: in each head divide Q·Kᵀ by √D, "
                "the head's width D = C / H, before the softmax."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=(
        "@ / torch.matmul",
        "Tensor.reshape",
        "Tensor.transpose",
        "Tensor.repeat_interleave",
        "from attention import scaled_dot_product_attention",
    ),
    seed=119,
    plugs_into="glassformer.nn.attention.MultiHeadAttention.forward (n_kv_heads < n_heads, bias=False)",
)

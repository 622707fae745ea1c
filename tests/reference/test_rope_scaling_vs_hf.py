"""RoPE with a base and a scaling (nn/rope_scaling.py) against transformers: the frequencies and
attention factor of ROPE_INIT_FUNCTIONS for every kind, LlamaRotaryEmbedding's cos and sin and
apply_rotary_pos_emb's rotated q and k at positions past original_max_position_embeddings; then the
NumPy twin, finite differences, and the interleaved RotaryPositions of nn/position.py.

float64 compares with transformers' float32 casts pointed at float64 (hf_float64.py), float32 with
transformers untouched.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import ATOL, assert_close, assert_matches, keyed, numpy_fn
from hf_float64 import in_float64, transformers_in_float64
from torch.autograd import gradcheck

from glassformer.errors import UsageError
from glassformer.inspect.params import derived_parts
from glassformer.nn.position import RotaryPositions
from glassformer.nn.rope_scaling import (
    RopeScaling,
    ScaledRotary,
    rope_cos_sin,
    rope_parameters,
    rotate_half_split,
)
from glassformer.numpy_ref import rope_scaling as twin

transformers = pytest.importorskip("transformers")
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb  # noqa: E402

D, H, L = 16, 2, 32  # head width, heads, the original context: every test reads up to 4L

# name -> (our base and scaling, the same as transformers' rope_parameters)
CASES = {
    "plain-qwen3-base": (1e6, RopeScaling()),
    "linear": (1e4, RopeScaling("linear", 4.0)),
    "dynamic": (1e4, RopeScaling("dynamic", 4.0, L)),
    "yarn": (1e4, RopeScaling("yarn", 4.0, L)),
    "yarn-minimind": (1e6, RopeScaling("yarn", 16.0, L, beta_fast=8.0, attention_factor=1.0)),
    "yarn-untruncated": (1e4, RopeScaling("yarn", 3.0, L, beta_fast=16.0, beta_slow=2.0, truncate=False)),
    "llama3": (5e5, RopeScaling("llama3", 8.0, L, low_freq_factor=1.0, high_freq_factor=4.0)),
    "llama3-base-1e4": (1e4, RopeScaling("llama3", 4.0, L, low_freq_factor=2.0, high_freq_factor=8.0)),
}


def hf_config(base: float, s: RopeScaling) -> "transformers.LlamaConfig":
    """A tiny LlamaConfig whose rope_parameters say what (base, s) says."""
    rope: dict = {"rope_type": "default" if s.kind == "none" else s.kind, "rope_theta": base}
    if s.kind != "none":
        rope["factor"] = s.factor
    if s.kind in ("yarn", "llama3"):
        rope["original_max_position_embeddings"] = s.original_max_len
    if s.kind == "yarn":
        rope.update(beta_fast=s.beta_fast, beta_slow=s.beta_slow, truncate=s.truncate)
        if s.attention_factor is not None:
            rope["attention_factor"] = s.attention_factor
    if s.kind == "llama3":
        rope.update(low_freq_factor=s.low_freq_factor, high_freq_factor=s.high_freq_factor)
    max_len = L if s.kind == "dynamic" else int(s.factor * L) if s.kind != "none" else 4 * L  # dynamic: its L
    return transformers.LlamaConfig(
        hidden_size=D * H, num_attention_heads=H, max_position_embeddings=max_len, rope_parameters=rope
    )


def hf_rope_parameters(base: float, s: RopeScaling, seq_len: int | None):
    cfg = hf_config(base, s)
    if s.kind == "none":
        return LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
    return ROPE_INIT_FUNCTIONS[s.kind](cfg, None, seq_len=seq_len)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seq_len", [None, L // 2, 3 * L], ids=["init", "short", "past-L"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_frequencies_and_attention_factor_equal_transformers(case, seq_len, dtype):
    base, s = CASES[case]
    ours, m = rope_parameters(D, base, s, seq_len)
    with transformers_in_float64() if dtype == torch.float64 else torch.no_grad():
        theirs, their_m = hf_rope_parameters(base, s, seq_len)
    assert theirs.dtype == dtype  # float64 only inside the patch: transformers' own choice is float32
    assert_close("inv_freq", ours.to(dtype), theirs, ATOL[dtype])
    assert m == pytest.approx(their_m, abs=1e-15)


def hf_rotated(base: float, s: RopeScaling, q: torch.Tensor, k: torch.Tensor, offset: int):
    """transformers' path: a fresh LlamaRotaryEmbedding's cos/sin at the positions, then apply_rotary_pos_emb."""
    rotary = LlamaRotaryEmbedding(hf_config(base, s))
    positions = torch.arange(offset, offset + q.size(2))[None]  # (1, T)
    cos, sin = rotary(q, positions)  # 2 × (1, T, D)
    return apply_rotary_pos_emb(q, k, cos, sin)


# transformers' float32 angles drift by about position × 2⁻²⁴ rad, so its float32 tables stay within
# 1e-5 of the exact ones only up to a few hundred positions; float64 is checked far past that.
OFFSETS = [(torch.float64, 0), (torch.float64, 2 * L), (torch.float64, 64 * L), (torch.float32, 0), (torch.float32, L)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype, offset", OFFSETS, ids=lambda v: str(v))
def test_rotated_q_and_k_equal_transformers_past_the_original_context(case, offset, dtype):
    base, s = CASES[case]
    rope = ScaledRotary(D, base, s)
    q, k = torch.randn(2, H, L, D, dtype=dtype), torch.randn(2, 1, L, D, dtype=dtype)  # k: one key-value head

    def theirs(q, k):
        return hf_rotated(base, s, q, k, offset)

    reference = in_float64(theirs) if dtype == torch.float64 else theirs
    assert_matches(lambda q, k: rope.rotate(q, k, offset), reference, (q, k), atol=ATOL[dtype])


@pytest.mark.parametrize("case", ["yarn", "llama3", "dynamic"])
def test_cos_and_sin_equal_llama_rotary_embedding(case):
    """The tables themselves, for positions 0 .. 4L-1: transformers repeats the D/2 angles twice."""
    base, s = CASES[case]
    T = 4 * L
    inv_freq, m = rope_parameters(D, base, s, T)
    cos, sin = rope_cos_sin(inv_freq, 0, T, m)  # 2 × (T, D/2)
    with transformers_in_float64():
        their_cos, their_sin = LlamaRotaryEmbedding(hf_config(base, s))(cos, torch.arange(T)[None])
    assert_close("cos", torch.cat((cos, cos), -1), their_cos[0], 1e-10)
    assert_close("sin", torch.cat((sin, sin), -1), their_sin[0], 1e-10)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_rotate_half_split_equals_apply_rotary_pos_emb_on_the_same_tables(dtype):
    cos, sin = rope_cos_sin(rope_parameters(D, 1e4)[0], 5, 7)  # 2 × (T, D/2)
    full = torch.cat((cos, cos), -1).to(dtype), torch.cat((sin, sin), -1).to(dtype)  # 2 × (T, D)
    q, k = torch.randn(2, H, 7, D, dtype=dtype), torch.randn(2, H, 7, D, dtype=dtype)
    assert_matches(
        lambda q, k: (rotate_half_split(q, cos, sin), rotate_half_split(k, cos, sin)),
        lambda q, k: apply_rotary_pos_emb(q, k, full[0][None], full[1][None]),
        (q, k),
        atol=ATOL[dtype],
    )


@pytest.mark.parametrize("case", CASES)
def test_the_numpy_twin_agrees(case):
    base, s = CASES[case]
    for seq_len in (None, 3 * L):
        ours, m = rope_parameters(D, base, s, seq_len)
        theirs, their_m = twin.rope_parameters(D, base, s, seq_len)
        assert_close("inv_freq", ours, torch.from_numpy(theirs), 1e-12)
        assert m == pytest.approx(their_m, abs=1e-15)
    rope, offset = ScaledRotary(D, base, s), 2 * L
    inv_freq, m = twin.rope_parameters(D, base, s, offset + 5)
    x = torch.randn(2, H, 5, D, dtype=torch.float64)
    assert_matches(
        lambda x: rope(x, offset),
        numpy_fn(lambda x: twin.rotate_half_split(x, inv_freq, offset, m)),
        x,
        1e-10,
        grad=False,
    )


@pytest.mark.parametrize("case", ["yarn", "dynamic"])
def test_gradcheck(case):
    rope = ScaledRotary(D, *CASES[case])
    q, k = (torch.randn(1, H, 3, D, dtype=torch.float64, requires_grad=True) for _ in range(2))
    assert gradcheck(lambda q, k: rope.rotate(q, k, 2 * L), (q, k))


@pytest.mark.parametrize("case", ["linear", "yarn", "llama3", "plain-qwen3-base"])
def test_scores_depend_on_distance_only_far_past_the_original_context(case):
    """RoFormer's property survives every fixed scaling: (R(m)q)·(R(n)k) = (R(m+t)q)·(R(n+t)k)."""
    rope = ScaledRotary(D, *CASES[case])
    q, k = torch.randn(2, 1, 1, 1, D, dtype=torch.float64)

    def score(m, n):
        return float((rope(q, m) * rope(k, n)).sum())

    for m, n, t in ((0, 5, 100), (7, 3, 5000), (40, 90, 100_000)):
        assert score(m, n) == pytest.approx(score(m + t, n + t), abs=1e-9)


def test_half_split_is_the_interleaved_rotary_with_features_permuted():
    """nn/position.py's RotaryPositions pairs neighbours (2i, 2i+1); Llama pairs (i, i + D/2). Same
    rotation once feature i moves to 2i and feature i + D/2 to 2i + 1 (in W_q's and W_k's rows)."""
    perm = torch.arange(D).view(2, D // 2).T.reshape(-1)  # [0, D/2, 1, D/2+1, ...]: slot 2i ← i, 2i+1 ← i + D/2
    interleaved, half_split = RotaryPositions(D, max_len=4, base=5e5).double(), ScaledRotary(D, 5e5)
    x = torch.randn(2, H, 9, D, dtype=torch.float64)
    assert_close("permuted", interleaved(x[..., perm], 70), half_split(x, 70)[..., perm], 1e-12)
    assert (interleaved(x, 70) - half_split(x, 70)).abs().max() > 0.1  # without the permutation they differ


def test_yarn_attention_factor_multiplies_every_score_by_m_squared():
    s = RopeScaling("yarn", 4.0, L)
    plain, m = ScaledRotary(D, 1e4, RopeScaling("yarn", 4.0, L, attention_factor=1.0)), rope_parameters(D, 1e4, s)[1]
    scaled = ScaledRotary(D, 1e4, s)
    q, k = torch.randn(2, 1, H, 6, D, dtype=torch.float64)
    qk = (plain(q) @ plain(k).transpose(-1, -2), scaled(q) @ scaled(k).transpose(-1, -2))
    assert m == pytest.approx(0.1 * np.log(4.0) + 1) and float(m) > 1
    assert_close("m²", qk[1], m**2 * qk[0], 1e-12)


def test_the_params_view_counts_nothing_learned():
    rope = ScaledRotary(D, 1e4, RopeScaling("yarn", 4.0, L))
    from glassformer.inspect.params import FORMULA_WORDS

    assert [(p, f.formula, f.note) for p, f in derived_parts(rope, {"D": D})] == [
        ("", "0", FORMULA_WORDS["ScaledRotary"])  # the glossary's note for it: computed, not learned
    ]
    assert sum(p.numel() for p in rope.parameters()) == 0


def test_rope_errors_name_the_problem():
    assert keyed(UsageError, rope_parameters, D, 1e4, RopeScaling("ntk")) == (
        "rope.scaling",
        {"kind": "ntk", "names": ["none", "linear", "dynamic", "yarn", "llama3"]},
    )
    assert keyed(UsageError, rope_parameters, D, 1e4, RopeScaling("yarn", 4.0)) == (
        "rope.original_len",
        {"kind": "yarn", "got": 0},
    )
    assert keyed(UsageError, rope_parameters, D, 1e4, RopeScaling("linear", 0.5)) == (
        "rope.factor",
        {"kind": "linear", "factor": 0.5},
    )
    assert keyed(UsageError, ScaledRotary, 7) == ("rotary.odd_head", {"d_head": 7})

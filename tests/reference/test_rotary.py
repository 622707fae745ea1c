"""Rotary positions (nn/position.py's RotaryPositions) against the paper's claim and an independent closed form.

RoFormer's point: with q turned by its position m and k by its position n, the score depends on
n - m only. Checked for random positions (hypothesis) and against q·R(n - m)·k written out here
with explicit 2×2 rotation blocks, which shares no code with the module.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from helpers import assert_close, assert_matches, numpy_fn, randomize_
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.config import ModelConfig
from glassformer.inspect.words import describe
from glassformer.models import GPT
from glassformer.nn.position import RotaryPositions, rotary_angles


def rotation_matrix(distance: int, D: int, base: float = 10000.0) -> np.ndarray:
    """(D, D) block diagonal: block i is the 2×2 rotation by distance·θ_i, θ_i = base^(-2i/D)."""
    R = np.zeros((D, D))
    for i in range(D // 2):
        a = distance * base ** (-2 * i / D)
        c, s = math.cos(a), math.sin(a)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return R


def score(rope: RotaryPositions, q: torch.Tensor, k: torch.Tensor, m: int, n: int) -> float:
    """(R(m) q)·(R(n) k) with the module: q as a one-token sequence at m, k at n."""
    q_m = rope(q.view(1, 1, 1, -1), offset=m)  # (1, 1, 1, D)
    k_n = rope(k.view(1, 1, 1, -1), offset=n)  # (1, 1, 1, D)
    return float((q_m * k_n).sum())


D = 8
ROPE = RotaryPositions(D, max_len=4).double()  # a short table: most positions below make it grow


@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 5000), n=st.integers(0, 5000), shift=st.integers(0, 5000), seed=st.integers(0, 999))
def test_score_depends_on_distance_only(m, n, shift, seed):
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, D, generator=gen, dtype=torch.float64)
    here, there = score(ROPE, q, k, m, n), score(ROPE, q, k, m + shift, n + shift)
    assert abs(here - there) <= 1e-10 * (1 + abs(here))


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 3000), n=st.integers(0, 3000), seed=st.integers(0, 999))
def test_score_equals_q_times_rotation_by_distance_times_k(m, n, seed):
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, D, generator=gen, dtype=torch.float64)
    closed_form = q.numpy() @ rotation_matrix(n - m, D) @ k.numpy()  # q · R(n - m) k
    assert abs(score(ROPE, q, k, m, n) - closed_form) <= 1e-10 * (1 + abs(closed_form))


def test_rotation_is_the_paper_matrix_at_every_position():
    """Each position's turn, as a (D, D) matrix applied to every basis vector, is R(p)."""
    eye = torch.eye(D, dtype=torch.float64).view(D, 1, 1, D)  # D one-hot vectors, one per "batch row"
    for p in (0, 1, 7, 1234):
        turned = ROPE(eye, offset=p).view(D, D).T  # column j = R(p) e_j
        assert_close(f"R({p})", turned, torch.from_numpy(rotation_matrix(p, D)), 1e-12)


def test_positions_zero_leave_vectors_alone_and_norms_are_kept():
    x = torch.randn(2, 3, 5, D, dtype=torch.float64)
    assert torch.equal(ROPE(x[:, :, :1], offset=0), x[:, :, :1])  # angle 0: cos 1, sin 0, exactly
    turned = ROPE(x, offset=40)
    assert_close("norms", turned.norm(dim=-1), x.norm(dim=-1), 1e-12)  # a rotation keeps lengths


def test_module_equals_numpy_twin_with_offsets():
    x = torch.randn(2, 3, 6, D, dtype=torch.float64)
    for offset in (0, 5, 999):
        torch_fn = lambda x, offset=offset: ROPE(x, offset)  # noqa: E731  (offset bound now)
        twin_fn = numpy_fn(lambda x, offset=offset: ref.rotary(x, offset))
        assert_matches(torch_fn, twin_fn, x, atol=1e-12, grad=False)


def test_gradcheck_of_the_rotation():
    x = torch.randn(1, 2, 3, D, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x: ROPE(x, 2), (x,))


def test_no_position_limit_and_the_table_grows_exactly():
    small = RotaryPositions(D, max_len=2).double()
    x = torch.randn(1, 1, 3, D, dtype=torch.float64)
    far = small(x, offset=100_000)  # the table grows from 2 rows to 100 003
    assert small.cos.size(0) >= 100_003
    assert torch.equal(small.cos, rotary_angles(small.cos.size(0), D).cos())  # computed in float64
    assert_close("far", far, torch.from_numpy(ref.rotary(x.numpy(), 100_000)), 1e-9)


def test_float32_table_is_the_rounded_float64_one_and_double_recomputes():
    rope = RotaryPositions(D, max_len=16)
    assert rope.cos.dtype == torch.float32
    assert torch.equal(rope.cos, rotary_angles(16, D).cos().float())
    assert torch.equal(rope.double().sin, rotary_angles(16, D).sin())  # not a widened float32 copy


def test_odd_head_width_is_refused_with_the_fix():
    with pytest.raises(ValueError) as e:  # d_head must be even: choose d_model // n_heads even
        GPT(ModelConfig(d_model=12, n_heads=4, position="rotary"))
    assert (e.value.code, e.value.fields) == ("rotary.odd_head", {"d_head": 3})


def test_rotary_model_shows_unturned_and_turned_q_k_and_caches_turned_keys():
    cfg = ModelConfig(vocab_size=11, d_model=12, n_heads=3, d_ff=16, n_layers=1, max_len=6, position="rotary")
    model = randomize_(GPT(cfg).double()).eval()
    ids = torch.randint(0, 11, (2, 5))
    _, seen = model.run_with_cache(ids)
    rope = model.blocks[0].attn.positions
    assert torch.equal(seen["blocks.0.attn.positions.q"], rope(seen["blocks.0.attn.q"], 0))
    assert torch.equal(seen["blocks.0.attn.positions.k"], rope(seen["blocks.0.attn.k"], 0))
    points = model.hook_points()
    assert (
        points["blocks.0.attn.positions.q"].axes == "B H T D"
        and "p·θ_i" in describe(points["blocks.0.attn.positions.q"])["means"]
    )
    cache = model.new_cache(2)
    model(ids, cache=cache)
    assert torch.equal(cache.layers[0].k[:, :, :5], seen["blocks.0.attn.positions.k"])


def test_rotary_changes_the_function_and_only_through_the_positions():
    """Same weights, position rotary vs none: different logits, except at position 0, where the
    turn is the identity (the first token's query and key sit at angle 0)."""
    cfg = ModelConfig(vocab_size=11, d_model=12, n_heads=3, d_ff=16, n_layers=2, max_len=6, position="rotary")
    rotary = randomize_(GPT(cfg).double()).eval()
    none = GPT(dataclasses.replace(cfg, position="none")).double().eval()
    none.load_state_dict(rotary.state_dict())
    ids = torch.randint(0, 11, (2, 6))
    a, b = rotary(ids), none(ids)
    assert torch.equal(a[:, 0], b[:, 0])
    assert (a[:, 1:] - b[:, 1:]).abs().max() > 1e-3

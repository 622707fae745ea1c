"""Properties that hold for any weights: checked on random models, not on one example.

Attention weights are probability distributions; a causal model never reads the future; the
sinusoidal table is the closed-form formula, and its inner products depend on distance only.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.config import ModelConfig
from glassformer.models import GPT
from glassformer.nn.attention import attention_scores, attention_weights
from glassformer.nn.position import SinusoidalPositions, sinusoidal_table

CFG = ModelConfig(vocab_size=11, d_model=12, n_heads=3, d_ff=16, n_layers=2, max_len=10)


@settings(max_examples=25, deadline=None)
@given(t_q=st.integers(1, 6), t_k=st.integers(1, 6), scale=st.floats(0.1, 30.0), seed=st.integers(0, 999))
def test_attention_weights_are_distributions(t_q, t_k, scale, seed):
    gen = torch.Generator().manual_seed(seed)
    q = scale * torch.randn(2, 3, t_q, 4, generator=gen, dtype=torch.float64)
    k = scale * torch.randn(2, 3, t_k, 4, generator=gen, dtype=torch.float64)
    mask = torch.rand(2, 1, t_q, t_k, generator=gen) < 0.7
    w = attention_weights(attention_scores(q, k, mask), mask)  # (B, H, T_q, T_k)
    assert (w >= 0).all()
    alive = mask.any(dim=-1).expand(2, 3, t_q)  # (B, H, T_q)
    sums = w.sum(dim=-1)
    torch.testing.assert_close(sums[alive], torch.ones_like(sums[alive]), atol=1e-12, rtol=0)
    assert (sums[~alive] == 0).all()
    assert (w.masked_select(~mask.expand_as(w)) == 0).all()  # hidden keys get exactly nothing


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
def test_causal_weights_upper_triangle_is_exactly_zero(norm):
    model = GPT(dataclasses.replace(CFG, norm=norm)).eval()
    _, cache = model.run_with_cache(torch.randint(0, 11, (2, 7)), names=lambda n: n.endswith("weights"))
    assert len(cache) == CFG.n_layers
    future = ~torch.tril(torch.ones(7, 7, dtype=torch.bool))  # (T, T) strictly above the diagonal
    for name, w in cache.items():  # (B, H, T, T)
        assert (w[..., future] == 0).all(), name
        assert (w[..., ~future] > 0).all(), name  # every visible key gets some weight


@functools.lru_cache(maxsize=1)
def random_gpt() -> GPT:
    return GPT(dataclasses.replace(CFG, position="sinusoidal", activation="gelu")).eval()


@settings(max_examples=25, deadline=None)
@given(t=st.integers(0, 8), seed=st.integers(0, 999))
def test_changing_a_future_token_never_changes_earlier_logits(t, seed):
    model = random_gpt()
    ids = torch.randint(0, 11, (2, 9), generator=torch.Generator().manual_seed(seed))
    changed = ids.clone()
    changed[:, t] = (ids[:, t] + 1 + seed % 10) % 11  # a different token at t
    with torch.no_grad():
        before, after = model(ids), model(changed)
    assert torch.equal(before[:, :t], after[:, :t])  # bit for bit: the future is multiplied by 0
    assert not torch.equal(before[:, t], after[:, t])  # while position t itself does change


def closed_form(max_len: int, d_model: int) -> list[list[float]]:
    """PE[p][2i] = sin(p / 10000^(2i/C)), PE[p][2i+1] = cos(same angle), with Python's math."""
    table = [[0.0] * d_model for _ in range(max_len)]
    for p in range(max_len):
        for j in range(d_model):
            angle = p / 10000 ** ((j - j % 2) / d_model)
            table[p][j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


@pytest.mark.parametrize("max_len, d_model", [(40, 16), (9, 5), (64, 32)])
def test_sinusoidal_table_is_the_closed_form(max_len, d_model):
    expected = torch.tensor(closed_form(max_len, d_model), dtype=torch.float64)
    torch.testing.assert_close(sinusoidal_table(max_len, d_model, torch.float64), expected, atol=1e-12, rtol=0)
    # the module hands out rows of it, and keeps it exact when the model goes to float64
    module = SinusoidalPositions(max_len, d_model).double()
    torch.testing.assert_close(module(4, offset=3), expected[3:7], atol=1e-12, rtol=0)
    assert "table" not in module.state_dict()  # recomputed, never checkpointed


def test_sinusoidal_inner_product_depends_only_on_distance():
    pe = sinusoidal_table(100, 16, torch.float64)  # (L, C)
    for k in (0, 1, 5, 30):
        dots = (pe[: 100 - k] * pe[k:]).sum(dim=-1)  # PE[p]·PE[p+k] for every p
        assert dots.max() - dots.min() < 1e-12, k
        # and it equals Σ_i cos(k ω_i) over the C/2 frequencies
        omega = [1 / 10000 ** (2 * i / 16) for i in range(8)]
        assert abs(float(dots[0]) - sum(math.cos(k * w) for w in omega)) < 1e-12


def test_sinusoidal_shift_is_a_rotation_per_frequency_pair():
    C, k = 16, 7
    pe = sinusoidal_table(60, C, torch.float64)
    for i in range(C // 2):
        w = 1 / 10000 ** (2 * i / C)
        rot = torch.tensor(
            [[math.cos(k * w), -math.sin(k * w)], [math.sin(k * w), math.cos(k * w)]], dtype=torch.float64
        )
        pairs = pe[:, 2 * i : 2 * i + 2]  # (L, 2): (sin pω, cos pω)
        # (sin(p+k)ω, cos(p+k)ω) = (sin pω, cos pω) @ R(kω): the same R for every p
        torch.testing.assert_close(pairs[:-k] @ rot, pairs[k:], atol=1e-12, rtol=0)

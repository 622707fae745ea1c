"""ALiBi (nn/position.py's ALiBi): the published slopes, the bias on hand-checked cases, and that the model
really adds it (glass and fused paths alike)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
import torch
from helpers import assert_close, assert_matches, randomize_

from glassformer import numpy_ref as ref
from glassformer.config import ModelConfig
from glassformer.models import GPT, Encoder
from glassformer.nn.position import ALiBi, alibi_slopes


def published_exponents(H: int) -> list[Fraction]:
    """The slopes as powers of two, m = 2^(-e), following Press et al. 2022 §3 in words: for a
    power of two H, e_h = 8h/H; otherwise the lower power of two P's exponents, then those of
    2P at h = 1, 3, 5, ... until there are H."""
    P = 1
    while 2 * P <= H:
        P *= 2
    lower = [Fraction(8 * h, P) for h in range(1, P + 1)]
    upper = [Fraction(8 * h, 2 * P) for h in range(1, 2 * P + 1)]
    return lower + upper[0::2][: H - P]


HAND = {  # written out by hand from the paper's rule
    1: [1 / 256],
    2: [1 / 16, 1 / 256],
    3: [1 / 16, 1 / 256, 1 / 4],
    6: [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8],
    8: [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256],
    16: [2 ** -(h / 2) for h in range(1, 17)],  # the paper's 1/2^0.5, 1/2^1, ..., 1/2^8
}


@pytest.mark.parametrize("H", range(1, 17))
def test_slopes_are_the_published_sequence(H):
    expected = torch.tensor([2.0 ** -float(e) for e in published_exponents(H)], dtype=torch.float64)
    assert_close(f"slopes H={H}", alibi_slopes(H), expected, 1e-15)
    assert_close(f"twin H={H}", torch.tensor(ref.alibi_slopes(H), dtype=torch.float64), expected, 1e-15)
    if H in HAND:
        assert_close(f"by hand H={H}", alibi_slopes(H), torch.tensor(HAND[H], dtype=torch.float64), 1e-15)


def test_bias_small_case_by_hand():
    bias = ALiBi(2).double()(3, 3)  # H=2: slopes 1/16, 1/256
    distance = torch.tensor([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=torch.float64)
    assert torch.equal(bias[0], -distance / 16)
    assert torch.equal(bias[1], -distance / 256)
    # with 3 tokens cached, one new query at position 3 against keys 0..3
    assert torch.equal(ALiBi(2).double()(1, 4, offset=3)[0], torch.tensor([[-3, -2, -1, 0]]) / 16)
    assert not torch.signbit(bias).logical_and(bias == 0).any()  # the diagonal is +0, not -0


def test_bias_is_symmetric_for_encoders_and_equals_twin_with_offsets():
    alibi = ALiBi(5).double()
    full = alibi(7, 7)  # (H, T, T)
    assert torch.equal(full, full.transpose(1, 2))  # |i - j|: the future costs what the past costs
    for T_q, T_k, offset in [(7, 7, 0), (1, 9, 8), (3, 12, 9)]:
        assert_close("bias", alibi(T_q, T_k, offset), torch.from_numpy(ref.alibi_bias(5, T_q, T_k, offset)), 0.0)


def test_the_model_adds_the_bias_to_its_scores():
    """With zero attention weights Q·Kᵀ = 0, so the softmax sees the bias alone: each row of
    attention weights is softmax(-m_h·|i - j|) over the visible keys."""
    cfg = ModelConfig(vocab_size=11, d_model=12, n_heads=3, d_ff=16, n_layers=1, max_len=6, position="alibi")
    model = GPT(cfg).double().eval()
    with torch.no_grad():
        model.blocks[0].attn.qkv.weight.zero_()
        model.blocks[0].attn.qkv.bias.zero_()
    _, seen = model.run_with_cache(torch.randint(0, 11, (1, 5)))
    i, j = torch.arange(5)[:, None], torch.arange(5)[None, :]
    m = torch.tensor([1 / 16, 1 / 256, 1 / 4], dtype=torch.float64)  # H=3 (see HAND)
    scores = (-m[:, None, None] * (i - j)).masked_fill(j > i, float("-inf"))  # (H, T, T)
    assert_close("weights", seen["blocks.0.attn.weights"][0], torch.softmax(scores, dim=-1), 1e-15)
    assert_close("bias hook", seen["blocks.0.attn.positions.bias"], -m[:, None, None] * (i - j).abs(), 0.0)


def test_slopes_stay_exact_through_dtype_changes():
    alibi = ALiBi(12)
    assert alibi.slopes.dtype == torch.float32
    assert torch.equal(alibi.double().slopes, alibi_slopes(12))  # recomputed, not widened float32


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("mask_name", ["causal", "padding"])
def test_fused_equals_glass_attention_with_alibi(mask_name, dtype):
    from glassformer.models.encoder import padding_mask
    from glassformer.nn.attention import MultiHeadAttention, causal_mask

    ids = torch.ones(2, 6, dtype=torch.long)
    ids[0, 3:] = 0
    ids[1, :] = 0  # an all-padding row
    mask = causal_mask(6) if mask_name == "causal" else padding_mask(ids, 0)
    glass = randomize_(MultiHeadAttention(12, 3, attention="glass", positions=ALiBi(3)).to(dtype)).eval()
    fused = MultiHeadAttention(12, 3, attention="fused", positions=ALiBi(3)).to(dtype).eval()
    fused.load_state_dict(glass.state_dict())
    atol = 1e-10 if dtype == torch.float64 else 1e-5
    assert_matches(lambda x: fused(x, mask), lambda x: glass(x, mask), torch.randn(2, 6, 12, dtype=dtype), atol=atol)


@pytest.mark.parametrize("model_cls, extra", [(GPT, {}), (Encoder, {"kind": "encoder", "causal": False, "pad_id": 0})])
def test_alibi_changes_the_function_of_gpt_and_encoder(model_cls, extra):
    cfg = ModelConfig(vocab_size=11, d_model=12, n_heads=3, d_ff=16, n_layers=1, max_len=6, position="alibi", **extra)
    alibi = randomize_(model_cls(cfg).double()).eval()
    none = model_cls(dataclasses.replace(cfg, position="none")).double().eval()
    none.load_state_dict(alibi.state_dict())
    ids = torch.randint(1, 11, (2, 6))
    assert (alibi(ids) - none(ids)).abs().max() > 1e-3

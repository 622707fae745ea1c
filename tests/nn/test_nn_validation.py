"""Every input check of glassformer.nn and the models: one bad input a test, its refusal asserted by
catalogue key and fields (the words are the catalogue's; one refusal is read whole, en and zh)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from helpers import keyed

from glassformer.config import ModelConfig, with_kind
from glassformer.messages import speaking
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.gpt import FeedForward, LearnedPositions
from glassformer.models.kinds import init_weights
from glassformer.nn.attention import (
    MultiHeadAttention,
    attention_scores,
    causal_mask,
    scaled_dot_product_attention,
)
from glassformer.nn.loss import next_token_loss
from glassformer.nn.moe import load_balancing_loss
from glassformer.nn.position import SinusoidalPositions

ZH_NOT_CAUSAL = "GPT 只有解码器，需要 causal=True；双向注意力请用 Encoder（kind='encoder'，--kind=encoder）。"
CFG = ModelConfig(vocab_size=10, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=6)


def qkv(B=2, H=2, T=5, D=4):
    return (torch.randn(B, H, T, D) for _ in range(3))


def test_mask_that_cannot_broadcast_names_both_shapes():
    q, k, v = qkv()
    assert keyed(ValueError, scaled_dot_product_attention, q, k, v, causal_mask(3)) == (
        "mask.shape",
        {"mask": (3, 3), "scores": (2, 2, 5, 5)},
    )


def test_mask_with_wrong_batch_size_names_both_shapes():
    q, k, _ = qkv()
    assert keyed(ValueError, attention_scores, q, k, torch.ones(3, 1, 1, 5, dtype=torch.bool)) == (
        "mask.shape",
        {"mask": (3, 1, 1, 5), "scores": (2, 2, 5, 5)},
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.long, torch.uint8])
def test_non_bool_mask(dtype):
    q, k, v = qkv()
    assert keyed(ValueError, scaled_dot_product_attention, q, k, v, causal_mask(5).to(dtype)) == (
        "mask.dtype",
        {"dtype": dtype},
    )


def test_model_mask_error_also_from_the_module():
    mha = MultiHeadAttention(8, 2)
    assert keyed(ValueError, mha, torch.randn(1, 4, 8), causal_mask(5)) == (
        "mask.shape",
        {"mask": (5, 5), "scores": (1, 2, 4, 4)},
    )


def test_masks_that_cannot_combine():
    assert keyed(ValueError, combine_masks, causal_mask(4), torch.ones(2, 1, 1, 5, dtype=torch.bool)) == (
        "mask.combine",
        {"a": (4, 4), "b": (2, 1, 1, 5)},
    )


def test_a_3d_mask_gets_its_head_axis_before_it_meets_a_4d_one():
    """(B, T, T) & (B, 1, 1, T) is (B, 1, T, T), row b of one with row b of the other; without the
    head axis they would broadcast to (B, B, T, T) (sample P's survivor)."""
    B, T = 2, 3
    per_row = torch.stack([causal_mask(T), torch.ones(T, T, dtype=torch.bool)])  # (B, T, T): row 1 all True
    pad = torch.tensor([[True, True, False], [True, False, True]])[:, None, None, :]  # (B, 1, 1, T)
    both = combine_masks(per_row, pad)  # (B, 1, T, T)
    assert both.shape == (B, 1, T, T)
    for b in range(B):
        assert torch.equal(both[b, 0], per_row[b] & pad[b, 0])


def test_padding_mask_needs_2d_ids():
    assert keyed(ValueError, padding_mask, torch.zeros(5, dtype=torch.long), 0) == (
        "mask.padding_ids",
        {"shape": (5,)},
    )


def test_float_token_ids():
    assert keyed(ValueError, GPT(CFG), torch.zeros(1, 3)) == ("ids.dtype", {"dtype": torch.float32})


def test_token_ids_not_a_tensor():
    assert keyed(TypeError, GPT(CFG), [[1, 2, 3]]) == ("ids.type", {"type": "list"})


def test_token_ids_of_the_wrong_rank():
    assert keyed(ValueError, GPT(CFG), torch.tensor([1, 2, 3])) == ("ids.shape", {"shape": (3,)})


def test_token_id_at_or_above_vocab_size():
    assert keyed(ValueError, GPT(CFG), torch.tensor([[1, 10, 12, 10]])) == (
        "ids.outside",
        {"bad": [10, 12], "vocab_size": 10},
    )


def test_token_id_equal_to_vocab_size():
    """The first id past the end: an off-by-one in the check would let it through."""
    assert keyed(ValueError, GPT(CFG), torch.tensor([[9, 10]])) == (
        "ids.outside",
        {"bad": [10], "vocab_size": 10},
    )


def test_negative_token_id():
    assert keyed(ValueError, Encoder(CFG), torch.tensor([[1, -1]])) == (
        "ids.outside",
        {"bad": [-1], "vocab_size": 10},
    )


@pytest.mark.parametrize("position", ["learned", "sinusoidal"])
def test_sequence_longer_than_max_len(position):
    model = GPT(replace(CFG, position=position))
    assert keyed(ValueError, model, torch.zeros(1, 7, dtype=torch.long)) == (
        "position.too_long",
        {"T": 7, "max_len": 6},
    )
    assert model(torch.zeros(1, 6, dtype=torch.long)).shape == (1, 6, 10)  # exactly max_len is fine


@pytest.mark.parametrize("table", [LearnedPositions, SinusoidalPositions])
def test_positions_past_max_len_with_an_offset(table):
    assert keyed(ValueError, table(6, 8), 2, offset=5) == ("position.too_long", {"T": 7, "max_len": 6})


def test_gpt_refuses_causal_false():
    """The file's one refusal read whole, in both languages: the whole way out, as typed."""
    assert keyed(ValueError, GPT, replace(CFG, causal=False)) == ("model.gpt_not_causal", {})
    with pytest.raises(ValueError) as caught:
        GPT(replace(CFG, causal=False))
    # snapshot: the refusal a learner meets building a GPT with causal=False, read whole: the way out as typed
    assert str(caught.value) == (
        "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
        "--kind=encoder) for bidirectional attention."
    )
    with speaking("zh"), pytest.raises(ValueError) as caught:
        GPT(replace(CFG, causal=False))
    assert str(caught.value) == ZH_NOT_CAUSAL


def test_regressor_input_checks():
    model = SequenceRegressor(with_kind(CFG, "regressor", d_in=2))
    assert keyed(ValueError, model, torch.zeros(1, 4)) == (
        "model.regressor_input",
        {"d_in": 2, "shape": (1, 4), "dtype": torch.float32},
    )
    assert keyed(ValueError, model, torch.zeros(1, 4, 2, dtype=torch.long)) == (
        "model.regressor_input",
        {"d_in": 2, "shape": (1, 4, 2), "dtype": torch.int64},
    )


def test_feedforward_unknown_activation():
    assert keyed(ValueError, FeedForward, 8, 16, "tanh") == (
        "ffn.activation",
        {"activation": "tanh", "names": ["relu", "gelu", "gelu_tanh"]},
    )


def test_init_unknown_scheme():
    assert keyed(ValueError, init_weights, torch.nn.Linear(2, 2), "kaiming", 1) == (
        "init.scheme",
        {"scheme": "kaiming", "names": ["torch", "xavier", "gpt2"]},
    )


def test_loss_shape_mismatch():
    assert keyed(ValueError, next_token_loss, torch.zeros(2, 3, 10), torch.zeros(2, 4, dtype=torch.long)) == (
        "loss.shapes",
        {"logits": (2, 3, 10), "targets": (2, 4)},
    )


def test_a_gate_that_is_no_glu_is_refused_naming_the_two_there_are():
    from glassformer.errors import UsageError
    from glassformer.nn.glu import GatedFeedForward

    assert keyed(UsageError, GatedFeedForward, 8, 16, "reglu") == (
        "glu.variant",
        {"variant": "reglu", "names": ["swiglu", "geglu"]},
    )


@pytest.mark.parametrize("top_k", [0, 4])
def test_a_load_balancing_loss_asked_for_more_experts_than_there_are_is_refused_naming_both(top_k):
    logits = torch.zeros(5, 3)  # (N, E): 3 experts
    assert keyed(ValueError, load_balancing_loss, logits, top_k) == ("moe.top_k", {"top_k": top_k, "n_experts": 3})

"""Every input check of glassformer.nn and the models: one bad input a test, message asserted."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import torch

from glassformer.config import ModelConfig, with_kind
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.models.gpt import FeedForward
from glassformer.nn.attention import (
    MultiHeadAttention,
    attention_scores,
    causal_mask,
    combine_masks,
    padding_mask,
    scaled_dot_product_attention,
)
from glassformer.nn.init import init_weights
from glassformer.nn.loss import next_token_loss
from glassformer.nn.position import LearnedPositions, SinusoidalPositions

CFG = ModelConfig(vocab_size=10, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=6)


def qkv(B=2, H=2, T=5, D=4):
    return (torch.randn(B, H, T, D) for _ in range(3))


def test_mask_that_cannot_broadcast_names_both_shapes():
    q, k, v = qkv()
    msg = re.escape("attention mask of shape (3, 3) cannot broadcast to the scores' shape (2, 2, 5, 5)")
    with pytest.raises(ValueError, match=msg):
        scaled_dot_product_attention(q, k, v, causal_mask(3))


def test_mask_with_wrong_batch_size_names_both_shapes():
    q, k, _ = qkv()
    with pytest.raises(ValueError, match=re.escape("(3, 1, 1, 5) cannot broadcast to the scores' shape (2, 2, 5, 5)")):
        attention_scores(q, k, torch.ones(3, 1, 1, 5, dtype=torch.bool))


@pytest.mark.parametrize("dtype", [torch.float32, torch.long, torch.uint8])
def test_non_bool_mask(dtype):
    q, k, v = qkv()
    with pytest.raises(ValueError, match=rf"attention mask must be boolean \(True = may attend\), got dtype {dtype}"):
        scaled_dot_product_attention(q, k, v, causal_mask(5).to(dtype))


def test_model_mask_error_also_from_the_module():
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match="cannot broadcast"):
        mha(torch.randn(1, 4, 8), causal_mask(5))


def test_masks_that_cannot_combine():
    with pytest.raises(ValueError, match=re.escape("cannot combine masks of shapes (4, 4) and (2, 1, 1, 5)")):
        combine_masks(causal_mask(4), torch.ones(2, 1, 1, 5, dtype=torch.bool))


def test_padding_mask_needs_2d_ids():
    with pytest.raises(ValueError, match=re.escape("padding_mask expects token ids of shape (B, T), got (5,)")):
        padding_mask(torch.zeros(5, dtype=torch.long), 0)


def test_float_token_ids():
    with pytest.raises(ValueError, match=r"token ids must be integers \(torch.long\), got dtype torch.float32"):
        GPT(CFG)(torch.zeros(1, 3))


def test_token_ids_not_a_tensor():
    with pytest.raises(TypeError, match="token ids must be a torch.Tensor of integers, got list"):
        GPT(CFG)([[1, 2, 3]])


def test_token_ids_of_the_wrong_rank():
    with pytest.raises(ValueError, match=re.escape("token ids must have shape (B, T), got (3,)")):
        GPT(CFG)(torch.tensor([1, 2, 3]))


def test_token_id_at_or_above_vocab_size():
    with pytest.raises(ValueError, match=re.escape("token ids [10, 12] are outside the vocabulary [0, 10)")):
        GPT(CFG)(torch.tensor([[1, 10, 12, 10]]))


def test_token_id_equal_to_vocab_size():
    """The first id past the end: an off-by-one in the check would let it through."""
    with pytest.raises(ValueError, match=re.escape("token ids [10] are outside the vocabulary [0, 10)")):
        GPT(CFG)(torch.tensor([[9, 10]]))


def test_negative_token_id():
    with pytest.raises(ValueError, match=re.escape("token ids [-1] are outside the vocabulary [0, 10)")):
        Encoder(CFG)(torch.tensor([[1, -1]]))


@pytest.mark.parametrize("position", ["learned", "sinusoidal"])
def test_sequence_longer_than_max_len(position):
    model = GPT(replace(CFG, position=position))
    with pytest.raises(ValueError, match="sequence length T=7 exceeds max_len 6"):
        model(torch.zeros(1, 7, dtype=torch.long))
    assert model(torch.zeros(1, 6, dtype=torch.long)).shape == (1, 6, 10)  # exactly max_len is fine


@pytest.mark.parametrize("table", [LearnedPositions, SinusoidalPositions])
def test_positions_past_max_len_with_an_offset(table):
    with pytest.raises(ValueError, match="sequence length T=7 exceeds max_len 6"):
        table(6, 8)(2, offset=5)


def test_gpt_refuses_causal_false():
    with pytest.raises(ValueError) as caught:
        GPT(replace(CFG, causal=False))
    assert str(caught.value) == (
        "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
        "--kind=encoder) for bidirectional attention."
    )  # the whole way out, as typed


def test_regressor_input_checks():
    model = SequenceRegressor(with_kind(CFG, "regressor", d_in=2))
    msg = re.escape("SequenceRegressor expects floats of shape (B, T, 2), got (1, 4) torch.float32")
    with pytest.raises(ValueError, match=msg):
        model(torch.zeros(1, 4))
    with pytest.raises(ValueError, match=re.escape("got (1, 4, 2) torch.int64")):
        model(torch.zeros(1, 4, 2, dtype=torch.long))


def test_feedforward_unknown_activation():
    with pytest.raises(ValueError, match=r"activation='tanh' is not one of \['relu', 'gelu', 'gelu_tanh'\]"):
        FeedForward(8, 16, "tanh")


def test_init_unknown_scheme():
    with pytest.raises(ValueError, match=r"init='kaiming' is not one of \['torch', 'xavier', 'gpt2'\]"):
        init_weights(torch.nn.Linear(2, 2), "kaiming", 1)


def test_loss_shape_mismatch():
    msg = re.escape("logits (2, 3, 10) and targets (2, 4) disagree")
    with pytest.raises(ValueError, match=msg):
        next_token_loss(torch.zeros(2, 3, 10), torch.zeros(2, 4, dtype=torch.long))

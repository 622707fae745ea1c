"""Analytic gradients (autograd through our code) against finite differences: torch.autograd.gradcheck.

float64, tiny sizes. Token ids are integers, so the models are checked with respect to their
embedded input, swapped in through the `embed` hook point, and with respect to a weight.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch.autograd import gradcheck

from glassformer.config import ModelConfig, with_kind
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.models.gpt import Block
from glassformer.nn.attention import MultiHeadAttention, causal_mask, scaled_dot_product_attention

CFG = ModelConfig(vocab_size=7, d_model=6, n_heads=2, d_ff=8, n_layers=2, max_len=5)


def rand(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


def test_attention_function_with_mask():
    mask = causal_mask(4) & torch.tensor([True, True, True, False])  # hide the last key too
    mask[0, 0] = False  # query 0 now sees nothing: a dead row, whose output is constant 0
    q, k, v = rand(1, 2, 4, 3), rand(1, 2, 4, 3), rand(1, 2, 4, 3)
    assert gradcheck(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask), (q, k, v))


@pytest.mark.parametrize("style", ["packed", "heads"])
def test_multi_head_attention(style):
    mha = MultiHeadAttention(6, 2, style=style).double()
    assert gradcheck(lambda x: mha(x, causal_mask(4)), (rand(2, 4, 6),))


@pytest.mark.parametrize("norm, activation", [("pre", "gelu_tanh"), ("post", "gelu"), ("none", "relu")])
def test_block(norm, activation):
    block = Block(dataclasses.replace(CFG, norm=norm, activation=activation)).double()
    assert gradcheck(lambda x: block(x, causal_mask(4)), (rand(2, 4, 6),))


@pytest.mark.parametrize("position, n_heads", [("learned", 2), ("rotary", 3), ("alibi", 2)])  # rotary: even d_head
def test_gpt_wrt_embedded_input(position, n_heads):
    model = GPT(dataclasses.replace(CFG, activation="gelu", position=position, n_heads=n_heads)).double()
    ids = torch.randint(0, 7, (2, 4))

    def logits_from(embedded):  # (B, T, C) replaces the token embedding
        return model.run_with_hooks(ids, hooks={"embed": lambda t, name: embedded})

    assert gradcheck(logits_from, (rand(2, 4, 6),), fast_mode=True)


def test_gpt_wrt_a_weight():
    """A weight deep in the stack: gradcheck on a function of the parameter itself."""
    model = GPT(dataclasses.replace(CFG, tie_weights=True)).double()
    ids = torch.randint(0, 7, (2, 4))
    w = model.blocks[0].attn.qkv.weight

    def logits_with(weight):
        return torch.func.functional_call(model, {"blocks.0.attn.qkv.weight": weight}, (ids,))

    # fast_mode: compares random projections of the Jacobian instead of all 108 columns
    assert gradcheck(logits_with, (w.detach().clone().requires_grad_(),), fast_mode=True)


def test_encoder_with_padding_and_regressor():
    enc = Encoder(dataclasses.replace(CFG, kind="encoder", causal=False, pad_id=0, norm="post")).double()
    ids = torch.tensor([[3, 4, 0, 0], [0, 0, 0, 0]])  # second row: all padding
    logits_from = lambda e: enc.run_with_hooks(ids, hooks={"embed": lambda t, n: e})  # noqa: E731
    assert gradcheck(logits_from, (rand(2, 4, 6),), fast_mode=True)
    reg = SequenceRegressor(with_kind(CFG, "regressor", position="sinusoidal", causal=False)).double()
    assert gradcheck(reg, (rand(2, 4, 1),), fast_mode=True)

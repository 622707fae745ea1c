"""Initialisation schemes do what nn/init.py says, checked statistically on wide layers."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from glassformer.config import ModelConfig
from glassformer.models import GPT

WIDE = ModelConfig(vocab_size=300, d_model=256, n_heads=4, d_ff=512, n_layers=3, max_len=64)


def matrices(model):
    return {n: p for n, p in model.named_parameters() if p.dim() == 2}


def test_xavier_weights_lie_within_the_glorot_bound_and_fill_it():
    model = GPT(replace(WIDE, init="xavier"))
    for name, w in matrices(model).items():
        fan_out, fan_in = w.shape
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        assert w.abs().max() <= bound, name
        assert w.abs().max() > 0.99 * bound, name  # uniform over the whole range, not narrower
        # U(-a, a) has variance a²/3
        assert abs(w.var().item() / (bound**2 / 3) - 1) < 0.05, name


def test_xavier_zeroes_linear_biases_and_keeps_layernorm():
    model = GPT(replace(WIDE, init="xavier"))
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            assert (p == 0).all(), name
        if ".ln" in name and name.endswith("weight"):
            assert (p == 1).all(), name


def test_gpt2_init_std_and_scaled_residual_projections():
    model = GPT(replace(WIDE, init="gpt2"))
    residual_std = 0.02 / math.sqrt(2 * WIDE.n_layers)
    seen_residual = 0
    for name, w in matrices(model).items():
        is_residual = name.endswith(("attn.proj.weight", "ffn.fc2.weight"))
        expected = residual_std if is_residual else 0.02
        seen_residual += is_residual
        assert abs(w.mean().item()) < 0.1 * expected, name
        assert abs(w.std().item() / expected - 1) < 0.05, (name, w.std().item(), expected)
    assert seen_residual == 2 * WIDE.n_layers
    assert all((p == 0).all() for n, p in model.named_parameters() if n.endswith("bias") and ".ln" not in n)


def test_torch_init_is_left_alone():
    model = GPT(replace(WIDE, init="torch"))
    # nn.Embedding's default is N(0, 1); Linear's is Kaiming-uniform, bound 1/√fan_in
    assert abs(model.tok_embed.weight.std().item() - 1) < 0.05
    fc1 = model.blocks[0].ffn.fc1.weight
    assert fc1.abs().max() <= 1 / math.sqrt(WIDE.d_model)


@pytest.mark.parametrize("init", ["torch", "xavier", "gpt2"])
def test_tied_head_stays_tied_under_every_init(init):
    model = GPT(replace(WIDE, init=init, tie_weights=True))
    assert model.head.weight is model.tok_embed.weight

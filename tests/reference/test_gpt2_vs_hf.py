"""GPT configured as GPT-2 against Hugging Face's GPT2LMHeadModel, offline, random weights.

minGPT's one test, made offline: build a small GPT-2 with random weights, port it with
glassformer.models.gpt2.gpt_from_gpt2, and require the same logits.
"""

from __future__ import annotations

import pytest
import torch
from helpers import ATOL, assert_close, assert_matches

transformers = pytest.importorskip("transformers")

from gpt2_kit import random_gpt2  # noqa: E402

from glassformer.models.gpt2 import gpt_from_gpt2  # noqa: E402


def small_gpt2(dtype, **variant) -> "transformers.GPT2LMHeadModel":
    return random_gpt2(37, dtype, n_positions=16, **variant)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_gpt_logits_equal_gpt2(dtype):
    hf = small_gpt2(dtype)
    ours = gpt_from_gpt2(hf).eval()
    ids = torch.randint(0, hf.config.vocab_size, (3, hf.config.n_positions))
    assert_matches(lambda: ours(ids), lambda: hf(ids).logits, (), atol=ATOL[dtype], grad=False)


def test_gpt_hidden_gradients_equal_gpt2():
    """Same function also in the backward pass: feed both the same embedded input."""
    hf = small_gpt2(torch.float64)
    ours = gpt_from_gpt2(hf).eval()
    ids = torch.randint(0, hf.config.vocab_size, (2, 7))
    emb = hf.transformer.wte(ids).detach()  # (B, T, C)

    def ours_from_embedding(e):
        return ours.run_with_hooks(ids, hooks={"embed": lambda t, name: e})

    assert_matches(ours_from_embedding, lambda e: hf(inputs_embeds=e).logits, emb, atol=1e-10)


def test_ported_head_is_tied_to_the_embedding():
    hf = small_gpt2(torch.float64)
    ours = gpt_from_gpt2(hf)
    assert ours.cfg.tie_weights
    assert ours.head.weight is ours.tok_embed.weight  # one Parameter, two uses
    assert_close("head", ours.head.weight, hf.lm_head.weight, 0.0)
    # a gradient step on one moves the other: they are the same storage
    ours(torch.randint(0, 37, (1, 5))).sum().backward()
    with torch.no_grad():
        ours.head.weight -= ours.head.weight.grad
    assert torch.equal(ours.tok_embed.weight, ours.head.weight)
    n_distinct = sum(p.numel() for p in ours.parameters())
    assert n_distinct == sum(p.numel() for p in hf.parameters())  # HF counts the tied matrix once too


@pytest.mark.parametrize(
    "variant",
    [
        {"scale_attn_weights": False},
        {"scale_attn_by_inverse_layer_idx": True},
        {"reorder_and_upcast_attn": True},
        {"add_cross_attention": True},
    ],
    ids=str,
)
def test_port_refuses_gpt2_variants_it_cannot_reproduce(variant):
    hf = small_gpt2(torch.float64, **variant)
    with pytest.raises(ValueError, match=next(iter(variant))):
        gpt_from_gpt2(hf)

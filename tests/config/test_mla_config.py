"""Multi-head latent attention as a configuration (mla_kv_rank > 0 and the mla_* fields): refused with
a key and fields where it cannot be computed, built by self_attention(cfg) into the one Block, with a
cache that holds the latent and the rotary key only."""

from __future__ import annotations

import pytest
import torch
from helpers import keyed

from glassformer.config import MLA_FIELDS, ModelConfig
from glassformer.errors import UsageError
from glassformer.models import GPT
from glassformer.nn.mla import BlockLatentAttention, LatentCache, kv_cache_bytes_per_token

SMALL = {"vocab_size": 11, "d_model": 16, "n_heads": 4, "d_ff": 24, "n_layers": 2, "max_len": 8, "bias": False}
MLA = {"position": "rope", "mla_kv_rank": 8, "mla_d_nope": 4, "mla_d_rope": 2, "mla_d_v": 4}


def cfg(**changes) -> ModelConfig:
    return ModelConfig(**{**SMALL, **changes})


@pytest.mark.parametrize(
    "changes, key, fields",
    [
        ({"mla_kv_rank": 17}, "mla.rank", {"name": "kv_rank", "rank": 17, "d_model": 16}),
        ({"mla_q_rank": 32}, "mla.rank", {"name": "q_rank", "rank": 32, "d_model": 16}),
        ({"mla_d_v": 0}, "mla.size", {"name": "d_v", "value": 0}),
        ({"mla_d_rope": 3}, "rotary.odd_head", {"d_head": 3}),
        ({"position": "learned"}, "config.mla_rope", {"position": "learned"}),
        ({"n_kv_heads": 2}, "config.mla_excludes", {"field": "n_kv_heads", "value": 2, "want": 0}),
        ({"qk_norm": True}, "config.mla_excludes", {"field": "qk_norm", "value": True, "want": False}),
    ],
)
def test_a_latent_attention_that_cannot_be_computed_is_refused_with_the_numbers(changes, key, fields):
    assert keyed(UsageError, cfg, **{**MLA, **changes}) == (key, fields)


@pytest.mark.parametrize("name", [n for n in MLA_FIELDS if n != "mla_kv_rank"])
def test_an_mla_field_set_without_a_latent_is_refused_naming_it(name):
    assert keyed(UsageError, cfg, position="rope", **{name: 4}) == (
        "config.mla_only",
        {"field": name, "value": 4},
    )


def test_self_attention_builds_the_latent_attention_and_the_cache_holds_the_latent():
    model = GPT(cfg(**MLA, mla_q_rank=6)).eval()
    attn = model.blocks[0].attn
    assert isinstance(attn, BlockLatentAttention) and attn.q_down.weight.shape == (6, 16)
    cache = model.new_cache(2)
    with torch.no_grad():
        model(model.example_input(2, 5), cache)
    layer = cache.layers[1]
    assert isinstance(layer, LatentCache) and (layer.latent.shape, layer.rope_key.shape) == ((2, 5, 8), (2, 1, 5, 2))
    measured = sum(layer.nbytes() for layer in cache.layers) // (2 * 5)
    assert measured == kv_cache_bytes_per_token("mla", 2, kv_rank=8, d_rope=2)  # (8 + 2) × 4 bytes × 2 layers
    cache.reset()
    assert cache.length == 0

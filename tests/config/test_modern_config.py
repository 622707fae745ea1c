"""The modern decoder's choices in ModelConfig (norm_type, ffn, head_dim, n_kv_heads, qk_norm, the
rope_* fields, sliding_window): refused with a key and fields when they cannot be computed, and
built into the one GPT as modules chosen at build time (docs/modern.md)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from helpers import keyed

from glassformer.config import FFNS, NORM_TYPES, ROPE_FIELDS, ROPE_SCALINGS, ModelConfig, apply_overrides, get_preset
from glassformer.errors import UsageError
from glassformer.models import GPT
from glassformer.nn.attention_variants import QKNorm
from glassformer.nn.glu import GatedFeedForward
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.nn.rope_scaling import SCALINGS, ScaledRotary

ROPE = {"position": "rope", "norm_type": "rms", "ffn": "swiglu", "bias": False}
SMALL = {"vocab_size": 11, "d_model": 16, "n_heads": 4, "d_ff": 24, "n_layers": 2, "max_len": 8}


def cfg(**changes) -> ModelConfig:
    return ModelConfig(**{**SMALL, **changes})


def test_the_config_names_the_scalings_the_module_computes():
    assert ROPE_SCALINGS == tuple(SCALINGS)
    assert NORM_TYPES == ("layer", "rms") and FFNS == ("mlp", "swiglu", "geglu", "moe", "none")


def test_head_counts_that_do_not_divide_are_refused_naming_the_divisors():
    assert keyed(UsageError, cfg, n_heads=4, n_kv_heads=3) == (
        "gqa.heads",
        {"n_heads": 4, "n_kv_heads": 3, "divisors": [1, 2, 4]},
    )
    assert keyed(UsageError, cfg, n_kv_heads=-1)[0] == "config.non_negative"
    # d_model need not be a multiple of n_heads once the head width is set apart (Qwen3)
    assert cfg(d_model=18, head_dim=4).d_head == 4
    assert keyed(UsageError, cfg, d_model=18)[0] == "config.heads"


def test_the_heads_style_refuses_shared_heads_and_a_head_width_of_its_own():
    assert keyed(UsageError, cfg, mha_style="heads", n_kv_heads=2) == (
        "config.heads_style",
        {"n_kv_heads": 2, "d_head": 4},
    )
    assert keyed(UsageError, cfg, mha_style="heads", head_dim=8)[1] == {"n_kv_heads": 4, "d_head": 8}


@pytest.mark.parametrize(
    "changes, key, fields",
    [
        ({"rope_scaling": "ntk"}, "config.choice", {"name": "rope_scaling", "value": "ntk"}),
        ({"rope_scaling": "yarn", "rope_factor": 4.0}, "rope.original_len", {"kind": "yarn", "got": 0}),
        ({"rope_scaling": "linear", "rope_factor": 0.5}, "rope.factor", {"kind": "linear", "factor": 0.5}),
        ({"rope_base": 0.0}, "config.positive", {"name": "rope_base", "value": 0.0}),
    ],
)
def test_a_rope_scaling_that_cannot_be_computed_is_refused(changes, key, fields):
    got_key, got = keyed(UsageError, cfg, **ROPE, **changes)
    assert got_key == key and fields.items() <= got.items()


@pytest.mark.parametrize("name", list(ROPE_FIELDS))
def test_rope_fields_are_refused_for_another_position_scheme(name):
    value = {"rope_base": 5e5, "rope_scaling": "linear", "rope_factor": 2.0, "rope_original_max_len": 4}[name]
    assert keyed(UsageError, cfg, position="rotary", **{name: value}) == (
        "config.rope_only",
        {"field": name, "value": value, "position": "rotary"},
    )


def test_a_window_needs_a_causal_model_and_the_choices_are_checked():
    assert keyed(UsageError, lambda: cfg(kind="encoder", causal=False, sliding_window=3)) == (
        "config.window_causal",
        {"sliding_window": 3},
    )
    assert keyed(UsageError, cfg, norm_type="batch")[1]["name"] == "norm_type"
    key, fields = keyed(UsageError, cfg, ffn="reglu")
    assert (key, fields["name"], fields["valid"]) == ("config.choice", "ffn", ["mlp", "swiglu", "geglu", "moe", "none"])


def test_overrides_reach_the_new_fields_typed():
    preset = apply_overrides(get_preset("baby"), ["--position=rope", "--rope_base=5e5", "--n_kv_heads=2"])
    assert (preset.model.rope_base, preset.model.kv_heads, preset.model.n_heads) == (5e5, 2, 4)


def test_the_config_chooses_the_modules_and_the_block_stays_one_class():
    gpt2, modern = GPT(cfg()), GPT(cfg(**ROPE, n_kv_heads=2, qk_norm=True, head_dim=6))
    assert type(gpt2.blocks[0]) is type(modern.blocks[0])  # one Block, one forward
    block = modern.blocks[0]
    assert isinstance(block.ln1, RMSNorm) and isinstance(block.ln2, RMSNorm) and isinstance(modern.ln_final, RMSNorm)
    assert isinstance(block.ffn, GatedFeedForward) and block.ffn.variant == "swiglu"
    assert isinstance(block.attn.qk_norm, QKNorm) and isinstance(block.attn.positions, ScaledRotary)
    assert block.attn.qkv.weight.shape == ((4 + 2 * 2) * 6, 16)  # (H + 2·H_kv)·D rows
    assert block.attn.proj.weight.shape == (16, 4 * 6)  # H·D -> C
    assert all(p.dim() > 1 or "ln" in n or "norm" in n for n, p in modern.named_parameters())  # no biases
    assert gpt2.blocks[0].attn.qk_norm is None and isinstance(gpt2.blocks[0].ln1, torch.nn.LayerNorm)
    points = modern.hook_points()
    assert points["blocks.0.attn.k"].axes == "B H_kv T D" and points["blocks.0.attn.positions.k"].axes == "B H_kv T D"
    assert points["blocks.0.ln1"].stage == "rms_norm" and points["blocks.0.attn.qk_norm.q"].stage == "qk_norm"


def test_the_cache_holds_only_the_key_value_heads():
    m = GPT(cfg(**ROPE, n_kv_heads=1)).eval()
    cache = m.new_cache(2)
    with torch.no_grad():
        m(torch.zeros(2, 3, dtype=torch.long), cache)
    assert cache.layers[0].k.shape[:2] == (2, 1) and cache.length == 3


def test_the_window_hides_keys_further_back_than_w_minus_one():
    m = GPT(cfg(**ROPE, sliding_window=2)).double().eval()
    ids = torch.randint(0, 11, (1, 6))
    with torch.no_grad():
        base = m(ids)
        changed = ids.clone()
        changed[0, 0] = (ids[0, 0] + 1) % 11  # token 0: seen by positions 0 and 1 only in layer 1, 0..2 in layer 2
        after = m(changed)
    assert (after[0, 3:] - base[0, 3:]).abs().max() == 0  # two layers of W = 2 reach back 2 tokens
    assert (after[0, :3] - base[0, :3]).abs().max() > 0
    no_window = GPT(dataclasses.replace(m.cfg, sliding_window=0)).double().eval()
    no_window.load_state_dict(m.state_dict())
    with torch.no_grad():
        assert (no_window(changed)[0, 5] - no_window(ids)[0, 5]).abs().max() > 0


def test_a_window_s_cache_keeps_only_the_last_w_minus_one_keys():
    m = GPT(cfg(**ROPE, n_kv_heads=2, sliding_window=3)).double().eval()
    ids = torch.randint(0, 11, (2, 20))
    cache = m.new_cache(2)
    with torch.no_grad():
        full = m(ids)  # (2, 20, V)
        steps = [m(ids[:, :5], cache)]
        assert (cache.length, cache.held, cache.layers[0].k.shape) == (5, 2, (2, 2, 2, 4))
        steps += [m(ids[:, t : t + 1], cache) for t in range(5, 20)]
    assert (cache.length, cache.held, cache.layers[1].v.size(2)) == (20, 2, 2)  # 2 keys held, not 20
    assert (torch.cat(steps, dim=1) - full).abs().max() <= 1e-10
    cache.reset()
    assert (cache.length, cache.held) == (0, 0)

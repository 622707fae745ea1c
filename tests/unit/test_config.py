"""ModelConfig / TrainConfig validation, presets and --key=value overrides: every error, its message."""

from __future__ import annotations

import dataclasses
import re

import pytest

from glassformer.config import (
    PRESETS,
    ModelConfig,
    TrainConfig,
    apply_overrides,
    get_preset,
    to_dict,
)
from glassformer.models import build_model


def test_d_model_not_divisible_by_n_heads_suggests_the_nearest_divisor():
    with pytest.raises(ValueError, match=r"d_model=64 is not divisible by n_heads=5.*Use n_heads=4"):
        ModelConfig(d_model=64, n_heads=5)


@pytest.mark.parametrize("name", ["vocab_size", "d_model", "n_heads", "d_ff", "n_layers", "max_len"])
@pytest.mark.parametrize("value", [0, -3])
def test_non_positive_sizes(name, value):
    with pytest.raises(ValueError, match=rf"{name} must be positive, got {name}={value}"):
        ModelConfig(**{name: value})


@pytest.mark.parametrize(
    "field, typo, suggestion",
    [
        ("activation", "gelu_tahn", "gelu_tanh"),
        ("norm", "psot", "post"),
        ("init", "xaiver", "xavier"),
    ],
)
def test_unknown_choice_says_did_you_mean(field, typo, suggestion):
    with pytest.raises(ValueError, match=rf"{field}='{typo}' is not one of .*Did you mean '{suggestion}'\?"):
        ModelConfig(**{field: typo})


@pytest.mark.parametrize(
    "field, typo, suggestion", [("position", "sinusoid", "sinusoidal"), ("kind", "enocder", "encoder")]
)
def test_unknown_registered_name_says_did_you_mean(field, typo, suggestion):
    """Position schemes and model kinds are registries (nn/position.py, models/kinds.py): a config
    may name any, and building the model checks the name, with the nearest suggestion."""
    cfg = ModelConfig(**{field: typo})
    with pytest.raises(ValueError, match=rf"{field}='{typo}' is not .*Did you mean '{suggestion}'\?"):
        build_model(cfg)


def test_old_spelling_of_packed_qkv_names_the_new_one():
    with pytest.raises(ValueError, match="mha_style='fused' was renamed: use mha_style='packed'"):
        ModelConfig(mha_style="fused")


def test_unknown_choice_without_a_near_match_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"activation='swish' is not one of \['relu', 'gelu', 'gelu_tanh'\]\.$"):
        ModelConfig(activation="swish")


def test_dropout_and_pad_id_ranges():
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\), got dropout=1.0"):
        ModelConfig(dropout=1.0)
    with pytest.raises(ValueError, match=r"pad_id=65 is outside the vocabulary \[0, 65\)"):
        ModelConfig(pad_id=65)


def test_train_config_validation():
    with pytest.raises(ValueError, match="batch_size must be positive"):
        TrainConfig(batch_size=0)
    with pytest.raises(ValueError, match=r"lr_schedule='cosin'.*Did you mean 'cosine'"):
        TrainConfig(lr_schedule="cosin")


def test_d_head():
    assert ModelConfig(d_model=48, n_heads=3).d_head == 16


# ---- presets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_are_valid_and_fresh_copies(name):
    preset = get_preset(name)
    assert preset.train.block_size <= preset.model.max_len
    preset.model.d_model = -1  # the caller's copy ...
    assert PRESETS[name].model.d_model > 0  # ... is not the registry's


def test_unknown_preset():
    with pytest.raises(ValueError, match=r"unknown preset 'baby2'.*Did you mean 'baby'\?"):
        get_preset("baby2")


# ---- overrides -------------------------------------------------------------------------------------


def test_overrides_parse_each_field_type():
    p = apply_overrides(
        get_preset("baby"),
        ["--d_model=64", "--dropout=0.25", "--bias=true", "--pad_id=none", "--lr=3e-4", "--activation=relu"],
    )
    assert (p.model.d_model, p.model.dropout, p.model.bias, p.model.pad_id) == (64, 0.25, True, None)
    assert (p.train.lr, p.model.activation) == (3e-4, "relu")
    assert apply_overrides(get_preset("baby"), {"pad_id": "0"}).model.pad_id == 0


def test_override_unknown_key_suggests_the_nearest():
    with pytest.raises(ValueError, match=r"unknown config key --n_layer\. Did you mean --n_layers\?"):
        apply_overrides(get_preset("baby"), ["--n_layer=3"])


@pytest.mark.parametrize(
    "item, expected",
    [
        ("--n_layers=two", "int"),
        ("--lr=fast", "float"),
        ("--bias=maybe", "bool"),
        ("--pad_id=x", "int"),
    ],
)
def test_override_bad_type(item, expected):
    key, text = item[2:].split("=")
    with pytest.raises(ValueError, match=re.escape(f"--{key}={text!r}: expected a value of type {expected}")):
        apply_overrides(get_preset("baby"), [item])


def test_override_without_equals_sign():
    with pytest.raises(ValueError, match=r"override '--d_model' must look like --key=value"):
        apply_overrides(get_preset("baby"), ["--d_model"])


def test_override_value_is_revalidated():
    with pytest.raises(ValueError, match="not divisible by n_heads"):
        apply_overrides(get_preset("baby"), ["--n_heads=5"])


def test_override_dict_value_of_the_wrong_type_is_rejected():
    with pytest.raises(ValueError, match="expected a value of type int"):
        apply_overrides(get_preset("baby"), {"n_layers": 2.5})


def test_to_dict_round_trips():
    cfg = get_preset("sine").model
    assert ModelConfig(**to_dict(cfg)) == cfg
    assert set(to_dict(cfg)) == {f.name for f in dataclasses.fields(ModelConfig)}

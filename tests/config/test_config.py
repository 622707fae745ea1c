"""ModelConfig / TrainConfig validation, presets and --key=value overrides: every refusal, by its key
and fields (the words are the catalogue's; tests/messages/test_messages.py checks both languages have them)."""

from __future__ import annotations

import dataclasses

import pytest

from glassformer.config import (
    KIND_FIELDS,
    PRESETS,
    UNREAD,
    ModelConfig,
    TrainConfig,
    apply_overrides,
    get_preset,
    preset_about,
    saved_fields,
    to_dict,
    with_kind,
)
from glassformer.errors import UsageError
from glassformer.models import MODEL_KINDS, build_model


def refusal(make) -> tuple[str, dict]:
    """The (key, fields) of the UsageError that make() raises."""
    with pytest.raises(UsageError) as caught:
        make()
    return caught.value.key, caught.value.fields


def test_d_model_not_divisible_by_n_heads_suggests_the_nearest_divisor():
    assert refusal(lambda: ModelConfig(d_model=64, n_heads=5)) == (
        "config.heads",
        {"d_model": 64, "n_heads": 5, "nearest": 4},
    )


@pytest.mark.parametrize("name", ["vocab_size", "d_model", "n_heads", "d_ff", "n_layers", "max_len"])
@pytest.mark.parametrize("value", [0, -3])
def test_non_positive_sizes(name, value):
    assert refusal(lambda: ModelConfig(**{name: value})) == ("config.positive", {"name": name, "value": value})


@pytest.mark.parametrize("name", ["d_in", "d_out"])
def test_non_positive_sizes_of_the_regressor(name):
    assert refusal(lambda: ModelConfig(kind="regressor", **{name: 0})) == (
        "config.positive",
        {"name": name, "value": 0},
    )


@pytest.mark.parametrize(
    "field, typo, suggestion",
    [
        ("activation", "gelu_tahn", "gelu_tanh"),
        ("norm", "psot", "post"),
        ("init", "xaiver", "xavier"),
    ],
)
def test_unknown_choice_says_did_you_mean(field, typo, suggestion):
    key, fields = refusal(lambda: ModelConfig(**{field: typo}))
    assert (key, fields["name"], fields["value"]) == ("config.choice", field, typo)
    assert repr(suggestion) in fields["hint"]


@pytest.mark.parametrize(
    "field, typo, suggestion", [("position", "sinusoid", "sinusoidal"), ("kind", "enocder", "encoder")]
)
def test_unknown_registered_name_says_did_you_mean(field, typo, suggestion):
    """Position schemes and model kinds are registries (nn/position.py, models/kinds.py): a config
    may name any, and building the model checks the name, with the nearest suggestion."""
    cfg = ModelConfig(**{field: typo})
    with pytest.raises(UsageError) as caught:
        build_model(cfg)
    assert repr(suggestion) in caught.value.fields["hint"]


def test_old_spelling_of_packed_qkv_names_the_new_one():
    assert refusal(lambda: ModelConfig(mha_style="fused")) == ("config.mha_fused", {})


def test_unknown_choice_without_a_near_match_lists_the_valid_ones():
    assert refusal(lambda: ModelConfig(activation="swish")) == (
        "config.choice",
        {"name": "activation", "value": "swish", "valid": ["relu", "gelu", "gelu_tanh"], "hint": ""},
    )


def test_dropout_and_pad_id_ranges():
    assert refusal(lambda: ModelConfig(dropout=1.0)) == ("config.dropout", {"value": 1.0})
    assert refusal(lambda: ModelConfig(kind="encoder", pad_id=65)) == (
        "config.pad_id",
        {"pad_id": 65, "vocab_size": 65},
    )


def test_train_config_validation():
    assert refusal(lambda: TrainConfig(batch_size=0)) == ("config.positive", {"name": "batch_size", "value": 0})
    assert refusal(lambda: TrainConfig(seq_len=0)) == ("config.positive", {"name": "seq_len", "value": 0})
    key, fields = refusal(lambda: TrainConfig(lr_schedule="cosin"))
    assert (key, fields["value"], "'cosine'" in fields["hint"]) == ("config.choice", "cosin", True)


def test_d_head():
    assert ModelConfig(d_model=48, n_heads=3).d_head == 16


# ---- the fields of one kind ------------------------------------------------------------------------


def test_every_kind_glassformer_ships_says_which_kind_specific_fields_it_reads():
    ours = {kind for kind, cls in MODEL_KINDS.items() if cls.__module__.startswith("glassformer.models.")}
    assert set(KIND_FIELDS) == ours
    assert {name for names in KIND_FIELDS.values() for name in names} == set(UNREAD)


@pytest.mark.parametrize(
    "kind, field, value, kinds",
    [
        ("regressor", "vocab_size", 1, ["gpt", "encoder", "seq2seq"]),
        ("regressor", "tie_weights", True, ["gpt", "encoder", "seq2seq"]),
        ("gpt", "d_in", 3, ["regressor"]),
        ("seq2seq", "d_out", 2, ["regressor"]),
        ("gpt", "share_embeddings", True, ["seq2seq"]),
        ("encoder", "share_embeddings", True, ["seq2seq"]),
        ("gpt", "pad_id", 0, ["encoder", "seq2seq"]),
        ("regressor", "pad_id", 0, ["encoder", "seq2seq"]),
    ],
)
def test_a_field_the_kind_does_not_read_is_refused_naming_the_kinds_that_do(kind, field, value, kinds):
    assert refusal(lambda: ModelConfig(kind=kind, **{field: value})) == (
        "config.not_read",
        {"field": field, "value": value, "kind": kind, "kinds": kinds},
    )


@pytest.mark.parametrize("kind", sorted(KIND_FIELDS))
def test_a_field_the_kind_does_not_read_holds_its_none_value(kind):
    """Left at its default (or given its none value), a field the kind never reads says so: 0 for a
    size (vocab_size=0: not a token model), False for a switch, None for pad_id."""
    unread = {name: none for name, none in UNREAD.items() if name not in KIND_FIELDS[kind]}
    for cfg in (ModelConfig(kind=kind), ModelConfig(kind=kind, **unread)):
        for name, none in unread.items():
            assert getattr(cfg, name) == none and type(getattr(cfg, name)) is type(none), (kind, name)


def test_a_field_the_kind_reads_keeps_its_default():
    assert (ModelConfig().vocab_size, ModelConfig().d_in, ModelConfig().d_out) == (65, 0, 0)
    cfg = ModelConfig(kind="regressor")
    assert (cfg.vocab_size, cfg.d_in, cfg.d_out, cfg.tie_weights) == (0, 1, 1, False)


def test_a_kind_registered_elsewhere_without_an_entry_reads_every_field():
    cfg = ModelConfig(kind="somewhere-else", d_in=3, share_embeddings=True, vocab_size=7)
    assert (cfg.d_in, cfg.share_embeddings, cfg.vocab_size) == (3, True, 7)


def test_the_sine_preset_is_no_token_model():
    model = get_preset("sine").model
    assert (model.kind, model.vocab_size, model.d_in, model.d_out) == ("regressor", 0, 1, 1)


def test_with_kind_drops_what_only_the_old_kind_read_and_gives_the_new_its_defaults():
    s2s = get_preset("seq2seq").model
    gpt = with_kind(s2s, "gpt")
    assert (gpt.kind, gpt.vocab_size, gpt.tie_weights, gpt.share_embeddings, gpt.pad_id) == (
        "gpt",
        28,
        True,
        False,
        None,
    )
    reg = with_kind(s2s, "regressor", d_in=3)
    assert (reg.vocab_size, reg.tie_weights, reg.pad_id, reg.d_in, reg.d_out) == (0, False, None, 3, 1)
    back = with_kind(reg, "encoder")
    assert (back.vocab_size, back.d_in, back.pad_id) == (65, 0, None)
    assert with_kind(s2s, "seq2seq") == s2s


def test_overriding_the_kind_switches_its_fields_and_refuses_one_it_does_not_read():
    p = apply_overrides(get_preset("sine"), ["--kind=gpt"])
    assert (p.model.kind, p.model.vocab_size, p.model.d_in) == ("gpt", 65, 0)
    p = apply_overrides(get_preset("seq2seq"), {"kind": "encoder"})
    assert (p.model.share_embeddings, p.model.pad_id) == (False, 0)  # the encoder reads pad_id too
    assert refusal(lambda: apply_overrides(get_preset("sine"), ["--vocab_size=5"])) == (
        "config.not_read",
        {"field": "vocab_size", "value": 5, "kind": "regressor", "kinds": ["gpt", "encoder", "seq2seq"]},
    )
    assert refusal(lambda: apply_overrides(get_preset("baby"), ["--d_in=2"]))[0] == "config.not_read"


# ---- presets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_are_valid_and_fresh_copies(name):
    preset = get_preset(name)
    assert preset.train.seq_len <= preset.model.max_len
    preset.model.d_model = -1  # the caller's copy ...
    assert PRESETS[name].model.d_model > 0  # ... is not the registry's


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_s_english_line_is_the_catalogue_s(name):
    """One source: config.json's `about` is the catalogue's English, filled from the preset."""
    assert get_preset(name).about == PRESETS[name].about == preset_about(name, "en")
    assert str(PRESETS[name].model.d_model) in preset_about(name, "en")


def test_unknown_preset():
    key, fields = refusal(lambda: get_preset("baby2"))
    assert (key, fields["name"], "'baby'" in fields["hint"]) == ("config.preset", "baby2", True)


# ---- overrides -------------------------------------------------------------------------------------


def test_overrides_parse_each_field_type():
    p = apply_overrides(
        get_preset("baby"),
        ["--d_model=64", "--dropout=0.25", "--bias=true", "--seq_len=32", "--lr=3e-4", "--activation=relu"],
    )
    assert (p.model.d_model, p.model.dropout, p.model.bias, p.train.seq_len) == (64, 0.25, True, 32)
    assert (p.train.lr, p.model.activation) == (3e-4, "relu")
    seed002 = get_preset("seed002")
    assert apply_overrides(seed002, {"pad_id": "0"}).model.pad_id == 0
    assert apply_overrides(seed002, ["--pad_id=0", "--pad_id=none"]).model.pad_id is None


def test_override_unknown_key_suggests_the_nearest():
    key, fields = refusal(lambda: apply_overrides(get_preset("baby"), ["--n_layer=3"]))
    assert (key, fields["key"], "--n_layers" in fields["hint"]) == ("config.unknown_key", "n_layer", True)


@pytest.mark.parametrize(
    "overrides",
    [["--block_size=32"], ["--block-size", "32"], ["--block-size=32"], {"block_size": 32}, {"block-size": "32"}],
)
def test_the_old_name_of_seq_len_is_refused_naming_the_new(overrides):
    key, fields = refusal(lambda: apply_overrides(get_preset("baby"), overrides))
    assert (key, fields["key"], fields["new"], str(fields["value"])) == (
        "config.renamed",
        "block_size",
        "seq_len",
        "32",
    )


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
    assert refusal(lambda: apply_overrides(get_preset("baby"), [item])) == (
        "config.type",
        {"key": key, "value": text, "type": expected},
    )


def test_override_without_equals_sign():
    assert refusal(lambda: apply_overrides(get_preset("baby"), ["--d_model"])) == (
        "config.override_value",
        {"item": "--d_model", "key": "d_model"},
    )


def test_override_value_is_revalidated():
    assert refusal(lambda: apply_overrides(get_preset("baby"), ["--n_heads=5"]))[0] == "config.heads"


def test_override_dict_value_of_the_wrong_type_is_rejected():
    assert refusal(lambda: apply_overrides(get_preset("baby"), {"n_layers": 2.5})) == (
        "config.type",
        {"key": "n_layers", "value": 2.5, "type": "int"},
    )


def test_to_dict_round_trips():
    for name in PRESETS:
        cfg = get_preset(name).model
        assert ModelConfig(**to_dict(cfg)) == cfg
        assert set(to_dict(cfg)) == {f.name for f in dataclasses.fields(ModelConfig)}


# ---- configs saved by earlier versions ---------------------------------------------------------------

# The sections of a sine run's config.json as glassformer wrote them before a kind read only its own
# fields and before block_size was called seq_len (vocab_size=1 only to pass a check).
OLD_SINE_MODEL = {
    "kind": "regressor",
    "vocab_size": 1,
    "d_model": 32,
    "n_heads": 4,
    "d_ff": 128,
    "n_layers": 2,
    "max_len": 64,
    "dropout": 0.1,
    "bias": True,
    "activation": "gelu",
    "norm": "post",
    "final_norm": False,
    "position": "sinusoidal",
    "causal": False,
    "tie_weights": False,
    "share_embeddings": False,
    "init": "torch",
    "attention": "glass",
    "mha_style": "fused",
    "ln_eps": 1e-05,
    "pad_id": None,
    "d_in": 1,
    "d_out": 1,
}
OLD_TRAIN = {"batch_size": 32, "block_size": 50, "max_steps": 1000, "lr": 0.001, "grad_clip": 1.0}


def test_a_saved_config_of_an_earlier_version_reads_as_this_one_spells_it():
    model = saved_fields("model", OLD_SINE_MODEL)
    assert "vocab_size" not in model and model["mha_style"] == "packed" and model["d_in"] == 1
    assert ModelConfig(**model) == get_preset("sine").model
    train = saved_fields("train", OLD_TRAIN)
    assert "block_size" not in train and train["seq_len"] == 50
    assert TrainConfig(**train) == get_preset("sine").train


def test_a_saved_gpt_config_drops_the_regressor_s_fields_and_keeps_its_own():
    old = {"vocab_size": 50, "d_in": 1, "d_out": 1, "share_embeddings": False, "pad_id": None}  # no kind: a GPT
    assert saved_fields("model", old) == {"vocab_size": 50}
    assert saved_fields("model", {"kind": ["not", "a", "name"], "d_in": 2}) == {"kind": ["not", "a", "name"], "d_in": 2}

"""Fuzzing with hypothesis: any text through the tokenizers, any `--key=value` overrides, any prompt,
and run directories with random bytes damaged in each file. The promise is the same everywhere: a
right answer (a round trip, a valid config, a sample) or a clear error — never a traceback, never a
hang. Example counts are small so the whole file runs in seconds; derandomized, so CI is repeatable."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import torch
from fuzz_kit import FUZZ
from hypothesis import example, given, settings
from hypothesis import strategies as st
from reliability_kit import assert_clean_failure, cli, cli_said, resume_argv, weights

from glassformer.config import ModelConfig, Preset, TrainConfig, apply_overrides, get_preset, parse_overrides
from glassformer.text.tokenizers import CharTokenizer, WordTokenizer, load_tokenizer

ANY_CHAR = st.characters(exclude_categories=())  # every code point: surrogates and controls included
ANY_TEXT = st.text(ANY_CHAR, max_size=40)


# ---- tokenizers -----------------------------------------------------------------------------------
@FUZZ
@given(ANY_TEXT)
@example("")
@example("\ud800a\udfff\x00\n\u200b你好")
def test_char_tokenizer_round_trips_any_text_or_refuses_the_empty_one(text):
    if not text:
        with pytest.raises(ValueError) as refused:
            CharTokenizer.from_text(text)
        assert refused.value.code == "tokenizer.no_chars"
        return
    tok = CharTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == text
    with tempfile.TemporaryDirectory() as d:
        tok.save(Path(d) / "t.json")  # a lone surrogate has no UTF-8: it is kept as a JSON escape
        again = load_tokenizer(Path(d) / "t.json")
    assert again.encode(text) == tok.encode(text) and again.decode(tok.encode(text)) == text


@FUZZ
@given(vocab=st.text(ANY_CHAR, min_size=1, max_size=20), text=ANY_TEXT)
def test_char_tokenizer_names_what_it_cannot_encode(vocab, text):
    tok = CharTokenizer.from_text(vocab)
    unseen = sorted(set(text) - set(vocab))
    if not unseen:
        assert tok.decode(tok.encode(text)) == text
        return
    with pytest.raises(ValueError) as error:
        tok.encode(text)
    assert (error.value.code, error.value.fields["n"]) == ("tokenizer.unseen", len(unseen))
    assert repr(unseen[0]) in error.value.fields["shown"] or len(unseen) > 20
    unk = CharTokenizer.from_text(vocab, unk=True)  # or map them to <unk>
    assert unk.encode(text).count(unk.unk_id) == sum(c in unseen for c in text)


@FUZZ
@given(ANY_TEXT)
@example("")
def test_word_tokenizer_round_trips_words(text):
    tok = WordTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == " ".join(text.split())
    with tempfile.TemporaryDirectory() as d:
        tok.save(Path(d) / "t.json")
        assert load_tokenizer(Path(d) / "t.json").encode(text) == tok.encode(text)


@FUZZ
@given(st.lists(st.integers(min_value=-(2**40), max_value=2**40), max_size=10))
def test_decoding_any_ids_is_text_or_a_range_error(ids):
    tok = CharTokenizer.from_text("abc")
    if all(0 <= i < tok.vocab_size for i in ids):
        assert len(tok.decode(ids)) == len(ids)
    else:
        with pytest.raises(ValueError) as error:
            tok.decode(ids)
        assert (error.value.code, error.value.fields["vocab_size"]) == ("tokenizer.id_range", 3)


# ---- --key=value overrides --------------------------------------------------------------------------
FIELDS = sorted({*ModelConfig.__dataclass_fields__, *TrainConfig.__dataclass_fields__})
KEY = st.one_of(st.sampled_from(FIELDS), st.text(ANY_CHAR, max_size=12))
VALUE_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=12),
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["true", "no", "none", "1e400", "-0", "nan", "inf", "1_000"]),
)
TOKENS = st.lists(
    st.one_of(KEY.map(lambda k: f"--{k}"), VALUE_TEXT, st.tuples(KEY, VALUE_TEXT).map(lambda kv: f"--{kv[0]}={kv[1]}")),
    max_size=6,
)


@FUZZ
@given(TOKENS)
@example(["--lr", "nan"])
@example(["--d-model=7", "--n_heads", "2"])
@example(["--threads=100000"])
def test_any_command_line_overrides_are_a_valid_config_or_a_value_error(tokens):
    try:
        pairs = parse_overrides(tokens)
        preset = apply_overrides(get_preset("seed000"), tokens)
    except ValueError as e:
        assert str(e)
        return
    assert set(pairs) <= set(FIELDS)
    _valid(preset)


VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), st.lists(st.integers(), max_size=2)
)


@FUZZ
@given(st.dictionaries(KEY, VALUE, max_size=4))
def test_any_override_values_are_a_valid_config_or_a_value_error(overrides):
    try:
        preset = apply_overrides(get_preset("baby"), overrides)
    except ValueError as e:
        assert str(e)
        return
    _valid(preset)


def _valid(preset: Preset) -> None:
    """A config that got through is one the dataclasses accept as they are (types and ranges)."""
    ModelConfig(**vars(preset.model))
    TrainConfig(**vars(preset.train))
    for cfg in (preset.model, preset.train):
        for name, f in cfg.__dataclass_fields__.items():
            value = getattr(cfg, name)
            assert value is None or isinstance(
                value,
                {"int": int, "float": (int, float), "bool": bool, "str": str}.get(str(f.type).split(" ")[0], object),
            )


# ---- prompts of any length --------------------------------------------------------------------------
@FUZZ
@given(prompt=st.one_of(ANY_TEXT, st.text(st.sampled_from("aeiou tnrs."), max_size=400)))
@example(prompt="")
@example(prompt="a" * 5000)  # far past max_len: the model sees the last max_len tokens
def test_any_prompt_is_a_sample_or_a_clear_error(tiny_run, prompt):
    run, _ = tiny_run
    code, out, err, heard = cli_said(["sample", str(run), f"--prompt={prompt}", "--max-new-tokens", "4", "--seed", "0"])
    if code == 0:
        assert out.startswith(prompt.replace("\\n", "\n").replace("\\t", "\t"))
    else:
        assert_clean_failure(code, err, codes=(2,))
        refusals = {"sample.empty_prompt", "tokenizer.unseen"}  # or, by what they carry: the characters the
        unseen = [f for _, f in heard if {"n", "vocab", "shown", "more"} <= set(f)]  # run never saw (the CLI's words)
        not_utf8 = [f for _, f in heard if set(f) == {"value"}]  # bytes that are not UTF-8 text
        assert refusals & set(heard.keys()) or unseen or not_utf8


# ---- run directories with damaged bytes ----------------------------------------------------------
READERS = {  # the file, and the commands that read it
    "config.json": ("sample", "resume"),
    "tokenizer.json": ("sample",),
    "model.safetensors": ("sample",),
    "best.safetensors": ("sample-best",),
    "train_state.pt": ("resume",),
    "metrics.jsonl": ("resume",),
}
CHECKSUMMED = {"model.safetensors", "best.safetensors", "train_state.pt"}
DAMAGE = st.one_of(
    st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=3).map(
        lambda changes: ("bytes", changes)
    ),
    st.floats(0, 1, exclude_max=True).map(lambda at: ("truncate", at)),
)


def damage(path: Path, how) -> bool:
    """Apply `how` to the file; False if it left the bytes as they were."""
    data = bytearray(path.read_bytes())
    kind, what = how
    if kind == "truncate":
        new = data[: int(what * len(data))]
    else:
        new = bytearray(data)
        for at, byte in what:
            new[int(at * len(data))] = byte
    path.write_bytes(bytes(new))
    return new != data


@pytest.mark.parametrize("name", sorted(READERS))
@settings(FUZZ, max_examples=8)
@given(how=DAMAGE)
def test_random_damage_to_any_run_file_is_a_clear_error_never_a_traceback(name, tiny_run, how):
    source, cache = tiny_run
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(source, run)
        if not damage(run / name, how):
            return
        for reader in READERS[name]:
            argv = {
                "sample": ["sample", str(run), "--prompt", "a", "--max-new-tokens", "2", "--seed", "0"],
                "sample-best": ["sample", str(run), "--best", "--prompt", "a", "--max-new-tokens", "2"],
                "resume": resume_argv(run, cache, "--max_steps=8"),
            }[reader]
            code, _, err = cli(argv)
            if code != 0:
                assert_clean_failure(code, err)
                assert name in err or name not in CHECKSUMMED  # (a changed vocabulary may refuse the prompt)
            elif name in CHECKSUMMED:  # loaded anyway: only if the change means nothing (JSON whitespace)
                assert _same_content(run / name, source / name), f"a damaged {name} loaded silently"


def _same_content(a: Path, b: Path) -> bool:
    if a.suffix == ".safetensors":
        wa, wb = weights(a), weights(b)
        return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    return a.read_bytes() == b.read_bytes()


# ---- values of every kind in config.json, the weights and the options (issue 27) -------------------------
EXTREME = st.one_of(
    st.sampled_from(["16", None, True, [16], {"a": 1}, 10**40, -(10**9), 1e-310, 10**9]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
)


def _snapshot(run) -> dict:
    return {p.name: p.read_bytes() for p in Path(run).iterdir() if p.is_file()}


@FUZZ
@given(section=st.sampled_from(["model", "train"]), key=st.sampled_from(FIELDS), value=EXTREME)
@example(section="model", key="max_len", value=10**9)
@example(section="model", key="d_model", value="16")
@example(section="train", key="seed", value=2**70)
def test_any_value_in_config_json_samples_or_is_one_clear_line(run_copy, section, key, value):
    import json

    run, _ = run_copy
    config = json.loads((run / "config.json").read_text())
    config[section][key] = value
    (run / "config.json").write_text(json.dumps(config))
    before = _snapshot(run)
    code, _, err = cli(["sample", str(run), "--prompt", "a", "--max-new-tokens", "2", "--seed", "0"])
    if code != 0:
        assert_clean_failure(code, err, codes=(1, 2))
    assert _snapshot(run) == before  # a reader changes nothing


@pytest.mark.parametrize("depth", [50_000])
def test_config_json_nested_deeply_is_a_damaged_file(run_copy, depth):
    run, _ = run_copy
    (run / "config.json").write_text("[" * depth + "]" * depth)
    code, _, err, heard = cli_said(["sample", str(run), "--prompt", "a"])
    assert_clean_failure(code, err, codes=(1,))
    [nested] = heard.of("files.json_nested")
    assert Path(nested["path"]) == run / "config.json"


@pytest.mark.parametrize("bad", ["nan", "inf", "int"])
def test_weights_that_are_not_finite_floats_are_refused(run_copy, bad):
    from safetensors.torch import save_file

    run, _ = run_copy
    tensors = weights(run / "model.safetensors")
    name = sorted(tensors)[0]
    tensors[name] = tensors[name].to(torch.int32) if bad == "int" else tensors[name].fill_(float(bad))
    save_file(tensors, str(run / "model.safetensors"), metadata={"step": "8"})
    code, _, err = cli(["sample", str(run), "--prompt", "a"])
    assert_clean_failure(code, err, codes=(1,))
    assert name in err


OPTION_VALUES = st.sampled_from(["1e-310", "5e-324", "0", "-1", "1", "nan", "inf", "1e400", str(2**70), "x", ""])


@FUZZ
@given(flag=st.sampled_from(["--temperature", "--top-p", "--top-k", "--seed", "--max-new-tokens"]), value=OPTION_VALUES)
@example(flag="--temperature", value="1e-310")
@example(flag="--top-p", value="1e-310")
def test_any_sampling_option_samples_or_is_one_clear_line(tiny_run, flag, value):
    run, _ = tiny_run
    code, out, err = cli(
        ["sample", str(run), "--prompt", "a", "--max-new-tokens", "2", "--seed", "0", f"{flag}={value}"]
    )
    if code != 0:
        assert_clean_failure(code, err, codes=(2,))
    else:
        assert out.startswith("a")


@FUZZ
@given(
    key=st.sampled_from(["beta1", "beta2", "seed", "min_lr", "lr", "max_len", "d_model", "batch_size"]),
    value=OPTION_VALUES,
)
@example(key="beta1", value="1")
@example(key="min_lr", value="1")
@example(key="seed", value=str(2**70))
@example(key="max_len", value=str(10**9))
def test_any_training_option_is_refused_before_a_run_directory_is_made(tmp_path_factory, key, value):
    from reliability_kit import train_argv

    root = tmp_path_factory.mktemp("opt")
    extra = ["--lr_schedule=cosine", "--position=sinusoidal"] if key in ("min_lr", "max_len") else []
    code, _, err = cli(train_argv(root / "run", root / "cache", 2, *extra, f"--{key}={value}"))
    if code != 0:
        assert_clean_failure(code, err, codes=(2,))
        assert not (root / "run").exists()  # refused before anything was made


def test_a_stop_string_the_model_cannot_write_is_refused(tiny_run):
    run, _ = tiny_run
    code, out, err = cli(["sample", str(run), "--prompt", "a", "--stop", "€€", "--max-new-tokens", "2"])
    assert_clean_failure(code, err, codes=(2,))
    assert out == "" and "'€'" in err

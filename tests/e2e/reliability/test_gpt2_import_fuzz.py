"""Issue 27's "no internal error from any input", for `glassformer import gpt2 DIR --out RUN`: every
field of the Hugging Face config.json given values of every kind (wrong types, sizes far from the
weights', non-finite and denormal numbers), a model.safetensors damaged in its header, dtypes, shapes
and values, and vocab.json / merges.txt of every wrong form. The promise: the run imported as the
files say (nothing coerced), or one line naming a catalogue key, with nothing made at --out and the
source directory untouched."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest
import torch
from fuzz_kit import FUZZ
from gpt2_kit import gpt2_dir
from hypothesis import example, given
from hypothesis import strategies as st
from reliability_kit import FILE_ERRORS, assert_clean_failure, cli_error, snapshot
from safetensors.torch import load_file, save_file

from glassformer.errors import Clause, GlassformerError
from glassformer.messages import has

# HF config.json field -> the ModelConfig field an import makes of it (None: read, not kept as such)
FIELDS = {
    "n_embd": "d_model",
    "n_head": "n_heads",
    "n_layer": "n_layers",
    "n_positions": "max_len",
    "vocab_size": "vocab_size",
    "n_inner": "d_ff",
    "layer_norm_epsilon": "ln_eps",
    "resid_pdrop": "dropout",
    "tie_word_embeddings": "tie_weights",
    "activation_function": None,
    "model_type": None,
    "architectures": None,
    "scale_attn_weights": None,
}
VALUES = st.one_of(
    st.sampled_from(["16", "", "\ud800", "gelu", None, True, False, 0, -1, 1.5, 1e-310, 5e-324, 10**9, 10**40]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([[], {}, [16], {"a": 1}, ["GPT2LMHeadModel", "Other"], 3, 4, 8, 96, 0.5]),
)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    folder, _, _ = gpt2_dir(tmp_path_factory.mktemp("gpt2_fuzz") / "hf")
    (folder / "generation_config.json").unlink(missing_ok=True)  # not read: fewer bytes to copy
    return folder


def _copy(source: Path, root: Path) -> Path:
    folder = root / "hf"
    shutil.copytree(source, folder)
    return folder


def _import(folder: Path) -> tuple[int, GlassformerError | None, Path]:
    """Import `folder`; on failure, assert one clear line with a catalogue key, --out not made and
    the source untouched. Returns (exit code, the error, the run directory)."""
    out = folder.parent / "run"
    before = snapshot(folder)
    code, printed, err, error = cli_error(["import", "gpt2", str(folder), "--out", str(out), "--threads", "1"])
    assert snapshot(folder) == before, "an import changed its source"
    if code == 0:
        return code, None, out
    assert isinstance(error, GlassformerError), f"{type(error).__name__}: {error}"
    assert code == error.exit_code
    assert_clean_failure(code, err, codes=(1, 2))
    assert len(err.strip().splitlines()) == 1 and printed == ""
    assert not out.exists(), f"a refused import left {sorted(p.name for p in out.iterdir())}"
    return code, error, out


GPT2_ERRORS = (  # every error of importing or exporting a GPT-2 folder
    "gpt2.has_checkpoint",
    "gpt2.export_out_file",
    "gpt2.export_out_full",
    "gpt2.not_dir",
    "gpt2.is_file",
    "gpt2.not_object",
    "gpt2.vocab_differs",
    "gpt2.weights_fit",
    "gpt2.shard_name",
    "gpt2.no_shards",
    "gpt2.no_weights",
    "gpt2.shard_missing",
    "gpt2.safetensors",
    "gpt2.bin_refused",
    "gpt2.bin_not_state",
    "gpt2.export_tokenizer",
    "gpt2.model_type",
    "gpt2.architectures",
    "gpt2.attention_flag",
    "gpt2.activation_in",
    "gpt2.flag_type",
    "gpt2.lacks_numbers",
    "gpt2.weight_dtype",
    "gpt2.weight_dims",
    "gpt2.weight_finite",
    "gpt2.weight_size",
    "gpt2.cannot_build",
    "gpt2.field_out",
    "gpt2.activation_out",
    "gpt2.tensors_missing",
    "gpt2.tensors_unused",
    "gpt2.head_untied",
    "gpt2.no_head",
    "gpt2.head_bias",
    "gpt2.field",
    "gpt2.vocab_shape",
    "gpt2.no_tokenizer",
    "gpt2.tokenizer_invalid",
    "gpt2.tokenizer_option",
    "gpt2.merge_line",
    "gpt2.added_shape",
    "gpt2.added_flag",
    "gpt2.pipeline",
    "gpt2.no_model_vocab",
    "gpt2.id_twice",
    "gpt2.id_gaps",
    "gpt2.pretokenizer",
    "gpt2.token_twice",
    "gpt2.bytes_missing",
    "gpt2.specials_absent",
    "gpt2.special_text",
    "gpt2.not_byte_alphabet",
    "gpt2.merge_twice",
    "gpt2.merge_bad",
)


@FUZZ
@given(field=st.sampled_from(sorted(FIELDS)), value=VALUES)
@example(field="n_embd", value=10**9)  # built a (vocab, 10**9) table before the weights were looked at
@example(field="n_embd", value=10**19)  # an overflow inside torch.empty
@example(field="n_head", value=True)  # read as 1 head: the run was written, then refused by load_model
@example(field="tie_word_embeddings", value="16")  # bool("16"): read as true
@example(field="layer_norm_epsilon", value=float("nan"))
def test_any_value_in_any_gpt2_config_field_imports_as_written_or_is_one_clear_line(
    source, tmp_path_factory, field, value
):
    folder = _copy(source, tmp_path_factory.mktemp("cfg"))
    config = json.loads((folder / "config.json").read_text())
    config[field] = value
    (folder / "config.json").write_text(json.dumps(config))
    code, error, out = _import(folder)
    if code != 0:
        assert error.key in GPT2_ERRORS or error.key in FILE_ERRORS, error.key
        return
    ours = FIELDS[field]
    if ours is not None and not (field == "n_inner" and value is None):  # n_inner null: 4 n_embd
        model = json.loads((out / "config.json").read_text())["model"]
        number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
        if number(value) and number(model[ours]):  # an epsilon written 1000000000 is the float 1e9: the same number
            assert model[ours] == value, f"{field}={value!r} imported as {model[ours]!r}"
        else:
            assert json.dumps(model[ours]) == json.dumps(value), f"{field}={value!r} imported as {model[ours]!r}"


def _header(file: Path) -> tuple[bytes, int, dict]:
    data = file.read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    return data, n, json.loads(data[8 : 8 + n])


def _with_header(file: Path, change) -> None:
    data, n, header = _header(file)
    change(header)
    body = json.dumps(header).encode()
    file.write_bytes(struct.pack("<Q", len(body)) + body + data[8 + n :])


def _resaved(file: Path, change) -> None:
    tensors = load_file(str(file))
    change(tensors)
    save_file(tensors, str(file), metadata={"format": "pt"})


WTE = "transformer.wte.weight"
SAFETENSORS = {  # what is done to model.safetensors -> the key it must end in
    "header length past the file": (
        lambda f: f.write_bytes(struct.pack("<Q", 2**62) + f.read_bytes()[8:]),
        "gpt2.safetensors",
    ),
    "header not JSON": (
        lambda f: f.write_bytes(f.read_bytes()[:8] + b"{{{{" + f.read_bytes()[12:]),
        "gpt2.safetensors",
    ),
    "header nested deeply": (
        lambda f: f.write_bytes(struct.pack("<Q", 6000) + b"[" * 3000 + b"]" * 3000 + f.read_bytes()[8:]),
        "gpt2.safetensors",
    ),
    "truncated": (lambda f: f.write_bytes(f.read_bytes()[:-100]), "gpt2.safetensors"),
    "dtype I32 in the header": (
        lambda f: _with_header(f, lambda h: h[WTE].update(dtype="I32")),
        "gpt2.weight_dtype",
    ),
    "dtype unknown": (lambda f: _with_header(f, lambda h: h[WTE].update(dtype="Q99")), "gpt2.safetensors"),
    "shape of 10**24 numbers": (
        lambda f: _with_header(f, lambda h: h[WTE].update(shape=[10**12, 10**12])),
        "gpt2.safetensors",
    ),
    "negative shape": (lambda f: _with_header(f, lambda h: h[WTE].update(shape=[-1, 24])), "gpt2.safetensors"),
    "offsets past the file": (
        lambda f: _with_header(f, lambda h: h[WTE].update(data_offsets=[0, 10**15])),
        "gpt2.safetensors",
    ),
    "NaN weights": (lambda f: _resaved(f, lambda t: t[WTE].fill_(float("nan"))), "gpt2.weight_finite"),
    "infinite weights": (
        lambda f: _resaved(f, lambda t: t["transformer.h.0.ln_1.bias"].fill_(float("-inf"))),
        "gpt2.weight_finite",
    ),
    "integer weights": (
        lambda f: _resaved(f, lambda t: t.update({WTE: t[WTE].to(torch.int32)})),
        "gpt2.weight_dtype",
    ),
    "bool weights": (lambda f: _resaved(f, lambda t: t.update({WTE: t[WTE] > 0})), "gpt2.weight_dtype"),
    "fewer positions than the config": (
        lambda f: _resaved(f, lambda t: t.update({"transformer.wpe.weight": torch.zeros(8, 24)})),
        "gpt2.weight_size",
    ),
    "a scalar embedding": (
        lambda f: _resaved(f, lambda t: t.update({WTE: torch.tensor(1.0)})),
        "gpt2.weight_dims",
    ),
    "a 3-D matrix": (
        lambda f: _resaved(f, lambda t: t.update({"transformer.h.0.attn.c_attn.weight": torch.zeros(24, 72, 1)})),
        "gpt2.weight_dims",
    ),
    "another width of the MLP": (
        lambda f: _resaved(f, lambda t: t.update({"transformer.h.0.mlp.c_fc.weight": torch.zeros(24, 50)})),
        "gpt2.weight_size",
    ),
    "a LayerNorm of another size": (
        lambda f: _resaved(f, lambda t: t.update({"transformer.ln_f.weight": torch.zeros(7)})),
        "gpt2.weights_fit",
    ),
    "a tensor no GPT-2 has": (
        lambda f: _resaved(f, lambda t: t.update({"foo": torch.zeros(2)})),
        "gpt2.tensors_unused",
    ),
    "a tensor missing": (lambda f: _resaved(f, lambda t: t.pop("transformer.ln_f.bias")), "gpt2.tensors_missing"),
}


@pytest.mark.parametrize("damage", sorted(SAFETENSORS))
def test_a_damaged_safetensors_file_is_one_clear_line(source, tmp_path, damage):
    folder = _copy(source, tmp_path)
    change, key = SAFETENSORS[damage]
    change(folder / "model.safetensors")
    code, error, _ = _import(folder)
    assert code != 0 and error.key == key, error.key
    assert "model.safetensors" in str(error.fields.get("path", error.fields.get("source")))
    if key == "gpt2.safetensors":  # a file safetensors cannot read: the line says how to get a good one
        fix = error.fields["fix"]  # a remedy of its own, put into words when shown, Chinese under zh
        assert isinstance(fix, Clause) and not fix.fields and has(fix.message) and str(fix)


def _vocab(change):
    def apply(folder: Path) -> None:
        vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        (folder / "vocab.json").write_text(json.dumps(change(vocab)), encoding="utf-8")

    return apply


def _merges(change):
    def apply(folder: Path) -> None:
        lines = (folder / "merges.txt").read_text(encoding="utf-8").split("\n")
        (folder / "merges.txt").write_bytes("\n".join(change(lines)).encode("utf-8", "surrogatepass"))

    return apply


TOKENIZER_FILES = {  # what is done to vocab.json or merges.txt -> the key it must end in
    "vocab a list": (_vocab(list), "gpt2.vocab_shape"),
    "vocab null": (_vocab(lambda v: None), "gpt2.vocab_shape"),
    "vocab empty": (_vocab(lambda v: {}), "gpt2.tokenizer_invalid"),
    "an id a string": (_vocab(lambda v: {**v, "Ġt": "5"}), "gpt2.vocab_shape"),
    "an id true": (_vocab(lambda v: {**v, "Ġt": True}), "gpt2.vocab_shape"),
    "an id 1.5": (_vocab(lambda v: {**v, "Ġt": 1.5}), "gpt2.vocab_shape"),
    "an id a list": (_vocab(lambda v: {**v, "Ġt": [1]}), "gpt2.vocab_shape"),
    "an id negative": (_vocab(lambda v: {**v, "Ġt": -1}), "gpt2.id_gaps"),
    "an id far out of range": (_vocab(lambda v: {**v, "Ġt": 10**40}), "gpt2.id_gaps"),
    "an id twice": (_vocab(lambda v: {**v, "Ġt": 0}), "gpt2.id_twice"),
    "a lone surrogate token": (_vocab(lambda v: {**v, "\ud800": len(v)}), "gpt2.tokenizer_invalid"),
    "vocab nested deeply": (
        lambda f: (f / "vocab.json").write_text("[" * 50_000 + "]" * 50_000),
        "files.json_nested",
    ),
    "vocab not UTF-8": (
        lambda f: (f / "vocab.json").write_bytes(b"\xff" + (f / "vocab.json").read_bytes()),
        "files.no_encoding",
    ),
    "a merge of three": (_merges(lambda ls: ls[:1] + ["a b c"] + ls[1:]), "gpt2.merge_line"),
    "a merge of one": (_merges(lambda ls: ls[:1] + ["ab"] + ls[1:]), "gpt2.merge_line"),
    # a merge line is two tokens and one space: GPT-2's tokens hold no whitespace, so any other
    # separator is a damaged file, not a pair to guess at (split(), not split(" "), would take both)
    "a merge with two spaces": (_merges(lambda ls: ls[:1] + ["Ġ  t"] + ls[1:]), "gpt2.merge_line"),
    "a merge with a tab": (_merges(lambda ls: ls[:1] + ["Ġ\tt"] + ls[1:]), "gpt2.merge_line"),
    "a merge of unknown tokens": (_merges(lambda ls: ls[:1] + ["zzq yy"] + ls[1:]), "gpt2.tokenizer_invalid"),
    "a merge twice": (_merges(lambda ls: ls + [ls[1]]), "gpt2.tokenizer_invalid"),
    "a merge with NUL": (_merges(lambda ls: ls[:1] + ["\x00 a"] + ls[1:]), "gpt2.tokenizer_invalid"),
    "a merge of a megabyte": (
        _merges(lambda ls: ls[:1] + ["a" * 10**6 + " b"] + ls[1:]),
        "gpt2.tokenizer_invalid",
    ),
    "merges not UTF-8": (_merges(lambda ls: ls[:1] + ["\ud800 a"] + ls[1:]), "files.no_encoding"),
    "config nested deeply": (
        lambda f: (f / "config.json").write_text('{"a":' * 50_000 + "1" + "}" * 50_000),
        "files.json_nested",
    ),
    "config not UTF-8": (
        lambda f: (f / "config.json").write_bytes(b"\xff" + (f / "config.json").read_bytes()),
        "files.encoding",
    ),
    "config a list": (lambda f: (f / "config.json").write_text("[]"), "gpt2.not_object"),
}


def _tokenizer_config(value):
    return lambda f: (f / "tokenizer_config.json").write_text(json.dumps(value), encoding="utf-8")


def _tokenizer_json(change):
    """tokenizer.json (the library's one-file form, read before vocab.json) of the same tables, changed."""

    def apply(folder: Path) -> None:
        vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        merges = [line for line in (folder / "merges.txt").read_text(encoding="utf-8").split("\n")[1:] if line]
        d = {
            "model": {"type": "BPE", "vocab": vocab, "merges": merges},
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False},
            "added_tokens": [],
        }
        change(d)
        (folder / "tokenizer.json").write_text(json.dumps(d), encoding="utf-8")

    return apply


def _index(weight_map):
    """The weights as one shard named by model.safetensors.index.json's `weight_map`."""

    def apply(folder: Path) -> None:
        (folder / "model.safetensors").rename(folder / "s1.safetensors")
        (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))

    return apply


TOKENIZER_FILES |= {
    "added_tokens_decoder a list": (_tokenizer_config({"added_tokens_decoder": []}), "gpt2.field"),
    "an added id that is no number": (
        _tokenizer_config({"added_tokens_decoder": {"x": {"content": "a"}}}),
        "gpt2.field",
    ),
    "an added id negative": (_tokenizer_config({"added_tokens_decoder": {"-1": {"content": "z"}}}), "gpt2.field"),
    "bos_token a number": (_tokenizer_config({"bos_token": 5}), "gpt2.field"),
    "bos_token's content a number": (_tokenizer_config({"bos_token": {"content": 5}}), "gpt2.field"),
    "extra_special_tokens a number": (_tokenizer_config({"extra_special_tokens": 5}), "gpt2.field"),
    "a special token with a lone surrogate": (
        _tokenizer_config({"bos_token": "\ud800"}),
        "gpt2.tokenizer_invalid",
    ),
    "tokenizer.json an id true": (
        _tokenizer_json(lambda d: d["model"]["vocab"].update({"Ġt": True})),
        "gpt2.vocab_shape",
    ),
    "tokenizer.json model a list": (_tokenizer_json(lambda d: d.update(model=[1])), "gpt2.field"),
    "tokenizer.json pre_tokenizer a list": (_tokenizer_json(lambda d: d.update(pre_tokenizer=[1])), "gpt2.field"),
    "tokenizer.json merges of numbers": (
        _tokenizer_json(lambda d: d["model"].update(merges=[1, 2])),
        "gpt2.field",
    ),
    "tokenizer.json an added token without id": (
        _tokenizer_json(lambda d: d.update(added_tokens=[{"content": "x"}])),
        "gpt2.field",
    ),
    "tokenizer.json an added id 1.5": (
        _tokenizer_json(lambda d: d.update(added_tokens=[{"content": "x", "id": 1.5}])),
        "gpt2.field",
    ),
    "tokenizer.json added_tokens a number": (_tokenizer_json(lambda d: d.update(added_tokens=5)), "gpt2.field"),
    "tokenizer.json an id a string": (
        _tokenizer_json(lambda d: d["model"]["vocab"].update({"Ġt": "1"})),
        "gpt2.vocab_shape",
    ),
    "index weight_map a list": (_index([]), "gpt2.no_shards"),
    "index a shard a list": (_index({"a": ["x"]}), "gpt2.shard_name"),
    "index a shard a number": (_index({"a": 5}), "gpt2.shard_name"),
    "index a shard outside the folder": (_index({"a": "../hf/s1.safetensors"}), "gpt2.shard_name"),
    "index a shard at an absolute path": (_index({"a": "/etc/passwd"}), "gpt2.shard_name"),
    "index a shard with NUL": (_index({"a": "s1\x00"}), "gpt2.shard_name"),
}


def _bin(change):
    """The weights as an old-style pytorch_model.bin (torch.save of the state dict), changed."""

    def apply(folder: Path) -> None:
        tensors = load_file(str(folder / "model.safetensors"))
        (folder / "model.safetensors").unlink()
        torch.save(change(tensors), folder / "pytorch_model.bin")

    return apply


TOKENIZER_FILES |= {
    "pytorch_model.bin of integers": (
        _bin(lambda t: {**t, WTE: t[WTE].to(torch.int64)}),
        "gpt2.weight_dtype",
    ),
    "pytorch_model.bin with NaN": (_bin(lambda t: {**t, WTE: t[WTE].fill_(float("nan"))}), "gpt2.weight_finite"),
    "pytorch_model.bin holding a string": (_bin(lambda t: {**t, "note": "x"}), "gpt2.bin_not_state"),
    "pytorch_model.bin a list": (_bin(lambda t: list(t.values())), "gpt2.bin_not_state"),
    "pytorch_model.bin truncated": (
        lambda f: (
            _bin(lambda t: t)(f),
            (f / "pytorch_model.bin").write_bytes((f / "pytorch_model.bin").read_bytes()[:999]),
        ),
        "gpt2.bin_refused",
    ),
}


def test_the_tokenizer_json_and_index_forms_import_when_undamaged(source, tmp_path):
    folder = _copy(source, tmp_path / "a")
    _tokenizer_json(lambda d: None)(folder)
    _index({"wte.weight": "s1.safetensors"})(folder)
    code, error, out = _import(folder)
    assert code == 0 and (out / "tokenizer.json").is_file(), error


@pytest.mark.parametrize("damage", sorted(TOKENIZER_FILES))
def test_damaged_tokenizer_and_config_files_are_one_clear_line(source, tmp_path, damage):
    folder = _copy(source, tmp_path)
    change, key = TOKENIZER_FILES[damage]
    change(folder)
    code, error, _ = _import(folder)
    assert code != 0 and error.key == key, error.key


def test_a_refused_import_leaves_an_existing_empty_out_empty(source, tmp_path):
    folder = _copy(source, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "n_head": True}))
    (tmp_path / "run").mkdir()
    code, _, err, error = cli_error(["import", "gpt2", str(folder), "--out", str(tmp_path / "run")])
    assert code == 1 and error.code == "gpt2.lacks_numbers" and error.fields["missing"] == "n_head", err
    assert list((tmp_path / "run").iterdir()) == []


@pytest.mark.parametrize(
    "config, field",
    [
        ({"bos_token": 5}, "bos_token"),
        ({"eos_token": {"content": [1]}}, "eos_token"),
        ({"extra_special_tokens": ["<a>", 7]}, "extra_special_tokens[1]"),
        ({"extra_special_tokens": {"sep": 7}}, "extra_special_tokens['sep']"),
    ],
)
def test_a_special_token_of_the_wrong_kind_is_named_by_its_field(source, tmp_path, config, field):
    folder = _copy(source, tmp_path)
    _tokenizer_config(config)(folder)
    code, error, _ = _import(folder)
    assert code != 0 and error.code == "gpt2.field" and error.fields["field"] == field, error.fields

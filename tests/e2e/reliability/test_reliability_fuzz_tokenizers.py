"""Issue 27's "no internal error from any input", for a run's tokenizer.json: every field of the four
saved tokenizers (char, word, byte-level BPE, GPT-2's BPE) given values of every kind — wrong types,
empty and huge sizes, duplicated tokens, ids out of range or negative, non-finite numbers, lone
surrogates, malformed merge pairs — and whole files nested too deeply or not UTF-8. The promise,
driven through `sample`, `trace` and explore's loader: the run samples as saved (what was read is what
the file says, nothing coerced), or one line naming a catalogue key, the run's files untouched."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from fuzz_kit import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from reliability_kit import FILE_ERRORS, assert_clean_failure, cli, cli_error, snapshot, train_argv

from glassformer.errors import GlassformerError
from glassformer.text.bpe import BYTE_TO_CHAR, MAX_TABLE_BYTES, N_BYTES
from glassformer.text.gpt2_bpe import GPT2BPETokenizer
from glassformer.text.tokenizers import WordTokenizer, load_tokenizer

# the keys a damaged tokenizer.json may end in; "error.tokenizer.damaged" (a Python error caught as a
# backstop) is not one: every kind of damage has a typed error of its own
KEYS = {"tokenizer.invalid", "tokenizer.kind", "run.vocab"}
VALUES = st.one_of(
    st.sampled_from(
        ["16", "", "\ud800", "a b", "<|endoftext|>", None, True, False, 0, -1, 1.5, 1e-310, 10**40, -(2**63)]
    ),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([[], {}, [16], {"a": 1}, [None], ["a", "a"], ["\ud800"], [" "], ["ab"], [1.5], {"0": "a"}]),
    st.sampled_from([[[1]], [[-1, 2]], [[0, 0, 0]], [[10**30, 1]], [[True, 1]], [[1.5, 2]], [["a", "b"]]]),
    st.sampled_from([[[256, 256]], [[N_BYTES + 10**6, 0]], [[float("nan"), 1]], ["a b c"], ["ab"], ["a  b"]]),
)


@pytest.fixture(scope="session")
def runs(tiny_run, tmp_path_factory):
    """kind -> a run directory whose tokenizer.json is of that kind and fits its weights: the tiny
    char run; the same weights with a 21-word vocabulary (4 specials + 21 = its 25 rows); a 2-step
    byte-level BPE run of 262 tokens; and those weights with GPT-2's form of the same 262 tokens."""
    run, cache = tiny_run
    root = tmp_path_factory.mktemp("tokenizer_runs")
    out = {"char": run}
    out["word"] = root / "word"
    shutil.copytree(run, out["word"])
    words = ["a", *(f"w{i}" for i in range(load_tokenizer(run / "tokenizer.json").vocab_size - 5))]
    WordTokenizer(words).save(out["word"] / "tokenizer.json")
    code, _, err = cli(train_argv(root / "bpe", cache, 2, "--tokenizer", "bpe", "--vocab-size", "262"))
    assert code == 0, err
    out["bpe"], out["gpt2-bpe"] = root / "bpe", root / "gpt2"
    shutil.copytree(root / "bpe", out["gpt2-bpe"])
    bpe = load_tokenizer(root / "bpe" / "tokenizer.json")
    spelled = ["".join(BYTE_TO_CHAR[b] for b in token) for token in bpe.token_bytes]
    gpt2 = GPT2BPETokenizer(spelled, [(spelled[a], spelled[b]) for a, b in bpe.merges])
    gpt2.save(out["gpt2-bpe"] / "tokenizer.json")
    out["bpe-hf"] = root / "bpe-hf"  # the same merges, encoded by the tokenizers library
    shutil.copytree(root / "bpe", out["bpe-hf"])
    saved = json.loads((out["bpe-hf"] / "tokenizer.json").read_text())
    (out["bpe-hf"] / "tokenizer.json").write_text(json.dumps({**saved, "kind": "bpe-hf"}))
    for kind, folder in out.items():
        assert json.loads((folder / "tokenizer.json").read_text())["kind"] == kind
    return out


def _sample(run: Path) -> list[str]:
    return ["sample", str(run), "--prompt", "a", "--max-new-tokens", "2", "--seed", "0", "--threads", "1"]


def _assert_refused_by_key(run: Path, before: dict, argv: list[str] | None = None) -> GlassformerError:
    """The command fails in one line with a catalogue key (the exit code its class says), and
    leaves the run's files as they were."""
    code, out, err, error = cli_error(argv or _sample(run))
    assert code != 0, "a damaged tokenizer.json sampled"
    assert isinstance(error, GlassformerError), f"{type(error).__name__}: {error}"
    assert code == error.exit_code
    assert_clean_failure(code, err, codes=(1, 2))
    assert len(err.strip().splitlines()) == 1 and out == ""
    assert snapshot(run) == before
    return error


def _typed(error: GlassformerError) -> None:
    """A tokenizer error's key is one of KEYS, naming the file; an invalid one says why by a key too."""
    assert error.key in KEYS or error.key in FILE_ERRORS, error.key
    assert Path(error.fields["path"]).name == "tokenizer.json"
    if error.code == "tokenizer.invalid":
        assert isinstance(error.fields["detail"], GlassformerError), error.fields["detail"]


def _fields(kind: str) -> list[str]:
    return {
        "char": ["kind", "chars", "unk"],
        "word": ["kind", "specials", "segment", "words"],
        "bpe": ["kind", "pattern", "merges"],
        "bpe-hf": ["kind", "pattern", "merges"],
        "gpt2-bpe": ["kind", "pretokenizer", "tokens", "merges", "specials"],
    }[kind]


@pytest.mark.parametrize("kind", ["char", "word", "bpe", "bpe-hf", "gpt2-bpe"])
@FUZZ
@given(data=st.data(), value=VALUES, whole=st.booleans())
def test_any_value_in_any_tokenizer_field_samples_as_saved_or_is_one_clear_line(
    runs, tmp_path_factory, kind, data, value, whole
):
    saved = json.loads((runs[kind] / "tokenizer.json").read_text())
    field = data.draw(st.sampled_from(_fields(kind)))
    changed = copy.deepcopy(saved)
    if whole or not isinstance(saved.get(field), list) or not saved[field]:
        changed[field] = value  # the whole field
    else:
        changed[field][data.draw(st.sampled_from([0, -1]))] = value  # one item of it
    run = tmp_path_factory.mktemp("run") / "run"
    shutil.copytree(runs[kind], run)
    (run / "tokenizer.json").write_text(json.dumps(changed), encoding="utf-8")
    before = snapshot(run)
    code, out, err, error = cli_error(_sample(run))
    if code == 0:  # loaded: then exactly as the file says, nothing coerced (0 for false, "16" as ["1", "6"])
        read = {"kind": kind, **load_tokenizer(run / "tokenizer.json").to_dict()}
        compared = [k for k in changed if not (k == "tokens" and kind in ("bpe", "bpe-hf"))]  # BPE's: derived
        as_read, as_written = ({k: d[k] for k in compared} for d in (read, changed))
        assert json.dumps(as_read) == json.dumps(as_written), f"{field}={value!r} was read as something else"
        assert snapshot(run) == before
        return
    _typed(_assert_refused_by_key(run, before))


WHOLE_FILES = {
    "nested arrays": ("[" * 50_000 + "]" * 50_000).encode(),
    "nested objects": ('{"a":' * 50_000 + "1" + "}" * 50_000).encode(),
    "not UTF-8": b'{"kind": "char", "chars": ["\xff"], "unk": false}',
    "a list": b"[]",
    "null": b"null",
    "empty": b"",
    "a number of 5000 digits": b'{"kind": "char", "chars": ["a"], "unk": ' + b"1" * 5000 + b"}",
    "a lone surrogate escaped": b'{"kind": "gpt2-bpe", "tokens": ["\\ud800"], "merges": [], "specials": ["\\ud800"]}',
    "no kind": b'{"chars": ["a"], "unk": false}',
    "a list for its kind": b'{"kind": [], "chars": ["a"], "unk": false}',
}


@pytest.mark.parametrize("name", sorted(WHOLE_FILES))
def test_a_tokenizer_file_of_any_form_is_one_clear_line_in_sample_trace_and_explore(runs, tmp_path, name):
    from glassformer.explore.server import open_run

    run = tmp_path / "run"
    shutil.copytree(runs["char"], run)
    (run / "tokenizer.json").write_bytes(WHOLE_FILES[name])
    before = snapshot(run)
    keys = set()
    for argv in (_sample(run), ["trace", "--run", str(run), "--prompt", "a", "--threads", "1"]):
        error = _assert_refused_by_key(run, before, argv)
        _typed(error)
        keys.add(error.key)
    with pytest.raises(GlassformerError) as opened:
        open_run(run)  # explore's loader: the same error as the command line's
    assert {opened.value.key} == keys
    assert snapshot(run) == before


def test_merges_that_double_a_token_are_refused_before_the_bytes_are_built(runs, tmp_path):
    """(97, 97) then (256, 256), (257, 257), ...: 45 merges would spell 2**46 bytes (64 TiB)."""
    run = tmp_path / "run"
    shutil.copytree(runs["bpe"], run)
    saved = json.loads((run / "tokenizer.json").read_text())
    saved["merges"] = [[97, 97]] + [[N_BYTES + i, N_BYTES + i] for i in range(45)]
    (run / "tokenizer.json").write_text(json.dumps(saved))
    before = snapshot(run)
    error = _assert_refused_by_key(run, before)
    assert error.code == "tokenizer.invalid"
    detail = error.fields["detail"]
    assert detail.code == "bpe.too_big" and detail.fields["limit"] == MAX_TABLE_BYTES
    assert detail.fields["size"] > 2**46


@pytest.mark.parametrize(
    ("kind", "field", "value", "inner"),
    [
        ("char", "unk", 0, ("tokenizer.field", "unk")),
        ("char", "chars", ["a", 7], ("tokenizer.field", "chars[1]")),
        ("bpe", "merges", [[True, 1]], ("tokenizer.field", "merges[0]")),
        ("bpe", "merges", [["32", "116"]], ("tokenizer.field", "merges[0]")),
        ("gpt2-bpe", "specials", "16", ("tokenizer.field", "specials")),
        ("gpt2-bpe", "merges", [7], ("tokenizer.field", "merges[0]")),
        ("word", "specials", 5, ("tokenizer.field", "specials")),
        ("word", "words", None, ("tokenizer.field", "words")),
    ],
)
def test_a_field_of_the_wrong_type_is_named(runs, tmp_path, kind, field, value, inner):
    run = tmp_path / "run"
    shutil.copytree(runs[kind], run)
    saved = json.loads((run / "tokenizer.json").read_text())
    saved[field] = value
    (run / "tokenizer.json").write_text(json.dumps(saved))
    error = _assert_refused_by_key(run, snapshot(run))
    assert error.code == "tokenizer.invalid" and error.fields["kind"] == kind
    assert (error.fields["detail"].key, error.fields["detail"].fields["field"]) == inner


def test_a_special_token_that_utf8_cannot_hold_is_named(runs, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(runs["gpt2-bpe"], run)
    saved = json.loads((run / "tokenizer.json").read_text())
    saved["tokens"][-1], saved["specials"] = "\ud800", ["\ud800"]
    (run / "tokenizer.json").write_text(json.dumps(saved))
    error = _assert_refused_by_key(run, snapshot(run))
    assert error.fields["detail"].code == "gpt2.special_text"


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_a_vocabulary_far_bigger_than_the_weights_rows_is_named_with_both_sizes(runs, tmp_path, kind):
    run = tmp_path / "run"
    shutil.copytree(runs[kind], run)
    saved = json.loads((run / "tokenizer.json").read_text())
    n = 20_000
    if kind == "char":
        saved["chars"] = [chr(0x4E00 + i) for i in range(n)]  # 20,000 CJK characters
    elif kind == "word":
        saved["words"] = [f"w{i}" for i in range(n)]
    else:  # a chain of merges: token 256 + i spells i + 2 bytes, 200 MB in all: refused before it is built
        saved["merges"] = [[97, 97]] + [[N_BYTES + i, 97] for i in range(n)]
    (run / "tokenizer.json").write_text(json.dumps(saved))
    error = _assert_refused_by_key(run, snapshot(run))
    if kind == "bpe":
        assert (error.code, error.fields["detail"].code) == ("tokenizer.invalid", "bpe.too_big")
    else:
        rows = load_tokenizer(runs[kind] / "tokenizer.json").vocab_size
        assert (error.code, error.fields["vocab_size"]) == ("run.vocab", rows)
        assert error.fields["tokens"] == n + (4 if kind == "word" else 0)


def test_a_word_listed_twice_is_refused_not_dropped(runs, tmp_path):
    """21 words + a repeat: dropped, the vocabulary would still fit the weights' 25 rows, every id after it shifted."""
    run = tmp_path / "run"
    shutil.copytree(runs["word"], run)
    saved = json.loads((run / "tokenizer.json").read_text())
    saved["words"] = saved["words"][:1] + saved["words"][:1] + saved["words"][1:]  # "a" twice
    (run / "tokenizer.json").write_text(json.dumps(saved))
    error = _assert_refused_by_key(run, snapshot(run))
    assert (error.fields["detail"].code, error.fields["detail"].fields) == ("tokenizer.word_twice", {"word": "a"})

"""GPT-2's byte-level BPE (text/gpt2_bpe.py) against transformers' GPT2Tokenizer, on the same files.

The reference is transformers' own GPT-2 tokenizer loaded from vocab.json + merges.txt; ours reads
the same files (read_tokenizer_dir, write_tokenizer_dir). Ids must be equal on English, Chinese, emoji, whitespace runs,
the special token and random Unicode; our written-out encoder (show_work) must agree with both.
"""

from __future__ import annotations

import json

import pytest
from gpt2_kit import CORPUS, TEXTS, train_tokenizer, transformers
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.errors import DamagedFile, UsageError
from glassformer.text.bpe import BYTE_TO_CHAR
from glassformer.text.gpt2_bpe import GPT2BPETokenizer, read_tokenizer_dir, write_tokenizer_dir
from glassformer.text.tokenizers import load_tokenizer


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return train_tokenizer(tmp_path_factory.mktemp("gpt2_tok"))


@pytest.fixture(scope="module")
def ours(files):
    return read_tokenizer_dir(files)


@pytest.fixture(scope="module")
def theirs(files):
    return transformers.GPT2Tokenizer.from_pretrained(files)


@pytest.mark.parametrize("name", TEXTS)
def test_ids_equal_transformers_gpt2_tokenizer(name, ours, theirs):
    text = TEXTS[name]
    ids = ours.encode(text)
    assert ids == theirs(text)["input_ids"]
    assert ours.show_work(text)["ids"] == ids  # the written-out merges give the library's ids
    assert ours.decode(ids) == text == theirs.decode(ids)


def test_the_special_token_is_one_id_and_merges_really_happen(ours):
    eot = ours.id_of["<|endoftext|>"]
    assert ours.encode("a<|endoftext|>b").count(eot) == 1
    work = ours.show_work(" the cat")
    assert work["pieces"] == ["Ġthe", "Ġcat"] and work["tokens"] == ["Ġthe", "Ġcat"]
    assert [m["as_text"] for m in work["merges"] if m["piece"] == 0][0] in {("Ġ", "t"), ("t", "h"), ("h", "e")}
    assert len(ours.encode(CORPUS[:300])) < len(CORPUS[:300].encode("utf-8")) / 3  # BPE compresses its own text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60))
def test_random_unicode_ids_equal(ours, theirs, text):
    assert ours.encode(text) == theirs(text)["input_ids"] == ours.show_work(text)["ids"]
    assert ours.decode(ours.encode(text)) == text


def test_saved_and_loaded_in_a_run_gives_the_same_ids(ours, tmp_path):
    ours.save(tmp_path / "tokenizer.json")
    again = load_tokenizer(tmp_path / "tokenizer.json")
    assert isinstance(again, GPT2BPETokenizer) and again.vocab_size == ours.vocab_size
    for text in TEXTS.values():
        assert again.encode(text) == ours.encode(text)


def test_written_files_load_in_transformers(ours, tmp_path):
    write_tokenizer_dir(ours, tmp_path, max_len=32)
    hf = transformers.GPT2Tokenizer.from_pretrained(tmp_path)
    assert hf.model_max_length == 32 and hf.eos_token == "<|endoftext|>"
    for text in TEXTS.values():
        assert hf(text)["input_ids"] == ours.encode(text)
    assert read_tokenizer_dir(tmp_path).tokens == ours.tokens  # and back


def test_tokenizer_json_alone_is_read_too(theirs, ours, tmp_path):
    """transformers 5 saves only tokenizer.json (+ tokenizer_config.json)."""
    theirs.save_pretrained(tmp_path)
    assert not (tmp_path / "vocab.json").exists() and (tmp_path / "tokenizer.json").exists()
    again = read_tokenizer_dir(tmp_path)
    assert again.tokens == ours.tokens and again.merges == ours.merges and again.specials == ours.specials


def _rewrite(path, change):
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    "field, change",
    [
        ("add_prefix_space", lambda d: d.update(add_prefix_space=True)),
        ("add_bos_token", lambda d: d.update(add_bos_token=True)),
    ],
)
def test_config_options_that_change_the_ids_are_refused(field, change, files, tmp_path):
    for name in ("vocab.json", "merges.txt"):
        (tmp_path / name).write_bytes((files / name).read_bytes())
    (tmp_path / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    _rewrite(tmp_path / "tokenizer_config.json", change)
    with pytest.raises(UsageError, match=field):
        read_tokenizer_dir(tmp_path)


@pytest.mark.parametrize(
    "field, change",
    [
        ("pre_tokenizer.add_prefix_space", lambda d: d["pre_tokenizer"].update(add_prefix_space=True)),
        ("normalizer", lambda d: d.update(normalizer={"type": "NFC"})),
        ("model.type", lambda d: d["model"].update(type="WordPiece")),
    ],
)
def test_tokenizer_json_variants_are_refused(field, change, theirs, tmp_path):
    theirs.save_pretrained(tmp_path)
    _rewrite(tmp_path / "tokenizer.json", change)
    with pytest.raises(UsageError, match=field):
        read_tokenizer_dir(tmp_path)


def test_broken_tables_are_refused_naming_the_problem(files, tmp_path):
    vocab = json.loads((files / "vocab.json").read_text(encoding="utf-8"))
    merges = (files / "merges.txt").read_text(encoding="utf-8").split("\n")[1:]
    for name in ("vocab.json", "merges.txt"):
        (tmp_path / name).write_bytes((files / name).read_bytes())
    (tmp_path / "merges.txt").write_text("#version: 0.2\n" + "\n".join(["x y z", *merges]), encoding="utf-8")
    with pytest.raises(DamagedFile) as caught:
        read_tokenizer_dir(tmp_path)
    fields = caught.value.fields
    assert (caught.value.code, fields["path"], fields["n"], fields["line"]) == (
        "gpt2.merge_line",
        tmp_path / "merges.txt",
        2,
        "x y z",
    )
    tokens = sorted(vocab, key=vocab.get)
    with pytest.raises(ValueError) as caught:
        GPT2BPETokenizer([t for t in tokens if t != BYTE_TO_CHAR[7]], [])
    fields = caught.value.fields
    assert (caught.value.code, fields["n"], fields["n_bytes"]) == ("gpt2.bytes_missing", 1, 256)
    with pytest.raises(ValueError) as caught:
        GPT2BPETokenizer(tokens, [("Ġ", "§")])
    assert caught.value.code == "gpt2.merge_bad" and caught.value.fields == {"rank": 0, "merge": "Ġ §"}
    with pytest.raises(ValueError) as caught:
        GPT2BPETokenizer(tokens, [], specials=["<pad>"])
    assert (caught.value.code, caught.value.fields) == ("gpt2.specials_absent", {"tokens": ["<pad>"]})


def test_pieces_are_gpt2s_pattern_as_openais_encoder_wrote_it(ours):
    """Step 2 against a reference that shares no code with ours or transformers: GPT-2's pattern run
    by the `regex` module (as OpenAI's encoder.py runs it), each piece spelled in the byte alphabet."""
    regex = pytest.importorskip("regex")
    pattern = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
    for name, text in TEXTS.items():
        expected = []
        for part in text.split("<|endoftext|>"):
            expected += ["".join(BYTE_TO_CHAR[b] for b in piece.encode("utf-8")) for piece in pattern.findall(part)]
            expected.append("<|endoftext|>")
        expected = [p for p in expected[:-1] if p]
        assert ours.show_work(text)["pieces"] == expected, name

"""tokenizers.py's outputs whole: the saved file's exact text (UTF-8, or \\u escapes around a lone
surrogate), each refusal of load_tokenizer and of the constructors word for word, the unseen-character
message at its edges (20 shown, the 21st counted), the code-point table's edge, reprs and dicts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from glassformer.errors import DamagedFile, UsageError, WrongType
from glassformer.text import tokenizers
from glassformer.text.tokenizers import CharTokenizer, WordTokenizer, load_tokenizer

FIX = "It is written beside the ids it made (a run directory, a prepared corpus); restore it from a copy."


def test_save_writes_one_utf8_json_line_with_the_kind_first(tmp_path):
    CharTokenizer(["a", "世", "\ud7ff", "\ue000"]).save(tmp_path / "c.json")
    assert (tmp_path / "c.json").read_text(encoding="utf-8") == (
        '{"kind": "char", "chars": ["a", "世", "\ud7ff", "\ue000"], "unk": false}\n'
    )
    WordTokenizer(["你好", "hi"], segment="jieba").save(tmp_path / "w.json")
    assert (tmp_path / "w.json").read_text(encoding="utf-8") == (
        '{"kind": "word", "specials": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"], "segment": "jieba", '
        '"words": ["你好", "hi"]}\n'
    )


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff"])
def test_a_lone_surrogate_is_saved_as_an_escape_and_read_back(tmp_path, surrogate):
    tok = CharTokenizer(["a", surrogate, "世"])
    tok.save(tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    assert text == json.dumps({"kind": "char", "chars": ["a", surrogate, "世"], "unk": False}) + "\n"
    assert "\\u4e16" in text  # the whole file is escaped then, not only the surrogate
    back = load_tokenizer(tmp_path / "t.json")
    assert back.chars == ["a", surrogate, "世"] and back.encode(surrogate + "a") == [1, 0]


def test_load_tokenizer_names_an_unknown_kind_and_a_damaged_description(tmp_path, monkeypatch):
    monkeypatch.setattr(tokenizers, "TOKENIZER_KINDS", {"word": WordTokenizer, "char": CharTokenizer})
    path = tmp_path / "t.json"
    for text, kind in (('{"kind": "sentencepiece"}', "'sentencepiece'"), ("[1, 2]", "None"), ("{}", "None")):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(DamagedFile) as caught:
            load_tokenizer(path)
        assert str(caught.value) == f"{path}: unknown tokenizer kind {kind}; known kinds: ['char', 'word']. {FIX}"
    for d, error in (
        ({"chars": ["a"]}, "KeyError: 'unk'"),
        ({"chars": [], "unk": False}, "UsageError: a character vocabulary needs at least one character."),
        ({"chars": 5, "unk": False}, "TypeError: 'int' object is not iterable"),
        ({"chars": ["a"], "unk": False, "extra": 1}, None),
    ):
        path.write_text(json.dumps({"kind": "char", **d}), encoding="utf-8")
        if error is None:
            assert load_tokenizer(path).chars == ["a"]  # extra fields are ignored
            continue
        with pytest.raises(DamagedFile) as caught:
            load_tokenizer(path)
        assert str(caught.value) == f"{path} is damaged: it does not describe a char tokenizer ({error}). {FIX}"
    path.write_text(json.dumps({"kind": "word", "specials": None, "words": ["a"]}), encoding="utf-8")
    with pytest.raises(DamagedFile, match=r"does not describe a word tokenizer \(TypeError: "):
        load_tokenizer(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(DamagedFile) as caught:
        load_tokenizer(path)
    assert str(caught.value).endswith(FIX)


@pytest.mark.parametrize(
    "chars, key",
    [
        ([], "error.tokenizer.no_chars"),
        (["a", "bc"], "error.tokenizer.chars"),
        (["a", ""], "error.tokenizer.chars"),
        (["a", "b", "a"], "error.tokenizer.chars"),
    ],
)
def test_char_tokenizer_refuses_a_bad_character_list(chars, key):
    with pytest.raises(UsageError) as caught:
        CharTokenizer(chars)
    assert caught.value.key == key and caught.value.fields == {}


def unseen(tok, text) -> str:
    with pytest.raises(ValueError) as caught:
        tok.encode(text)
    return str(caught.value)


def test_the_unseen_message_whole_at_twenty_and_twenty_one_characters():
    tok = CharTokenizer(["a", "c"])
    twenty = "".join(chr(0x4E00 + i) for i in range(20))
    shown = ", ".join(repr(c) for c in twenty)
    assert unseen(tok, "a" + twenty + twenty) == (
        f"20 character(s) not in the vocabulary (2 chars): {shown}. Rebuild the vocabulary from text that contains "
        "them (CharTokenizer.from_text), or build it with unk=True to map unseen characters to <unk>."
    )
    assert unseen(tok, twenty + "z").startswith(
        f"21 character(s) not in the vocabulary (2 chars): {shown} and 1 more. Rebuild"
    )
    # inside the code-point table (b), just past its end (d), far beyond it: all unseen
    assert unseen(tok, "d\U0010ffffb").startswith(
        "3 character(s) not in the vocabulary (2 chars): 'd', '\\U0010ffff', 'b'. "
    )  # repr escapes it


def test_unk_mode_maps_every_unseen_character_and_keeps_int64():
    tok = CharTokenizer.from_chunks(["ca", "b"], unk=True)
    assert tok.chars == ["a", "b", "c"] and tok.unk_id == 3
    ids = tok.encode_array("abdz\U0010ffffc")
    assert ids.dtype == np.int64 and ids.tolist() == [0, 1, 3, 3, 3, 2]
    assert tok.show_work("ad") == {
        "tokenizer": "char",
        "text": "ad",
        "pieces": ["a", "d"],
        "code_points": [97, 100],
        "ids": [0, 3],
        "lookups": [("a", 0), ("d", 3)],
        "unknown": ["d"],
        "decoded": "a<unk>",
        "vocab_size": 4,
    }
    plain = CharTokenizer.from_text("ba")
    assert plain.unk_id is None and plain.show_work("ab")["unknown"] == []
    assert CharTokenizer.from_chunks(["ba"]).unk_id is None


def test_char_dicts_and_repr():
    tok = CharTokenizer.from_text("ba", unk=True)
    assert tok.to_dict() == {"chars": ["a", "b"], "unk": True}
    assert CharTokenizer.from_dict({"chars": ["a", "b"], "unk": True}).vocab_size == 3
    assert repr(tok) == "CharTokenizer(vocab_size=3, unk=True)"
    assert repr(CharTokenizer(["x"])) == "CharTokenizer(vocab_size=1, unk=False)"
    assert CharTokenizer.safe_cut("abc") == 3


def test_ids_out_of_range_are_named_at_both_ends():
    tok = CharTokenizer(["a", "b"])
    assert tok.decode([0, 1]) == "ab"
    with pytest.raises(UsageError) as caught:
        tok.decode([2, -1, 0, 2])
    assert (caught.value.key, caught.value.fields) == ("error.tokenizer.id_range", {"vocab_size": 2, "ids": [-1, 2]})
    with pytest.raises(UsageError) as caught:
        tok.decode(list(range(-25, 0)))
    assert caught.value.fields == {"vocab_size": 2, "ids": list(range(-25, -5))}  # the first 20


def test_word_tokenizer_refusals_whole():
    with pytest.raises(TypeError) as caught:  # WrongType is a TypeError
        WordTokenizer("i love you")
    assert isinstance(caught.value, WrongType) and caught.value.key == "error.tokenizer.words_str"
    for bad in ("two words", "", "tab\there"):
        with pytest.raises(ValueError) as caught:
            WordTokenizer(["ok", bad])
        assert (caught.value.key, caught.value.fields) == ("error.tokenizer.word", {"word": bad})
    with pytest.raises(DamagedFile) as caught:
        WordTokenizer.from_dict({"specials": ["<PAD>"], "words": ["a"]})
    assert (caught.value.key, caught.value.fields) == (
        "error.tokenizer.specials",
        {"found": ["<PAD>"], "want": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"]},
    )
    tok = WordTokenizer(["i"])
    with pytest.raises(UsageError) as caught:
        tok.pad([4, 4, 4], 2)
    assert (caught.value.key, caught.value.fields) == ("error.tokenizer.pad", {"n": 3, "length": 2})
    assert tok.pad([4, 4], 2) == [4, 4] and tok.pad([], 1) == [0]


def test_word_show_work_dicts_and_repr_keep_the_segmenter(monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(tokenizers, "_jieba", lambda: SimpleNamespace(cut=str.split))  # loading jieba takes 2 s
    tok = WordTokenizer.from_chunks(["b a ", "c"])
    assert tok.segment == "whitespace" and tok.words == ["a", "b", "c"]
    assert WordTokenizer.from_text("x y").segment == "whitespace"
    assert WordTokenizer.from_text("x y", segment="jieba").segment == "jieba"
    assert tok.show_work("a zz", add_eos=True) == {
        "tokenizer": "word",
        "text": "a zz",
        "segment": "whitespace",
        "pieces": ["a", "zz"],
        "lookups": [("a", 4), ("zz", 1)],
        "unknown": ["zz"],
        "ids": [4, 1, 3],
        "tokens": ["a", "<UNK>", "<EOS>"],
        "decoded": "a <UNK> <EOS>",
        "vocab_size": 7,
    }
    assert tok.to_dict() == {
        "specials": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"],
        "segment": "whitespace",
        "words": ["a", "b", "c"],
    }
    assert repr(tok) == "WordTokenizer(vocab_size=7, segment='whitespace')"
    assert WordTokenizer.from_dict({"words": ["a"], "segment": "jieba"}).segment == "jieba"
    assert tok.decode([4, 3, 5], skip_special=True) == "a b" and tok.decode([4, 3, 5]) == "a <EOS> b"


def test_only_a_class_that_names_its_own_kind_is_registered(monkeypatch):
    monkeypatch.setattr(tokenizers, "TOKENIZER_KINDS", dict(tokenizers.TOKENIZER_KINDS))

    class Tweaked(CharTokenizer):  # inherits kind "char": must not take CharTokenizer's place
        pass

    class Own(CharTokenizer):
        kind = "test-own"

    assert tokenizers.TOKENIZER_KINDS["char"] is CharTokenizer and tokenizers.TOKENIZER_KINDS["test-own"] is Own
    assert Tweaked not in tokenizers.TOKENIZER_KINDS.values()
    ids = WordTokenizer(["a"]).encode_array("a b a")  # the default encode_array
    assert ids.dtype == np.int64 and ids.tolist() == [4, 1, 4]
    assert WordTokenizer(["a"]).encode_array("").dtype == np.int64  # no ids: still int64, not float64

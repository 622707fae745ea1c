"""Tokenizers: round trips in several scripts, the unseen-character error, <unk>, save/load, word specials."""

import json
import sys

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from glassformer.text import tokenizers
from glassformer.text.tokenizers import CharTokenizer, Tokenizer, WordTokenizer, load_tokenizer

ENGLISH = "To be, or not to be: that is the question.\n"
CHINESE = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
MIXED = "Attention 注意力 is all you need — ça marche 👍\ttab\r\n"


@pytest.mark.parametrize("text", [ENGLISH, CHINESE, MIXED])
def test_char_round_trip(text):
    tok = CharTokenizer.from_text(text)
    ids = tok.encode(text)
    assert len(ids) == len(text)  # one id per character, even for CJK and emoji
    assert tok.decode(ids) == text
    assert tok.vocab_size == len(set(text))
    assert tok.chars == sorted(set(text))  # sorted by code point: deterministic ids


@given(st.text(min_size=1))
def test_char_round_trip_any_unicode(text):
    tok = CharTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == text
    assert tok.encode(text) == [tok.chars.index(c) for c in text]  # the vectorised path = the obvious one


def test_char_decode_accepts_arrays_and_tensors():
    tok = CharTokenizer.from_text(CHINESE)
    ids = tok.encode(CHINESE)
    assert tok.decode(np.array(ids, dtype=np.uint16)) == CHINESE
    assert tok.decode(torch.tensor(ids)) == CHINESE
    with pytest.raises(ValueError, match="out of range"):
        tok.decode([0, -1])  # a negative id must not wrap around to the last character


def test_unseen_characters_error_names_them():
    tok = CharTokenizer.from_text("hello world")
    with pytest.raises(ValueError) as err:
        tok.encode("hello 世界! hello 世界!")
    msg = str(err.value)
    assert "3 character(s) not in the vocabulary" in msg
    assert "'世', '界', '!'" in msg  # repr'd, deduplicated, in order of first appearance
    assert "from_text" in msg and "unk=True" in msg  # says how to fix it


def test_unseen_error_shows_at_most_20():
    tok = CharTokenizer.from_text("a")
    with pytest.raises(ValueError) as err:
        tok.encode("".join(chr(0x4E00 + i) for i in range(30)))
    assert "30 character(s)" in str(err.value) and "and 10 more" in str(err.value)
    assert repr(chr(0x4E00 + 19)) in str(err.value) and repr(chr(0x4E00 + 20)) not in str(err.value)


def test_unk_mode():
    plain = CharTokenizer.from_text("abc")
    tok = CharTokenizer.from_text("abc", unk=True)
    assert tok.vocab_size == 4 and tok.unk_id == 3
    assert tok.encode("abc") == plain.encode("abc")  # <unk> goes last, known ids do not move
    assert tok.encode("aXbé") == [0, 3, 1, 3]
    assert tok.decode(tok.encode("aXb")) == "a<unk>b"


def test_char_show_work():
    tok = CharTokenizer.from_text("abc中", unk=True)
    work = tok.show_work("ca中?")
    assert work["pieces"] == ["c", "a", "中", "?"]
    assert work["code_points"] == [99, 97, 0x4E2D, 63]
    assert work["ids"] == [2, 0, 3, 4]
    assert work["lookups"] == [("c", 2), ("a", 0), ("中", 3), ("?", 4)]
    assert work["unknown"] == ["?"]
    assert work["decoded"] == "ca中<unk>"
    assert work["vocab_size"] == 5
    assert work["text"] == "ca中?" and work["tokenizer"] == tok.kind


@pytest.mark.parametrize(
    "tok",
    [CharTokenizer.from_text(MIXED), CharTokenizer.from_text(CHINESE, unk=True), WordTokenizer(["hi", "you", "you"])],
)
def test_save_load_round_trip(tok, tmp_path):
    path = tmp_path / "tokenizer.json"
    tok.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["kind"] == tok.kind
    back = load_tokenizer(path)
    assert type(back) is type(tok) and back.to_dict() == tok.to_dict()
    assert back.vocab_size == tok.vocab_size
    if "明" in tok.to_dict().get("chars", []):
        assert "明" in path.read_text(encoding="utf-8")  # stored as UTF-8, not \\uXXXX: a reader can check it


def test_load_unknown_kind(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"kind": "sentencepiece"}')
    with pytest.raises(ValueError, match="unknown tokenizer kind 'sentencepiece'.*char.*word"):
        load_tokenizer(path)


def test_new_kind_drops_in(tmp_path, monkeypatch):
    monkeypatch.setattr(tokenizers, "TOKENIZER_KINDS", dict(tokenizers.TOKENIZER_KINDS))  # undone after

    class Later(CharTokenizer):  # stands in for a later tokenizer: only a new kind, no registry edit
        kind = "test-reverse"

    tok = Later(["a", "b"])
    tok.save(tmp_path / "t.json")
    assert isinstance(load_tokenizer(tmp_path / "t.json"), Later)
    assert issubclass(Later, Tokenizer)


def test_word_specials_and_ids():
    words = ["i", "love", "you", "and", "you", "love", "me"]  # duplicates, as in the word-level lesson
    tok = WordTokenizer(words=words)
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert tok.decode([0, 1, 2, 3]) == "<PAD> <UNK> <BOS> <EOS>"
    assert tok.words == ["i", "love", "you", "and", "me"]  # first occurrence kept
    assert tok.vocab_size == 4 + 5
    assert tok.encode("i love you") == [4, 5, 6]
    assert tok.encode("you and me", add_bos=True, add_eos=True) == [2, 6, 7, 8, 3]


def test_word_unknown_and_pad():
    tok = WordTokenizer(["i", "love", "you"])
    assert tok.encode("i love  cats\n") == [4, 5, 1]  # any whitespace splits; unknown word → <UNK>
    assert tok.decode(tok.encode("i love cats")) == "i love <UNK>"
    padded = tok.pad(tok.encode("i love", add_bos=True), 6)
    assert padded == [2, 4, 5, 0, 0, 0]
    assert tok.decode(padded, skip_special=True) == "i love"
    with pytest.raises(ValueError, match="longer than length=2"):
        tok.pad([4, 5, 6], 2)


def test_word_from_text_and_bad_words():
    tok = WordTokenizer.from_text("the cat sat on the mat")
    assert tok.words == ["cat", "mat", "on", "sat", "the"]
    with pytest.raises(TypeError):
        WordTokenizer("i love you")  # a str would become a vocabulary of characters
    with pytest.raises(ValueError, match="whitespace"):
        WordTokenizer(["two words"])


def test_word_show_work():
    tok = WordTokenizer(["i", "love", "you"])
    work = tok.show_work("i love cats", add_bos=True, add_eos=True)
    assert work["pieces"] == ["i", "love", "cats"]
    assert work["lookups"] == [("i", 4), ("love", 5), ("cats", 1)]
    assert work["unknown"] == ["cats"]
    assert work["ids"] == [2, 4, 5, 1, 3]
    assert work["tokens"] == ["<BOS>", "i", "love", "<UNK>", "<EOS>"]
    assert work["decoded"] == "<BOS> i love <UNK> <EOS>"
    assert work["text"] == "i love cats" and work["vocab_size"] == 7 and work["tokenizer"] == tok.kind
    plain = tok.show_work("you i")  # without <BOS> the lookups start at the first id
    assert plain["lookups"] == [("you", 6), ("i", 4)] and plain["ids"] == [6, 4]


def test_word_tokenizer_from_dict_accepts_a_file_without_specials_and_refuses_others():
    words = ["i", "love", "you"]
    assert WordTokenizer.from_dict({"words": words}).encode("love you") == [5, 6]
    with pytest.raises(ValueError, match=r"special tokens \['<PAD>'\] differ from \['<PAD>', '<UNK>'"):
        WordTokenizer.from_dict({"specials": ["<PAD>"], "words": words})


def test_word_jieba_finds_chinese_words():
    text = "我爱你。你好吗？"
    plain = WordTokenizer.from_text(text)
    assert plain.show_work(text)["pieces"] == [text]  # no spaces: one "word" that nothing else will share
    tok = WordTokenizer.from_text(text, segment="jieba")
    work = tok.show_work(text)
    assert work["segment"] == "jieba"
    assert work["pieces"] == ["我爱你", "。", "你好", "吗", "？"]
    assert work["unknown"] == [] and WordTokenizer.unk_id not in work["ids"]
    assert tok.words == sorted(work["pieces"])  # the vocabulary rule is the same as for whitespace
    assert tok.decode(tok.encode(text)) == "我爱你 。 你好 吗 ？"
    assert tok.encode("你好吗？") == [tok.words.index(w) + 4 for w in ["你好", "吗", "？"]]  # known words, reused


def test_word_jieba_with_english_and_spaces():
    tok = WordTokenizer(["x"], segment="jieba")
    pieces = tok.show_work("Hello  world\n你好 世界\r\n")["pieces"]
    assert pieces == ["Hello", "world", "你好", "世界"]  # jieba's space pieces are dropped
    assert all(not any(c.isspace() for c in p) for p in pieces)


def test_word_segment_saved_and_checked(tmp_path):
    tok = WordTokenizer.from_text("我爱你。你好吗？", segment="jieba")
    tok.save(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["segment"] == "jieba"
    back = load_tokenizer(tmp_path / "t.json")
    assert back.segment == "jieba" and back.encode("我爱你。") == tok.encode("我爱你。")
    (tmp_path / "old.json").write_text(
        '{"kind": "word", "specials": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"], "words": ["a"]}'
    )
    assert load_tokenizer(tmp_path / "old.json").segment == "whitespace"  # files from before segment=
    with pytest.raises(ValueError, match="unknown segment='spaces'; choose one of whitespace, jieba"):
        WordTokenizer(["a"], segment="spaces")


def test_safe_cuts():
    assert CharTokenizer.safe_cut("abc") == 3  # anywhere
    assert WordTokenizer.safe_cut("ab cd") == 3 and WordTokenizer.safe_cut("ab\ncd\r\n") == 7
    assert WordTokenizer.safe_cut("abc") == 0
    assert Tokenizer.safe_cut("ab cd") == 0  # the default never cuts: right for any tokenizer, just unbounded


def test_segment_without_jieba_says_what_to_install_and_jieba_drops_space_pieces(monkeypatch):
    assert tokenizers.split_words("我爱你 hello  world\n", "jieba") == ["我爱你", "hello", "world"]
    assert tokenizers.split_words(" a\tb ") == ["a", "b"]  # whitespace: the default
    assert (
        tokenizers.safe_word_cut("a b") == 2
        and tokenizers.safe_word_cut(" ") == 1
        and tokenizers.safe_word_cut("") == 0
    )
    monkeypatch.setitem(sys.modules, "jieba", None)  # as if not installed: `import jieba` raises ImportError
    with pytest.raises(ImportError) as caught:
        tokenizers.split_words("我爱你", "jieba")
    assert str(caught.value) == "segment='jieba' needs the jieba package: pip install 'jieba>=0.42'"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__

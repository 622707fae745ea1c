"""Tokenizers: round trips in several scripts, the unseen-character error, <unk>, save/load, word specials.

tokenizers.py's outputs whole: the saved file's exact text (UTF-8, or \\u escapes around a lone
surrogate), each refusal of load_tokenizer and of the constructors by catalogue key and fields, the
unseen-character message at its edges (20 shown, the 21st counted; in English words once), the
code-point table's edge, reprs and dicts.
"""

import json
import re
import sys

import numpy as np
import pytest
import torch
from helpers import keyed, said
from hypothesis import given
from hypothesis import strategies as st

from glassformer.errors import DamagedFile, UsageError, WrongType
from glassformer.messages import speaking, t
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
    assert keyed(ValueError, tok.decode, [0, -1]) == (  # a negative id must not wrap around to the last character
        "tokenizer.id_range",
        {"vocab_size": tok.vocab_size, "ids": [-1]},
    )


def test_unseen_characters_error_names_them():
    tok = CharTokenizer.from_text("hello world")
    assert keyed(ValueError, tok.encode, "hello 世界! hello 世界!") == (
        "tokenizer.unseen",
        {"n": 3, "vocab": 8, "shown": "'世', '界', '!'", "more": "", "unk": "<unk>"},
    )  # repr'd, deduplicated, in order of first appearance; the sentence (below) says how to fix it


def test_unseen_error_shows_at_most_20():
    tok = CharTokenizer.from_text("a")
    thirty = "".join(chr(0x4E00 + i) for i in range(30))
    with said() as heard:
        key, fields = keyed(ValueError, tok.encode, thirty)
    shown = ", ".join(repr(c) for c in thirty[:20])  # the first 20, then how many more
    more = fields.pop("more")
    assert (key, fields) == ("tokenizer.unseen", {"n": 30, "vocab": 1, "shown": shown, "unk": "<unk>"})
    assert more == heard.rendered(n=10) and "10" in more  # the sentence that counts the 10 not shown


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
    assert keyed(ValueError, load_tokenizer, path) == (
        "tokenizer.kind",
        {
            "path": path,
            "kind": "sentencepiece",
            "kinds": sorted(tokenizers.TOKENIZER_KINDS),
            "fix": t(tokenizers.TOKENIZER_FIX),
        },
    )
    assert {"char", "word"} <= set(tokenizers.TOKENIZER_KINDS)


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
    assert keyed(ValueError, tok.pad, [4, 5, 6], 2) == ("tokenizer.pad", {"n": 3, "length": 2})


def test_word_from_text_and_bad_words():
    tok = WordTokenizer.from_text("the cat sat on the mat")
    assert tok.words == ["cat", "mat", "on", "sat", "the"]
    with pytest.raises(TypeError):
        WordTokenizer("i love you")  # a str would become a vocabulary of characters
    assert keyed(ValueError, WordTokenizer, ["two words"]) == ("tokenizer.word", {"word": "two words"})


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
    assert keyed(ValueError, WordTokenizer.from_dict, {"specials": ["<PAD>"], "words": words}) == (
        "tokenizer.specials",
        {"found": ["<PAD>"], "want": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"]},
    )


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
    assert keyed(ValueError, WordTokenizer, ["a"], segment="spaces") == (
        "segment.unknown",
        {"segment": "spaces", "choices": "whitespace, jieba"},
    )


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
    assert (caught.value.code, caught.value.fields) == ("segment.no_jieba", {"requirement": "jieba>=0.42"})
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


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
    fix = t(tokenizers.TOKENIZER_FIX)  # the sentence every refusal of a tokenizer file ends with
    for text, kind in (('{"kind": "sentencepiece"}', "sentencepiece"), ("[1, 2]", None), ("{}", None)):
        path.write_text(text, encoding="utf-8")
        assert keyed(DamagedFile, load_tokenizer, path) == (
            "tokenizer.kind",
            {"path": path, "kind": kind, "kinds": ["char", "word"], "fix": fix},
        )

    def damaged(d: dict) -> tuple:
        """The refusal's key and fields; its `detail` (what the class raised) as its type, or for one of
        ours as its own (key, fields)."""
        path.write_text(json.dumps(d), encoding="utf-8")
        key, fields = keyed(DamagedFile, load_tokenizer, path)
        detail = fields.pop("detail")
        assert fields.pop("path") == path and fields.pop("fix") == fix
        return key, fields, detail if isinstance(detail, tuple) else type(detail)

    char = {"kind": "char"}
    assert damaged({"kind": "char", "chars": ["a"]}) == (  # every refusal a key of ours, none a Python error's
        "tokenizer.invalid",
        char,
        ("tokenizer.field_missing", {"field": "unk", "want": t(tokenizers.WANTS["bool"])}),
    )
    assert damaged({"kind": "char", "chars": [], "unk": False}) == (
        "tokenizer.invalid",
        char,
        ("tokenizer.no_chars", {}),
    )
    assert damaged({"kind": "char", "chars": 5, "unk": False}) == (
        "tokenizer.invalid",
        char,
        (
            "tokenizer.field",
            {"field": "chars", "found": "number", "shown": "5", "want": t(tokenizers.WANTS["strs"])},
        ),
    )
    assert damaged({"kind": "char", "chars": ["a"], "unk": 0}) == (  # 0 is not false: no value is coerced
        "tokenizer.invalid",
        char,
        (
            "tokenizer.field",
            {"field": "unk", "found": "number", "shown": "0", "want": t(tokenizers.WANTS["bool"])},
        ),
    )
    path.write_text(json.dumps({"kind": "char", "chars": ["a"], "unk": False, "extra": 1}), encoding="utf-8")
    assert load_tokenizer(path).chars == ["a"]  # extra fields are ignored
    assert damaged({"kind": "word", "specials": None, "words": ["a"]}) == (
        "tokenizer.invalid",
        {"kind": "word"},
        (
            "tokenizer.field",
            {"field": "specials", "found": "null", "shown": "None", "want": t(tokenizers.WANTS["strs"])},
        ),
    )
    assert damaged({"kind": "word", "words": ["a", 7]}) == (
        "tokenizer.invalid",
        {"kind": "word"},
        (
            "tokenizer.field",
            {"field": "words[1]", "found": "number", "shown": "7", "want": t(tokenizers.ITEM_WANTS["strs"])},
        ),
    )
    path.write_text("", encoding="utf-8")
    key, fields = keyed(DamagedFile, load_tokenizer, path)
    assert (key, fields["path"], fields["fix"]) == ("files.empty", path, fix)


@pytest.mark.parametrize(
    "chars, key",
    [
        ([], "tokenizer.no_chars"),
        (["a", "bc"], "tokenizer.chars"),
        (["a", ""], "tokenizer.chars"),
        (["a", "b", "a"], "tokenizer.chars"),
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
    """The file's one snapshot of the words (English); the Chinese by its figures; other refusals by key, fields."""
    tok = CharTokenizer(["a", "c"])
    twenty = "".join(chr(0x4E00 + i) for i in range(20))
    shown = ", ".join(repr(c) for c in twenty)
    english = unseen(tok, "a" + twenty + twenty)
    # snapshot: the first refusal a learner meets (the character-level lesson), its fix word for word
    assert english == (
        f"20 character(s) not in the vocabulary (2 chars): {shown}. Rebuild the vocabulary from text that contains "
        "them (CharTokenizer.from_text), or build it with unk=True to map unseen characters to <unk>."
    )
    with speaking("zh"):
        chinese = unseen(tok, "a" + twenty + twenty)
        assert unseen(tok, "a" + twenty) == chinese  # each unseen character named once, as in English
    assert chinese != english and re.search("[\u4e00-\u9fff]", chinese.replace(shown, ""))  # said in Chinese
    assert all(part in chinese for part in (shown, "20", "2", "CharTokenizer.from_text", "unk=True", "<unk>"))
    unseen_fields = {"vocab": 2, "unk": "<unk>"}
    with said() as heard:
        key, fields = keyed(ValueError, tok.encode, twenty + "z")
    more = fields.pop("more")
    assert (key, fields) == ("tokenizer.unseen", {**unseen_fields, "n": 21, "shown": shown})
    assert more == heard.rendered(n=1) and "1" in more  # the one character past the 20 shown, counted
    # inside the code-point table (b), just past its end (d), far beyond it: all unseen
    assert keyed(ValueError, tok.encode, "d\U0010ffffb") == (
        "tokenizer.unseen",
        {**unseen_fields, "n": 3, "shown": "'d', '\\U0010ffff', 'b'", "more": ""},
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
    assert (caught.value.code, caught.value.fields) == ("tokenizer.id_range", {"vocab_size": 2, "ids": [-1, 2]})
    with pytest.raises(UsageError) as caught:
        tok.decode(list(range(-25, 0)))
    assert caught.value.fields == {"vocab_size": 2, "ids": list(range(-25, -5))}  # the first 20


def test_word_tokenizer_refusals_whole():
    with pytest.raises(TypeError) as caught:  # WrongType is a TypeError
        WordTokenizer("i love you")
    assert isinstance(caught.value, WrongType) and caught.value.code == "tokenizer.words_str"
    for bad in ("two words", "", "tab\there"):
        with pytest.raises(ValueError) as caught:
            WordTokenizer(["ok", bad])
        assert (caught.value.code, caught.value.fields) == ("tokenizer.word", {"word": bad})
    with pytest.raises(DamagedFile) as caught:
        WordTokenizer.from_dict({"specials": ["<PAD>"], "words": ["a"]})
    assert (caught.value.code, caught.value.fields) == (
        "tokenizer.specials",
        {"found": ["<PAD>"], "want": ["<PAD>", "<UNK>", "<BOS>", "<EOS>"]},
    )
    tok = WordTokenizer(["i"])
    with pytest.raises(UsageError) as caught:
        tok.pad([4, 4, 4], 2)
    assert (caught.value.code, caught.value.fields) == ("tokenizer.pad", {"n": 3, "length": 2})
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

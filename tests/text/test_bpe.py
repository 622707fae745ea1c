"""Byte-level BPE: the pre-tokenizer, hand-checked merges and ids, show_work, save/load, and the two
backends (ours and the Hugging Face library) giving identical ids on any text."""

import json

import numpy as np
import pytest
import tokenizers as hf
from helpers import keyed
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.text import BPETokenizer, HFBPETokenizer, load_tokenizer
from glassformer.text.bpe import BYTE_TO_CHAR, PATTERN, merge_pair, pretokenize, safe_cut, spell, train_bpe

ENGLISH = "To be, or not to be: that is the question. It's 1600, isn't it?\n"
CHINESE = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
EMOJI = "👍🏽 ok 🇨🇳 👨‍👩‍👧 done ✔"
CONTROL = "a\x00b\x01\x1b[31mred\x1b[0m\x7f\t\r\n\x0b\x0c\u0085\u2028 end"
SAMPLES = [ENGLISH, CHINESE, EMOJI, CONTROL, "", " ", "  \n\n  x  ", "it's IT'S we'll", "naïve café — ça"]
CORPUS = (ENGLISH * 3 + CHINESE * 2 + EMOJI + CONTROL) * 2


@pytest.fixture(scope="module")
def pair():
    """One set of merges learned from CORPUS, in both backends."""
    ours = BPETokenizer.from_text(CORPUS, vocab_size=400)
    return ours, HFBPETokenizer(ours.merges)


def test_pretokenize_pieces():
    assert pretokenize("It's 2 o'clock, 世界!  Bye\n") == [
        "It",
        "'s",
        " 2",
        " o",
        "'",
        "clock",
        ",",
        " 世界",
        "!",
        " ",
        " Bye",
        "\n",
    ]
    assert pretokenize("a\u00a0b 👍x") == ["a\u00a0b", " 👍x"]  # non-ASCII counts as a letter, spaces included
    assert pretokenize("x\x00\x1b[0m") == ["x", "\x00\x1b[", "0", "m"]  # ASCII controls are punctuation
    assert pretokenize("") == []


@given(st.text(), st.text())
def test_pretokenize_covers_the_text_and_cuts_safely(text, rest):
    assert "".join(pretokenize(text)) == text
    p = safe_cut(text)
    assert pretokenize(text + rest) == pretokenize(text[:p]) + pretokenize(text[p:] + rest)


def test_safe_cut_positions():
    assert safe_cut("ab cd") == 2  # between a non-space and a space
    assert safe_cut("ab  cd  ") == 6
    assert safe_cut("abc") == 0 and safe_cut("  abc") == 0 and safe_cut("") == 0


def test_merge_pair_left_to_right():
    assert merge_pair([1, 1, 1], (1, 1), 9) == [9, 1]
    assert merge_pair([1, 2, 1, 2, 3], (1, 2), 9) == [9, 9, 3]
    assert merge_pair([2, 1], (1, 2), 9) == [2, 1]


def test_train_by_hand():
    # pieces "ab", " ab" x2, " abc"; pair counts (a,b)=4, (' ',a)=3, (b,c)=1
    tok = BPETokenizer.from_text("ab ab ab abc", vocab_size=300)
    assert tok.merges == [(97, 98), (32, 256)]  # then only (' ab', c) is left, seen once: stop
    assert tok.vocab_size == 258 and tok.token_bytes[256:] == [b"ab", b" ab"]
    assert tok.encode("ab abc") == [256, 257, 99]
    assert tok.encode("ba") == [98, 97]  # never-learned pairs stay bytes


def test_train_ties_go_to_smallest_ids_in_any_order():
    counts = {" cd": 2, "ab": 1, " ab": 1}  # (32,99), (97,98), (99,100) all seen twice
    merges = [(32, 99), (97, 98), (256, 100)]
    assert train_bpe(counts, 300) == merges
    assert train_bpe(dict(reversed(counts.items())), 300) == merges
    assert train_bpe(counts, 257) == merges[:1]  # stops at the vocabulary size asked for


def test_vocab_too_small():
    assert keyed(ValueError, BPETokenizer.from_text, "abc", vocab_size=100) == (
        "bpe.vocab_small",
        {"vocab_size": 100, "n_bytes": 256, "example": 512},
    )


@pytest.mark.parametrize("text", ["a" * 40 + " " + "a" * 7 + " aaa" * 9, "abababab ab aba bab " * 5, " " * 33 + "x"])
def test_no_two_ids_share_bytes(text):
    tok = BPETokenizer.from_text(text, vocab_size=400)  # the constructor refuses duplicates
    assert len(set(tok.token_bytes)) == tok.vocab_size > 256
    assert tok.decode(tok.encode(text)) == text


def test_bad_merges_are_refused():
    assert keyed(ValueError, BPETokenizer, [(256, 97)]) == (
        "bpe.merge_order",
        {"i": 0, "a": 256, "b": 97, "last": 255},
    )
    assert keyed(ValueError, BPETokenizer, [(97, 98), (97, 98)]) == ("bpe.same_bytes", {})


@pytest.mark.parametrize("side", [0, 1])
def test_merge_ids_are_checked_at_both_ends_of_the_range(side):
    """Merge i may use any id 0..255+i on either side, and nothing outside. Guards an off-by-one at
    either end (byte 0, a NUL, refused as a part; an id one past the newest accepted; -1 accepted,
    which Python would silently read as the *last* token's bytes)."""

    def merges_with(edge):  # merge 0 = (104, 105); merge 1 uses `edge` on one side, 120 on the other
        second = (edge, 120) if side == 0 else (120, edge)
        return [(104, 105), second]

    for edge in (0, 256):  # the smallest id, and the newest one when merge 1 is learned
        tok = BPETokenizer(merges_with(edge))
        part = b"\x00" if edge == 0 else b"hi"
        assert tok.token_bytes[257] == (part + b"x" if side == 0 else b"x" + part)
        assert tok.vocab_size == 258
    assert BPETokenizer(merges_with(256)).encode("hix" if side == 0 else "xhi") == [257]
    for edge in (-1, 257):
        a, b = merges_with(edge)[1]
        assert keyed(ValueError, BPETokenizer, merges_with(edge)) == (
            "bpe.merge_order",
            {"i": 1, "a": a, "b": b, "last": 256},  # ids so far: 0..256
        )


@pytest.mark.parametrize("text", SAMPLES)
def test_round_trip_and_backends_agree(pair, text):
    ours, lib = pair
    ids = ours.encode(text)
    assert ours.decode(ids) == text
    assert lib.encode(text) == ids  # the library's own pipeline
    assert lib.encode_array(text).tolist() == ids  # distinct pieces through the library, gathered
    assert lib.hf.decode(ids) == text  # and the library decodes our ids back too
    assert all(0 <= i < ours.vocab_size for i in ids)


def test_merges_shorten_the_text(pair):
    ours, _ = pair
    assert len(ours.encode(ENGLISH)) < len(ENGLISH.encode("utf-8")) * 0.6
    assert ours.encode(" be") == [ours.token_bytes.index(b" be")]  # a frequent word became one token


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_backends_agree_on_any_text(pair, text):
    ours, lib = pair
    ids = ours.encode(text)
    assert lib.encode(text) == ids
    assert lib.encode_array(text).tolist() == ids
    assert ours.decode(ids) == text


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=200), st.integers(256, 320))
def test_backends_agree_when_trained_on_any_text(text, vocab_size):
    ours = BPETokenizer.from_text(text * 3, vocab_size)
    lib = HFBPETokenizer(ours.merges)
    assert lib.encode(text) == ours.encode(text)
    assert ours.decode(ours.encode(text)) == text


def test_byte_table_matches_the_library():
    assert set(BYTE_TO_CHAR) == set(hf.pre_tokenizers.ByteLevel.alphabet()) and len(set(BYTE_TO_CHAR)) == 256
    assert (BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[ord("\n")], BYTE_TO_CHAR[ord("h")]) == ("Ġ", "Ċ", "h")
    byte_level = hf.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    every_char = "".join(chr(c) for c in [*range(128), 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF])
    ((mapped, _),) = byte_level.pre_tokenize_str(every_char)
    assert mapped == "".join(BYTE_TO_CHAR[b] for b in every_char.encode("utf-8"))
    assert spell(every_char) == mapped  # the fast spelling encode_array uses


def test_decode_half_a_character():
    tok = BPETokenizer([])
    ids = tok.encode("中")
    assert ids == [0xE4, 0xB8, 0xAD]
    assert tok.decode(ids[:2] + tok.encode("a")) == "\ufffda"  # a cut character, not an exception
    assert tok.token_text(0xE4) == "\\xe4"
    assert keyed(ValueError, tok.decode, [256]) == ("tokenizer.id_range", {"vocab_size": 256, "ids": [256]})


def test_show_work_by_hand():
    tok = BPETokenizer.from_text("ab ab ab abc", vocab_size=300)
    work = tok.show_work("ab abc")
    assert work["pieces"] == ["ab", " abc"]
    assert work["bytes"] == [[97, 98], [32, 97, 98, 99]]
    assert [(m["piece"], m["pair"], m["new_id"], m["result"]) for m in work["merges"]] == [
        (0, (97, 98), 256, [256]),
        (1, (97, 98), 256, [32, 256, 99]),
        (1, (32, 256), 257, [257, 99]),
    ]
    assert work["merges"][2]["as_text"] == (" ", "ab") and work["merges"][2]["rank"] == 1
    assert work["ids"] == [256, 257, 99] and work["tokens"] == ["ab", " ab", "c"]
    assert work["decoded"] == "ab abc" and work["vocab_size"] == 258 and work["pattern"] == PATTERN


@pytest.mark.parametrize("cls", [BPETokenizer, HFBPETokenizer])
def test_save_load(pair, cls, tmp_path):
    tok = cls(pair[0].merges)
    tok.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert data["kind"] == cls.kind and data["merges"][0] == list(tok.merges[0])
    assert data["tokens"]["256"] == tok.token_text(256)  # readable, for whoever opens the file
    back = load_tokenizer(tmp_path / "t.json")
    assert type(back) is cls and back.merges == tok.merges
    assert back.encode(CORPUS) == tok.encode(CORPUS)


def test_load_refuses_another_pattern(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"kind": "bpe", "pattern": r"\w+|\W", "merges": []}))
    key, fields = keyed(ValueError, load_tokenizer, path)
    assert (key, fields["kind"], fields["detail"]) == ("tokenizer.invalid", "bpe", ("bpe.pattern", {}))


def test_show_work_to_dict_repr_and_refusals_whole():
    """show_work's every field and step (as worked by hand above), the saved dict, both reprs, and
    the constructor's and from_dict's refusals by code and fields."""
    tok = BPETokenizer([(97, 98), (32, 256)])
    step = {"pair": (97, 98), "as_text": ("a", "b"), "rank": 0, "new_id": 256}
    assert tok.show_work("ab abc") == {
        "tokenizer": "bpe",
        "text": "ab abc",
        "pattern": PATTERN,
        "pieces": ["ab", " abc"],
        "bytes": [[97, 98], [32, 97, 98, 99]],
        "merges": [
            {"piece": 0, "piece_text": "ab", **step, "result": [256]},
            {"piece": 1, "piece_text": " abc", **step, "result": [32, 256, 99]},
            {
                "piece": 1,
                "piece_text": " abc",
                "pair": (32, 256),
                "as_text": (" ", "ab"),
                "rank": 1,
                "new_id": 257,
                "result": [257, 99],
            },
        ],
        "ids": [256, 257, 99],
        "tokens": ["ab", " ab", "c"],
        "decoded": "ab abc",
        "vocab_size": 258,
    }
    assert tok.to_dict() == {"pattern": PATTERN, "merges": [[97, 98], [32, 256]], "tokens": {"256": "ab", "257": " ab"}}
    assert BPETokenizer.from_dict({"merges": [[97, 98]]}).merges == [(97, 98)]  # a file without its pattern
    assert repr(tok) == "BPETokenizer(vocab_size=258)"
    assert repr(HFBPETokenizer([(97, 98)])) == "HFBPETokenizer(vocab_size=257)"
    assert tok.encode_array("ab").dtype == np.int64 and tok.encode_array("ab").tolist() == [256]
    assert tok.encode_array("").dtype == np.int64  # no ids: still int64, not float64
    with pytest.raises(ValueError) as caught:
        BPETokenizer.from_dict({"pattern": "x", "merges": []})
    assert caught.value.code == "bpe.pattern" and caught.value.fields == {}
    with pytest.raises(ValueError) as caught:
        BPETokenizer([(97, 98), (258, 97)])
    assert (caught.value.code, caught.value.fields) == (
        "bpe.merge_order",
        {"i": 1, "a": 258, "b": 97, "last": 256},
    )
    with pytest.raises(ValueError) as caught:
        BPETokenizer([(97, 98), (97, 98)])
    assert caught.value.code == "bpe.same_bytes"


def test_train_bpe_edges_and_its_refusal_whole():
    """vocab_size 256 learns nothing; 255 is refused (code and fields); a pair seen twice in one piece
    counts twice; counts move from merged pairs (aaaa: (a,a) three times, then (aa,aa) once)."""
    assert train_bpe({"abab": 1}, 256) == []
    assert train_bpe({"abab": 1}, 300) == [(97, 98)]  # (a,b) twice in one piece; then (ab,ab) once: stop
    assert train_bpe({"aaaa": 2}, 300) == [(97, 97), (256, 256)]
    assert train_bpe({"ab": 1, "abc": 1}, 300) == [(97, 98)]
    # merging (a,b) in "xyab" takes (x,y) down to 1 and back to 2: it must not be forgotten at 1
    assert train_bpe({"ab": 3, "xyab": 1, "xy": 1}, 300) == [(97, 98), (120, 121)]
    with pytest.raises(ValueError) as caught:
        train_bpe({"ab": 2}, 255)
    assert (caught.value.code, caught.value.fields) == (
        "bpe.vocab_small",
        {"vocab_size": 255, "n_bytes": 256, "example": 512},
    )


def test_the_byte_table_is_built_by_gpt2s_rule_when_called():
    """_byte_to_char called now (not only at import, which mutation testing cannot see): bytes whose
    Latin-1 character is printable (! to ~, ¡ to ¬, ® to ÿ) keep it; the other 68 bytes, in byte
    order, become U+0100, U+0101, ... (so a space is Ġ = U+0120, byte 32 being the 33rd such byte)."""
    from glassformer.text.bpe import _byte_to_char

    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    expected = {**{b: chr(b) for b in printable}, **{b: chr(256 + n) for n, b in enumerate(others)}}
    assert len(others) == 68 and _byte_to_char() == [expected[b] for b in range(256)] == BYTE_TO_CHAR


def test_the_library_backend_arrays_and_its_own_decoder():
    tok = HFBPETokenizer([(97, 98), (32, 256)])
    ids = tok.encode_array("ab ab abab 中")
    assert ids.dtype == np.int64 and ids.tolist() == tok.encode("ab ab abab 中") == [
        256,
        257,
        257,
        256,
        32,
        0xE4,
        0xB8,
        0xAD,
    ]
    assert tok.encode_array("").dtype == np.int64 and tok.encode_array("").tolist() == []
    assert tok.hf.decode(ids.tolist()) == "ab ab abab 中"  # the library's own pipeline, both ways


def test_safe_cut_at_the_first_and_last_possible_places():
    assert safe_cut("a b") == 1 and safe_cut("a ") == 1  # p = 1, the smallest cut there is
    assert safe_cut("ab\n") == 2 and safe_cut(" ") == 0 and safe_cut("a") == 0
    assert BPETokenizer.safe_cut("ab cd") == 2

"""GPT2BPETokenizer's own Python (text/gpt2_bpe.py) without transformers: show_work's every step and
field, worked out by hand on a tiny vocabulary; token_text, decode, to_dict/from_dict, repr; and
each table the encoder could not run, refused word for word (tests/interop compares the ids with
transformers, outside this file)."""

from __future__ import annotations

import pytest

from glassformer.errors import DamagedFile, UsageError
from glassformer.text.bpe import BYTE_TO_CHAR
from glassformer.text.gpt2_bpe import GPT2BPETokenizer

EOT = "<|endoftext|>"
BYTES = [BYTE_TO_CHAR[b] for b in range(256)]
H, E, L, O, SPACE = 104, 101, 108, 111, 32


def tokenizer(specials=(EOT,)) -> GPT2BPETokenizer:
    """ids 0..255 the bytes, 256 "he", 257 "hel", then the special tokens (258 ...)."""
    return GPT2BPETokenizer(BYTES + ["he", "hel", *specials], [("h", "e"), ("he", "l")], list(specials))


def test_show_work_records_every_piece_merge_and_id_as_worked_by_hand():
    """'hello' merges h+e (rank 0) then he+l (rank 1); the special token is one id; 'he' (two bytes)
    merges once; ' he' is spelled 'Ġhe' and merges h+e only (no merge takes the space)."""
    tok = tokenizer()
    text = "hello<|endoftext|>he he"
    work = tok.show_work(text)
    step_he = {"pair": (H, E), "as_text": ("h", "e"), "rank": 0, "new_id": 256}
    assert work == {
        "tokenizer": "gpt2-bpe",
        "text": text,
        "specials": [EOT],
        "pieces": ["hello", EOT, "he", "Ġhe"],
        "merges": [
            {"piece": 0, "piece_text": "hello", **step_he, "result": [256, L, L, O]},
            {
                "piece": 0,
                "piece_text": "hello",
                "pair": (256, L),
                "as_text": ("he", "l"),
                "rank": 1,
                "new_id": 257,
                "result": [257, L, O],
            },
            {"piece": 2, "piece_text": "he", **step_he, "result": [256]},
            {"piece": 3, "piece_text": "Ġhe", **step_he, "result": [SPACE, 256]},
        ],
        "ids": [257, L, O, 258, 256, SPACE, 256],
        "tokens": ["hel", "l", "o", EOT, "he", "Ġ", "he"],
        "decoded": text,
        "vocab_size": 259,
    }
    assert work["ids"] == tok.encode(text)


def test_show_work_without_special_tokens_and_on_empty_text():
    plain = tokenizer(specials=())
    assert plain.show_work("")["pieces"] == [] and plain.show_work("")["ids"] == []
    work = plain.show_work("lo")
    assert work["pieces"] == ["lo"] and work["merges"] == [] and work["ids"] == [L, O] and work["specials"] == []
    assert tokenizer().show_work("")["pieces"] == []


def test_special_tokens_are_cut_out_leftmost_and_longest_first():
    tok = GPT2BPETokenizer(BYTES + ["he", "<a>", "<a><b>"], [("h", "e")], ["<a>", "<a><b>"])
    assert tok._split_specials("x<a><b><a><a>y") == [
        ("x", False),
        ("<a><b>", True),
        ("<a>", True),
        ("<a>", True),
        ("y", False),
    ]
    assert tok._split_specials("<a>") == [("<a>", True)]
    assert tok._split_specials("he") == [("he", False)]
    assert tok._split_specials("") == []
    assert tokenizer(specials=())._split_specials("") == []
    assert tokenizer(specials=())._split_specials("a<|endoftext|>") == [("a<|endoftext|>", False)]
    assert tok.show_work("<a><b>he")["ids"] == [258, 256] == tok.encode("<a><b>he")


def test_token_text_and_decode_show_bytes_that_are_not_utf8():
    tok = tokenizer()
    assert tok.token_text(256) == "he" and tok.token_text(258) == EOT
    assert tok.token_text(0xE4) == "\\xe4"  # the first byte of 你, alone
    assert tok.decode([0xE4, 0xBD, 0xA0]) == "你"
    assert tok.decode([0xE4, H]) == "\ufffdh"
    assert tok.decode([]) == ""


def test_to_dict_and_from_dict_keep_the_three_tables():
    tok = tokenizer()
    d = tok.to_dict()
    assert d == {
        "pretokenizer": "gpt2",
        "tokens": BYTES + ["he", "hel", EOT],
        "merges": ["h e", "he l"],
        "specials": [EOT],
    }
    back = GPT2BPETokenizer.from_dict(d)
    assert (back.tokens, back.merges, back.specials) == (tok.tokens, tok.merges, tok.specials)
    bare = GPT2BPETokenizer.from_dict({"tokens": BYTES + ["he"], "merges": ["h e"]})  # no pretokenizer, no specials
    assert bare.merges == [("h", "e")] and bare.specials == [] and bare.vocab_size == 257
    with pytest.raises(DamagedFile) as caught:
        GPT2BPETokenizer.from_dict({**d, "pretokenizer": "bpe"})
    assert (caught.value.key, caught.value.fields) == ("error.gpt2.pretokenizer", {"found": "bpe"})
    assert repr(tok) == "GPT2BPETokenizer(vocab_size=259, specials=['<|endoftext|>'])"


@pytest.mark.parametrize(
    "tokens, merges, specials, key, fields",
    [
        (BYTES + ["he", "he"], [], [], "error.gpt2.token_twice", {"token": "he"}),
        (BYTES[2:], [], [], "error.gpt2.bytes_missing", {"n": 2, "n_bytes": 256, "first": "0x00 ('Ā')"}),
        (BYTES[:-1], [], [], "error.gpt2.bytes_missing", {"n": 1, "n_bytes": 256, "first": "0xff ('ÿ')"}),
        (BYTES + ["<x>"], [], ["<x>", "<z>", "<y>"], "error.gpt2.specials_absent", {"tokens": ["<y>", "<z>"]}),
        (BYTES + [""], [], [""], "error.gpt2.specials_absent", {"tokens": []}),
        (BYTES + ["a b"], [], [], "error.gpt2.not_byte_alphabet", {"token": "a b"}),
        (BYTES + ["he"], [("h", "e"), ("h", "e")], [], "error.gpt2.merge_twice", {"rank": 1, "merge": "h e"}),
        (BYTES + ["he"], [("h", "e", "l")], [], "error.gpt2.merge_bad", {"rank": 0, "merge": "h e l"}),
        (BYTES + ["zzh"], [("zz", "h")], [], "error.gpt2.merge_bad", {"rank": 0, "merge": "zz h"}),
        (
            BYTES + ["he", EOT, EOT + "h"],
            [("h", "e"), (EOT, "h")],
            [EOT],
            "error.gpt2.merge_bad",
            {"rank": 1, "merge": "<|endoftext|> h"},
        ),
        (BYTES + ["he"], [("h", "e"), ("l", "l")], [], "error.gpt2.merge_bad", {"rank": 1, "merge": "l l"}),
    ],
)
def test_tables_the_encoder_could_not_run_are_refused_naming_the_first_bad_entry(tokens, merges, specials, key, fields):
    with pytest.raises(UsageError) as caught:
        GPT2BPETokenizer(tokens, merges, specials)
    assert (caught.value.key, caught.value.fields) == (key, fields)


def test_tables_at_the_edges_of_the_checks_are_accepted():
    """A special token need not be spelled in the byte alphabet; every token may be special; a
    merge of two tokens whose join exists is fine even when made of merged tokens."""
    assert GPT2BPETokenizer(BYTES + ["a b"], [], ["a b"]).encode("xa b") == [ord("x"), 256]
    assert GPT2BPETokenizer(BYTES, [], BYTES).vocab_size == 256
    assert tokenizer().encode("hel") == [257]

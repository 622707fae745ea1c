"""GPT2BPETokenizer's own Python (text/gpt2_bpe.py) without transformers: show_work's every step and
field, worked out by hand on a tiny vocabulary; token_text, decode, to_dict/from_dict, repr; and
each table the encoder could not run, refused by code and fields (test_gpt2_tokenizer.py compares the ids with
transformers, outside this file).

text/gpt2_bpe.py without transformers: a GPT-2 tokenizer folder written, read back, and every
refusal of a folder that would give other ids than GPT-2's, by code and fields (file and field named).

The folders are made by hand from a tiny byte-level tokenizer (the 256 byte tokens, two merges and
<|endoftext|>), then damaged one way at a time.
"""

from __future__ import annotations

import json

import pytest
from helpers import keyed

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.messages import t
from glassformer.text import gpt2_bpe
from glassformer.text.bpe import BYTE_TO_CHAR
from glassformer.text.gpt2_bpe import ID_OPTIONS, GPT2BPETokenizer, read_tokenizer_dir, write_tokenizer_dir

EOT = "<|endoftext|>"
BYTES = [BYTE_TO_CHAR[b] for b in range(256)]
H, E, L, O, SPACE = 104, 101, 108, 111, 32  # noqa: E741  (the letters of "hello")


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
    assert (caught.value.code, caught.value.fields) == ("gpt2.pretokenizer", {"found": "bpe"})
    assert repr(tok) == "GPT2BPETokenizer(vocab_size=259, specials=['<|endoftext|>'])"


@pytest.mark.parametrize(
    "tokens, merges, specials, key, fields",
    [
        (BYTES + ["he", "he"], [], [], "gpt2.token_twice", {"token": "he"}),
        (BYTES[2:], [], [], "gpt2.bytes_missing", {"n": 2, "n_bytes": 256, "first": "0x00 ('Ā')"}),
        (BYTES[:-1], [], [], "gpt2.bytes_missing", {"n": 1, "n_bytes": 256, "first": "0xff ('ÿ')"}),
        (BYTES + ["<x>"], [], ["<x>", "<z>", "<y>"], "gpt2.specials_absent", {"tokens": ["<y>", "<z>"]}),
        (BYTES + [""], [], [""], "gpt2.specials_absent", {"tokens": []}),
        (BYTES + ["a b"], [], [], "gpt2.not_byte_alphabet", {"token": "a b"}),
        (BYTES + ["he"], [("h", "e"), ("h", "e")], [], "gpt2.merge_twice", {"rank": 1, "merge": "h e"}),
        (BYTES + ["he"], [("h", "e", "l")], [], "gpt2.merge_bad", {"rank": 0, "merge": "h e l"}),
        (BYTES + ["zzh"], [("zz", "h")], [], "gpt2.merge_bad", {"rank": 0, "merge": "zz h"}),
        (
            BYTES + ["he", EOT, EOT + "h"],
            [("h", "e"), (EOT, "h")],
            [EOT],
            "gpt2.merge_bad",
            {"rank": 1, "merge": "<|endoftext|> h"},
        ),
        (BYTES + ["he"], [("h", "e"), ("l", "l")], [], "gpt2.merge_bad", {"rank": 1, "merge": "l l"}),
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


def folder(tmp_path, tok=None):
    path = tmp_path / "tok"
    path.mkdir(parents=True, exist_ok=True)  # the caller makes the folder (export checks it first)
    write_tokenizer_dir(tok or tokenizer(), path, max_len=64)
    return path


def edit_json(file, change):
    d = json.loads(file.read_text(encoding="utf-8"))
    change(d)
    file.write_text(json.dumps(d), encoding="utf-8")


def refused(path, kind) -> str:
    with pytest.raises(kind) as caught:
        read_tokenizer_dir(path)
    assert type(caught.value) is kind
    return str(caught.value)


def refusal(path, kind) -> tuple[str, dict]:
    """The key and fields of read_tokenizer_dir's refusal of `path`, an error of exactly `kind`."""
    key, fields = keyed(kind, read_tokenizer_dir, path)
    refused(path, kind)  # exactly that class, not a subclass
    return key, fields


def fixed(**fields) -> dict:
    """The fields of a refusal that ends with how to get the file back."""
    return {
        **fields,
        "fix": gpt2_bpe._fix(),
    }


def test_write_tokenizer_dir_writes_every_field_of_the_three_files(tmp_path):
    """What GPT2Tokenizer.from_pretrained reads, whole: vocab.json in id order (non-ASCII kept as is),
    merges.txt with its version line, and the config with GPT-2's bos = eos = unk."""
    path = folder(tmp_path)
    vocab = (path / "vocab.json").read_text(encoding="utf-8")
    assert vocab == json.dumps({t: i for i, t in enumerate(BYTES + ["he", "hel", EOT])}, ensure_ascii=False) + "\n"
    assert "Ġ" in vocab  # not \u0120
    assert (path / "merges.txt").read_text(encoding="utf-8") == "#version: 0.2\nh e\nhe l\n"
    config = (path / "tokenizer_config.json").read_text(encoding="utf-8")
    assert json.loads(config) == {
        "tokenizer_class": "GPT2Tokenizer",
        "add_prefix_space": False,
        "model_max_length": 64,
        "bos_token": EOT,
        "eos_token": EOT,
        "unk_token": EOT,
        "added_tokens_decoder": {
            "258": {
                "content": EOT,
                "special": True,
                "lstrip": False,
                "rstrip": False,
                "single_word": False,
                "normalized": False,
            }
        },
    }
    assert config.startswith('{\n  "tokenizer_class": "GPT2Tokenizer",\n') and config.endswith("}\n")
    assert "pad_token" not in config

    plain = folder(tmp_path / "plain", tokenizer(specials=()))
    config = json.loads((plain / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["bos_token"] is config["eos_token"] is config["unk_token"] is None
    assert config["added_tokens_decoder"] == {}
    other = folder(tmp_path / "other", tokenizer(specials=("<pad>",)))
    config = json.loads((other / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["bos_token"] is None and config["added_tokens_decoder"]["258"]["content"] == "<pad>"
    assert "\\u" not in (other / "vocab.json").read_text(encoding="utf-8")


def test_a_written_folder_reads_back_the_same_tables(tmp_path):
    back = read_tokenizer_dir(str(folder(tmp_path)))  # a str is a path too
    assert back.tokens == tokenizer().tokens and back.merges == tokenizer().merges and back.specials == [EOT]
    assert back.encode("hello<|endoftext|>") == [257, 108, 111, 258]


def test_merges_txt_without_a_version_line_with_crlf_and_blank_lines_is_read_whole(tmp_path):
    """Line 1 is skipped only when it is the version line; blank lines and \\r are skipped, never
    the end of the file."""
    path = folder(tmp_path)
    (path / "merges.txt").write_bytes(b"h e\r\n\r\n\nhe l\r\n")
    assert read_tokenizer_dir(path).merges == [("h", "e"), ("he", "l")]
    (path / "merges.txt").write_bytes(b"")  # no merges at all: bytes only
    tok = read_tokenizer_dir(path)
    assert tok.merges == [] and tok.encode("he") == [104, 101]


def test_a_merges_line_that_is_not_a_pair_is_named_with_its_number(tmp_path):
    path = folder(tmp_path)
    (path / "merges.txt").write_text("#version: 0.2\nh e\nhe l x\n", encoding="utf-8")
    assert refusal(path, DamagedFile) == ("gpt2.merge_line", fixed(path=path / "merges.txt", n=3, line="he l x"))
    assert refused(path, DamagedFile).endswith(gpt2_bpe._fix())  # worded whole: the fix last
    (path / "merges.txt").write_text("h e\n#version: 0.2 x\n", encoding="utf-8")  # a version line only on line 1
    assert refusal(path, DamagedFile) == (
        "gpt2.merge_line",
        fixed(path=path / "merges.txt", n=2, line="#version: 0.2 x"),
    )


def test_a_vocab_json_that_is_not_token_to_id_is_refused(tmp_path):
    path = folder(tmp_path)
    for bad in ([["a", 0]], {"a": "0"}):
        (path / "vocab.json").write_text(json.dumps(bad), encoding="utf-8")
        assert refusal(path, DamagedFile) == ("gpt2.vocab_shape", fixed(path=path / "vocab.json"))
    (path / "vocab.json").write_text("{", encoding="utf-8")
    key, fields = refusal(path, DamagedFile)
    assert (key, fields["path"], fields["fix"]) == ("files.json", path / "vocab.json", gpt2_bpe._fix())


def test_a_folder_without_both_vocab_and_merges_nor_tokenizer_json_is_not_found(tmp_path):
    path = folder(tmp_path)
    (path / "merges.txt").unlink()  # vocab.json alone is not enough
    assert refusal(path, NotFound) == ("gpt2.no_tokenizer", fixed(path=path))
    folder(tmp_path)
    (path / "vocab.json").unlink()
    assert refusal(path, NotFound) == ("gpt2.no_tokenizer", fixed(path=path))


def test_tables_the_encoder_cannot_run_are_refused_naming_the_file(tmp_path):
    path = folder(tmp_path)
    (path / "merges.txt").write_text("#version: 0.2\nh e\nl l\n", encoding="utf-8")  # "ll" is not a token
    with pytest.raises(DamagedFile) as caught:
        read_tokenizer_dir(path)
    assert caught.value.code == "gpt2.tokenizer_invalid" and caught.value.fields["path"] == path / "vocab.json"
    problem = caught.value.fields["problem"]  # the table's own refusal, worded with the file's
    assert (problem.code, problem.fields) == ("gpt2.merge_bad", {"rank": 1, "merge": "l l"})
    assert caught.value.fields["fix"] == gpt2_bpe._fix()


def test_tokenizer_config_options_that_change_the_ids_are_refused(tmp_path):
    path = folder(tmp_path)
    config = path / "tokenizer_config.json"
    config.write_text("[]", encoding="utf-8")
    assert refusal(path, DamagedFile) == ("gpt2.not_object", fixed(path=config))
    config.write_text("{", encoding="utf-8")
    assert refusal(path, DamagedFile)[1]["fix"] == gpt2_bpe._fix()
    for option, what in ID_OPTIONS.items():
        config.write_text(json.dumps({option: True}), encoding="utf-8")
        assert refusal(path, UsageError) == (
            "gpt2.tokenizer_option",
            {"path": config, "option": option, "what": t(what)},
        )
    config.write_text(json.dumps({"add_prefix_space": False, "add_bos_token": False}), encoding="utf-8")
    assert read_tokenizer_dir(path).specials == []  # a config names no special token: none


def test_special_tokens_come_from_the_config_or_default_to_endoftext(tmp_path):
    """Without tokenizer_config.json, <|endoftext|> is special when vocab.json has it (GPT2Tokenizer's
    default) and nothing when it does not; a special token the config names and the vocabulary lacks is
    added after it with the next id, in transformers' order (bos, eos, unk, pad, extras), and said."""
    path = folder(tmp_path)
    (path / "tokenizer_config.json").unlink()
    tok = read_tokenizer_dir(path)
    assert tok.specials == [EOT] and tok.encode("<|endoftext|>") == [258]
    edit_json(path / "vocab.json", lambda d: d.pop(EOT))
    assert read_tokenizer_dir(path).specials == [] and read_tokenizer_dir(path).vocab_size == 258

    path = folder(tmp_path / "named")
    config = path / "tokenizer_config.json"
    edit_json(
        config,
        lambda d: d.update(
            added_tokens_decoder={}, bos_token={"content": "x"}, eos_token="y", unk_token=None, pad_token="<|nope|>"
        ),
    )
    notes = []
    tok = read_tokenizer_dir(path, note=lambda key, **fields: notes.append((key, fields)))
    assert tok.specials == ["x", "y", "<|nope|>"] and tok.vocab_size == 260 and tok.encode("<|nope|>") == [259]
    assert [fields for _, fields in notes] == [{"path": config, "tokens": "'<|nope|>'", "first": 259, "last": 259}]
    edit_json(config, lambda d: d.update(extra_special_tokens={"sep": "<s>"}, additional_special_tokens=["<a>"]))
    assert read_tokenizer_dir(path, note=lambda *a, **k: None).specials == ["x", "y", "<|nope|>", "<s>"]
    edit_json(config, lambda d: d.update(extra_special_tokens=None))  # the older key, when the newer is absent
    assert read_tokenizer_dir(path, note=lambda *a, **k: None).specials == ["x", "y", "<|nope|>", "<a>"]
    edit_json(config, lambda d: d.update(pad_token=None, additional_special_tokens=None))
    notes.clear()
    assert read_tokenizer_dir(path, note=notes.append).specials == ["x", "y"] and notes == []  # from vocab.json


def test_added_tokens_that_are_not_plain_literals_are_refused(tmp_path):
    path = folder(tmp_path)
    config = path / "tokenizer_config.json"
    for bad in ("<|endoftext|>", {"content": 5}, {"special": True}):
        edit_json(config, lambda d, bad=bad: d.update(added_tokens_decoder={"258": bad}))
        assert refusal(path, DamagedFile) == ("gpt2.added_shape", fixed(path=config))
    for flag in ("lstrip", "rstrip", "single_word"):
        edit_json(config, lambda d, flag=flag: d.update(added_tokens_decoder={"258": {"content": EOT, flag: True}}))
        assert refusal(path, UsageError) == ("gpt2.added_flag", {"path": config, "token": EOT, "flag": flag})
    edit_json(config, lambda d: d.update(added_tokens_decoder={"258": {"content": EOT, "lstrip": False}}))
    assert read_tokenizer_dir(path).specials == [EOT]


def test_ids_that_clash_or_leave_a_gap_are_refused(tmp_path):
    path = folder(tmp_path)
    config = path / "tokenizer_config.json"
    edit_json(config, lambda d: d.update(added_tokens_decoder={"5": {"content": EOT}}))
    assert refusal(path, DamagedFile) == (
        "gpt2.id_twice",
        fixed(path=path / "vocab.json", id=5, token="ą", special=EOT),
    )
    edit_json(config, lambda d: d.update(added_tokens_decoder={"260": {"content": EOT}}))
    edit_json(path / "vocab.json", lambda d: d.pop(EOT))
    assert refusal(path, DamagedFile) == ("gpt2.id_gaps", fixed(path=path / "vocab.json", last=258, gap=258))
    edit_json(config, lambda d: d.update(added_tokens_decoder={"258": {"content": EOT}}))
    assert read_tokenizer_dir(path).encode("<|endoftext|>") == [258]  # an added token after the vocabulary
    edit_json(path / "vocab.json", lambda d: d.update(extra=257))  # two tokens, one id: no hole, one id short
    assert refusal(path, DamagedFile) == ("gpt2.id_gaps", fixed(path=path / "vocab.json", last=258, gap="?"))


def tokenizer_json(tmp_path):
    path = tmp_path / "tj"
    path.mkdir()
    tokenizer().hf.save(str(path / "tokenizer.json"))
    return path


def test_a_lone_tokenizer_json_is_read_with_string_merges_and_missing_optional_fields(tmp_path):
    path = tokenizer_json(tmp_path)
    assert read_tokenizer_dir(path).tokens == tokenizer().tokens

    def older(d):  # merges as "a b" strings, optional fields absent or null, as older files have them
        d["model"]["merges"] = ["h e", "he l"]
        for key in ("byte_fallback", "ignore_merges", "dropout"):
            d["model"].pop(key, None)
        d["model"]["continuing_subword_prefix"] = d["model"]["end_of_word_suffix"] = None
        d["pre_tokenizer"].pop("use_regex")
        d.pop("normalizer")

    edit_json(path / "tokenizer.json", older)
    tok = read_tokenizer_dir(path)
    assert tok.merges == [("h", "e"), ("he", "l")] and tok.specials == [EOT]
    assert tok.encode("hello<|endoftext|>") == [257, 108, 111, 258]
    (path / "vocab.json").write_text("{}", encoding="utf-8")  # vocab.json without merges.txt: tokenizer.json
    assert read_tokenizer_dir(path).vocab_size == 259


@pytest.mark.parametrize(
    "where, key, value, found, want",
    [
        ("model", "type", "WordPiece", '"WordPiece"', '"BPE"'),
        ("pre_tokenizer", "type", "Whitespace", '"Whitespace"', '"ByteLevel"'),
        ("pre_tokenizer", "add_prefix_space", True, "true", "false"),
        ("pre_tokenizer", "use_regex", False, "false", "true"),
        ("", "normalizer", {"type": "NFC"}, '{"type": "NFC"}', "null"),
        ("model", "byte_fallback", True, "true", "false"),
        ("model", "ignore_merges", True, "true", "false"),
        ("model", "continuing_subword_prefix", "##", '"##"', '""'),
        ("model", "end_of_word_suffix", "</w>", '"</w>"', '""'),
        ("model", "dropout", 0.1, "0.1", "null"),
    ],
)
def test_each_tokenizer_json_setting_that_changes_the_ids_is_named_whole(tmp_path, where, key, value, found, want):
    path = tokenizer_json(tmp_path)
    edit_json(path / "tokenizer.json", lambda d: (d[where] if where else d).__setitem__(key, value))
    field = f"{where}.{key}" if where else key
    assert refusal(path, UsageError) == (
        "gpt2.pipeline",
        {"path": path / "tokenizer.json", "field": field, "found": found, "want": want},
    )


def test_a_tokenizer_json_without_its_tables_or_with_odd_added_tokens_is_refused(tmp_path):
    path = tokenizer_json(tmp_path)
    file = path / "tokenizer.json"
    original = file.read_text(encoding="utf-8")
    file.write_text("[1]", encoding="utf-8")
    assert refusal(path, DamagedFile) == ("gpt2.not_object", fixed(path=file))
    for key, value in (("vocab", ["a"]), ("merges", {"h": "e"})):
        file.write_text(original, encoding="utf-8")
        edit_json(file, lambda d, key=key, value=value: d["model"].__setitem__(key, value))
        assert refusal(path, DamagedFile) == ("gpt2.no_model_vocab", fixed(path=file))
    file.write_text(original, encoding="utf-8")
    edit_json(file, lambda d: d["added_tokens"][0].__setitem__("rstrip", True))
    assert refusal(path, UsageError) == ("gpt2.added_flag", {"path": file, "token": EOT, "flag": "rstrip"})
    edit_json(file, lambda d: d["added_tokens"][0].update(rstrip=False, id="5"))  # the library reads no "5" as 5
    key, fields = refusal(path, DamagedFile)
    assert (key, fields["field"], fields["found"]) == ("gpt2.field", "added_tokens[0].id", "string")
    edit_json(file, lambda d: d["added_tokens"][0].update(id=5))
    assert refusal(path, DamagedFile) == ("gpt2.id_twice", fixed(path=file, id=5, token="ą", special=EOT))
    edit_json(file, lambda d: d.update(added_tokens=None))
    assert read_tokenizer_dir(path).specials == [EOT]  # no config: GPT2Tokenizer's default, as the vocabulary has it
    file.write_text(original, encoding="utf-8")
    edit_json(file, lambda d: d["model"]["vocab"].pop("hel"))
    assert refused(path, DamagedFile).startswith(f"{file}: ")


def test_a_config_that_gives_an_added_id_another_token_than_tokenizer_json_is_refused(tmp_path):
    """tokenizer.json's added_tokens, then tokenizer_config.json's added_tokens_decoder: one id, one token."""
    path = tokenizer_json(tmp_path)
    config = path / "tokenizer_config.json"
    entry = {"content": EOT, "special": True}
    config.write_text(json.dumps({"added_tokens_decoder": {"258": entry}}), encoding="utf-8")
    assert read_tokenizer_dir(path).specials == [EOT]  # the same token at the same id: agreed
    config.write_text(json.dumps({"added_tokens_decoder": {"258": {**entry, "content": "<x>"}}}), encoding="utf-8")
    with pytest.raises(DamagedFile) as caught:
        read_tokenizer_dir(path)
    assert caught.value.code == "gpt2.id_twice"
    assert {k: caught.value.fields[k] for k in ("path", "id", "token", "special")} == {
        "path": config,
        "id": "258",
        "token": EOT,
        "special": "<x>",
    }

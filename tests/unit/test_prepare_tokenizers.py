"""prepare with each tokenizer, and streaming: chunked reading gives the very ids of the whole text."""

import hashlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.text import (
    BPETokenizer,
    CharTokenizer,
    HFBPETokenizer,
    WordTokenizer,
    choose_tokenizer,
    corpora,
    load_text,
    prepare,
)

# English, Chinese without spaces, CRLF line ends, emoji, a control character: every case a cut could break
TEXT = (
    "The quick brown fox, it's said, jumps over 2 lazy dogs.\r\n"
    "我爱你。你好吗？床前明月光，疑是地上霜。\n"
    "  Emoji 👍🏽 and \x1b[1mbold\x1b[0m   text\t\tend.\n"
) * 12
CHOICES = [  # (prepare keywords, directory prefix, tokenizer class)
    ({}, "char", CharTokenizer),
    ({"tokenizer": "word"}, "word-whitespace", WordTokenizer),
    ({"tokenizer": "word", "segment": "jieba"}, "word-jieba", WordTokenizer),
    ({"tokenizer": "bpe", "vocab_size": 300}, "bpe-300", BPETokenizer),
    ({"tokenizer": "bpe", "vocab_size": 300, "backend": "hf"}, "bpe-hf-300", HFBPETokenizer),
]


@pytest.fixture(scope="module")
def text_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("src") / "mixed.txt"
    path.write_bytes(TEXT.encode("utf-8"))
    return path


@pytest.mark.parametrize("kwargs, prefix, cls", CHOICES)
def test_prepare_each_tokenizer(text_file, tmp_path, kwargs, prefix, cls):
    data = prepare(f"file:{text_file}", tmp_path, **kwargs)
    sha = hashlib.sha256(TEXT.encode("utf-8")).hexdigest()
    assert data.dir == tmp_path / "prepared" / f"{prefix}-{sha[:16]}"  # kind and options in the name
    assert type(data.tokenizer) is cls and data.meta["tokenizer"] == cls.kind
    assert data.meta["chars"] == len(TEXT) and data.meta["text_sha256"] == sha
    ids = np.concatenate([data.train, data.val])  # (N,)
    assert len(data.train) == len(ids) * 9 // 10
    assert ids.tolist() == data.tokenizer.encode(TEXT)  # the same as encoding the whole text at once
    if cls is not WordTokenizer:
        assert data.tokenizer.decode(ids) == TEXT  # char and BPE lose nothing
    else:
        assert WordTokenizer.unk_id not in ids  # every word of the text is in its own vocabulary
    assert prepare(f"file:{text_file}", tmp_path, **kwargs).cached is True


def test_a_file_source_is_read_in_chunks_never_whole(text_file, tmp_path, monkeypatch):
    """prepare's memory stays bounded for a file: the text is never loaded as one string (bug
    guarded: a file: source sent down the in-memory path, which works, gives the same ids, and holds
    the whole file in memory). The vocabulary and encoding passes each read it in small chunks."""

    def whole(*args, **kwargs):
        raise AssertionError("a file: source was loaded whole")

    sizes, read = [], corpora.read_file

    def spy(path, chunk_chars):
        for chunk in read(path, chunk_chars):
            sizes.append(len(chunk))
            yield chunk

    monkeypatch.setattr(corpora, "load_text", whole)
    monkeypatch.setattr(corpora, "read_file", spy)
    data = prepare(f"file:{text_file}", tmp_path, tokenizer="bpe", vocab_size=300, chunk_chars=50)
    assert data.meta["chars"] == len(TEXT) and sum(sizes) == 2 * len(TEXT)  # two passes over the file
    assert max(sizes) <= 50


@pytest.mark.parametrize("kwargs, prefix, cls", CHOICES)
def test_streaming_gives_the_same_files(text_file, tmp_path, kwargs, prefix, cls):
    whole = prepare(f"file:{text_file}", tmp_path / "whole", **kwargs)
    tiny = prepare(f"file:{text_file}", tmp_path / "tiny", chunk_chars=5, **kwargs)  # ~1,000 chunks
    for name in ("train.bin", "val.bin", "tokenizer.json", "meta.json"):
        assert (tiny.dir / name).read_bytes() == (whole.dir / name).read_bytes(), name
    in_memory = cls.from_text(TEXT, **{k: v for k, v in whole.meta.get("options", {}).items()})
    assert in_memory.to_dict() == whole.tokenizer.to_dict()  # vocabulary from chunks = from the whole text


def test_char_default_is_unchanged(text_file, tmp_path):
    plain = prepare(f"file:{text_file}", tmp_path)  # the old call
    assert prepare(f"file:{text_file}", tmp_path, tokenizer="char").cached is True
    assert "options" not in plain.meta and plain.dir.name.startswith("char-")
    assert plain.tokenizer.chars == sorted(set(TEXT))


def test_bpe_backends_write_the_same_ids(text_file, tmp_path):
    ours = prepare(f"file:{text_file}", tmp_path, tokenizer="bpe", vocab_size=320)
    lib = prepare(f"file:{text_file}", tmp_path, tokenizer="bpe", vocab_size=320, backend="hf")
    assert ours.dir != lib.dir
    assert (ours.dir / "train.bin").read_bytes() == (lib.dir / "train.bin").read_bytes()
    assert ours.tokenizer.merges == lib.tokenizer.merges
    assert ours.meta["options"] == {"vocab_size": 320} and ours.meta["vocab_size"] == 320


def test_in_memory_sources_stream_too(tmp_path):
    a = prepare("builtin:seed", tmp_path / "a", tokenizer="bpe", vocab_size=280)
    b = prepare("builtin:seed", tmp_path / "b", tokenizer="bpe", vocab_size=280, chunk_chars=3)
    assert np.array_equal(a.train, b.train) and a.tokenizer.decode(np.concatenate([a.train, a.val])) == load_text(
        "builtin:seed"
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"tokenizer": "sentencepiece"},
            r"unknown tokenizer='sentencepiece' \(--tokenizer\); choose one of char, word, bpe",
        ),
        (
            {"tokenizer": "bpe", "vocab_size": 100},
            r"vocab_size=100 \(--vocab-size\) is too small.*256 byte values.*--vocab-size 256 or more",
        ),
        (
            {"tokenizer": "char", "vocab_size": 512},
            r"vocab_size \(--vocab-size\) applies only to tokenizer='bpe'.*use --tokenizer bpe",
        ),
        (
            {"segment": "jieba"},
            r"segment \(--segment\) applies only to tokenizer='word'.*--tokenizer word --segment jieba",
        ),
        ({"tokenizer": "bpe", "segment": "jieba"}, r"segment \(--segment\) applies only"),
        (
            {"tokenizer": "word", "segment": "spaces"},
            r"unknown segment='spaces' \(--segment\); choose one of whitespace, jieba",
        ),
        ({"backend": "hf"}, r"backend \(--backend\) applies only to tokenizer='bpe'"),
        ({"tokenizer": "bpe", "backend": "rust"}, r"unknown backend='rust' \(--backend\); choose ours .* or hf"),
        ({"tokenizer": "bpe", "vocab_size": "512"}, r"must be a whole number"),
    ],
)
def test_bad_choices_say_which_option_and_what_to_do(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        prepare("builtin:seed", tmp_path, **kwargs)
    assert not (tmp_path / "prepared").exists()  # refused before any work


def test_choice_names():
    assert choose_tokenizer().name == "char"
    assert choose_tokenizer("bpe").name == "bpe-512"  # the default vocabulary size is in the name too
    assert choose_tokenizer("bpe", 1024, backend="hf").options == {"vocab_size": 1024}


def test_file_hash_pass(text_file, tmp_path):
    sha, n_chars = corpora.file_sha256(text_file)
    assert sha == hashlib.sha256(TEXT.encode("utf-8")).hexdigest() and n_chars == len(TEXT)
    bad = tmp_path / "bad.txt"
    bad.write_bytes("héllo".encode("utf-8") + b"\xff rest")
    with pytest.raises(
        ValueError,
        match=r"not UTF-8 text \(byte 0xff at offset 6 is not valid UTF-8\); it reads as CP1252\. "
        r"Convert it, then use the copy: iconv -f CP1252 -t UTF-8",
    ):
        prepare(f"file:{bad}", tmp_path)


def test_cut_chunks_carries_the_rest():
    raw = ["ab c", "d ef", "ghij", "k"]
    chunks = list(corpora.cut_chunks(raw, WordTokenizer.safe_cut))
    assert chunks == ["ab ", "cd ", "efghijk"]  # no space after "ef": carried until the end
    assert list(corpora.cut_chunks(["abc", "def"], CharTokenizer.safe_cut)) == ["abc", "def"]
    assert list(corpora.cut_chunks([], CharTokenizer.safe_cut)) == []


def test_read_file_keeps_line_ends_and_whole_characters(text_file):
    chunks = list(corpora.read_file(text_file, chunk_chars=3))
    assert "".join(chunks) == TEXT and all(len(c) == 3 for c in chunks[:-1])  # characters, not bytes


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 我爱你。\n\t'1,👍"), max_size=80), st.integers(1, 9))
def test_chunked_encoding_equals_whole(text, size):
    bpe = BPETokenizer.from_text(TEXT, 300)
    for tok in (bpe, WordTokenizer.from_text(TEXT), WordTokenizer.from_text(TEXT, segment="jieba")):
        chunks = list(corpora.cut_chunks(corpora.read_str(text, size), tok.safe_cut))
        assert "".join(chunks) == text
        assert [i for c in chunks for i in tok.encode(c)] == tok.encode(text)


def test_meta_is_json_with_options(text_file, tmp_path):
    data = prepare(f"file:{text_file}", tmp_path, tokenizer="word", segment="jieba")
    meta = json.loads((data.dir / "meta.json").read_text(encoding="utf-8"))
    assert meta["options"] == {"segment": "jieba"} and meta["tokenizer"] == "word"


def test_every_choice_whole_and_each_refusal_word_for_word():
    from glassformer.text.corpora import TokenizerChoice

    assert choose_tokenizer() == TokenizerChoice(CharTokenizer, {}, "char")
    assert choose_tokenizer("word") == TokenizerChoice(WordTokenizer, {"segment": "whitespace"}, "word-whitespace")
    assert choose_tokenizer("word", segment="jieba") == TokenizerChoice(
        WordTokenizer, {"segment": "jieba"}, "word-jieba"
    )
    assert choose_tokenizer("bpe") == TokenizerChoice(BPETokenizer, {"vocab_size": 512}, "bpe-512")
    assert choose_tokenizer("bpe", 256, backend="ours") == TokenizerChoice(BPETokenizer, {"vocab_size": 256}, "bpe-256")
    assert choose_tokenizer("bpe", 300, backend="hf") == TokenizerChoice(
        HFBPETokenizer, {"vocab_size": 300}, "bpe-hf-300"
    )
    assert choose_tokenizer("bpe", 257).build(["ab ab"]).merges == [(97, 98)]
    refusals = [
        ({"tokenizer": "Char"}, "unknown tokenizer='Char' (--tokenizer); choose one of char, word, bpe"),
        (
            {"tokenizer": "word", "vocab_size": 512},
            "vocab_size (--vocab-size) applies only to tokenizer='bpe' (--tokenizer bpe): a word vocabulary is every "
            "distinct word of the text. Drop it, or use --tokenizer bpe",
        ),
        (
            {"tokenizer": "char", "segment": "jieba"},
            "segment (--segment) applies only to tokenizer='word' (--tokenizer word), not 'char'. Use --tokenizer word "
            "--segment jieba, or drop --segment",
        ),
        (
            {"tokenizer": "word", "backend": "hf"},
            "backend (--backend) applies only to tokenizer='bpe' (--tokenizer bpe), not 'word'. Use --tokenizer bpe, or "
            "drop --backend",
        ),
        (
            {"tokenizer": "word", "segment": "spaces"},
            "unknown segment='spaces' (--segment); choose one of whitespace, jieba",
        ),
        (
            {"tokenizer": "bpe", "backend": "rust"},
            "unknown backend='rust' (--backend); choose ours (Python, shows its "
            "work) or hf (the Hugging Face tokenizers library, same ids, faster)",
        ),
        ({"tokenizer": "bpe", "vocab_size": True}, "vocab_size=True (--vocab-size) must be a whole number, e.g. 512"),
        ({"tokenizer": "bpe", "vocab_size": 300.0}, "vocab_size=300.0 (--vocab-size) must be a whole number, e.g. 512"),
        (
            {"tokenizer": "bpe", "vocab_size": 255, "backend": "hf"},
            "vocab_size=255 (--vocab-size) is too small for byte-level BPE: its vocabulary starts with all 256 byte "
            "values, so it has at least 256 ids. Use --vocab-size 256 or more (e.g. 512)",
        ),
    ]
    for kwargs, message in refusals:
        with pytest.raises(ValueError) as caught:
            choose_tokenizer(**kwargs)
        assert str(caught.value) == message


def test_the_hash_pass_counts_characters_cut_between_blocks_and_finds_a_bad_byte_in_a_later_block(
    tmp_path, monkeypatch
):
    """With 3-byte blocks every multi-byte character is cut somewhere; the character count, the
    sha256 and the offset of a bad byte (after a cut character) must not notice."""
    monkeypatch.setattr(corpora, "HASH_BLOCK", 3)
    good = tmp_path / "good.txt"
    data = "ab é世界\r\n👍".encode("utf-8")
    good.write_bytes(data)
    assert corpora.file_sha256(good) == (hashlib.sha256(data).hexdigest(), 9)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ab\xc3\xa9\xffcd")  # é cut by the first block; 0xff at offset 4
    with pytest.raises(ValueError) as caught:
        corpora.file_sha256(bad)
    assert str(caught.value).startswith(f"{bad} is not UTF-8 text (byte 0xff at offset 4 is not valid UTF-8)")
    bad.write_bytes(b"abcd\xe4\xb8")  # the file ends inside 世: the cut starts at offset 4
    with pytest.raises(ValueError) as caught:
        corpora.file_sha256(bad)
    assert str(caught.value).startswith(f"{bad} is not UTF-8 text (byte 0xe4 at offset 4 is not valid UTF-8)")
    (tmp_path / "empty.txt").write_bytes(b"")
    assert corpora.file_sha256(tmp_path / "empty.txt") == (hashlib.sha256(b"").hexdigest(), 0)
    assert list(corpora.read_str("abcde", 2)) == ["ab", "cd", "e"] and list(corpora.read_str("abc")) == ["abc"]
    assert list(corpora.read_file(good)) == [data.decode("utf-8")]

"""corpora.py's preparation read whole: meta.json field by field, the files and their bytes, the
cache's place and defaults, each way a prepared directory can be damaged (and the note that says
so), a race with another process, and every refusal of a source word for word."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np
import pytest

from glassformer.errors import DamagedFile, NotFound
from glassformer.text import corpora
from glassformer.text.corpora import SEED_TEXT, load_text, prepare, sha256_text

FIX = "Give the path of a UTF-8 text file, e.g. file:./my_text.txt."
SEED_SHA = hashlib.sha256(SEED_TEXT.encode("utf-8")).hexdigest()


def ids_of(data) -> bytes:
    return (data.dir / "train.bin").read_bytes() + (data.dir / "val.bin").read_bytes()


def test_prepare_writes_meta_json_and_the_ids_whole(tmp_path):
    data = prepare("builtin:seed", cache_dir=str(tmp_path), chunk_chars=7)  # many chunks: same ids
    n = len(SEED_TEXT)
    assert data.dir == tmp_path / "prepared" / f"char-{SEED_SHA[:16]}"
    assert oct(data.dir.stat().st_mode & 0o777) == oct(0o755)  # ordinary cache, not mkdtemp's private mode
    ids = np.array(data.tokenizer.encode(SEED_TEXT), dtype=np.uint16)
    assert ids_of(data) == ids.tobytes()
    n_train = n * 9 // 10
    meta = {
        "format": 1,
        "source": "builtin:seed",
        "text_sha256": SEED_SHA,
        "chars": n,
        "tokenizer": "char",
        "vocab_size": len(set(SEED_TEXT)),
        "dtype": "uint16",
        "train_tokens": n_train,
        "val_tokens": n - n_train,
        "ids_sha256": hashlib.sha256(ids.tobytes()).hexdigest(),
    }
    assert (data.dir / "meta.json").read_text(encoding="utf-8") == json.dumps(meta, indent=2) + "\n"
    assert data.meta == meta and data.cached is False
    assert data.train.dtype == data.val.dtype == np.uint16 and not data.val.flags.writeable
    assert list(data.train) == list(ids[:n_train]) and list(data.val) == list(ids[n_train:])
    assert data.tokenizer.vocab_size == len(set(SEED_TEXT))
    again = prepare("builtin:seed", cache_dir=tmp_path)
    assert again.cached is True and again.meta == meta and list(again.val) == list(data.val)
    assert again.tokenizer.decode(again.train) == SEED_TEXT[:n_train]


def test_the_options_of_the_tokenizer_are_kept_in_meta_and_the_directory_name(tmp_path):
    data = prepare("builtin:seed", cache_dir=tmp_path, tokenizer="bpe", vocab_size=260)
    assert data.dir.name == f"bpe-260-{SEED_SHA[:16]}"
    assert data.meta["options"] == {"vocab_size": 260} and data.meta["tokenizer"] == "bpe"
    assert list(data.meta) == [
        "format",
        "source",
        "text_sha256",
        "chars",
        "tokenizer",
        "options",
        "vocab_size",
        "dtype",
        "train_tokens",
        "val_tokens",
        "ids_sha256",
    ]
    words = prepare("builtin:seed", cache_dir=tmp_path, tokenizer="word", segment="whitespace")
    assert words.dir.name == f"word-whitespace-{SEED_SHA[:16]}" and words.meta["options"] == {"segment": "whitespace"}
    hf = prepare("builtin:seed", cache_dir=tmp_path, tokenizer="bpe", vocab_size=260, backend="hf")
    assert hf.dir.name == f"bpe-hf-260-{SEED_SHA[:16]}" and ids_of(hf) == ids_of(data)


def test_the_defaults_are_shakespeare_char_and_the_default_cache(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(corpora, "_shakespeare", lambda cache: seen.append(cache) or "to be or not to be " * 3)
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "env-cache"))
    data = prepare()
    assert seen == [tmp_path / "env-cache"] and data.meta["source"] == "shakespeare"
    assert data.dir.parent == tmp_path / "env-cache" / "prepared" and data.dir.name.startswith("char-")
    assert load_text() == "to be or not to be " * 3 and seen[-1] == tmp_path / "env-cache"
    assert prepare("builtin:seed").dir.parent == tmp_path / "env-cache" / "prepared"


def test_a_vocabulary_of_65535_still_fits_uint16(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("".join(chr(0x10000 + i) for i in range(65535)) * 2, encoding="utf-8")
    data = prepare(f"file:{path}", cache_dir=tmp_path)
    assert data.tokenizer.vocab_size == 65535 and data.train.dtype == np.uint16 and data.meta["dtype"] == "uint16"
    assert os.path.getsize(data.dir / "val.bin") == 2 * len(data.val)


def test_ten_tokens_split_nine_and_one_and_fewer_are_refused(tmp_path):
    path = tmp_path / "ten.txt"
    path.write_text("abcdefghij", encoding="utf-8")
    data = prepare(f"file:{path}", cache_dir=tmp_path)
    assert (len(data.train), len(data.val)) == (9, 1) and data.meta["val_tokens"] == 1
    path.write_text("a", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        prepare(f"file:{path}", cache_dir=tmp_path)
    assert str(caught.value) == f"corpus 'file:{path}' has 1 tokens; too short to split 90/10"
    assert not [p for p in (tmp_path / "prepared").iterdir() if p.name.startswith(".")]  # the temp dir is gone


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda d: (d / "val.bin").unlink(), "val.bin is missing or has the wrong size"),
        (lambda d: (d / "train.bin").write_bytes(b"\x00"), "train.bin is missing or has the wrong size"),
        (lambda d: (d / "tokenizer.json").write_text("{", encoding="utf-8"), None),
        (
            lambda d: (d / "train.bin").write_bytes(b"\x00" * (d / "train.bin").stat().st_size),
            "the ids differ from the sha256 recorded when they were written",
        ),
    ],
)
def test_a_damaged_preparation_is_named_on_stderr_and_prepared_again(tmp_path, capsys, damage, problem):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    damage(first.dir)
    capsys.readouterr()
    again = prepare("builtin:seed", cache_dir=tmp_path)
    err = capsys.readouterr().err
    if problem is None:  # the tokenizer's own refusal, as load_tokenizer words it
        assert err.startswith(f"note: the prepared data in {first.dir} is damaged ({first.dir / 'tokenizer.json'}")
        assert err.endswith("); preparing it again.\n")
    else:
        assert err == f"note: the prepared data in {first.dir} is damaged ({problem}); preparing it again.\n"
    assert again.cached is False
    assert again.meta == first.meta and sorted(p.name for p in again.dir.iterdir()) == [
        "meta.json",
        "tokenizer.json",
        "train.bin",
        "val.bin",
    ]


@pytest.mark.parametrize("split", ["train", "val"])
def test_ids_beyond_the_vocabulary_are_found_without_a_recorded_sha(tmp_path, capsys, split):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    meta = dict(first.meta)
    del meta["ids_sha256"]  # an older preparation: no sha to compare
    (first.dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert prepare("builtin:seed", cache_dir=tmp_path).cached is True  # no sha recorded: still intact
    path = first.dir / f"{split}.bin"
    path.write_bytes(path.read_bytes()[:-2] + np.array([first.meta["vocab_size"]], np.uint16).tobytes())
    capsys.readouterr()
    assert prepare("builtin:seed", cache_dir=tmp_path).cached is False
    vocab = first.meta["vocab_size"]
    assert capsys.readouterr().err == (
        f"note: the prepared data in {first.dir} is damaged ({split}.bin holds ids "
        f"beyond the tokenizer's {vocab}); preparing it again.\n"
    )


@pytest.mark.parametrize("change", [{"dtype": None}, {"train_tokens": "many"}, {"val_tokens": None}, {"dtype": "nope"}])
def test_a_meta_json_without_its_dtype_or_counts_is_damage(tmp_path, capsys, change):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    meta = {**first.meta, **change}
    if None in change.values():
        del meta[next(iter(change))]
    (first.dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    capsys.readouterr()
    assert prepare("builtin:seed", cache_dir=tmp_path).cached is False
    assert capsys.readouterr().err == (
        f"note: the prepared data in {first.dir} is damaged (meta.json lacks the dtype "
        "or token counts); preparing it again.\n"
    )


@pytest.mark.parametrize("change", [{"format": 0}, {"text_sha256": "0" * 64}, None])
def test_another_format_or_text_is_prepared_again_without_a_note(tmp_path, capsys, change):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    if change is None:
        (first.dir / "meta.json").write_text("{", encoding="utf-8")
    else:
        (first.dir / "meta.json").write_text(json.dumps({**first.meta, **change}), encoding="utf-8")
    capsys.readouterr()
    again = prepare("builtin:seed", cache_dir=tmp_path)
    assert again.cached is False and again.meta == first.meta and capsys.readouterr().err == ""


def test_another_process_that_finished_first_is_used_and_a_failed_rename_is_raised(tmp_path, monkeypatch):
    real_replace = os.replace

    def they_won(src, dst):
        if not os.path.isdir(src):  # (os is one module: the atomic file writes use it too)
            return real_replace(src, dst)
        shutil.copytree(src, dst)  # the other process's finished directory
        raise OSError(39, "Directory not empty")

    monkeypatch.setattr(corpora.os, "replace", they_won)
    data = prepare("builtin:seed", cache_dir=tmp_path)
    assert data.cached is False and data.meta["text_sha256"] == SEED_SHA
    assert sorted(p.name for p in (tmp_path / "prepared").iterdir()) == [data.dir.name]  # their copy, no temp

    def disk_full(src, dst):
        if not os.path.isdir(src):
            return real_replace(src, dst)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(corpora.os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        prepare("builtin:seed", cache_dir=tmp_path / "other")
    assert list((tmp_path / "other" / "prepared").iterdir()) == []


def test_split_file_moves_the_tail_a_block_at_a_time(tmp_path):
    ids = tmp_path / "ids.bin"
    ids.write_bytes(bytes(range(10)))
    corpora._split_file(ids, 4, tmp_path / "head.bin", tmp_path / "tail.bin", block=3)
    assert (tmp_path / "head.bin").read_bytes() == bytes(range(4))
    assert (tmp_path / "tail.bin").read_bytes() == bytes(range(4, 10)) and not ids.exists()


def test_sha256_text_hashes_utf8_and_keeps_lone_surrogates():
    assert sha256_text("世") == hashlib.sha256("世".encode("utf-8")).hexdigest()
    assert sha256_text("\ud800") == hashlib.sha256(b"\xed\xa0\x80").hexdigest()


def test_each_bad_file_source_is_named_word_for_word(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(NotFound) as caught:
        load_text(f"file:{missing}")
    assert str(caught.value) == f"file:{missing}: {missing} is not a readable file (no such file). {FIX}"
    with pytest.raises(NotFound) as caught:
        prepare(f"file:{tmp_path}", cache_dir=tmp_path)
    assert str(caught.value) == f"file:{tmp_path}: {tmp_path} is not a readable file (a directory). {FIX}"
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(DamagedFile) as caught:
        load_text(f"file:{empty}")
    assert str(caught.value) == f"file:{empty}: {empty} is empty; there is nothing to learn from. {FIX}"
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b" " * (1 << 16))  # exactly the head that is read: all of it blank
    with pytest.raises(DamagedFile) as caught:
        prepare(f"file:{blank}", cache_dir=tmp_path)
    assert str(caught.value) == (
        f"file:{blank}: {blank} is empty (only whitespace); there is nothing to learn from. {FIX}"
    )
    blank.write_bytes(b" " * (1 << 16) + b"late words, after a blank head")
    assert load_text(f"file:{blank}").endswith("late words, after a blank head")


def test_a_file_source_may_start_with_a_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "mine.txt").write_text("home text", encoding="utf-8")
    assert load_text("file:~/mine.txt") == "home text"


def test_an_unknown_source_lists_every_valid_form_and_named_sources_get_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(corpora, "NAMED_SOURCES", {"test-poems": lambda cache: f"poems from {cache}"})
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "env"))
    assert load_text("test-poems", tmp_path) == f"poems from {tmp_path}"
    assert load_text("test-poems") == f"poems from {tmp_path / 'env'}"
    for bad in ("nope", "file:", "builtin:", "builtin:nope"):
        with pytest.raises(ValueError) as caught:
            load_text(bad)
        assert str(caught.value) == (
            f"unknown corpus source {bad!r}; valid forms: shakespeare, file:PATH, builtin:seed, test-poems"
        )


def test_a_file_source_that_fails_past_its_first_block_names_the_file_and_the_fix(tmp_path, monkeypatch):
    """The head of a `file:` source reads (it is checked first), then the whole read fails with an I/O
    error (a bad sector further on): the error names the file, the system's reason and what a file:
    source must be, in English and Chinese. Bug it guards: the whole read given no fix sentence
    (`read_bytes(path, None)`), so the message ended in "None" (sample H, 30 Nov)."""
    import errno
    from pathlib import Path

    from glassformer.messages import speaking

    src = tmp_path / "book.txt"
    src.write_text("to be or not to be\n", encoding="utf-8")
    real = Path.read_bytes

    def failing(self):
        if self == src:
            raise OSError(errno.EIO, "Input/output error")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", failing)
    with pytest.raises(DamagedFile) as caught:
        load_text(f"file:{src}")
    assert str(caught.value) == (
        f"{src} cannot be read (Input/output error). Give the path of a UTF-8 text file, e.g. file:./my_text.txt."
    )
    with speaking("zh"), pytest.raises(DamagedFile) as caught:
        load_text(f"file:{src}")
    assert (
        str(caught.value)
        == f"{src} 无法读取（Input/output error）。请给出一个 UTF-8 文本文件的路径，例如 file:./my_text.txt。"
    )

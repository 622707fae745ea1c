"""The zh-poems source: its recipe on a small .deb the test builds, the checks around it, offline
errors that say what to do, and (network permitting) the real package's exact bytes."""

import hashlib
import io
import subprocess
import tarfile
from pathlib import Path

import pytest
from helpers import keyed, said

from glassformer.text import chinese, corpora
from glassformer.text.corpora import CorpusUnavailable, load_text, prepare, sha256_text

ESC = "\x1b"
TANG = (
    f"{ESC}[32m《静夜思》{ESC}[m\n{ESC}[33m作者：李白{ESC}[m\n床前明月光，疑是地上霜。\n%\n"
    f"{ESC}[32m《春晓》{ESC}[m\n作者：孟浩然\n春眠不觉晓，处处闻啼鸟。\n\n%\n"
)
SONG = "题目:《如梦令》\n作者:李清照\n昨夜雨疏风骤，浓睡不消残酒。\n%   \n\n尾声<&>\n%\n"
# The recipe by hand: colours gone, entries split at "%" lines (spaces allowed), blank-line joined.
EXPECTED = (
    "《静夜思》\n作者：李白\n床前明月光，疑是地上霜。\n\n"
    "《春晓》\n作者：孟浩然\n春眠不觉晓，处处闻啼鸟。\n\n"
    "题目:《如梦令》\n作者:李清照\n昨夜雨疏风骤，浓睡不消残酒。\n\n"
    "尾声<&>\n"
)


def _tar_xz(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _ar(members: dict[str, bytes]) -> bytes:
    out = b"!<arch>\n"
    for name, data in members.items():
        header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode("ascii")
        assert len(header) == 60
        out += header + data + (b"\n" if len(data) % 2 else b"")
    return out


def fake_deb(path, files=None):
    files = (
        files
        if files is not None
        else {
            "./usr/share/games/fortunes/song100": SONG,  # order in the
            "./usr/share/games/fortunes/tang300": TANG,  # archive: not the recipe's
            "./usr/share/doc/fortunes-zh/copyright": "GPL-3+",
        }
    )
    path.write_bytes(
        _ar(
            {
                "debian-binary": b"2.0\n",
                "control.tar.xz": _tar_xz({"./control": "Package: x\n"}),
                "data.tar.xz": _tar_xz(files),
            }
        )
    )
    return path


@pytest.fixture
def cache_with_fake_deb(tmp_path, monkeypatch):
    """A cache holding a fake package, with the expected checksums set to the fake's own."""
    (tmp_path / "downloads").mkdir()
    deb = fake_deb(tmp_path / "downloads" / chinese.DEB_FILE)
    monkeypatch.setattr(chinese, "DEB_SHA256", hashlib.sha256(deb.read_bytes()).hexdigest())
    monkeypatch.setattr(chinese, "ZH_POEMS_SHA256", sha256_text(EXPECTED))
    return tmp_path


def test_recipe_on_a_small_package(tmp_path):
    assert chinese.build_text(fake_deb(tmp_path / "x.deb")) == EXPECTED


def test_recipe_strips_only_newlines_around_entries(tmp_path):
    """Entries lose the blank lines around them and nothing else: a poem may start or end with any
    character (here X, and a full stop), which must survive."""
    files = {
        "./usr/share/games/fortunes/tang300": "\nX始\n终。X\n\n%\n",
        "./usr/share/games/fortunes/song100": "XX\n%\n",
    }
    assert chinese.build_text(fake_deb(tmp_path / "x.deb", files)) == "X始\n终。X\n\nXX\n"


def test_recipe_needs_both_files(tmp_path):
    deb = fake_deb(tmp_path / "x.deb", {"./usr/share/games/fortunes/tang300": TANG})
    assert keyed(ValueError, chinese.build_text, deb) == (
        "zh_poems.no_files",
        {"files": "usr/share/games/fortunes/song100"},
    )


def test_the_ar_walk_finds_data_tar_after_odd_sized_members_or_says_it_is_missing():
    """The .deb's members are walked header by header: an odd-sized member is padded to even (a walk
    that forgets the pad byte reads the next header one byte off), and the data member's exact bytes
    come back; a .deb without one is refused with its own message (not a crash on the way)."""
    members = {
        "debian-binary": b"2.0\n",
        "control.tar.xz": b"odd!!",
        "x" * 15: b"y",  # a name filling the field
        "data.tar.zst": b"the data, 17 bytes"[:17],
    }
    assert chinese._deb_data(_ar(members)) == b"the data, 17 byte"
    without_data = _ar({k: v for k, v in members.items() if k != "data.tar.zst"})
    assert keyed(ValueError, chinese._deb_data, without_data) == ("zh_poems.no_data", {})
    assert keyed(ValueError, chinese._deb_data, b"PK\x03\x04") == ("zh_poems.not_deb", {})


def test_not_a_deb(tmp_path):
    (tmp_path / "x.deb").write_bytes(b"PK\x03\x04 a zip")
    assert keyed(ValueError, chinese.build_text, tmp_path / "x.deb") == ("zh_poems.not_deb", {})


def test_named_source_loads_caches_and_prepares(cache_with_fake_deb, monkeypatch):
    cache = cache_with_fake_deb
    assert load_text("zh-poems", cache_dir=cache) == EXPECTED
    assert (cache / "sources" / "zh-poems.txt").read_text(encoding="utf-8") == EXPECTED
    (cache / "downloads" / chinese.DEB_FILE).unlink()  # the kept text is enough now: no package, no network
    monkeypatch.setattr(chinese.subprocess, "run", lambda *a, **k: pytest.fail("network used on a warm cache"))
    assert load_text("zh-poems", cache_dir=cache) == EXPECTED
    data = prepare("zh-poems", cache_dir=cache)
    assert data.meta["source"] == "zh-poems" and data.meta["chars"] == len(EXPECTED)
    assert data.tokenizer.decode(list(data.train) + list(data.val)) == EXPECTED


def test_a_changed_package_is_refused(cache_with_fake_deb, monkeypatch):
    monkeypatch.setattr(chinese, "DEB_SHA256", "0" * 64)
    key, fields = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=cache_with_fake_deb)
    assert (key, fields["deb"], fields["want"]) == (
        "zh_poems.deb_sha",
        cache_with_fake_deb / "downloads" / chinese.DEB_FILE,
        "0" * 64,
    )


def test_a_changed_text_is_refused(cache_with_fake_deb, monkeypatch):
    monkeypatch.setattr(chinese, "ZH_POEMS_SHA256", "f" * 64)
    key, fields = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=cache_with_fake_deb)
    assert (key, fields["got"], fields["want"]) == ("zh_poems.sha", sha256_text(EXPECTED), "f" * 64)
    assert not (cache_with_fake_deb / "sources" / "zh-poems.txt").exists()


def apt_refusal(folder: Path, apt_said: str, heard) -> tuple[str, dict]:
    """The key and fields of the refusal when apt-get could not download the package into `folder`:
    `instead` is the sentence said with the package file and that folder (where to put it by hand)."""
    instead = heard.rendered(deb=chinese.DEB_FILE, folder=folder)
    return "zh_poems.apt_failed", {"package": "fortunes-zh=2.98", "said": apt_said, "instead": instead}


def test_offline_error_says_what_to_do(tmp_path, monkeypatch):
    offline = "E: Failed to fetch ... Temporary failure resolving"

    def no_network(cmd, **kwargs):
        assert cmd == ["apt-get", "download", "fortunes-zh=2.98"]
        return subprocess.CompletedProcess(cmd, 100, "", offline)

    monkeypatch.setattr(chinese.subprocess, "run", no_network)
    with said() as heard:
        refusal = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=tmp_path)
    assert refusal == apt_refusal(tmp_path / "downloads", offline, heard)
    assert not list((tmp_path / "downloads").iterdir())  # no temp folder left behind


def test_apt_get_download_is_moved_into_the_cache(tmp_path, monkeypatch, capsys):
    """The network path with apt-get faked: the package it downloads into its temporary folder is
    moved into downloads/ and the text built from it; an apt-get that exits 0 but leaves no package
    is refused with its last line (bug guarded: the downloaded file never looked for)."""
    deb = fake_deb(tmp_path / "fake.deb").read_bytes()
    monkeypatch.setattr(chinese, "DEB_SHA256", hashlib.sha256(deb).hexdigest())
    monkeypatch.setattr(chinese, "ZH_POEMS_SHA256", sha256_text(EXPECTED))

    def apt_get(cmd, cwd, **kwargs):
        assert cmd == ["apt-get", "download", "fortunes-zh=2.98"]
        (Path(cwd) / "fortunes-zh_2.98_all.deb").write_bytes(deb)
        return subprocess.CompletedProcess(cmd, 0, "Get:1 fortunes-zh 2.98 [1,234 kB]", "")

    monkeypatch.setattr(chinese.subprocess, "run", apt_get)
    cache = tmp_path / "cache"
    assert load_text("zh-poems", cache_dir=cache) == EXPECTED
    note = capsys.readouterr().err  # the wait is announced: what is fetched, and where it goes
    assert chinese.DEB_NAME in note and chinese.DEB_VERSION in note and str(cache / "downloads") in note
    assert sorted(p.name for p in (cache / "downloads").iterdir()) == [chinese.DEB_FILE]  # no temp folder left

    monkeypatch.setattr(
        chinese.subprocess, "run", lambda cmd, cwd, **k: subprocess.CompletedProcess(cmd, 0, "W: nothing fetched", "")
    )
    key, fields = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=tmp_path / "other")
    assert (key, fields["said"]) == ("zh_poems.apt_failed", "W: nothing fetched")  # apt-get's last line, quoted


def test_no_apt_get(tmp_path, monkeypatch):
    def missing(cmd, **kwargs):
        raise FileNotFoundError(cmd[0])

    monkeypatch.setattr(chinese.subprocess, "run", missing)
    with said() as heard:
        refusal = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=tmp_path)
    assert refusal == (
        "zh_poems.no_apt",
        {"name": "zh-poems", "instead": apt_refusal(tmp_path / "downloads", "", heard)[1]["instead"]},
    )


def test_unknown_source_lists_zh_poems():
    key, fields = keyed(ValueError, load_text, "zh-poem")
    assert (key, fields["forms"].split(", ")[-1]) == ("corpus.unknown", "zh-poems")


@pytest.mark.slow
def test_real_package_bytes(tmp_path, monkeypatch):
    cache = corpora.default_cache_dir()
    if not ((cache / "sources" / "zh-poems.txt").exists() or (cache / "downloads" / chinese.DEB_FILE).exists()):
        cache = tmp_path
    try:
        text = load_text("zh-poems", cache_dir=cache)
    except CorpusUnavailable as e:
        if cache == tmp_path and e.code in ("zh_poems.apt_failed", "zh_poems.no_apt"):
            pytest.skip(f"cannot download {chinese.DEB_NAME} {chinese.DEB_VERSION} and no warm cache: {e}")
        raise
    assert sha256_text(text) == chinese.ZH_POEMS_SHA256
    assert text.startswith("《感遇・其一》\n作者：张九龄\n") and "\x1b" not in text and "\n%" not in text
    monkeypatch.setattr(chinese.subprocess, "run", lambda *a, **k: pytest.fail("network used on a warm cache"))
    data = prepare("zh-poems", cache_dir=cache)
    assert data.meta["chars"] == len(text) and data.tokenizer.vocab_size == len(set(text))


def test_a_package_that_verifies_but_cannot_be_read_and_each_checksum_refusal_whole(cache_with_fake_deb, monkeypatch):
    """The three refusals of a cached package, by key and fields: its own sha256, a package whose
    checksum matches but whose archive is not a .deb (named, with the reader's reason), the text's sha256."""
    cache = cache_with_fake_deb
    deb = cache / "downloads" / chinese.DEB_FILE
    got = hashlib.sha256(deb.read_bytes()).hexdigest()
    monkeypatch.setattr(chinese, "DEB_SHA256", "0" * 64)
    assert keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=cache) == (
        "zh_poems.deb_sha",
        {"deb": deb, "got": got, "want": "0" * 64, "package": "fortunes-zh", "version": "2.98"},
    )
    monkeypatch.setattr(chinese, "DEB_SHA256", got)
    monkeypatch.setattr(chinese, "ZH_POEMS_SHA256", "f" * 64)
    assert keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=cache) == (
        "zh_poems.sha",
        {"name": "zh-poems", "deb": deb, "got": sha256_text(EXPECTED), "want": "f" * 64},
    )
    deb.write_bytes(b"PK\x03\x04 a zip, not a deb")
    monkeypatch.setattr(chinese, "DEB_SHA256", hashlib.sha256(deb.read_bytes()).hexdigest())
    with pytest.raises(CorpusUnavailable) as caught:
        load_text("zh-poems", cache_dir=cache)
    problem = caught.value.fields["problem"]
    assert (caught.value.code, caught.value.fields) == ("corpus.sdist", {"sdist": deb, "problem": problem})
    assert (problem.code, problem.fields) == ("zh_poems.not_deb", {})  # the reader's reason, ours
    assert caught.value.__cause__ is problem
    assert not (cache / "sources").exists()


@pytest.mark.parametrize(
    "code, saved, stdout, stderr, apt_said",
    [
        (100, False, "", "E: first\nW: detail\nE: second\n", "E: first / E: second"),
        (100, False, "", "", "no output"),
        (0, False, "Reading package lists\nnothing fetched\n", "", "nothing fetched"),
        (1, True, "Get:1 fortunes-zh", "interrupted", "Get:1 fortunes-zh"),
    ],
)
def test_a_failed_apt_get_is_quoted_whole_with_what_to_do_instead(
    tmp_path, monkeypatch, capsys, code, saved, stdout, stderr, apt_said
):
    """apt-get's E: lines (all, joined), else its last line, else "no output"; a non-zero exit is a
    failure even with a package saved; it runs in a temporary folder beside downloads/."""
    calls = []

    def apt_get(cmd, cwd, **kwargs):
        calls.append((cwd, kwargs))
        if saved:
            fake_deb(Path(cwd) / "fortunes-zh_2.98_all.deb")
        return subprocess.CompletedProcess(cmd, code, stdout, stderr)

    monkeypatch.setattr(chinese.subprocess, "run", apt_get)
    with said() as heard:
        refusal = keyed(CorpusUnavailable, load_text, "zh-poems", cache_dir=tmp_path)
    folder = tmp_path / "downloads"
    assert refusal == apt_refusal(folder, apt_said, heard)
    ((cwd, kwargs),) = calls
    assert kwargs == {"capture_output": True, "text": True}
    assert Path(cwd).parent == folder and Path(cwd).name.startswith(".apt-")
    what = f"{chinese.DEB_NAME} {chinese.DEB_VERSION}"  # the package and its version, as the note names them
    assert capsys.readouterr().err == heard.rendered(what=what, folder=folder) + "\n"
    assert list(folder.iterdir()) == []


def test_no_apt_get_is_said_whole(tmp_path, monkeypatch):
    def missing(cmd, **kwargs):
        raise FileNotFoundError(cmd[0])

    monkeypatch.setattr(chinese.subprocess, "run", missing)
    with said() as heard, pytest.raises(CorpusUnavailable) as caught:
        load_text("zh-poems", cache_dir=tmp_path / "c")
    folder = tmp_path / "c" / "downloads"
    words = str(caught.value)  # the source named first, then where to put the package by hand
    assert words.startswith(chinese.ZH_POEMS) and words.endswith(heard.rendered(deb=chinese.DEB_FILE, folder=folder))
    assert chinese.DEB_FILE in words and str(folder) in words and "\n" not in words
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_package_without_the_poems_names_both_files_in_order_and_skips_directories(tmp_path):
    deb = fake_deb(tmp_path / "x.deb", {"./usr/share/doc/fortunes-zh/copyright": "GPL-3+"})
    assert keyed(ValueError, chinese.build_text, deb) == (  # both, in the recipe's order
        "zh_poems.no_files",
        {"files": ", ".join(["usr/share/games/fortunes/tang300", "usr/share/games/fortunes/song100"])},
    )
    files = {"usr/share/games/fortunes/tang300": "甲\n%\n", "./usr/share/games/fortunes/song100": "乙"}  # no ./ too
    assert chinese.build_text(fake_deb(tmp_path / "y.deb", files)) == "甲\n\n乙\n"


def test_a_cached_text_of_other_bytes_is_rebuilt_from_the_package(cache_with_fake_deb):
    text = cache_with_fake_deb / "sources" / "zh-poems.txt"
    text.parent.mkdir()
    text.write_text("edited by hand", encoding="utf-8")
    assert load_text("zh-poems", cache_dir=cache_with_fake_deb) == EXPECTED
    assert text.read_bytes() == EXPECTED.encode("utf-8")


def test_a_downloads_folder_left_by_an_earlier_try_is_used_not_refused(tmp_path, monkeypatch):
    """The usual second try: downloads/ already exists (an earlier download failed after making it,
    or another corpus put its file there). The package still lands in it and the text is built.
    Bug it guards: the folder made with `exist_ok` off, so every try after the first stopped on
    FileExistsError (sample I, 30 Nov)."""
    deb = fake_deb(tmp_path / "fake.deb").read_bytes()
    monkeypatch.setattr(chinese, "DEB_SHA256", hashlib.sha256(deb).hexdigest())
    monkeypatch.setattr(chinese, "ZH_POEMS_SHA256", sha256_text(EXPECTED))

    def apt_get(cmd, cwd, **kwargs):
        (Path(cwd) / "fortunes-zh_2.98_all.deb").write_bytes(deb)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(chinese.subprocess, "run", apt_get)
    cache = tmp_path / "cache"
    (cache / "downloads").mkdir(parents=True)
    (cache / "downloads" / "other.tar.gz").write_bytes(b"kept")
    assert load_text("zh-poems", cache_dir=cache) == EXPECTED
    assert sorted(p.name for p in (cache / "downloads").iterdir()) == sorted([chinese.DEB_FILE, "other.tar.gz"])
    assert (cache / "downloads" / "other.tar.gz").read_bytes() == b"kept"

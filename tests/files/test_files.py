"""Atomic writes (glassformer/files.py): a reader, or a crash, sees the old file or the new one.

Bug guarded throughout: the generic atomic write replaced by a plain write to the file's own name.
A plain write passes every test that only reads the file afterwards; these tests look while the
write is under way and after it dies.
"""

from __future__ import annotations

import os
import stat

import pytest

from glassformer.files import atomic_write, write_bytes_atomic, write_temp, write_text_atomic


def test_while_writing_the_old_file_is_intact_and_the_new_one_is_elsewhere(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("old")
    seen = {}

    def write(tmp):
        with open(tmp, "w") as f:
            f.write("new, first half")
            f.flush()
            seen["target"] = path.read_text()  # what a reader sees mid-write
            seen["tmp"] = tmp
            f.write(", second half")

    atomic_write(path, write)
    assert seen["target"] == "old"
    assert os.path.dirname(seen["tmp"]) == str(tmp_path)  # same directory: os.replace cannot cross filesystems
    assert os.path.basename(seen["tmp"]).startswith(".config.json.") and seen["tmp"].endswith(".tmp")
    assert path.read_text() == "new, first half, second half"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]  # no temp file left behind


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_a_write_that_dies_keeps_the_old_file_and_leaves_no_temp(tmp_path, error):
    path = tmp_path / "tokenizer.json"
    path.write_text("the last good one")

    def dies(tmp):
        with open(tmp, "w") as f:
            f.write("half")
        raise error

    with pytest.raises(type(error)):
        atomic_write(path, dies)
    assert path.read_text() == "the last good one"
    assert [p.name for p in tmp_path.iterdir()] == ["tokenizer.json"]


def test_a_new_file_is_not_created_when_the_write_dies(tmp_path):
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "sub" / "x.txt", "never")  # the directory does not exist
    with pytest.raises(ValueError):
        atomic_write(tmp_path / "y.bin", lambda tmp: (_ for _ in ()).throw(ValueError("bad")))
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rename_removes_the_temp(tmp_path):
    (tmp_path / "d").mkdir()  # os.replace(file, non-empty-or-dir) fails: the target is a directory
    (tmp_path / "d" / "keep").write_text("x")
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "d", "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_write_temp_returns_a_complete_readable_file_and_leaves_the_target_alone(tmp_path):
    target = tmp_path / "model.safetensors"
    tmp = write_temp(target, lambda t: open(t, "wb").write(b"\x01\x02"))
    assert not target.exists() and open(tmp, "rb").read() == b"\x01\x02"
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o644  # readable like any kept file, not mkstemp's 0o600


def test_text_keeps_newlines_and_utf8_and_bytes_are_exact(tmp_path):
    write_text_atomic(tmp_path / "t.txt", "一\r\n二\n")
    assert (tmp_path / "t.txt").read_bytes() == "一\r\n二\n".encode("utf-8")
    write_bytes_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    write_bytes_atomic(tmp_path / "b.bin", b"second")  # replacing an existing file
    assert (tmp_path / "b.bin").read_bytes() == b"second"

"""The run directory's lock (train/lock.py) counts holders within one process.

Bugs guarded: a release that resets the count instead of lowering it (the lock would then be held
forever, or let go while an outer holder still works in the directory)."""

from __future__ import annotations

import datetime
import errno
import json
import os
import socket
import sys
from types import SimpleNamespace

import pytest

from glassformer.messages import speaking
from glassformer.train import lock


def test_the_lock_file_goes_with_the_last_of_several_holders(tmp_path):
    path = lock.acquire(tmp_path)
    assert path.is_file()
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644 & ~umask  # rw-r--r--: readable by all, never executable
    assert lock.acquire(tmp_path) == path and lock.acquire(tmp_path) == path  # three holders
    lock.release(path)
    lock.release(path)
    assert path.is_file()  # one holder left
    lock.release(path)
    assert not path.exists() and str(path) not in lock._held
    lock.release(path)  # one release too many: nothing to let go of, no error
    assert lock.acquire(tmp_path) == path and path.is_file()  # and the directory can be locked again
    lock.release(path)
    assert not path.exists()


def test_a_holder_that_has_not_written_its_name_yet_is_reported_with_question_marks(tmp_path):
    """Another holder locked the file but wrote nothing yet (it is between open and write): the error
    still says what to do, with "?" for what is not known, never "None"."""
    fcntl = pytest.importorskip("fcntl")  # POSIX; on Windows the lock is msvcrt's
    path = tmp_path / lock.LOCK_FILE
    other = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # a second open file: flock sees another holder
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        with pytest.raises(lock.RunLocked) as err:
            lock.acquire(tmp_path)
        assert (
            f"{tmp_path} is being trained by another process (pid ? on ?, since ?); two trainers would "
            f"overwrite each other's checkpoints. Wait for it to finish, or stop it (kill PID); if no such "
            f"process runs, delete {path.resolve()}."
        ) == str(err.value)
    finally:
        os.close(other)


def test_a_lock_file_removed_after_it_was_opened_is_noticed(tmp_path):
    """The previous holder may remove the file between our open and our lock: the lock we got is on
    a file nobody else will open again, so acquire must notice (and lock the new file)."""
    path = tmp_path / lock.LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        assert lock._still_there(fd, path) is True
        path.unlink()
        assert lock._still_there(fd, path) is (os.name != "posix")  # Windows cannot remove an open file
        path.touch()  # another file at the same path
        if os.name == "posix":
            assert lock._still_there(fd, path) is False
    finally:
        os.close(fd)


def test_the_lock_file_says_who_holds_it_and_a_second_trainer_is_told_word_for_word(tmp_path, monkeypatch):
    """What the holder writes (pid, host, start time, one JSON line), and the refusal another process
    gets, in English and Chinese. The other process is played by forgetting this one's hold: a second
    open file of the lock is refused by flock like another process's."""
    pytest.importorskip("fcntl")
    path = lock.acquire(tmp_path)
    try:
        text = path.read_text(encoding="utf-8")
        info = json.loads(text)
        assert text.endswith("}\n") and text.count("\n") == 1 and list(info) == ["pid", "host", "started"]
        assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
        started = datetime.datetime.strptime(info["started"], "%Y-%m-%d %H:%M:%S")
        assert abs((datetime.datetime.now() - started).total_seconds()) < 60
        held = lock._held.pop(str(path))  # as another process sees it
        try:
            for lang, expected in (
                (
                    "en",
                    f"{tmp_path.resolve()} is being trained by another process (pid {info['pid']} on "
                    f"{info['host']}, since {info['started']}); two trainers would overwrite each other's "
                    f"checkpoints. Wait for it to finish, or stop it (kill {info['pid']}); if no such process "
                    f"runs, delete {path}.",
                ),
                (
                    "zh",
                    f"{tmp_path.resolve()} 正被另一个进程训练（{info['host']} 上的 pid {info['pid']}，开始于 "
                    f"{info['started']}）；两个训练进程会互相覆盖检查点。请等它结束，或停止它（kill {info['pid']}）；"
                    f"如果并没有这样的进程在运行，请删除 {path}。",
                ),
            ):
                with speaking(lang), pytest.raises(lock.RunLocked) as err:
                    lock.acquire(tmp_path)
                assert str(err.value) == expected
            assert str(path) not in lock._held and path.read_text(encoding="utf-8") == text
        finally:
            lock._held[str(path)] = held
    finally:
        lock.release(path)
    assert not path.exists()


@pytest.mark.parametrize("content", ["", "{not json", "[1, 2]", "\xff"])
def test_a_lock_file_that_is_not_a_json_object_names_no_holder(tmp_path, content):
    path = tmp_path / lock.LOCK_FILE
    path.write_bytes(content.encode("latin-1"))
    assert lock._holder(path) == {}
    path.write_text('{"pid": 7}', encoding="utf-8")
    assert lock._holder(path) == {"pid": 7}
    assert lock._holder(tmp_path / "missing") == {}


def test_a_filesystem_without_locks_trains_unlocked_and_says_so(tmp_path, monkeypatch, capsys):
    def no_locks(fd):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(lock, "_try_lock", no_locks)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for lang, expected in (
        (
            "en",
            "note: cannot lock {path} (No locks available); nothing stops a second trainer from writing into "
            "this directory at the same time.\n",
        ),
        ("zh", "注意：无法给 {path} 加锁（No locks available）；没有什么能阻止第二个训练进程同时写这个目录。\n"),
    ):
        with speaking(lang):
            path = lock.acquire(tmp_path)
        assert capsys.readouterr() == ("", expected.format(path=path))
        assert lock._held[str(path)] == [None, 1] and path.read_bytes() == b""  # opened, nothing written
        lock.release(path)
        assert not path.exists() and str(path) not in lock._held
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # the file it opened was closed


def test_a_lock_file_replaced_at_every_try_is_given_up_after_20(tmp_path, monkeypatch):
    tries = []
    monkeypatch.setattr(lock, "_still_there", lambda fd, path: tries.append(fd) and False)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    path = (tmp_path / lock.LOCK_FILE).resolve()
    for lang, expected in (
        (
            "en",
            f"could not lock {path}: it keeps being replaced. Is another trainer starting and stopping in "
            f"{path.parent}?",
        ),
        ("zh", f"无法给 {path} 加锁：它不断被替换。是不是有另一个训练进程在 {path.parent} 里反复启动又停止？"),
    ):
        tries.clear()
        with speaking(lang), pytest.raises(lock.RunLocked) as err:
            lock.acquire(tmp_path)
        assert str(err.value) == expected and len(tries) == 20 and str(path) not in lock._held
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # each of the 20 files was closed


def test_on_windows_msvcrt_locks_one_byte_without_waiting(tmp_path, monkeypatch):
    """The Windows branch, played on any system with a fake msvcrt: LK_NBLCK (never wait) on 1 byte;
    PermissionError means another process holds it; an open file cannot be replaced there."""
    calls = []

    def locking(fd, mode, nbytes):
        calls.append((fd, mode, nbytes))
        if fd == 13:
            raise PermissionError(13, "Permission denied")

    monkeypatch.setitem(sys.modules, "msvcrt", SimpleNamespace(locking=locking, LK_NBLCK=2, LK_LOCK=1))
    monkeypatch.setattr(os, "name", "nt")
    try:
        free, taken = lock._try_lock(12), lock._try_lock(13)
        still = lock._still_there(12, tmp_path / "gone")
    finally:
        monkeypatch.undo()
    assert (free, taken, still) == (True, False, True) and calls == [(12, 2, 1), (13, 2, 1)]


def test_a_lock_file_deleted_by_hand_is_released_without_error(tmp_path):
    path = lock.acquire(tmp_path)
    path.unlink()  # a user cleaning up while the trainer runs
    lock.release(path)
    assert not path.exists() and str(path) not in lock._held

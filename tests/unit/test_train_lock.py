"""The run directory's lock (train/lock.py) counts holders within one process.

Bugs guarded: a release that resets the count instead of lowering it (the lock would then be held
forever, or let go while an outer holder still works in the directory)."""

from __future__ import annotations

import os

import pytest

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
        assert (f"{tmp_path} is being trained by another process (pid ? on ?, since ?); two trainers would "
                f"overwrite each other's checkpoints. Wait for it to finish, or stop it (kill PID); if no such "
                f"process runs, delete {path.resolve()}.") == str(err.value)
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

"""The run directory's lock (train/lock.py) counts holders within one process.

Bugs guarded: a release that resets the count instead of lowering it (the lock would then be held
forever, or let go while an outer holder still works in the directory)."""

from __future__ import annotations

from glassformer.train import lock


def test_the_lock_file_goes_with_the_last_of_several_holders(tmp_path):
    path = lock.acquire(tmp_path)
    assert path.is_file()
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

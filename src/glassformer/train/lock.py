"""One trainer per run directory: a lock file that a second process respects.

While a process trains into RUN, `RUN/train.lock` holds its pid, host and start time, and the file
is locked by the operating system (flock on POSIX, msvcrt.locking on Windows). The kernel drops that
lock when the process ends, however it ends — SIGKILL and power cuts included — so a lock file left
behind by a dead process is stale by construction: the next trainer takes it over, and the pid in it
only serves the message a refused process prints. When training ends the file is removed.

Within one process the lock is re-entrant (a notebook may new_run, train and resume_run the same
directory); it is released when the last holder lets go.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from glassformer.errors import RunLocked
from glassformer.messages import note, t

LOCK_FILE = "train.lock"
_held: dict[str, list] = {}  # lock path -> [file descriptor, how many holders in this process]


def acquire(run_dir: str | os.PathLike) -> Path:
    """Lock `run_dir` for this process (or count one more holder); RunLocked if another process has it."""
    path = (Path(run_dir) / LOCK_FILE).resolve()
    if str(path) in _held:
        _held[str(path)][1] += 1
    else:
        _held[str(path)] = [_lock(path), 1]
    return path


def release(path: str | os.PathLike | None) -> None:
    """Let go of one hold; the last one removes the file, then unlocks it. None: nothing was held."""
    entry = _held.get(str(path)) if path is not None else None
    if path is None or entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[str(path)]
        fd = entry[0]
        if os.name == "posix":  # unlink first: a process that opens the old file meanwhile re-checks
            Path(path).unlink(missing_ok=True)
        if fd is not None:
            os.close(fd)
        Path(path).unlink(missing_ok=True)


def _lock(path: Path) -> int | None:
    """Open, lock and fill in the lock file; retry if another process removed it in between."""
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(fd)
        except OSError as e:  # a filesystem without locks (some network mounts): go on, unlocked
            os.close(fd)
            note(t("run.no_lock", path=path, reason=e.strerror))
            return None
        if not locked:
            holder = _holder(path)
            os.close(fd)
            raise RunLocked(
                "error.lock.held",
                dir=path.parent,
                pid=holder.get("pid", "?"),
                host=holder.get("host", "?"),
                started=holder.get("started", "?"),
                kill=holder.get("pid", "PID"),
                path=path,
            )
        if _still_there(fd, path):
            info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, (json.dumps(info) + "\n").encode())
            return fd
        os.close(fd)  # the holder removed the file after we opened it: lock the new one
    raise RunLocked("error.lock.replaced", path=path, dir=path.parent)


def _try_lock(fd: int) -> bool:
    """Lock without waiting; False if another process holds the lock."""
    if os.name == "posix":
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt

    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # typeshed: Windows only
    except PermissionError:
        return False
    return True


def _still_there(fd: int, path: Path) -> bool:
    """Is the file we locked still the one at `path` (not removed by its previous holder)?"""
    if os.name != "posix":
        return True  # Windows cannot remove a file another process holds open
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _holder(path: Path) -> dict:
    """What the holding process wrote into the lock file (empty if it has not written yet)."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError, RecursionError):
        return {}
    return holder if isinstance(holder, dict) else {}

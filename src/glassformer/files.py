"""Files a user keeps are written atomically: a reader (or a crash) sees the old file or the new
one, never half of one.

Each write goes to a temp file in the same directory (same filesystem), which is then os.replace()d
onto its name; os.replace is atomic on POSIX and Windows. A failure before the rename deletes the
temp file. Temp names start with "." and end in ".tmp", so nothing that loads by name can mistake
one for the real file. Every writer in glassformer (checkpoints, configs, tokenizers, metrics,
plots, prepared corpora) goes through this one helper.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def write_temp(path: str | os.PathLike, write: Callable[[str], None]) -> str:
    """Call write(tmp) on a fresh temp file beside `path` and return tmp; on failure, delete it."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; a kept file should read like any other
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> None:
    """Write `path` through a temp file and one rename: readers see the old file or the new one."""
    tmp = write_temp(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """UTF-8 text, written atomically; newlines are kept exactly as given (no \\n -> \\r\\n)."""
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    atomic_write(path, write)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))

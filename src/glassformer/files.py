"""Files a user keeps are written atomically: a reader (or a crash) sees the old file or the new
one, never half of one.

Each write goes to a temp file in the same directory (same filesystem), which is then os.replace()d
onto its name; os.replace is atomic on POSIX and Windows. A failure before the rename deletes the
temp file. Temp names start with "." and end in ".tmp", so nothing that loads by name can mistake
one for the real file. Every writer in glassformer (checkpoints, configs, tokenizers, metrics,
plots, prepared corpora) goes through this one helper. Checkpoints also ask for `sync=True`: the
bytes reach the disk before the rename, so even a power cut leaves the old file or the new one.

Reading is one path too: `read_bytes`, `read_text` and `read_json` turn every way a file a user
relies on can be wrong — missing, a directory, unreadable, empty, not UTF-8, not JSON — into a
glassformer error (errors.py) that names the file, the problem and the fix, in the user's language
(glassformer/messages: `error.files.*`; a caller's `fix` is a sentence from the catalogue too).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable

from glassformer.errors import Clause, DamagedFile, NotFound
from glassformer.messages import N_, t


def write_temp(path: str | os.PathLike, write: Callable[[str], None], sync: bool = False) -> str:
    """Call write(tmp) on a fresh temp file beside `path` and return tmp; on failure, delete it.
    sync=True: fsync the temp file before returning (its bytes are on disk, not only in cache)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; a kept file should read like any other
        if sync:
            fsync_path(tmp)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def fsync_path(path: str | os.PathLike) -> None:
    """Flush a file (or, on POSIX, a directory's entries: a rename) to the disk."""
    if Path(path).is_dir() and os.name != "posix":
        return  # Windows cannot open a directory to flush it; its renames are journaled anyway
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


# ---- JSON -----------------------------------------------------------------------------------------
# Every JSON text glassformer writes (files, the explorer's replies, data inside its pages) comes from
# json_text: JSON proper, which a browser's JSON.parse and jq read. Python's json writes a NaN as the
# bare word NaN (and Infinity), which is not JSON; here a float that is not finite becomes null (or,
# where a file says so, what `nonfinite` makes of it: the lab's results keep "nan", "inf", "-inf"),
# and allow_nan=False makes sure none slips through. A reader takes null in a number's place as "not
# a finite number" (metrics.jsonl reads it back as NaN).
def null(x: float) -> None:
    """What a float that is not finite becomes in JSON: null."""
    return None


def finite(value: Any, nonfinite: Callable[[float], Any] = null) -> Any:
    """`value` with every float that is not finite replaced by nonfinite(x) (None: JSON's null);
    NumPy and torch numbers and arrays become Python numbers and lists (through their tolist()),
    tuples become lists and keys strings, as JSON writes them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else nonfinite(value)
    if isinstance(value, (str, int)) or value is None:  # bool is an int
        return value
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): finite(v, nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v, nonfinite) for v in value]
    if callable(getattr(value, "tolist", None)):  # numpy.ndarray, numpy.float32, torch.Tensor ...
        return finite(value.tolist(), nonfinite)
    return value  # json.dumps says what it cannot write


def json_text(value: Any, nonfinite: Callable[[float], Any] = null, **options: Any) -> str:
    """`value` as JSON text (json.dumps's `options`: indent, ensure_ascii, separators, sort_keys),
    never NaN or Infinity: see finite(). Data that is plain and finite is written as it is, at once."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except (ValueError, TypeError):  # a float that is not finite, or a NumPy / torch number
        return json.dumps(finite(value, nonfinite), allow_nan=False, **options)


def write_json_atomic(
    path: str | os.PathLike, value: Any, nonfinite: Callable[[float], Any] = null, **options: Any
) -> None:
    """`value` as a JSON file (json_text, then a newline), written atomically."""
    write_text_atomic(path, json_text(value, nonfinite, **options) + "\n")


# ---- reading --------------------------------------------------------------------------------------
# Encodings tried, in order, to say what a non-UTF-8 text file probably is: (Python codec, iconv name).
# GB18030 first: it is the superset of GBK that Chinese Windows editors save; cp1252 last, because
# nearly any bytes decode as it.
ENCODING_GUESSES = (("gb18030", "GBK"), ("big5", "BIG5"), ("shift_jis", "SHIFT_JIS"), ("cp1252", "CP1252"))


@contextlib.contextmanager
def reading(path: str | os.PathLike, fix: str | Clause):
    """Turn the OSError of reading `path` into NotFound / DamagedFile naming the path, what is wrong
    and `fix` (a sentence saying where the file comes from or what to do)."""
    path = Path(path)
    try:
        yield path
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound("files.missing", "{path} does not exist. {fix}", path=path, fix=fix) from None
    except IsADirectoryError:
        raise NotFound("files.directory", "{path} is a directory, not a file. {fix}", path=path, fix=fix) from None
    except PermissionError:
        raise DamagedFile(
            "files.permission",
            "{path} cannot be read: permission denied. Check who owns it "
            "(ls -l {path}) or make it readable (chmod u+r {path}).",
            path=path,
        ) from None
    except OSError as e:
        raise DamagedFile(
            "files.unreadable", "{path} cannot be read ({reason}). {fix}", path=path, reason=e.strerror or e, fix=fix
        ) from None


def read_bytes(path: str | os.PathLike, fix: str | Clause, most: int | None = None) -> bytes:
    """A file's bytes, or a clear error (see `reading`).
    most: a file glassformer wrote itself and knows the size of (a config, a results file): refuse,
    before reading a byte, anything but a regular file (a link to /dev/zero, a FIFO, a device would be
    read forever or block), and a file larger than `most` bytes."""
    with reading(path, fix) as p:
        if most is None:
            return p.read_bytes()
        mode = p.stat().st_mode  # follows a link: what would be read
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(p))
        if not stat.S_ISREG(mode):
            raise DamagedFile(
                "files.not_regular",
                "{path} is not a regular file: it is {what}, which "
                "glassformer never writes there and will not read (it could "
                "be read forever). {fix}",
                path=path,
                what=t(_kind(mode)),
                fix=fix,
            )
        with p.open("rb") as f:
            data = f.read(most + 1)  # a file that grew since stat() is still cut at most + 1
        if len(data) > most:
            raise DamagedFile(
                "files.too_large",
                "{path} is larger than {most:,} bytes, far beyond any file "
                "glassformer writes there: it is not one. {fix}",
                path=path,
                most=most,
                fix=fix,
            )
        return data


def _kind(mode: int) -> str:
    """What a path that is not a regular file is, as `ls -l` would hint it (its words)."""
    kinds = (
        (stat.S_ISFIFO, N_("a named pipe (FIFO)")),
        (stat.S_ISCHR, N_("a character device (such as /dev/zero)")),
        (stat.S_ISBLK, N_("a block device (a disk)")),
        (stat.S_ISSOCK, N_("a socket")),
    )
    for test, kind in kinds:
        if test(mode):
            return kind
    return N_("not a file")


def read_head(path: str | os.PathLike, fix: str | Clause, n: int = 1 << 20) -> bytes:
    """A file's first n bytes (for a file too big to read whole), or a clear error (see `reading`)."""
    with reading(path, fix) as p, p.open("rb") as f:
        return f.read(n)


def read_text(path: str | os.PathLike, fix: str | Clause, allow_empty: bool = False, most: int | None = None) -> str:
    """A UTF-8 text file's text (newlines kept exactly), refusing an empty file unless allowed and
    explaining a file in another encoding (which one it looks like, and the iconv line that converts it).
    most: see read_bytes."""
    data = read_bytes(path, fix, most)
    if not data.strip() and not allow_empty:
        raise (
            DamagedFile("files.blank", "{path} is empty (only whitespace). {fix}", path=path, fix=fix)
            if data
            else DamagedFile("files.empty", "{path} is empty. {fix}", path=path, fix=fix)
        )
    return decode_utf8(data, path)


def read_json(path: str | os.PathLike, fix: str | Clause, most: int | None = None) -> Any:
    """A JSON file's value, or DamagedFile naming the file and where the JSON breaks. most: see read_bytes."""
    text = read_text(path, fix, most=most)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DamagedFile(
            "files.json",
            "{path} is damaged: it is not valid JSON ({reason} at line {line}, column {column}). {fix}",
            path=path,
            reason=e.msg,
            line=e.lineno,
            column=e.colno,
            fix=fix,
        ) from None
    except RecursionError:  # arrays or objects nested thousands deep: no file glassformer writes
        raise DamagedFile(
            "files.json_nested",
            "{path} is damaged: its JSON is nested too deeply to read "
            "(arrays or objects inside each other thousands of times). "
            "{fix}",
            path=path,
            fix=fix,
        ) from None
    except ValueError as e:  # an integer of thousands of digits (Python's int limit), e.g. "d_model": 1000...0
        raise DamagedFile(
            "files.json_number",
            "{path} is damaged: it holds a number too long to read ({detail}). {fix}",
            path=path,
            detail=e,
            fix=fix,
        ) from None


def decode_utf8(data: bytes, path: str | os.PathLike) -> str:
    """UTF-8 bytes -> text, or DamagedFile saying which encoding the bytes look like and how to convert."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(path, data[e.start], e.start, guess_encoding(data)) from None


def not_utf8(path: str | os.PathLike, byte: int, offset: int, guess: str | None) -> DamagedFile:
    """The error for a file that is not UTF-8 at `offset` (where `byte` is): what it looks like
    instead (guess_encoding) and the iconv line that converts it."""
    where = t("byte 0x{byte:02x} at offset {offset} is not valid UTF-8", byte=byte, offset=offset)
    path = Path(path)
    converted = path.with_name(f"{path.stem}-utf8{path.suffix}")
    if guess == "binary":
        return DamagedFile(
            "files.binary",
            "{path} is not text: it holds NUL bytes, as binary files do ({where}). Give a plain UTF-8 text file.",
            path=path,
            where=where,
        )
    if guess:
        return DamagedFile(
            "files.encoding",
            "{path} is not UTF-8 text ({where}); it reads as {guess}. "
            "Convert it, then use the copy: iconv -f {guess} -t UTF-8 "
            "{path} > {converted}",
            path=path,
            where=where,
            guess=guess,
            converted=converted,
        )
    return DamagedFile(
        "files.no_encoding",
        "{path} is not UTF-8 text ({where}), and not UTF-16, GBK, "
        "Big5, Shift-JIS or CP1252 either. Save it as UTF-8 (an "
        "editor's Save As ... / Encoding), or convert it with iconv "
        "-f ENCODING -t UTF-8.",
        path=path,
        where=where,
    )


def guess_encoding(data: bytes) -> str | None:
    """The iconv name of the encoding `data` most likely is (not UTF-8), "binary", or None."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "UTF-16"
    head = data[: 1 << 20]  # a megabyte tells; a cut through the last character is forgiven below
    if b"\x00" in head:
        return "binary"
    for codec, name in ENCODING_GUESSES:
        try:
            head.decode(codec)
            return name
        except UnicodeDecodeError as e:
            if len(head) < len(data) and e.start >= len(head) - 4:
                return name
    return None


def default_cache_dir() -> Path:
    """Where downloads and prepared data live: $GLASSFORMER_CACHE, else ~/.cache/glassformer."""
    return Path(os.environ.get("GLASSFORMER_CACHE") or Path.home() / ".cache" / "glassformer")

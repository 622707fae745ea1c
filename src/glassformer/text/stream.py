"""Streaming: read a corpus in chunks that end where its tokenizer may be cut, in bounded memory.

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
from pathlib import Path
from typing import Callable, Iterable, Iterator

from glassformer.files import guess_encoding, not_utf8

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

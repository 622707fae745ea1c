"""The same byte-level BPE, run by the Hugging Face ``tokenizers`` library (Rust) for speed.

Nothing is learned here: ``HFBPETokenizer`` takes OUR merges (from ``bpe_train``) and writes them into
a ``tokenizers`` BPE model, so both backends hold one model and give identical ids
(``tests/unit/test_bpe.py`` checks it on English, Chinese, emoji, control characters, "" and random
Unicode). It inherits everything but encoding from ``BPETokenizer``: decoding, ``show_work`` (the
library does not report its merges, so the steps shown are ours, which are the same), saving.

Two translations are needed, because the library thinks in strings, not bytes:

- bytes → characters. The library's byte-level step (GPT-2's ``bytes_to_unicode``) writes each byte
  as one printable character, so a token is a string: byte 0x20 (space) is "Ġ", 0x0A is "Ċ",
  "h" stays "h". ``BYTE_TO_CHAR`` is that table, written out below; the vocabulary and the merges are
  spelled with it.
- our pre-tokenizer → the library's. ``Split(PATTERN, "isolated")`` runs the same pattern (it uses only
  literal character ranges, so the library's regex engine reads it as Python's does; see pretokenize).

``encode`` runs the library's whole pipeline; ``encode_array`` (what ``prepare`` calls on big texts)
hands the library's BPE model only the distinct pieces (docs/text.md has the figures and the why).
"""

from __future__ import annotations

from itertools import chain
from typing import Iterable

import numpy as np
import tokenizers as hf  # the Hugging Face library, not glassformer.text.tokenizers

from .bpe import BPETokenizer
from .bpe_train import N_BYTES
from .pretokenize import PATTERN, pretokenize


def _byte_to_char() -> list[str]:
    """GPT-2's byte → character table. Bytes that print as themselves in Latin-1 keep their own code
    point ("!".."~", "¡".."¬", "®".."ÿ"); the other 68 (controls, space, DEL, NBSP, soft hyphen) are
    moved, in byte order, to U+0100, U+0101, ... so that every byte is a visible character."""
    keeps_itself = {*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), 256)}
    table, moved = [], 0
    for b in range(N_BYTES):
        if b in keeps_itself:
            table.append(chr(b))
        else:
            table.append(chr(N_BYTES + moved))
            moved += 1
    return table


BYTE_TO_CHAR = _byte_to_char()
_SPELLING = str.maketrans({chr(b): c for b, c in enumerate(BYTE_TO_CHAR)})


def spell(text: str) -> str:
    """Text as the library's byte characters: UTF-8 bytes, each read as the Latin-1 character of the
    same number (which is what decode("latin-1") does), then swapped for BYTE_TO_CHAR's character."""
    return text.encode("utf-8").decode("latin-1").translate(_SPELLING)


class HFBPETokenizer(BPETokenizer):
    """Byte-level BPE with OUR merges, encoded by the ``tokenizers`` library."""

    kind = "bpe-hf"

    def __init__(self, merges: Iterable[tuple[int, int]]) -> None:
        """Check and store the merges (as BPETokenizer does), then build the library's model from them."""
        super().__init__(merges)
        spelled = ["".join(BYTE_TO_CHAR[b] for b in token) for token in self.token_bytes]  # id → its string
        model = hf.models.BPE(
            vocab={s: i for i, s in enumerate(spelled)},
            merges=[(spelled[a], spelled[b]) for a, b in self.merges],  # rank = position, as in ours
        )
        self.hf = hf.Tokenizer(model)
        self.hf.pre_tokenizer = hf.pre_tokenizers.Sequence(
            [
                hf.pre_tokenizers.Split(hf.Regex(PATTERN), behavior="isolated"),  # our pieces
                hf.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),  # bytes → BYTE_TO_CHAR
            ]
        )
        self.hf.decoder = hf.decoders.ByteLevel()

    def encode(self, text: str) -> list[int]:
        """Text → ids, by the library."""
        return self.hf.encode(text, add_special_tokens=False).ids

    def encode_array(self, text: str) -> np.ndarray:
        """Text → ids (N,), int64, for long texts: each distinct piece goes once to the library's model.

        Natural text repeats itself (Zipf): Shakespeare's 1.36M pieces hold only 36k distinct ones. So
        the pieces are cut by our pre-tokenizer (Python's ``re``, which runs in C and splits the same
        way as the library's ``Split``), each distinct piece is spelled in the library's byte
        characters and merged by the library's BPE model (``model.tokenize``: the merges alone, without
        the pipeline around them, which costs more per call than the merges do), and the ids are
        gathered back in text order. bench/bpe.py measures each way of doing it.
        """
        pieces = pretokenize(text)
        distinct = dict.fromkeys(pieces)  # each piece once, in order of first appearance
        model = self.hf.model
        ids_of = {p: [t.id for t in model.tokenize(spell(p))] for p in distinct}
        return np.fromiter(chain.from_iterable(map(ids_of.__getitem__, pieces)), dtype=np.int64)  # (N,) int64

"""Byte-level BPE, encoding and decoding: the merges learned by ``bpe_train``, applied to new text.

Encoding repeats training's steps on one piece at a time (Sennrich et al. 2016; GPT-2, Radford et al.
2019, ``encoder.py``):

1. pre-tokenize the text into pieces (``pretokenize``): no merge crosses a piece;
2. write each piece as its UTF-8 bytes, ids 0..255;
3. among the adjacent pairs of the piece, find the one learned earliest (lowest rank); if none of
   them was ever learned, the piece is done;
4. replace that pair everywhere in the piece, left to right, by its id (256 + rank); go to 3.

Earliest-learned first, not most-frequent-here first: training made merge 0 before merge 1, so
applying them in that order rebuilds the same units training saw. Decoding needs no rules at all:
each id stands for fixed bytes; concatenate them and read the result as UTF-8.

``show_work(text)`` returns each merge as it applies, so a lesson can print how " lower" becomes
[" low", "er"]. ``HFBPETokenizer`` (``bpe_hf.py``) is the same model run by the Hugging Face
``tokenizers`` library; given the same merges it returns the same ids, much faster.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .bpe_train import N_BYTES, count_pieces, merge_pair, train_bpe
from .pretokenize import PATTERN, pretokenize, safe_cut
from .tokenizers import Tokenizer

NOT_LEARNED = float("inf")  # the rank of a pair that training never merged


class BPETokenizer(Tokenizer):
    """Byte-level BPE written out in Python: ids 0..255 are bytes, id 256 + i is merge i."""

    kind = "bpe"
    safe_cut = staticmethod(safe_cut)  # streaming may end a chunk there (see pretokenize.safe_cut)

    def __init__(self, merges: Iterable[tuple[int, int]]) -> None:
        """Build from merges in learned order, merge i = (left id, right id) → id 256 + i.
        Prefer ``from_text`` / ``from_chunks``, which learn the merges."""
        self.merges = [(int(a), int(b)) for a, b in merges]
        self.token_bytes = [bytes([b]) for b in range(N_BYTES)]  # id → the bytes it stands for
        for i, (a, b) in enumerate(self.merges):
            if not (0 <= a < N_BYTES + i and 0 <= b < N_BYTES + i):
                raise ValueError(
                    f"merge {i} = ({a}, {b}) uses an id that does not exist yet "
                    f"(ids so far: 0..{N_BYTES + i - 1}); merges must be in learned order"
                )
            self.token_bytes.append(self.token_bytes[a] + self.token_bytes[b])
        if len(set(self.token_bytes)) != len(self.token_bytes):
            raise ValueError("two merges make the same bytes; a BPE vocabulary needs one id per token")
        self.ranks = {pair: i for i, pair in enumerate(self.merges)}  # pair → when it was learned

    @classmethod
    def from_text(cls, text: str, vocab_size: int) -> "BPETokenizer":
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` ids (see ``train_bpe``)."""
        return cls.from_chunks([text], vocab_size)

    @classmethod
    def from_chunks(cls, chunks: Iterable[str], vocab_size: int) -> "BPETokenizer":
        """The same, from text arriving in chunks that each end at a ``safe_cut``: only the counts of
        distinct pieces are kept, never the text."""
        return cls(train_bpe(count_pieces(chunks), vocab_size))

    @property
    def vocab_size(self) -> int:
        """256 bytes plus one id per merge."""
        return len(self.token_bytes)

    def _merge_piece(self, ids: list[int], steps: list[dict[str, Any]] | None = None) -> list[int]:
        """Steps 3-4 on one piece's byte ids; with ``steps``, record each merge as it applies."""
        while len(ids) > 1:
            rank, pair = min((self.ranks.get(p, NOT_LEARNED), p) for p in zip(ids, ids[1:], strict=False))  # 3)
            if rank == NOT_LEARNED:
                break
            ids = merge_pair(ids, pair, N_BYTES + rank)  # 4)
            if steps is not None:
                steps.append(
                    {
                        "pair": pair,
                        "as_text": (self.token_text(pair[0]), self.token_text(pair[1])),
                        "rank": rank,
                        "new_id": N_BYTES + rank,
                        "result": ids,
                    }
                )
        return ids

    def encode(self, text: str) -> list[int]:
        """Text → ids: pre-tokenize, then merge inside each piece."""
        return [i for piece in pretokenize(text) for i in self._merge_piece(list(piece.encode("utf-8")))]

    def encode_array(self, text: str) -> np.ndarray:
        """Text → ids as an array (N,), int64."""
        return np.asarray(self.encode(text), dtype=np.int64)  # (N,) int64

    def decode(self, ids: Iterable[int]) -> str:
        """Ids → bytes → UTF-8 text. Ids that cut a character in half (possible when decoding a
        model's raw samples) come back as U+FFFD, the replacement character, not as an error."""
        data = b"".join(self.token_bytes[i] for i in self._id_list(ids))
        return data.decode("utf-8", errors="replace")

    def token_text(self, i: int) -> str:
        """What id ``i`` stands for, readable: UTF-8 where its bytes are, \\xNN where they are not."""
        return self.token_bytes[i].decode("utf-8", errors="backslashreplace")

    def show_work(self, text: str) -> dict[str, Any]:
        """Every step: the pieces, their bytes, each merge as it applies, the ids, and back to text."""
        pieces = pretokenize(text)  # 1)
        byte_ids = [list(p.encode("utf-8")) for p in pieces]  # 2)
        merges: list[dict[str, Any]] = []  # 3-4) one entry per merge, in the order they happen
        ids: list[int] = []
        for n, (piece, start) in enumerate(zip(pieces, byte_ids, strict=False)):
            steps: list[dict[str, Any]] = []
            ids += self._merge_piece(start, steps)
            merges += [{"piece": n, "piece_text": piece, **step} for step in steps]
        return {
            "tokenizer": self.kind,
            "text": text,
            "pattern": PATTERN,
            "pieces": pieces,
            "bytes": byte_ids,
            "merges": merges,
            "ids": ids,
            "tokens": [self.token_text(i) for i in ids],
            "decoded": self.decode(ids),
            "vocab_size": self.vocab_size,
        }

    def to_dict(self) -> dict[str, Any]:
        """The merges (id pairs, learned order), the pre-tokenizer pattern, and each token's text for
        the reader (derived from the merges; not read back)."""
        return {
            "pattern": PATTERN,
            "merges": [list(m) for m in self.merges],
            "tokens": {str(i): self.token_text(i) for i in range(N_BYTES, self.vocab_size)},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BPETokenizer":
        """Rebuild from ``to_dict`` output; a file made with another pre-tokenizer pattern is refused."""
        if d.get("pattern", PATTERN) != PATTERN:
            raise ValueError(
                "this BPE tokenizer was saved with a different pre-tokenization pattern; "
                "re-prepare the data with this version of glassformer"
            )
        return cls([tuple(m) for m in d["merges"]])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"

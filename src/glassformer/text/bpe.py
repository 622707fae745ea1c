"""Byte-level BPE, start to end: cut text into pieces, learn merges, encode with them — in Python, and
the same merges run by the Hugging Face ``tokenizers`` library (same ids, faster).

**1. Pre-tokenization** cuts text into pieces before BPE, so no merge ever crosses a piece boundary.
GPT-2 (Radford et al. 2019, ``encoder.py``) splits text with one regular expression before its
byte-pair merges: contractions, runs of letters, runs of digits, runs of punctuation and runs of
whitespace each become a piece, and a single space sticks to the word after it (" world"). BPE then
merges only inside a piece, so "dog." and "dog!" share the token " dog" instead of learning
"dog." and "dog!" as separate tokens. We keep GPT-2's shape but define the classes by ASCII alone:

    letter       A-Z a-z, and every non-ASCII character (é, 中, 👍 all count as letters)
    digit        0-9
    space        the six ASCII whitespace characters: \\t \\n \\v \\f \\r and " "
    punctuation  everything else: ASCII punctuation and ASCII control characters

Why not GPT-2's ``\\p{L}`` (any Unicode letter)? Because what ``\\p{L}`` means depends on the Unicode
tables built into whichever regex engine runs it. Python's ``regex`` 2026.11.19 and the Oniguruma
engine inside Hugging Face ``tokenizers`` 0.23.3 disagree on 17,480 code points (newer letters and
digits one engine knows and the other does not), so the same merges would give different ids for
some text depending on the backend, and a saved tokenizer could change meaning when a library
updates. Our classes use only literal code-point ranges, so Python's ``re`` and Oniguruma split
every string the same way, today and later. The price: non-ASCII punctuation (，。) and emoji join
the letters around them, and non-ASCII spaces (U+00A0, U+3000) do too.

**2. Learning merges.** Byte-pair encoding (Sennrich, Haddow & Birch 2016, "Neural Machine Translation
of Rare Words with Subword Units", after Gage 1994) builds a vocabulary bottom-up. Start with the
smallest units; count every adjacent pair in the corpus; make the most frequent pair a new unit;
repeat until the vocabulary is as large as asked. GPT-2 starts from the 256 byte values instead of
characters, so any text at all can be encoded and no id is ever "unknown". On the pieces of step 1:

1. count the pieces: the corpus becomes {piece: count}; "the" seen 27,000 times is one entry,
   so each step works on the distinct pieces only, weighted by their counts;
2. write each distinct piece as its UTF-8 bytes, ids 0..255;
3. count every adjacent pair of ids, weighted by the piece's count;
4. the most frequent pair becomes id 256 + (number of merges so far); replace it in every piece,
   left to right; update the pair counts of the pieces that changed (only those);
5. repeat 3-4 until the vocabulary has ``vocab_size`` ids, or no pair occurs twice.

Ties go to the pair with the smallest ids, so training is deterministic, whatever order the text came in.

No two ids ever stand for the same bytes. A run of tokens with boundaries on both sides has always been
merged as if it were a piece of its own (a merge across its edge would have removed the boundary), so
bytes that once became one token X can never again appear as two adjacent tokens to be merged into a
second id. This holds because each merge is applied to every occurrence at once, left to right, which
is also exactly how the encoder applies it; ``tests/text/test_bpe.py`` checks it on repetitive text.

**3. Encoding** (``BPETokenizer``) repeats training's steps on one piece at a time:

1. pre-tokenize the text into pieces (``pretokenize``): no merge crosses a piece;
2. write each piece as its UTF-8 bytes, ids 0..255;
3. among the adjacent pairs of the piece, find the one learned earliest (lowest rank); if none of
   them was ever learned, the piece is done;
4. replace that pair everywhere in the piece, left to right, by its id (256 + rank); go to 3.

Earliest-learned first, not most-frequent-here first: training made merge 0 before merge 1, so
applying them in that order rebuilds the same units training saw. Decoding needs no rules at all:
each id stands for fixed bytes; concatenate them and read the result as UTF-8. ``show_work(text)``
returns each merge as it applies, so a lesson can print how " lower" becomes [" low", "er"].

**4. The same model in Rust** (``HFBPETokenizer``). Nothing is learned there: it takes OUR merges and
writes them into a ``tokenizers`` BPE model, so both backends hold one model and give identical ids
(``tests/text/test_bpe.py`` checks it on English, Chinese, emoji, control characters, "" and random
Unicode). It inherits everything but encoding from ``BPETokenizer``: decoding, ``show_work`` (the
library does not report its merges, so the steps shown are ours, which are the same), saving.
Two translations are needed, because the library thinks in strings, not bytes:

- bytes → characters. The library's byte-level step (GPT-2's ``bytes_to_unicode``) writes each byte
  as one printable character, so a token is a string: byte 0x20 (space) is "Ġ", 0x0A is "Ċ",
  "h" stays "h". ``BYTE_TO_CHAR`` is that table, written out below; the vocabulary and the merges are
  spelled with it.
- our pre-tokenizer → the library's. ``Split(PATTERN, "isolated")`` runs the same pattern (it uses only
  literal character ranges, so the library's regex engine reads it as Python's does; see step 1).

``encode`` runs the library's whole pipeline; ``encode_array`` (what ``prepare`` calls on big texts)
hands the library's BPE model only the distinct pieces (docs/text.md has the figures and the why).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from itertools import chain
from typing import Any, Iterable

import numpy as np
import tokenizers as hf  # the Hugging Face library, not glassformer.text.tokenizers

from glassformer.errors import DamagedFile, UsageError
from glassformer.text.tokenizers import Tokenizer, saved_field

# ---- 1. pre-tokenization ------------------------------------------------------------------------------------------

# The four classes as character-class bodies. They are literal ranges, so any regex engine reads them
# the same way (LETTER holds the real characters U+0080 and U+10FFFF, not escapes, for the same reason).
SPACE = "\t\n\x0b\x0c\r "
LETTER = "A-Za-z\u0080-\U0010ffff"
DIGIT = "0-9"

# GPT-2's alternatives, in GPT-2's order; the first that matches at a position wins.
PATTERN = "|".join(
    [
        "'(?:s|t|re|ve|m|ll|d)",  # English contractions: it|'s, we|'ll (GPT-2 matches them lower-case only)
        f" ?[{LETTER}]+",  # a word, with the one space before it
        f" ?[{DIGIT}]+",  # a number, with the one space before it
        f" ?[^{SPACE}{LETTER}{DIGIT}]+",  # a run of punctuation, with the one space before it
        f"[{SPACE}]+(?![^{SPACE}])",  # spaces up to the end, or all but the last one before a word
        f"[{SPACE}]+",  # any other run of spaces
    ]
)
_PIECE = re.compile(PATTERN)


def pretokenize(text: str) -> list[str]:
    """Cut ``text`` into pieces; ``"".join(pretokenize(text)) == text`` for every string.

    >>> pretokenize("It's 2 o'clock, 世界!  Bye")
    ['It', "'s", ' 2', ' o', "'", 'clock', ',', ' 世界', '!', ' ', ' Bye']
    """
    return _PIECE.findall(text)


def safe_cut(text: str) -> int:
    """The last position p where ``pretokenize(text) == pretokenize(text[:p]) + pretokenize(text[p:])``
    is guaranteed, whatever follows ``text``; 0 if there is none.

    Streaming uses it to end a chunk without splitting a piece. The place: between a non-space and a
    space. No alternative of PATTERN matches a non-space followed by a space, so a piece always ends
    there; the pieces before it never look past it (the only lookahead, ``(?![^ ...])``, belongs to a
    run of spaces, which cannot end just before p); and the pieces after it depend only on what follows.
    """
    for p in range(len(text) - 1, 0, -1):  # from the end: in ordinary text a cut is a few characters back
        if text[p] in SPACE and text[p - 1] not in SPACE:
            return p
    return 0


# ---- 2. learning merges ----------------------------------------------------------------------------------------------

N_BYTES = 256  # ids 0..255 are the byte values themselves
# the most bytes all tokens together may spell (64 MiB): merges learned from text spell pieces of it, a table that
# big is damaged merges (each merge may double a token: 40 of them would spell a terabyte), refused before it is built
MAX_TABLE_BYTES = 1 << 26


def count_pieces(chunks: Iterable[str]) -> Counter[str]:
    """Step 1: {piece: how often it occurs}, summed over chunks (each chunk must end at a safe cut)."""
    counts: Counter[str] = Counter()
    for chunk in chunks:
        counts.update(pretokenize(chunk))
    return counts


def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of ``pair`` in ``ids`` by ``new_id``, scanning left to right.

    Left to right matters for repeats: merging (a, a) in [a, a, a] gives [aa, a], never [a, aa].
    """
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train_bpe(piece_counts: dict[str, int], vocab_size: int) -> list[tuple[int, int]]:
    """Learn up to ``vocab_size - 256`` merges from {piece: count}; merge i makes id 256 + i.

    Returns the merges in the order they were learned, which is also the order the encoder applies
    them. Fewer come back when no pair is left that occurs at least twice (a merge seen once would
    spend a vocabulary row to save a single token).
    """
    if vocab_size < N_BYTES:
        raise UsageError(
            "bpe.vocab_small",
            "vocab_size={vocab_size} is below {n_bytes}: byte-level BPE "
            "starts from all {n_bytes} byte values; ask for {n_bytes} or "
            "more (e.g. {example}).",
            vocab_size=vocab_size,
            n_bytes=N_BYTES,
            example=2 * N_BYTES,
        )
    # 2) every distinct piece as a list of byte ids, with its count
    words = [list(piece.encode("utf-8")) for piece in piece_counts]
    freqs = list(piece_counts.values())
    # 3) pair counts over all pieces, and which pieces hold each pair (so a merge visits only those)
    pair_counts: Counter[tuple[int, int]] = Counter()
    holders: defaultdict[tuple[int, int], set[int]] = defaultdict(set)
    for w, (ids, freq) in enumerate(zip(words, freqs, strict=False)):
        for pair in zip(ids, ids[1:], strict=False):
            pair_counts[pair] += freq
            holders[pair].add(w)

    merges: list[tuple[int, int]] = []
    while len(merges) < vocab_size - N_BYTES and pair_counts:
        # 4a) the most frequent pair; ties to the smallest ids
        top = max(pair_counts.values())
        if top < 2:
            break
        pair = min(p for p, c in pair_counts.items() if c == top)
        new_id = N_BYTES + len(merges)
        merges.append(pair)
        # 4b) rewrite only the pieces that hold the pair, moving their pair counts from old to new
        for w in holders.pop(pair):
            old = words[w]
            new = merge_pair(old, pair, new_id)
            for p in zip(old, old[1:], strict=False):
                pair_counts[p] -= freqs[w]
                if pair_counts[p] == 0:
                    del pair_counts[p]
            for p in zip(new, new[1:], strict=False):
                pair_counts[p] += freqs[w]
                holders[p].add(w)
            words[w] = new
    return merges


# ---- 3. encoding: BPETokenizer ---------------------------------------------------------------------------------------

NOT_LEARNED = float("inf")  # the rank of a pair that training never merged


class BPETokenizer(Tokenizer):
    """Byte-level BPE written out in Python: ids 0..255 are bytes, id 256 + i is merge i."""

    kind = "bpe"
    safe_cut = staticmethod(safe_cut)  # streaming may end a chunk there (step 1's safe_cut)

    def __init__(self, merges: Iterable[tuple[int, int]]) -> None:
        """Build from merges in learned order, merge i = (left id, right id) → id 256 + i.
        Prefer ``from_text`` / ``from_chunks``, which learn the merges."""
        self.merges = [(int(a), int(b)) for a, b in merges]
        sizes = [1] * N_BYTES  # id → how many bytes it stands for: counted before any token is built
        for i, (a, b) in enumerate(self.merges):
            if not (0 <= a < N_BYTES + i and 0 <= b < N_BYTES + i):
                raise UsageError(
                    "bpe.merge_order",
                    "merge {i} = ({a}, {b}) uses an id that does not exist yet "
                    "(ids so far: 0..{last}); merges must be in learned order.",
                    i=i,
                    a=a,
                    b=b,
                    last=N_BYTES + i - 1,
                )
            sizes.append(sizes[a] + sizes[b])  # ((256, 256), (257, 257), ...) doubles: 2**40 bytes in 40 merges
        if sum(sizes) > MAX_TABLE_BYTES:
            raise UsageError(
                "bpe.too_big",
                "the merges make tokens of {size:,} bytes in all, more than "
                "the {limit:,} a tokenizer may hold (no text merges that "
                "far): the merges are damaged.",
                size=sum(sizes),
                limit=MAX_TABLE_BYTES,
            )
        self.token_bytes = [bytes([b]) for b in range(N_BYTES)]  # id → the bytes it stands for
        for a, b in self.merges:
            self.token_bytes.append(self.token_bytes[a] + self.token_bytes[b])
        if len(set(self.token_bytes)) != len(self.token_bytes):
            raise UsageError(
                "bpe.same_bytes", "two merges make the same bytes; a BPE vocabulary needs one id per token."
            )
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
        if saved_field(d, "pattern", "str", PATTERN) != PATTERN:
            raise DamagedFile(
                "bpe.pattern",
                "this BPE tokenizer was saved with a different "
                "pre-tokenization pattern; re-prepare the data with this "
                "version of glassformer.",
            )
        return cls([tuple(m) for m in saved_field(d, "merges", "id_pairs")])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"


# ---- 4. the same merges in Rust: HFBPETokenizer ----------------------------------------------------------------------


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

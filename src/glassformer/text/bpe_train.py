"""Learning byte-pair merges: the training half of byte-level BPE.

Byte-pair encoding (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare Words with
Subword Units", after Gage 1994) builds a vocabulary bottom-up. Start with the smallest units; count
every adjacent pair in the corpus; make the most frequent pair a new unit; repeat until the vocabulary
is as large as asked. GPT-2 (Radford et al. 2019) starts from the 256 byte values instead of
characters, so any text at all can be encoded and no id is ever "unknown".

The algorithm, on pieces from ``pretokenize`` (merges never cross a piece):

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
is also exactly how the encoder applies it; ``tests/unit/test_bpe.py`` checks it on repetitive text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from .pretokenize import pretokenize

N_BYTES = 256  # ids 0..255 are the byte values themselves


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
        raise ValueError(
            f"vocab_size={vocab_size} is below {N_BYTES}: byte-level BPE starts from all "
            f"{N_BYTES} byte values; ask for {N_BYTES} or more (e.g. 512)"
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

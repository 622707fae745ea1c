"""GPT-2's own byte-level BPE: its vocabulary, its merges and its pre-tokenizer, id for id.

glassformer's ``BPETokenizer`` numbers its tokens 256 + merge rank and cuts text with an ASCII-class
pattern (pretokenize.py says why). A GPT-2 checkpoint comes with neither: its ``vocab.json`` maps
each token, spelled in GPT-2's byte alphabet (bpe_hf.BYTE_TO_CHAR: a space is "Ġ"), to an id of its
own choosing, ``merges.txt`` lists the merges by rank, and the text is cut by GPT-2's pattern with
Unicode classes::

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

``GPT2BPETokenizer`` holds exactly those tables. Encoding is done by the Hugging Face ``tokenizers``
library (its ``ByteLevel`` pre-tokenizer runs that pattern, its ``BPE`` model the merges), which
is what ``transformers`` itself runs for GPT-2, so the ids are Hugging Face's ids
(tests/interop/test_gpt2_tokenizer.py checks English, Chinese, emoji and whitespace runs, and
the pieces against the pattern run by the ``regex`` module, as OpenAI's encoder.py runs it). The
pattern's ``\\p{L}`` is the library's Unicode table: OpenAI's original encoder.py used Python's
``regex``, which knows 17,480 newer letters and digits that the library does not (docs/text.md), so
for text with those rare characters the ids can differ from encoder.py's, never from transformers'.

Steps, for ``show_work`` (the same algorithm as bpe.py, on GPT-2's tables; a test checks it gives
``encode``'s ids):

1. cut out the special tokens ("<|endoftext|>"): each is one id, matched literally;
2. pre-tokenize the rest with GPT-2's pattern and spell each piece in the byte alphabet;
3. in each piece, merge the adjacent pair with the lowest rank in merges.txt, left to right, until
   no pair of the piece is in merges.txt;
4. look each token up in vocab.json.

Decoding maps each character back to its byte and reads the bytes as UTF-8 (U+FFFD where a
character is cut, as bpe.py does); a special token decodes to itself.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import tokenizers as hf  # the Hugging Face library, not glassformer.text.tokenizers

from .bpe_hf import BYTE_TO_CHAR
from .bpe_train import merge_pair
from .tokenizers import Tokenizer

CHAR_TO_BYTE = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
ENDOFTEXT = "<|endoftext|>"  # GPT-2's one special token: the boundary between documents


class GPT2BPETokenizer(Tokenizer):
    """GPT-2's byte-level BPE from its tables: ``tokens`` (id -> token string, in the byte alphabet),
    ``merges`` (ranked pairs of token strings) and ``specials`` (tokens matched literally)."""

    kind = "gpt2-bpe"

    def __init__(self, tokens: Iterable[str], merges: Iterable[tuple[str, str]], specials: Iterable[str] = ()) -> None:
        self.tokens, self.merges, self.specials = list(tokens), [tuple(m) for m in merges], list(specials)
        self.id_of = {t: i for i, t in enumerate(self.tokens)}
        _check_tables(self.tokens, self.id_of, self.merges, self.specials)
        special = set(self.specials)
        self.token_bytes = [
            t.encode("utf-8") if t in special else bytes(CHAR_TO_BYTE[c] for c in t) for t in self.tokens
        ]  # id -> the bytes it stands for
        # (left id, right id) -> (rank, merged id): step 3's table
        self.ranks = {(self.id_of[a], self.id_of[b]): (r, self.id_of[a + b]) for r, (a, b) in enumerate(self.merges)}
        self._special_re = (
            re.compile("|".join(map(re.escape, sorted(special, key=len, reverse=True)))) if special else None
        )
        self.hf = hf.Tokenizer(hf.models.BPE(vocab=dict(self.id_of), merges=self.merges))
        self.hf.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        self.hf.add_special_tokens([hf.AddedToken(s, special=True, normalized=False) for s in self.specials])

    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    def encode(self, text: str) -> list[int]:
        """Text -> ids, by the library (steps 1-4 in Rust)."""
        return self.hf.encode(text, add_special_tokens=False).ids

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> bytes -> UTF-8 text; a character cut between tokens comes back as U+FFFD."""
        return b"".join(self.token_bytes[i] for i in self._id_list(ids)).decode("utf-8", errors="replace")

    def token_text(self, i: int) -> str:
        """What id ``i`` stands for, readable: UTF-8 where its bytes are, \\xNN where they are not."""
        return self.token_bytes[i].decode("utf-8", errors="backslashreplace")

    def _merge_piece(self, ids: list[int], steps: list[dict[str, Any]]) -> list[int]:
        """Step 3 on one piece's byte-token ids, recording each merge as it applies."""
        while len(ids) > 1:
            rank, pair = min((self.ranks.get(p, (float("inf"), -1))[0], p) for p in zip(ids, ids[1:], strict=False))
            if rank == float("inf"):
                break
            new_id = self.ranks[pair][1]
            ids = merge_pair(ids, pair, new_id)
            steps.append(
                {
                    "pair": pair,
                    "as_text": (self.tokens[pair[0]], self.tokens[pair[1]]),
                    "rank": rank,
                    "new_id": new_id,
                    "result": ids,
                }
            )
        return ids

    def show_work(self, text: str) -> dict[str, Any]:
        """Every step in Python: specials, pieces (spelled in the byte alphabet), merges, ids."""
        pieces, merges, ids = [], [], []
        for part, is_special in self._split_specials(text):  # 1)
            if is_special:
                pieces.append(part)
                ids.append(self.id_of[part])
                continue
            for spelled, _ in self.hf.pre_tokenizer.pre_tokenize_str(part):  # 2)
                steps: list[dict[str, Any]] = []
                ids += self._merge_piece([self.id_of[c] for c in spelled], steps)  # 3) and 4)
                merges += [{"piece": len(pieces), "piece_text": spelled, **s} for s in steps]
                pieces.append(spelled)
        return {
            "tokenizer": self.kind,
            "text": text,
            "specials": self.specials,
            "pieces": pieces,
            "merges": merges,
            "ids": ids,
            "tokens": [self.tokens[i] for i in ids],
            "decoded": self.decode(ids),
            "vocab_size": self.vocab_size,
        }

    def _split_specials(self, text: str) -> list[tuple[str, bool]]:
        """[(text, is_special)]: the special tokens cut out, leftmost first, longest first."""
        if self._special_re is None:
            return [(text, False)] if text else []
        out, start = [], 0
        for m in self._special_re.finditer(text):
            out += [(text[start : m.start()], False)] if m.start() > start else []
            out.append((m.group(), True))
            start = m.end()
        return out + ([(text[start:], False)] if start < len(text) else [])

    def to_dict(self) -> dict[str, Any]:
        """The three tables: tokens in id order, merges in rank order, the special tokens."""
        return {
            "pretokenizer": "gpt2",
            "tokens": self.tokens,
            "merges": [f"{a} {b}" for a, b in self.merges],
            "specials": self.specials,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GPT2BPETokenizer":
        if d.get("pretokenizer", "gpt2") != "gpt2":
            raise ValueError(f"pretokenizer {d['pretokenizer']!r} is not GPT-2's")
        return cls(d["tokens"], [tuple(m.split(" ")) for m in d["merges"]], d.get("specials", []))

    def __repr__(self) -> str:
        return f"GPT2BPETokenizer(vocab_size={self.vocab_size}, specials={self.specials})"


def _check_tables(tokens: list[str], id_of: dict[str, int], merges: list[tuple], specials: list[str]) -> None:
    """Refuse tables the encoder could not run: ValueError naming the first bad entry."""
    if len(id_of) != len(tokens):
        dup = next(t for i, t in enumerate(tokens) if id_of[t] != i)
        raise ValueError(f"token {dup!r} has two ids; every token needs exactly one")
    missing = [f"{b:#04x} ({c!r})" for b, c in enumerate(BYTE_TO_CHAR) if c not in id_of]
    if missing:
        raise ValueError(
            f"the vocabulary lacks {len(missing)} of the 256 byte tokens (first: {missing[0]}), "
            f"so some text could not be encoded; a byte-level vocabulary holds them all"
        )
    special = set(specials)
    if not special <= id_of.keys() or any(not s for s in special):
        raise ValueError(f"special tokens {sorted(special - id_of.keys())} are not in the vocabulary")
    for t in tokens:
        if t not in special and not all(c in CHAR_TO_BYTE for c in t):
            raise ValueError(f"token {t!r} is not spelled in GPT-2's byte alphabet (nor a special token)")
    seen = set()
    for rank, m in enumerate(merges):
        if len(m) != 2 or m in seen or any(p not in id_of or p in special for p in m) or m[0] + m[1] not in id_of:
            why = "is listed twice" if m in seen else "is not a pair of tokens whose join is a token"
            raise ValueError(f"merge {rank} {' '.join(map(str, m))!r} {why}")
        seen.add(m)

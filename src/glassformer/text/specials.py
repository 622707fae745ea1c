"""Special tokens added to a tokenizer: the control words of a chat (``<|im_start|>``, ``<|eot_id|>``)
as ids of their own, appended after every id the tokenizer already has.

A chat template writes its turns between markers such as ``<|im_start|>user ... <|im_end|>``. Spelled
with the base tokenizer, such a marker would be a dozen ordinary characters or bytes that a user could
also type, and the model would have to learn that one run of them means "a turn ends". A special token
is one id that stands for the whole marker: the text is first cut at every occurrence of a special
token (the longest first, as Hugging Face ``tokenizers`` matches its added tokens), each stretch between
them is encoded by the base tokenizer as before, and each marker becomes its own id.

    ids 0 .. V-1          the base tokenizer's, unchanged (a model trained on them reads them as before)
    ids V .. V+k-1        the k special tokens, in the order they were added

So a pretrained model keeps every row of its embedding and head; a chat only appends k new rows
(``transformers``' ``add_special_tokens`` appends the same way, after the vocabulary). Any tokenizer
kind can be wrapped (char, word, BPE): ``with_specials(tokenizer, tokens)``.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from glassformer.errors import UsageError
from glassformer.text.tokenizers import TOKENIZER_KINDS, Tokenizer, saved_field


class SpecialTokens(Tokenizer):
    """A base tokenizer plus special tokens: ids below ``base.vocab_size`` are the base's, unchanged."""

    kind = "specials"

    def __init__(self, base: Tokenizer, tokens: Iterable[str]) -> None:
        """Wrap ``base``; special token i gets id ``base.vocab_size + i``."""
        tokens = list(tokens)
        for i, token in enumerate(tokens):
            if not isinstance(token, str) or not token:
                raise UsageError(
                    "specials.empty", "a special token must be a non-empty string, got {token!r}.", token=token
                )
            if token in tokens[:i]:
                raise UsageError(
                    "specials.twice",
                    "special token {token!r} is listed twice; each special token gets exactly one id.",
                    token=token,
                )
        self.base, self.tokens = base, tokens
        self.ids = {token: base.vocab_size + i for i, token in enumerate(tokens)}  # special text -> its id
        longest_first = sorted(tokens, key=len, reverse=True)  # "<|im_start|>" before a shorter prefix of it
        self._split = re.compile("(" + "|".join(map(re.escape, longest_first)) + ")") if tokens else None

    @property
    def vocab_size(self) -> int:
        """The base's ids plus one per special token."""
        return self.base.vocab_size + len(self.tokens)

    def pieces(self, text: str) -> list[str]:
        """``text`` cut at every special token: the specials are pieces of their own, the rest in between
        (empty stretches dropped). ``"".join(pieces(text)) == text``."""
        if self._split is None:
            return [text] if text else []
        return [piece for piece in self._split.split(text) if piece]

    def encode(self, text: str) -> list[int]:
        """Each special token to its id, each stretch between them by the base tokenizer."""
        return [i for piece in self.pieces(text) for i in self._encode_piece(piece)]

    def _encode_piece(self, piece: str) -> list[int]:
        special = self.ids.get(piece)
        return [special] if special is not None else self.base.encode(piece)

    def decode(self, ids: Iterable[int]) -> str:
        """Runs of base ids decoded by the base tokenizer, special ids as their text."""
        out: list[str] = []
        run: list[int] = []
        for i in self._id_list(ids):
            if i < self.base.vocab_size:
                run.append(i)
                continue
            if run:
                out.append(self.base.decode(run))
                run = []
            out.append(self.tokens[i - self.base.vocab_size])
        if run:
            out.append(self.base.decode(run))
        return "".join(out)

    def show_work(self, text: str) -> dict[str, Any]:
        """The pieces (specials apart), each piece's ids, and the base's own work on each ordinary piece."""
        pieces = self.pieces(text)  # 1) cut at the special tokens
        per_piece = [self._encode_piece(p) for p in pieces]  # 2) a special's id, or the base's ids
        ids = [i for piece_ids in per_piece for i in piece_ids]
        return {
            "tokenizer": self.kind,
            "text": text,
            "specials": dict(self.ids),
            "pieces": pieces,
            "piece_ids": per_piece,
            "base_work": [self.base.show_work(p) for p in pieces if p not in self.ids],
            "ids": ids,
            "decoded": self.decode(ids),
            "vocab_size": self.vocab_size,
        }

    def to_dict(self) -> dict[str, Any]:
        """The base tokenizer (with its kind) and the special tokens in id order."""
        return {"base": {"kind": self.base.kind, **self.base.to_dict()}, "tokens": self.tokens}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SpecialTokens":
        """Rebuild the base by its kind, then add the tokens (a damaged field: load_tokenizer names the file)."""
        base = dict(d["base"])
        return cls(TOKENIZER_KINDS[base.pop("kind")].from_dict(base), saved_field(d, "tokens", "strs"))

    def __repr__(self) -> str:
        return f"SpecialTokens({self.base!r}, {self.tokens!r})"


def with_specials(tokenizer: Tokenizer, tokens: Iterable[str]) -> SpecialTokens:
    """``tokenizer`` with ``tokens`` added after its ids; tokens it has already are skipped (as
    ``transformers``' ``add_special_tokens`` does), so adding twice changes nothing."""
    if isinstance(tokenizer, SpecialTokens):
        return SpecialTokens(tokenizer.base, [*tokenizer.tokens, *(t for t in tokens if t not in tokenizer.ids)])
    return SpecialTokens(tokenizer, list(dict.fromkeys(tokens)))

"""A checkpoint's own tokenizer.json, run by the `tokenizers` library: what an imported Llama, Qwen3
or Mistral reads text with (models/llama.py).

Their tokenizers (SentencePiece-style BPE with byte fallback, Qwen's byte-level BPE with its own
pattern, ...) are pipelines of normalizer, pre-tokenizer, model and decoder that the library runs
exactly as transformers does; glassformer keeps the file as it is (inside the run's tokenizer.json,
field `json`) and asks the library to encode and decode, adding no special tokens of its own (the
model's prompt is what the user gives). `show_work` shows what the library returns: the pieces, their
ids, the text back.
"""

from __future__ import annotations

from typing import Any, Iterable

import tokenizers as hf

from glassformer.errors import DamagedFile
from glassformer.messages import t
from glassformer.text.tokenizers import Tokenizer, saved_field


class HFJsonTokenizer(Tokenizer):
    """A tokenizer.json of the `tokenizers` library, as it is."""

    kind = "hf-json"

    def __init__(self, text: str, rows: int = 0) -> None:
        """`rows`: the model's vocabulary, when its table has more rows than the file has tokens
        (Qwen's checkpoints pad theirs); those ids decode to nothing."""
        try:
            self.hf = hf.Tokenizer.from_str(text)
        except Exception as e:  # the library raises its own Exception for any file it cannot read
            raise DamagedFile(
                "hf.tokenizer",
                "the tokenizers library cannot read this tokenizer.json: {detail}",
                detail=str(e).splitlines()[0][:200],
            ) from None
        self.json, self.rows = text, rows

    @property
    def tokens(self) -> int:
        """The tokens the file defines (added ones included)."""
        return self.hf.get_vocab_size(with_added_tokens=True)

    @property
    def vocab_size(self) -> int:
        return max(self.rows, self.tokens)

    def encode(self, text: str) -> list[int]:
        return self.hf.encode(text, add_special_tokens=False).ids

    def hf_json(self) -> str:
        return self.json  # the file as it came

    def decode(self, ids: Iterable[int]) -> str:
        return self.hf.decode(self._id_list(ids), skip_special_tokens=False)

    def show_work(self, text: str) -> dict[str, Any]:
        encoding = self.hf.encode(text, add_special_tokens=False)
        return {
            "tokenizer": self.kind,
            "text": text,
            "pieces": encoding.tokens,
            "ids": encoding.ids,
            "decoded": self.decode(encoding.ids),
            "vocab_size": self.vocab_size,
        }

    def to_dict(self) -> dict[str, Any]:
        return {"json": self.json, "rows": self.rows}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "HFJsonTokenizer":
        rows = d.get("rows", 0)
        if type(rows) is not int or rows < 0:
            raise DamagedFile(
                "tokenizer.field",
                "its field {field} holds {found} {shown}, not {want}.",
                field="rows",
                found=type(rows).__name__,
                shown=repr(rows)[:40],
                want=t("a whole-number id"),
            )
        return cls(saved_field(d, "json", "str"), rows)

    def __repr__(self) -> str:
        return f"HFJsonTokenizer(vocab_size={self.vocab_size})"

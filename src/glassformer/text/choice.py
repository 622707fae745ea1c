"""Which tokenizer ``prepare`` uses: the choice as the user states it, checked, named and built.

    tokenizer  options                            prepared directory    tokenizer class
    char       -                                  char-<sha>            CharTokenizer
    word       segment = whitespace (default)     word-whitespace-<sha> WordTokenizer
               segment = jieba                    word-jieba-<sha>      WordTokenizer(segment="jieba")
    bpe        vocab_size (default 512)           bpe-512-<sha>         BPETokenizer   (ours, Python)
               backend = ours (default) | hf      bpe-hf-512-<sha>      HFBPETokenizer (same ids, Rust)

The directory name holds the kind and every option, so two tokenizations of one text never share a
directory. Each mistake a user can make is refused with the option's name (as the library spells it
and as the CLI does) and what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from glassformer.errors import UsageError

from .bpe import BPETokenizer
from .bpe_hf import HFBPETokenizer
from .bpe_train import N_BYTES
from .segment import SEGMENTERS
from .tokenizers import CharTokenizer, Tokenizer, WordTokenizer

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
        raise UsageError("error.choice.tokenizer", tokenizer=tokenizer, choices=", ".join(TOKENIZERS))
    if vocab_size is not None and tokenizer != "bpe":
        raise UsageError("error.choice.vocab_size", tokenizer=tokenizer)
    if segment is not None and tokenizer != "word":
        raise UsageError("error.choice.segment", tokenizer=tokenizer, segment=segment)
    if backend is not None and tokenizer != "bpe":
        raise UsageError("error.choice.backend", tokenizer=tokenizer)

    if tokenizer == "char":
        return TokenizerChoice(CharTokenizer, {}, "char")
    if tokenizer == "word":
        segment = segment or "whitespace"
        if segment not in SEGMENTERS:
            raise UsageError("error.choice.unknown_segment", segment=segment, choices=", ".join(SEGMENTERS))
        return TokenizerChoice(WordTokenizer, {"segment": segment}, f"word-{segment}")
    backend = backend or "ours"
    if backend not in BACKENDS:
        raise UsageError("error.choice.unknown_backend", backend=backend)
    vocab_size = DEFAULT_BPE_VOCAB if vocab_size is None else vocab_size
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise UsageError("error.choice.vocab_type", vocab_size=vocab_size, example=DEFAULT_BPE_VOCAB)
    if vocab_size < N_BYTES:
        raise UsageError("error.choice.vocab_small", vocab_size=vocab_size, least=N_BYTES, example=DEFAULT_BPE_VOCAB)
    cls = BPETokenizer if backend == "ours" else HFBPETokenizer
    return TokenizerChoice(cls, {"vocab_size": vocab_size}, f"{cls.kind}-{vocab_size}")

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


def choose_tokenizer(tokenizer: str = "char", vocab_size: int | None = None, segment: str | None = None,
                     backend: str | None = None) -> TokenizerChoice:
    """Check a tokenizer choice (the arguments of ``prepare`` and the flags of ``data prepare``)."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer={tokenizer!r} (--tokenizer); choose one of {', '.join(TOKENIZERS)}")
    if vocab_size is not None and tokenizer != "bpe":
        raise ValueError(f"vocab_size (--vocab-size) applies only to tokenizer='bpe' (--tokenizer bpe): a "
                         f"{tokenizer} vocabulary is every distinct {tokenizer} of the text. Drop it, or "
                         f"use --tokenizer bpe")
    if segment is not None and tokenizer != "word":
        raise ValueError(f"segment (--segment) applies only to tokenizer='word' (--tokenizer word), not "
                         f"{tokenizer!r}. Use --tokenizer word --segment {segment}, or drop --segment")
    if backend is not None and tokenizer != "bpe":
        raise ValueError(f"backend (--backend) applies only to tokenizer='bpe' (--tokenizer bpe), not "
                         f"{tokenizer!r}. Use --tokenizer bpe, or drop --backend")

    if tokenizer == "char":
        return TokenizerChoice(CharTokenizer, {}, "char")
    if tokenizer == "word":
        segment = segment or "whitespace"
        if segment not in SEGMENTERS:
            raise ValueError(f"unknown segment={segment!r} (--segment); choose one of {', '.join(SEGMENTERS)}")
        return TokenizerChoice(WordTokenizer, {"segment": segment}, f"word-{segment}")
    backend = backend or "ours"
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend={backend!r} (--backend); choose ours (Python, shows its work) "
                         f"or hf (the Hugging Face tokenizers library, same ids, faster)")
    vocab_size = DEFAULT_BPE_VOCAB if vocab_size is None else vocab_size
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(f"vocab_size={vocab_size!r} (--vocab-size) must be a whole number, e.g. {DEFAULT_BPE_VOCAB}")
    if vocab_size < N_BYTES:
        raise ValueError(f"vocab_size={vocab_size} (--vocab-size) is too small for byte-level BPE: its "
                         f"vocabulary starts with all {N_BYTES} byte values, so it has at least {N_BYTES} "
                         f"ids. Use --vocab-size {N_BYTES} or more (e.g. {DEFAULT_BPE_VOCAB})")
    cls = BPETokenizer if backend == "ours" else HFBPETokenizer
    return TokenizerChoice(cls, {"vocab_size": vocab_size}, f"{cls.kind}-{vocab_size}")

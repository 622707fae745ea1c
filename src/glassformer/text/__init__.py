"""The text stage: text ─► tokenizer ─► ids on disk ─► batches.

- ``tokenizers``: ``CharTokenizer`` (any Unicode), ``WordTokenizer`` (whitespace or jieba words +
  specials), one ``Tokenizer`` interface, ``load_tokenizer`` for saved ones.
- byte-level BPE: ``pretokenize`` (pieces) → ``bpe_train`` (learn merges) → ``bpe`` (``BPETokenizer``,
  ours, shows its work) and ``bpe_hf`` (``HFBPETokenizer``, the same merges run by Hugging Face
  ``tokenizers``: same ids, faster). ``segment``: how ``WordTokenizer`` finds words.
- ``gpt2_bpe``: ``GPT2BPETokenizer``, GPT-2's own vocabulary, merges and pattern (imported GPT-2s);
  ``gpt2_files`` reads and writes them as Hugging Face keeps them.
- ``corpora``: source specs (``shakespeare``, ``file:PATH``, ``builtin:seed``) → ``load_text`` /
  ``prepare`` (train/val id memmaps, content-addressed in the cache), with a tokenizer chosen in
  ``choice`` and big files read in chunks by ``stream``.
- ``chinese``: the named source ``zh-poems`` (classical Chinese poems, a Debian package's text).
- ``batches``: ``get_batch`` draws seeded random (x, y) windows for next-token training.
"""

from . import chinese  # noqa: F401 - registers the named source zh-poems with corpora.load_text
from .batches import get_batch
from .bpe import BPETokenizer
from .bpe_hf import HFBPETokenizer
from .choice import choose_tokenizer
from .corpora import (
    SEED_TEXT,
    SHAKESPEARE_SHA256,
    VALID_FORMS,
    CorpusUnavailable,
    PreparedData,
    default_cache_dir,
    load_text,
    prepare,
)
from .gpt2_bpe import GPT2BPETokenizer
from .tokenizers import CharTokenizer, Tokenizer, WordTokenizer, load_tokenizer

__all__ = [
    "BPETokenizer",
    "CharTokenizer",
    "CorpusUnavailable",
    "GPT2BPETokenizer",
    "HFBPETokenizer",
    "PreparedData",
    "SEED_TEXT",
    "SHAKESPEARE_SHA256",
    "Tokenizer",
    "VALID_FORMS",
    "WordTokenizer",
    "choose_tokenizer",
    "default_cache_dir",
    "get_batch",
    "load_text",
    "load_tokenizer",
    "prepare",
]

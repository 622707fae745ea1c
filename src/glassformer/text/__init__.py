"""The text stage: text ─► tokenizer ─► ids on disk ─► batches.

- ``tokenizers``: ``CharTokenizer`` (any Unicode), ``WordTokenizer`` (whitespace + specials), one
  ``Tokenizer`` interface, ``load_tokenizer`` for saved ones.
- ``corpora``: source specs (``shakespeare``, ``file:PATH``, ``builtin:seed``) → ``load_text`` /
  ``prepare`` (train/val id memmaps, content-addressed in the cache).
- ``chinese``: the named source ``zh-poems`` (classical Chinese poems, a Debian package's text).
- ``batches``: ``get_batch`` draws seeded random (x, y) windows for next-token training.
"""

from .batches import get_batch
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
from . import chinese  # registers the named source zh-poems with corpora.load_text
from .tokenizers import CharTokenizer, Tokenizer, WordTokenizer, load_tokenizer

__all__ = [
    "CharTokenizer",
    "CorpusUnavailable",
    "PreparedData",
    "SEED_TEXT",
    "SHAKESPEARE_SHA256",
    "Tokenizer",
    "VALID_FORMS",
    "WordTokenizer",
    "default_cache_dir",
    "get_batch",
    "load_text",
    "load_tokenizer",
    "prepare",
]

"""The text stage: text ─► tokenizer ─► ids on disk (train/data.py cuts the ids into batches).

- ``tokenizers``: one ``Tokenizer`` interface, ``CharTokenizer`` (any Unicode), ``WordTokenizer``
  (whitespace or jieba words + specials, the segmenters beside it), ``load_tokenizer`` for saved ones.
- ``bpe``: byte-level BPE start to end: pieces (``pretokenize``) → merges (``train_bpe``) →
  ``BPETokenizer`` (ours, shows its work) and ``HFBPETokenizer`` (the same merges run by Hugging Face
  ``tokenizers``: same ids, faster).
- ``hf_tokenizer``: ``HFJsonTokenizer``, a checkpoint's tokenizer.json run by the library (imported
  Llama, Qwen3 and Mistral models),
- ``gpt2_bpe``: ``GPT2BPETokenizer``, GPT-2's own vocabulary, merges and pattern (imported GPT-2s),
  read from and written to a Hugging Face directory the way transformers reads it.
- ``specials``: ``SpecialTokens`` / ``with_specials``, a tokenizer with a chat's control tokens appended
  after its ids (every old id unchanged).
- ``corpora``: source specs (``shakespeare``, ``file:PATH``, ``builtin:seed``) → ``load_text`` /
  ``prepare`` (train/val id memmaps, content-addressed in the cache), with a tokenizer chosen by
  ``choose_tokenizer`` and big files read in chunks.
- ``chinese``: the named source ``zh-poems`` (classical Chinese poems, a Debian package's text) and
  Chinese number words (``to_chinese`` / ``from_chinese``).
"""

from .bpe import BPETokenizer, HFBPETokenizer
from .chinese import from_chinese, to_chinese  # importing chinese registers zh-poems with load_text
from .corpora import (
    SEED_TEXT,
    SHAKESPEARE_SHA256,
    VALID_FORMS,
    CorpusUnavailable,
    PreparedData,
    choose_tokenizer,
    default_cache_dir,
    load_text,
    prepare,
)
from .gpt2_bpe import GPT2BPETokenizer, read_tokenizer_dir, write_tokenizer_dir
from .hf_tokenizer import HFJsonTokenizer  # an imported Llama's, Qwen3's or Mistral's own tokenizer.json
from .specials import SpecialTokens, with_specials
from .tokenizers import CharTokenizer, Tokenizer, WordTokenizer, load_tokenizer

__all__ = [
    "BPETokenizer",
    "CharTokenizer",
    "CorpusUnavailable",
    "GPT2BPETokenizer",
    "HFBPETokenizer",
    "HFJsonTokenizer",
    "PreparedData",
    "SEED_TEXT",
    "SHAKESPEARE_SHA256",
    "SpecialTokens",
    "Tokenizer",
    "VALID_FORMS",
    "WordTokenizer",
    "choose_tokenizer",
    "default_cache_dir",
    "from_chinese",
    "load_text",
    "load_tokenizer",
    "prepare",
    "read_tokenizer_dir",
    "to_chinese",
    "with_specials",
    "write_tokenizer_dir",
]

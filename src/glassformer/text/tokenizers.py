"""Tokenizers: the first arrow of the flow, text ─► ids (and back).

Every tokenizer answers the same five questions, so the rest of glassformer never asks which one it has:
how many ids exist (``vocab_size``), text → ids (``encode``), ids → text (``decode``), how to keep it
(``save`` / ``load_tokenizer``), and what happened on the way (``show_work``, after minGPT's
``encode_and_show_work``: every intermediate, returned as plain data so a lesson can print it).

A saved tokenizer is one JSON file whose ``"kind"`` field names its class; ``load_tokenizer`` dispatches
on it, so a new tokenizer only has to subclass ``Tokenizer`` with a new ``kind`` to be loadable (byte-level
BPE does: ``bpe.py``; GPT-2's own, ``gpt2_bpe.py``).

For big corpora each tokenizer also says where text may be cut without changing its ids
(``safe_cut``) and builds its vocabulary from text arriving in such chunks (``from_chunks``).

Word segmentation (``WordTokenizer``'s ``segment=``): where one word ends and the next begins.
English writes spaces between words, so splitting on whitespace finds them. Chinese does not:
"我爱你。你好吗？" has no space at all, and a whitespace split sees one long "word" that no vocabulary
knows. A segmenter has to decide where the words are; ``jieba`` (Sun Junyi, 2012-) does it with a
dictionary of ~350k words (the most probable path through the word graph of each sentence) and an
HMM for words the dictionary lacks:

    whitespace   "i love you"       → ["i", "love", "you"]
    jieba        "我爱你。你好吗？"  → ["我", "爱", "你", "。", "你好", "吗", "？"]

jieba keeps English words whole and yields spaces as pieces of their own; we drop those, so a piece
never contains whitespace under either rule. Both rules decide each whitespace-separated stretch of
text on its own, so text may be cut after any whitespace character (``safe_word_cut``) without
changing the pieces: that is what lets a big corpus be read in chunks.
"""

from __future__ import annotations

import logging
import os
import warnings
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Iterable

import numpy as np

from glassformer.errors import DamagedFile, GlassformerError, MissingPackage, UsageError, WrongType
from glassformer.files import json_text, read_json, write_text_atomic
from glassformer.messages import N_, NP_, t

# kind -> class; filled in by Tokenizer.__init_subclass__ so new tokenizers register themselves.
TOKENIZER_KINDS: dict[str, type["Tokenizer"]] = {}


class Tokenizer(ABC):
    """The common interface. Subclasses set ``kind`` and implement the abstract methods."""

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register each concrete tokenizer under its ``kind`` so load_tokenizer can find it."""
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            TOKENIZER_KINDS[cls.kind] = cls

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """Number of distinct ids; the model's embedding and head are this wide."""

    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Text → ids."""

    @abstractmethod
    def decode(self, ids: Iterable[int]) -> str:
        """Ids → text."""

    @abstractmethod
    def show_work(self, text: str) -> dict[str, Any]:
        """Encode ``text`` and return every intermediate (pieces, lookups, ids, decoded text)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild this tokenizer, as JSON-ready data (without ``kind``)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, d: dict[str, Any]) -> "Tokenizer":
        """Inverse of ``to_dict``."""

    def hf_json(self) -> str | None:
        """This tokenizer as a tokenizer.json of the `tokenizers` library, encoding every text to the
        same ids (what an exported Llama-family directory carries); None for a kind that has no such
        form yet."""
        return None

    def encode_array(self, text: str) -> np.ndarray:
        """Text → ids as an int64 array (N,). Subclasses override this when they can vectorise it."""
        return np.asarray(self.encode(text), dtype=np.int64)  # (N,) int64

    @staticmethod
    def safe_cut(text: str) -> int:
        """The last position p where ``encode(text) == encode(text[:p]) + encode(text[p:])`` holds
        whatever follows ``text``; 0 when there is none. Streaming ends each chunk there. This default
        never cuts, which is always right but keeps a whole text in memory; subclasses say better."""
        return 0

    def _id_list(self, ids: Iterable[int]) -> list[int]:
        """Accept a list, ndarray or 1-D tensor of ids; refuse out-of-range ones (a negative id would
        otherwise silently wrap around a Python list)."""
        ids = [int(i) for i in (ids.tolist() if hasattr(ids, "tolist") else ids)]
        bad = sorted({i for i in ids if not 0 <= i < self.vocab_size})
        if bad:
            raise UsageError(
                "tokenizer.id_range",
                "ids out of range for vocab_size={vocab_size}: {ids}.",
                vocab_size=self.vocab_size,
                ids=bad[:20],
            )
        return ids

    def save(self, path: str | os.PathLike) -> None:
        """Write this tokenizer as JSON (with its ``kind``); UTF-8, so non-ASCII vocabularies stay readable."""
        data = {"kind": self.kind, **self.to_dict()}
        text = json_text(data, ensure_ascii=False)
        if any("\ud800" <= c <= "\udfff" for c in text):  # a lone surrogate has no UTF-8: keep it as \\udxxx
            text = json_text(data)
        write_text_atomic(path, text + "\n")


TOKENIZER_FIX = N_(
    "It is written beside the ids it made (a run directory, a prepared corpus); restore it from a copy."
)  # the catalogue's sentence: where tokenizer.json comes from
_REQUIRED = object()

# what a field of a saved tokenizer may hold (its words: WANTS below)
FIELD_KINDS: dict[str, Any] = {
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "strs": lambda v: isinstance(v, str),  # each item of a list
    "id_pairs": lambda v: isinstance(v, list) and len(v) == 2 and all(type(i) is int for i in v),  # not bool
}
# what a saved field of a kind should hold, said in a refusal (FIELD_KINDS here; the rest gpt2_bpe's)
WANTS = {
    "object": N_("an object"),
    "id": N_("a whole-number id"),
    "merge": N_('a merge ("a b" or ["a", "b"])'),
    "token": N_('a token (a string, or an object with a "content" string)'),
    "tokens": N_("a list (or an object) of tokens"),
    "bool": N_(NP_("tokenizer.want.bool", "true or false")),
    "str": N_("a string"),
    "strs": N_("a list of strings"),
    "id_pairs": N_("a list of [id, id] pairs"),
}
ITEM_WANTS = {"strs": N_("a string"), "id_pairs": N_("a pair of whole-number ids [left, right]")}  # a list's item
JSON_TYPES = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string", list: "array"}


def saved_field(d: dict[str, Any], name: str, want: str, default: Any = _REQUIRED) -> Any:
    """Field ``name`` of a saved tokenizer if it holds what ``want`` names (a FIELD_KINDS key: "strs"
    and "id_pairs" are lists of such items), else DamagedFile naming the field (or its first bad item),
    what it holds and what it should: so a wrong type is refused by name before anything is built."""
    value = d.get(name, default)
    if value is _REQUIRED:
        raise DamagedFile(
            "tokenizer.field_missing", "it lacks the field {field} ({want}).", field=name, want=t(WANTS[want])
        )
    ok = FIELD_KINDS[want]
    if want in ITEM_WANTS and isinstance(value, list):
        bad = next(((f"{name}[{i}]", x, ITEM_WANTS[want]) for i, x in enumerate(value) if not ok(x)), None)
    else:
        bad = None if want not in ITEM_WANTS and ok(value) else (name, value, WANTS[want])
    if bad is not None:
        where, found, wanted = bad
        raise DamagedFile(
            "tokenizer.field",
            "its field {field} holds {found} {shown}, not {want}.",
            field=where,
            found=JSON_TYPES.get(type(found), "object"),
            shown=repr(found)[:40],
            want=t(wanted),
        )
    return value


def load_tokenizer(path: str | os.PathLike) -> Tokenizer:
    """Read a tokenizer JSON and rebuild it with the class its ``kind`` field names. A missing, empty
    or damaged file is an error naming it (glassformer.errors), never a bare parser message."""
    data = read_json(path, t(TOKENIZER_FIX))
    kind = data.pop("kind", None) if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in TOKENIZER_KINDS:  # (a list or object as "kind" is unhashable)
        raise DamagedFile(
            "tokenizer.kind",
            "{path}: unknown tokenizer kind {kind!r}; known kinds: {kinds}. {fix}",
            path=path,
            kind=kind,
            kinds=sorted(TOKENIZER_KINDS),
            fix=t(TOKENIZER_FIX),
        )
    try:
        return TOKENIZER_KINDS[kind].from_dict(data)
    except GlassformerError as e:  # a field of the wrong type, or tables the tokenizer refuses: named by key
        raise DamagedFile(
            "tokenizer.invalid",
            "{path} does not describe a {kind} tokenizer: {detail} {fix}",
            path=path,
            kind=kind,
            detail=e,
            fix=t(TOKENIZER_FIX),
        ) from None
    except (KeyError, TypeError, ValueError, AttributeError) as e:  # a bug's backstop: every field is checked first
        raise DamagedFile(
            "tokenizer.damaged",
            "{path} is damaged: it does not describe a {kind} tokenizer ({error}: {detail}). {fix}",
            path=path,
            kind=kind,
            error=type(e).__name__,
            detail=e,
            fix=t(TOKENIZER_FIX),
        ) from None


class CharTokenizer(Tokenizer):
    """One id per Unicode character: the vocabulary is the sorted set of characters seen.

    English, Chinese and mixed text all work the same way: a character is a code point. Encoding a
    character outside the vocabulary is an error (it names the characters) unless the tokenizer was
    built with ``unk=True``, in which case they all map to one extra ``<unk>`` id at the end of the
    vocabulary (so the ids of known characters are the same with or without it).
    """

    kind = "char"
    UNK = "<unk>"

    def __init__(self, chars: Iterable[str], unk: bool = False) -> None:
        """Build from an explicit character list; id i is chars[i]. Prefer ``from_text``."""
        chars = list(chars)
        if not chars:
            raise UsageError("tokenizer.no_chars", "a character vocabulary needs at least one character.")
        if any(len(c) != 1 for c in chars) or len(set(chars)) != len(chars):
            raise UsageError("tokenizer.chars", "chars must be distinct single characters.")
        self.chars = chars
        self.unk_id = len(chars) if unk else None
        self._itos = chars + ([self.UNK] if unk else [])
        # For vectorised encoding: a table indexed by code point, holding each character's id (-1 where
        # there is none). At most 1.1M entries (9 MB) even for a vocabulary that reaches U+10FFFF.
        codes = np.array([ord(c) for c in chars], dtype=np.int64)  # (V,)
        self._id_of_code = np.full(codes.max() + 2, -1, dtype=np.int64)  # (max code + 2,) last: "beyond"
        self._id_of_code[codes] = np.arange(len(chars))  # (V,) ids written at their code points

    @classmethod
    def from_text(cls, text: str, unk: bool = False) -> "CharTokenizer":
        """Vocabulary = every distinct character in ``text``, sorted by code point (deterministic)."""
        return cls(sorted(set(text)), unk=unk)

    @classmethod
    def from_chunks(cls, chunks: Iterable[str], unk: bool = False) -> "CharTokenizer":
        """The same vocabulary as ``from_text`` of the chunks joined, holding one chunk at a time."""
        seen: set[str] = set()
        for chunk in chunks:
            seen.update(chunk)
        return cls(sorted(seen), unk=unk)

    def hf_json(self) -> str:
        """One piece per character (a pre-tokenizer that isolates each one, newlines too), looked up in
        a word-level table of the characters, and pieces joined back with nothing between (Fuse); an
        unseen character is `<unk>` where this tokenizer has one, and refused by the library where not,
        as here."""
        import tokenizers as hf  # the library behind every imported tokenizer.json

        vocab = {c: i for i, c in enumerate(self._itos)}
        table = (
            hf.models.WordLevel(vocab, unk_token=self.UNK) if self.unk_id is not None else hf.models.WordLevel(vocab)
        )
        tokenizer = hf.Tokenizer(table)
        tokenizer.pre_tokenizer = hf.pre_tokenizers.Split(hf.Regex(r"[\s\S]"), behavior="isolated")
        tokenizer.decoder = hf.decoders.Fuse()
        return tokenizer.to_str()

    @staticmethod
    def safe_cut(text: str) -> int:
        """Anywhere: each character is encoded on its own."""
        return len(text)

    @property
    def vocab_size(self) -> int:
        """Characters, plus one if there is an <unk> id."""
        return len(self._itos)

    def encode_array(self, text: str) -> np.ndarray:
        """Vectorised encode: code points via UTF-32, then one lookup in the table indexed by code point.

        A Python loop over 5M characters would be seconds; this is a few NumPy passes. (A binary search
        in the sorted vocabulary, used before, was several times slower: it was most of the time of
        preparing a big corpus.)
        """
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")  # (N,) code points
        beyond = len(self._id_of_code) - 1
        ids = self._id_of_code[np.minimum(codes, beyond)]  # (N,) int64, -1 for characters not in the vocabulary
        known = ids >= 0  # (N,) bool
        if not known.all():
            if self.unk_id is None:
                raise self._unseen_error(codes[~known])
            ids = np.where(known, ids, self.unk_id)  # (N,) int64
        return ids

    def _unseen_error(self, unseen_codes: np.ndarray) -> UsageError:
        """Name the unseen characters (deduplicated, in order of first appearance) and say what to do."""
        uniq, first = np.unique(unseen_codes, return_index=True)
        shown = [repr(chr(c)) for c in uniq[np.argsort(first)][:20].tolist()]
        more = t(" and {n} more", n=len(uniq) - 20) if len(uniq) > 20 else ""
        return UsageError(
            "tokenizer.unseen",
            "{n} character(s) not in the vocabulary ({vocab} chars): "
            "{shown}{more}. Rebuild the vocabulary from text that "
            "contains them (CharTokenizer.from_text), or build it with "
            "unk=True to map unseen characters to {unk}.",
            n=len(uniq),
            vocab=len(self.chars),
            shown=", ".join(shown),
            more=more,
            unk=self.UNK,
        )

    def encode(self, text: str) -> list[int]:
        """Text → one id per character."""
        return self.encode_array(text).tolist()

    def decode(self, ids: Iterable[int]) -> str:
        """Ids → the characters they stand for, concatenated (<unk> decodes to the string '<unk>')."""
        ids = self._id_list(ids)
        return "".join(self._itos[i] for i in ids)

    def show_work(self, text: str) -> dict[str, Any]:
        """Every step of encoding ``text``: split → code points → vocabulary lookup → ids → decode."""
        ids = self.encode(text)
        pieces = list(text)  # 1) split: a piece is one character
        return {
            "tokenizer": self.kind,
            "text": text,
            "pieces": pieces,
            "code_points": [ord(c) for c in pieces],  # 2) what the vectorised encoder searches for
            "ids": ids,  # 3) the vocabulary lookup, piece by piece
            "lookups": list(zip(pieces, ids, strict=False)),
            "unknown": [p for p, i in zip(pieces, ids, strict=False) if i == self.unk_id],
            "decoded": self.decode(ids),  # 4) and back
            "vocab_size": self.vocab_size,
        }

    def to_dict(self) -> dict[str, Any]:
        """The character list (id order) and whether there is an <unk> id."""
        return {"chars": self.chars, "unk": self.unk_id is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CharTokenizer":
        """Rebuild from ``to_dict`` output."""
        return cls(saved_field(d, "chars", "strs"), unk=saved_field(d, "unk", "bool"))

    def __repr__(self) -> str:
        return f"CharTokenizer(vocab_size={self.vocab_size}, unk={self.unk_id is not None})"


# ---- word segmentation: how WordTokenizer finds words ----------------------------------------------------------------

SEGMENTERS = ("whitespace", "jieba")


def check_segment(segment: str) -> str:
    """Refuse an unknown segmenter by name, listing the known ones."""
    if segment not in SEGMENTERS:
        raise UsageError(
            "segment.unknown",
            "unknown segment={segment!r}; choose one of {choices}",
            segment=segment,
            choices=", ".join(SEGMENTERS),
        )
    return segment


def split_words(text: str, segment: str = "whitespace") -> list[str]:
    """Cut ``text`` into words by the named rule; no word contains whitespace."""
    if check_segment(segment) == "whitespace":
        return text.split()
    return [word for piece in _jieba().cut(text) for word in piece.split()]  # drop jieba's space pieces


def safe_word_cut(text: str) -> int:
    """The position just after the last whitespace character of ``text`` (0 if it has none): the
    words before and after it are the same as in the whole text, under either rule."""
    for p in range(len(text), 0, -1):
        if text[p - 1].isspace():
            return p
    return 0


def _jieba():
    """Import jieba on first use (it takes a second to load its dictionary), quietly."""
    try:
        with warnings.catch_warnings():  # jieba 0.42 imports pkg_resources, which warns on import
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", UserWarning)
            import jieba
    except ImportError:
        raise MissingPackage(
            "segment.no_jieba",
            "segment='jieba' needs the jieba package: pip install '{requirement}'",
            requirement="jieba>=0.42",
        ) from None
    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict ..." lines on stderr
    return jieba


class WordTokenizer(Tokenizer):
    """One id per word, with four special tokens first.

    Ids 0..3 are ``<PAD>`` (fills short sequences to a common length), ``<UNK>`` (any word not in the
    vocabulary), ``<BOS>`` / ``<EOS>`` (begin / end of sequence); words follow from id 4. Words are
    case-sensitive. By default they are split on whitespace only (punctuation stays attached);
    ``segment="jieba"`` finds the words of Chinese text, which has no spaces (see the module docstring).
    A word list given by hand may repeat a word (the word-level lesson's 20-word list has "you" twice):
    duplicates are dropped, keeping the first occurrence, so every word has exactly one id and later
    ids close the gap.
    """

    kind = "word"
    SPECIALS = ("<PAD>", "<UNK>", "<BOS>", "<EOS>")
    pad_id, unk_id, bos_id, eos_id = 0, 1, 2, 3

    def __init__(self, words: Iterable[str], segment: str = "whitespace") -> None:
        """Build from an explicit word list (ids in list order after the specials, duplicates dropped);
        ``segment`` names how text is cut into words ("whitespace" or "jieba")."""
        if isinstance(words, str):  # iterating a str would make a vocabulary of characters
            raise WrongType("tokenizer.words_str", "pass a list of words, or use WordTokenizer.from_text(text).")
        words = list(words)
        for w in words:
            if not w or any(c.isspace() for c in w):
                raise UsageError(
                    "tokenizer.word", "a word must be non-empty and contain no whitespace, got {word!r}.", word=w
                )
        self.segment = check_segment(segment)
        self._itos = list(dict.fromkeys([*self.SPECIALS, *words]))  # dedupe, first occurrence wins
        self._stoi = {w: i for i, w in enumerate(self._itos)}
        self.words = self._itos[len(self.SPECIALS) :]

    @classmethod
    def from_text(cls, text: str, segment: str = "whitespace") -> "WordTokenizer":
        """Vocabulary = every distinct word in ``text``, sorted (the same rule as CharTokenizer)."""
        return cls.from_chunks([text], segment)

    @classmethod
    def from_chunks(cls, chunks: Iterable[str], segment: str = "whitespace") -> "WordTokenizer":
        """The same vocabulary as ``from_text`` of the chunks joined, if each chunk ends at a ``safe_cut``."""
        seen: set[str] = set()
        for chunk in chunks:
            seen.update(split_words(chunk, segment))
        return cls(sorted(seen), segment)

    safe_cut = staticmethod(safe_word_cut)  # after any whitespace, for either segmenter

    @property
    def vocab_size(self) -> int:
        """Specials plus words."""
        return len(self._itos)

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Words → ids, unknown words → <UNK>; optionally wrap in <BOS> ... <EOS>."""
        ids = [self._stoi.get(w, self.unk_id) for w in split_words(text, self.segment)]
        return [self.bos_id] * add_bos + ids + [self.eos_id] * add_eos

    def decode(self, ids: Iterable[int], skip_special: bool = False) -> str:
        """Ids → words joined by single spaces (original spacing is not kept); optionally drop specials."""
        ids = self._id_list(ids)
        n_special = len(self.SPECIALS)
        return " ".join(self._itos[i] for i in ids if not (skip_special and i < n_special))

    def pad(self, ids: Iterable[int], length: int) -> list[int]:
        """Right-pad with <PAD> to ``length``, so sequences of different lengths stack into one batch."""
        ids = self._id_list(ids)
        if len(ids) > length:
            raise UsageError(
                "tokenizer.pad",
                "sequence has {n} ids, longer than length={length}; truncate it first.",
                n=len(ids),
                length=length,
            )
        return ids + [self.pad_id] * (length - len(ids))

    def show_work(self, text: str, add_bos: bool = False, add_eos: bool = False) -> dict[str, Any]:
        """Every step of encoding ``text``: split into words → vocabulary lookup (or <UNK>) → ids."""
        pieces = split_words(text, self.segment)  # 1) split on whitespace, or by jieba
        ids = self.encode(text, add_bos=add_bos, add_eos=add_eos)  # 2) look up each word
        word_ids = ids[1:] if add_bos else ids
        return {
            "tokenizer": self.kind,
            "text": text,
            "segment": self.segment,
            "pieces": pieces,
            "lookups": list(zip(pieces, word_ids, strict=False)),
            "unknown": [w for w in pieces if w not in self._stoi],
            "ids": ids,  # 3) with <BOS>/<EOS> if asked for
            "tokens": [self._itos[i] for i in ids],  # what each id stands for
            "decoded": self.decode(ids),  # 4) and back: unknown words come back as <UNK>
            "vocab_size": self.vocab_size,
        }

    def to_dict(self) -> dict[str, Any]:
        """The specials (for the reader; they are fixed), how text is cut into words, the word list in id order."""
        return {"specials": list(self.SPECIALS), "segment": self.segment, "words": self.words}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "WordTokenizer":
        """Rebuild from ``to_dict`` output, refusing files written with different special tokens."""
        found = saved_field(d, "specials", "strs", list(cls.SPECIALS))
        if found != list(cls.SPECIALS):
            raise DamagedFile(
                "tokenizer.specials", "special tokens {found} differ from {want}.", found=found, want=list(cls.SPECIALS)
            )
        segment = saved_field(d, "segment", "str", "whitespace")  # files from before segment= are whitespace
        words = saved_field(d, "words", "strs")
        twice = next((w for i, w in enumerate(words) if w in cls.SPECIALS or w in words[:i]), None)
        if twice is not None:  # save() writes each word once: dropping one would shift every later id
            raise DamagedFile(
                "tokenizer.word_twice",
                "the word {word!r} is listed twice (or is a special token); "
                "a saved vocabulary lists each word once, so every later id "
                "would shift.",
                word=twice,
            )
        return cls(words, segment)

    def __repr__(self) -> str:
        return f"WordTokenizer(vocab_size={self.vocab_size}, segment={self.segment!r})"

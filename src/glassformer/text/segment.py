"""Word segmentation: where one word ends and the next begins, for ``WordTokenizer``.

English writes spaces between words, so splitting on whitespace finds them. Chinese does not:
"我爱你。你好吗？" has no space at all, and a whitespace split sees one long "word" that no vocabulary
knows. A segmenter has to decide where the words are; ``jieba`` (Sun Junyi, 2012-) does it with a
dictionary of ~350k words (the most probable path through the word graph of each sentence) and an
HMM for words the dictionary lacks:

    whitespace   "i love you"       → ["i", "love", "you"]
    jieba        "我爱你。你好吗？"  → ["我", "爱", "你", "。", "你好", "吗", "？"]

jieba keeps English words whole and yields spaces as pieces of their own; we drop those, so a piece
never contains whitespace under either rule. Both rules decide each whitespace-separated stretch of
text on its own, so text may be cut after any whitespace character (``safe_cut``) without changing
the pieces: that is what lets a big corpus be read in chunks.
"""

from __future__ import annotations

import logging
import warnings

from glassformer.errors import UsageError
from glassformer.messages import t

SEGMENTERS = ("whitespace", "jieba")


def check_segment(segment: str) -> str:
    """Refuse an unknown segmenter by name, listing the known ones."""
    if segment not in SEGMENTERS:
        raise UsageError("error.segment.unknown", segment=segment, choices=", ".join(SEGMENTERS))
    return segment


def split_words(text: str, segment: str = "whitespace") -> list[str]:
    """Cut ``text`` into words by the named rule; no word contains whitespace."""
    if check_segment(segment) == "whitespace":
        return text.split()
    return [word for piece in _jieba().cut(text) for word in piece.split()]  # drop jieba's space pieces


def safe_cut(text: str) -> int:
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
        raise ImportError(t("error.segment.no_jieba", requirement="jieba>=0.42")) from None
    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict ..." lines on stderr
    return jieba

"""Pre-tokenization: cut text into pieces before BPE, so no merge ever crosses a piece boundary.

GPT-2 (Radford et al. 2019, ``encoder.py``) splits text with one regular expression before its
byte-pair merges: contractions, runs of letters, runs of digits, runs of punctuation and runs of
whitespace each become a piece, and a single space sticks to the word after it (" world"). BPE then
merges only inside a piece, so "dog." and "dog!" share the token " dog" instead of learning
"dog." and "dog!" as separate tokens.

We keep GPT-2's shape but define the classes by ASCII alone:

    letter       A-Z a-z, and every non-ASCII character (é, 中, 👍 all count as letters)
    digit        0-9
    space        the six ASCII whitespace characters: \\t \\n \\v \\f \\r and " "
    punctuation  everything else: ASCII punctuation and ASCII control characters

Why not GPT-2's ``\\p{L}`` (any Unicode letter)? Because what ``\\p{L}`` means depends on the Unicode
tables built into whichever regex engine runs it. Python's ``regex`` 2026.11.19 and the Oniguruma
engine inside Hugging Face ``tokenizers`` 0.23.3 disagree on 17,480 code points (newer letters and
digits one engine knows and the other does not), so the same merges would give different ids for
some text depending on the backend, and a saved tokenizer could change meaning when a library
updates. Our classes use only literal code-point ranges, so Python's ``re`` and Oniguruma split
every string the same way, today and later. The price: non-ASCII punctuation (，。) and emoji join
the letters around them, and non-ASCII spaces (U+00A0, U+3000) do too.
"""

from __future__ import annotations

import re

# The four classes as character-class bodies. They are literal ranges, so any regex engine reads them
# the same way (LETTER holds the real characters U+0080 and U+10FFFF, not escapes, for the same reason).
SPACE = "\t\n\x0b\x0c\r "
LETTER = "A-Za-z\u0080-\U0010ffff"
DIGIT = "0-9"

# GPT-2's alternatives, in GPT-2's order; the first that matches at a position wins.
PATTERN = "|".join(
    [
        "'(?:s|t|re|ve|m|ll|d)",  # English contractions: it|'s, we|'ll (GPT-2 matches them lower-case only)
        f" ?[{LETTER}]+",  # a word, with the one space before it
        f" ?[{DIGIT}]+",  # a number, with the one space before it
        f" ?[^{SPACE}{LETTER}{DIGIT}]+",  # a run of punctuation, with the one space before it
        f"[{SPACE}]+(?![^{SPACE}])",  # spaces up to the end, or all but the last one before a word
        f"[{SPACE}]+",  # any other run of spaces
    ]
)
_PIECE = re.compile(PATTERN)


def pretokenize(text: str) -> list[str]:
    """Cut ``text`` into pieces; ``"".join(pretokenize(text)) == text`` for every string.

    >>> pretokenize("It's 2 o'clock, 世界!  Bye")
    ['It', "'s", ' 2', ' o', "'", 'clock', ',', ' 世界', '!', ' ', ' Bye']
    """
    return _PIECE.findall(text)


def safe_cut(text: str) -> int:
    """The last position p where ``pretokenize(text) == pretokenize(text[:p]) + pretokenize(text[p:])``
    is guaranteed, whatever follows ``text``; 0 if there is none.

    Streaming uses it to end a chunk without splitting a piece. The place: between a non-space and a
    space. No alternative of PATTERN matches a non-space followed by a space, so a piece always ends
    there; the pieces before it never look past it (the only lookahead, ``(?![^ ...])``, belongs to a
    run of spaces, which cannot end just before p); and the pieces after it depend only on what follows.
    """
    for p in range(len(text) - 1, 0, -1):  # from the end: in ordinary text a cut is a few characters back
        if text[p] in SPACE and text[p - 1] not in SPACE:
            return p
    return 0

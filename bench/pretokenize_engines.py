"""Do two regex engines split text the same way? GPT-2's \\p{L} pattern vs ours, over every code point.

    python bench/pretokenize_engines.py        # about a minute

The two engines: Python's (``regex`` for GPT-2's pattern, which needs \\p{...}; ``re`` for ours) and
the Oniguruma inside Hugging Face ``tokenizers`` (``pre_tokenizers.Split(..., "isolated")``).

1. GPT-2's pattern: each of the 1,112,064 code points c (all but surrogates) is pre-tokenized inside
   "a{c}a 1{c}1 ,{c}, {c} x{c} {c}{c}" by both engines; the code points where the pieces differ are
   counted, and which classes (\\p{L}, \\p{N}, \\s) each engine gives them.
2. Ours (glassformer.text.bpe.PATTERN): all code points joined into one string with each of
   seven separators, pre-tokenized by both engines; the piece lists must be identical.

This is why pretokenize.py defines its classes by literal ranges instead of \\p{L}.
"""

import re
import time

import regex
from tokenizers import Regex, pre_tokenizers

from glassformer.text.bpe import PATTERN

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def library(pattern: str):
    split = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
    return lambda s: [piece for piece, _ in split.pre_tokenize_str(s)]


def main() -> None:
    t0 = time.perf_counter()
    ours_gpt2, lib_gpt2 = regex.compile(GPT2).findall, library(GPT2)
    differ = [
        c for c in CODE_POINTS if ours_gpt2(s := "a{0}a 1{0}1 ,{0}, {0} x{0} {0}{0}".format(chr(c))) != lib_gpt2(s)
    ]
    print(
        f"GPT-2 pattern: {len(differ):,} of {len(CODE_POINTS):,} code points split differently "
        f"(Python regex {regex.__version__} vs tokenizers' Oniguruma) [{time.perf_counter() - t0:.0f} s]"
    )
    for cls in (r"\p{L}", r"\p{N}", r"\s"):
        python_says = regex.compile(cls).fullmatch
        removed = pre_tokenizers.Split(Regex(cls), behavior="removed")  # a matching character disappears
        lib_says = lambda ch, removed=removed: not removed.pre_tokenize_str(ch)  # noqa: E731
        only_python = sum(1 for c in differ if python_says(chr(c)) and not lib_says(chr(c)))
        only_lib = sum(1 for c in differ if lib_says(chr(c)) and not python_says(chr(c)))
        print(f"  {cls:6s} Python's tables only: {only_python:,}; the library's only: {only_lib:,}")
    t0 = time.perf_counter()
    ours, lib = re.compile(PATTERN).findall, library(PATTERN)
    for sep in ["", " ", "a", "1", ",", "  ", "'s"]:
        text = sep.join(chr(c) for c in CODE_POINTS)
        same = ours(text) == lib(text)
        print(f"our pattern, all code points joined by {sep!r:5}: {'identical' if same else 'DIFFERENT'}")
    print(f"[{time.perf_counter() - t0:.0f} s]")


if __name__ == "__main__":
    main()

"""What every verb's options share: one spelling rule, one `--threads`, one range for every number,
and usage errors in two lines.

Every number a verb reads has its range here, as an argparse `type`, so a bad value is refused
before anything runs, with a message naming the flag ("argument --top-p: must be in (0, 1], got
'1.5'"). Use them for new options:

    count           whole number >= 1      (--max-new-tokens, --num-samples, --epochs ...)
    count_or_zero   whole number >= 0      (--sample-chars, where 0 means none)
    seed            whole number torch accepts as a seed
    probability     0 < p <= 1             (--top-p)
    temperature     finite, >= 0           (0 = greedy)
    positive        finite, > 0            (thresholds)
    threads         whole number >= 0      (0 = torch's choice)
    utf8_text       any text, refusing bytes that are not UTF-8 (a terminal in another encoding)
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from glassformer.errors import UsageError
from glassformer.config import MAX_THREADS
from glassformer.threads import DEFAULT_THREADS

_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_-]*")


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error in two lines (the problem, then where to read more) instead of
    the full usage block; every subcommand's parser is one of these too (argparse makes subparsers
    of the parent's class)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n(see `{self.prog} --help`)\n")


def normalize_argv(argv: list[str]) -> list[str]:
    """`--max_new_tokens` -> `--max-new-tokens` (also in `--key=value`): every option is defined
    with dashes, and both spellings reach it. Values are never touched."""
    out = []
    for token in argv:
        key, eq, value = token.partition("=")
        out.append(key.replace("_", "-") + eq + value if _OPTION.fullmatch(key) else token)
    return out


def add_threads(parser: argparse.ArgumentParser) -> None:
    """The one `--threads` option (see glassformer/threads.py for the rule and its reason)."""
    parser.add_argument("--threads", type=threads, default=DEFAULT_THREADS,
                        help=f"CPU threads for torch (default {DEFAULT_THREADS}; 0 = torch's choice, every core)")


# ---- ranges: argparse types ------------------------------------------------------------------------
def _whole(text: str, low: int, high: int, rule: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
    return value


def _real(text: str, ok, rule: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}") from None
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
    return value


def count(text: str) -> int:
    return _whole(text, 1, sys.maxsize, "a whole number >= 1")


def count_or_zero(text: str) -> int:
    return _whole(text, 0, sys.maxsize, "a whole number >= 0")


def seed(text: str) -> int:
    return _whole(text, 0, 2**63 - 1, "a whole number from 0 to 2**63-1")


def threads(text: str) -> int:
    return _whole(text, 0, MAX_THREADS, f"a whole number from 0 (torch's choice) to {MAX_THREADS}")


def probability(text: str) -> float:
    return _real(text, lambda p: 0 < p <= 1, "a number in (0, 1]")


def temperature(text: str) -> float:
    return _real(text, lambda t: t >= 0, "a finite number >= 0 (0 = greedy)")


def positive(text: str) -> float:
    return _real(text, lambda x: x > 0, "a finite number > 0")


def non_negative(text: str) -> float:
    return _real(text, lambda x: x >= 0, "a finite number >= 0")


def port(text: str) -> int:
    return _whole(text, 0, 65535, "a port number from 0 (any free port) to 65535")


def utf8_text(value: str) -> str:
    """Any text; a lone surrogate means the shell passed bytes that are not UTF-8."""
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise argparse.ArgumentTypeError(
            f"{value!r} holds bytes that are not UTF-8 text; set your terminal to UTF-8 (e.g. "
            f"export LANG=C.UTF-8) or convert the text with iconv -t UTF-8")
    return value


def index_within(flag: str, value: int, size: int, what: str) -> int:
    """A layer or head index the model has: 0 <= value < size."""
    if not 0 <= value < size:
        raise UsageError(f"{flag} {value}: this model has {size} {what}, {what} 0..{size - 1}.")
    return value


def add_tokenizer_options(parser: argparse.ArgumentParser) -> None:
    """How a text corpus is cut into tokens: the same four options on `data prepare` and `train`."""
    from glassformer.text.choice import BACKENDS, DEFAULT_BPE_VOCAB, TOKENIZERS
    from glassformer.text.segment import SEGMENTERS

    parser.add_argument("--tokenizer", choices=TOKENIZERS, default=None, help="char (default), word or bpe")
    parser.add_argument("--vocab-size", type=count,
                        help=f"bpe only: vocabulary size, at least 256 (default {DEFAULT_BPE_VOCAB})")
    parser.add_argument("--segment", choices=SEGMENTERS,
                        help="word only: how to find words (default whitespace; jieba for Chinese)")
    parser.add_argument("--backend", choices=BACKENDS, help="bpe only: ours (Python, shows its work) or hf "
                        "(the Hugging Face tokenizers library: same ids, faster)")


def tokenizer_options(args: argparse.Namespace) -> dict:
    """The options add_tokenizer_options read, as `prepare` takes them (only those given)."""
    given = {"tokenizer": args.tokenizer, "vocab_size": args.vocab_size, "segment": args.segment,
             "backend": args.backend}
    return {k: v for k, v in given.items() if v is not None}

"""What every verb's options share: one spelling rule and one `--threads`."""

from __future__ import annotations

import argparse
import re

from glassformer.threads import DEFAULT_THREADS

_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_-]*")


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
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"CPU threads for torch (default {DEFAULT_THREADS}; 0 = torch's choice, every core)")

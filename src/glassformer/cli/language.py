"""How the command line speaks the user's language (glassformer/messages chooses the words):

language_requested(argv)   `--lang zh` / `--lang=zh` anywhere on the line, else GLASSFORMER_LANG
argparse_speaking()        argparse's own words ("usage:", "invalid choice") from the catalogue
HelpFormatter              help holding Chinese wrapped by terminal columns (a character takes two)
"""

from __future__ import annotations

import argparse
import contextlib
import re

from glassformer.errors import UsageError
from glassformer.messages import LANGS, argparse_words, columns, language, resolve

LANG_FLAG = "--lang"


def language_requested(argv: list[str]) -> tuple[list[str], str]:
    """(argv without `--lang X` / `--lang=X`, the language): --lang may stand anywhere, before or
    after the verb (like --debug); without it, GLASSFORMER_LANG decides, else English."""
    kept, flag, i = [], None, 0
    while i < len(argv):
        token = argv[i]
        if token == LANG_FLAG:
            if i + 1 == len(argv):
                raise UsageError("cli.lang_no_value", langs=", ".join(LANGS))
            flag, i = argv[i + 1], i + 2
            continue
        if token.startswith(LANG_FLAG + "="):
            flag = token.partition("=")[2]
        else:
            kept.append(token)
        i += 1
    return kept, resolve(flag)


@contextlib.contextmanager
def argparse_speaking():
    """argparse's own words ("usage: ", "invalid choice: ...", "show this help ...") come from
    gettext; while a command line is built and parsed, they come from the catalogue instead."""
    saved = argparse._, argparse.ngettext
    argparse._ = argparse_words
    argparse.ngettext = lambda one, many, n: argparse_words(one if n == 1 else many)
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


class HelpFormatter(argparse.HelpFormatter):
    """argparse's layout, but Chinese help is wrapped by terminal columns (a Chinese character takes
    two, and may end a line anywhere; a closing mark never starts one). English help keeps argparse's
    own wrapping, byte for byte, even where it quotes a Chinese example (一千二百零五)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not _by_columns(text):
            return super()._split_lines(text, width)
        return _wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not _by_columns(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in _wrap(" ".join(text.split()), width - len(indent)))


def _by_columns(text: str) -> bool:
    return language() == "zh" and columns(text) != len(text)


_PIECES = re.compile(r"\s+|[^\x00-\u2e7f]|[\x00-\u2e7f]+?(?=\s|[^\x00-\u2e7f]|$)")  # spaces, a wide char, a word
_NO_LINE_START, _NO_LINE_END = set("，。、；：！？）」』》〉…"), set("（「『《〈")


def _wrap(text: str, width: int) -> list[str]:
    """Greedy line filling by terminal columns, never breaking inside a run of narrow characters."""
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if line and columns(line + piece) > width and piece[0] not in _NO_LINE_START and not piece.isspace():
            carried = line[-1] if line[-1] in _NO_LINE_END else ""  # an opening mark goes with what it opens
            lines.append(line[: len(line) - len(carried)].rstrip())
            line = carried
        if line or not piece.isspace():
            line += piece
    return lines + ([line.rstrip()] if line.strip() else [])

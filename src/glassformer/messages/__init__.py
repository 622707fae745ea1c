"""Every sentence glassformer says to a user, in one catalogue: each file here holds one area's words
twice, `EN = {...}` then `ZH = {...}`, the same keys in the same order, each a format string with the
same {fields} (a test checks). Numbers, paths, names and code always come in as fields, never typed
into a sentence, so the two languages cannot disagree on a figure.

    t("train.done", steps=500, train=1.23, val=1.45, best=1.40)  the sentence, in the process's language
    say("train.done", ...)                                        the same, printed (file=sys.stderr too)

The language is chosen once per process: `glassformer --lang zh ...` (anywhere on the line) or the
environment variable GLASSFORMER_LANG (zh, zh_CN.UTF-8 ...); English otherwise. The command line
sets it with `speaking(lang)` for the length of one command; a library caller who never sets it
gets GLASSFORMER_LANG's choice, read at each message (so a test can change it).

What lives here: every sentence a user reads, one file per area. core.py holds the command line's
help, progress and summary lines and the errors the library raises (and ARGPARSE, argparse's own
sentences in Chinese); the area files beside it (lessons.py, lab.py, exercises.py, explore.py,
glossary.py, model.py, text.py, run.py (config, training, sampling, bench), causal.py, pictures.py)
hold each part's words. A translator reads one file, the English table above the Chinese one; the
loader below merges every file's EN into one table for "en" and every ZH into one for "zh".
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import sys
import unicodedata

from glassformer.messages import core

LANGS = ("en", "zh")
ENV = "GLASSFORMER_LANG"


class KeyDefinedTwice(ImportError):
    """Two area files define the same keys: a mistake in the catalogue itself, found at import. The
    catalogue cannot put its own failure into words from a table that failed to build, so the error
    carries the file and the keys as fields, and its text is made from them."""

    def __init__(self, area: str, keys: list[str]) -> None:
        super().__init__(area, keys)
        self.area, self.keys = area, keys

    def __str__(self) -> str:
        return f"messages/{self.area}.py: {', '.join(self.keys)} (each key lives in one area file)"


def _tables() -> dict[str, dict[str, str]]:
    """One table per language: core.py's EN / ZH first, then every other file's in this folder, by
    name (causal, exercises, explore, the glossary ...). A key is defined once: two files that
    define the same key are an error here, at import, not a sentence that silently wins."""
    areas = sorted((m.name for m in pkgutil.iter_modules(__path__)), key=lambda name: (name != "core", name))
    tables: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for area in areas:
        module = importlib.import_module(f"{__name__}.{area}")
        for lang, table in tables.items():
            words = getattr(module, lang.upper())  # EN, ZH
            twice = sorted(set(words) & set(table))
            if twice:
                raise KeyDefinedTwice(area, twice[:5])
            table.update(words)
    return tables


TABLES = _tables()

_chosen: list[str] = []  # the languages speaking() set, innermost last; empty: read the environment


def normalize(name: str) -> str:
    """ "zh_CN.UTF-8", "zh-Hans", "ZH" -> "zh" (the part before any _ - or .)."""
    return name.split(".")[0].split("_")[0].split("-")[0].lower()


class UnknownLanguage(ValueError):
    """--lang or GLASSFORMER_LANG names a language there is no catalogue for (a usage error: exit 2).
    Said in GLASSFORMER_LANG's language if that one is known, else in English."""

    key = "lang.unknown"

    def __init__(self, **fields) -> None:
        fallback = normalize(os.environ.get(ENV) or "en")
        self.fields, self.lang = fields, fallback if fallback in LANGS else "en"
        super().__init__(TABLES[self.lang][self.key].format(**fields))


def resolve(flag: str | None = None) -> str:
    """--lang if given, else $GLASSFORMER_LANG, else "en"; an unknown language is refused."""
    asked = flag or os.environ.get(ENV) or "en"
    lang = normalize(asked)
    if lang not in LANGS:
        raise UnknownLanguage(lang=asked, langs=", ".join(LANGS), env=ENV)
    return lang


def language() -> str:
    """The process's language: the one set by the command line, else GLASSFORMER_LANG's, else en."""
    if _chosen:
        return _chosen[-1]
    try:
        return resolve()
    except ValueError:  # a library call is no place to fail over a language: the CLI refuses it
        return "en"


@contextlib.contextmanager
def speaking(lang: str):
    """Speak `lang` inside the block (the CLI wraps one command in it), then the previous language."""
    if lang not in LANGS:
        raise UnknownLanguage(lang=lang, langs=", ".join(LANGS), env=ENV)
    _chosen.append(lang)
    try:
        yield lang
    finally:
        _chosen.pop()


def t(key: str, /, **fields) -> str:
    """The sentence `key` in the process's language, with its {fields} filled in."""
    return TABLES[language()][key].format(**fields)


def N_(key: str) -> str:
    """Marks a sentence that is looked up later (a table of titles, an exercise's hints): returns
    `key` unchanged, so every key appears literally where it is defined and `t(value)` words it."""
    return key


def has(key: str) -> bool:
    """Is `key` in the catalogue?"""
    return key in TABLES["en"]


def say(key: str, /, file=None, **fields) -> None:
    """print(t(key, **fields)) to stdout, or to `file` (sys.stderr for notes and errors), flushed."""
    if file is not None and file is not sys.stdout:
        note(t(key, **fields), file)
    else:
        print(t(key, **fields), flush=True)


def note(text: str, file=None) -> None:
    """A note or an error on stderr (or `file`), on a line of its own: what stdout holds is written
    out first, so with `2>&1` the note never lands inside text already printed (a sample, a table)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # a closed or broken stdout: the note still goes out
        pass
    print(text, file=file if file is not None else sys.stderr, flush=True)


def columns(text: str) -> int:
    """The terminal columns `text` takes: a Chinese character (and a full-width mark) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal columns."""
    return text + " " * (width - columns(text))


def pad_left(text: str, width: int) -> str:
    """`text` right-aligned in `width` terminal columns (spaces before it)."""
    return " " * (width - columns(text)) + text


def in_language(lang: str | None):
    """speaking(lang) for a view that takes a `lang=` argument; None keeps the process's language."""
    return speaking(lang) if lang is not None else contextlib.nullcontext(language())


def argparse_words(text: str) -> str:
    """argparse's own words ("usage: ", "invalid choice: ...") in the process's language: they go
    through gettext, and cli/options.py routes them here while a command line is parsed."""
    return core.ARGPARSE.get(text, text) if language() == "zh" else text

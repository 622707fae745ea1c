"""Every sentence glassformer says to a user is written in English where it is used, and its Chinese
lives in one gettext catalogue, src/glassformer/locale/zh/LC_MESSAGES/glassformer.po (compiled to
glassformer.mo beside it, read by the standard library's gettext). Numbers, paths, names and code
always come in as {fields}, never typed into a sentence, so the two languages cannot disagree on a
figure.

    t("Trained {steps} steps.", steps=500)   the sentence in the process's language, {fields} filled in
    say("Trained {steps} steps.", ...)      the same, printed (file=sys.stderr too)
    N_("a sentence")                        marks a sentence looked up later (a table); returns it
    NP_("context", "train")                 the same, for a word whose Chinese depends on where it is
                                            (gettext's msgctxt); t() reads the pair

The language is chosen once per process: `glassformer --lang zh ...` (anywhere on the line) or the
environment variable GLASSFORMER_LANG (zh, zh_CN.UTF-8 ...); English otherwise. The command line
sets it with `speaking(lang)` for the length of one command; a library caller who never sets it
gets GLASSFORMER_LANG's choice, read at each message (so a test can change it).

Adding or changing a sentence: docs/translating.md (`make po` extracts the sentences with Babel,
marks a Chinese entry whose English changed as fuzzy, and compiles the .mo).
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import os
import sys
import unicodedata
from pathlib import Path

LANGS = ("en", "zh")
ENV = "GLASSFORMER_LANG"
DOMAIN = "glassformer"  # locale/<lang>/LC_MESSAGES/glassformer.mo
LOCALE = Path(__file__).resolve().parent.parent / "locale"
CONTEXT = "\x04"  # gettext's separator between a msgctxt and its msgid (as in the .mo file)


_chosen: list[str] = []  # the languages speaking() set, innermost last; empty: read the environment


def normalize(name: str) -> str:
    """ "zh_CN.UTF-8", "zh-Hans", "ZH" -> "zh" (the part before any _ - or .)."""
    return name.split(".")[0].split("_")[0].split("-")[0].lower()


@functools.cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of `lang` (English is the source: no catalogue, every sentence as written)."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE, languages=[lang])


def translated(message: str, lang: str) -> str:
    """`message` (an English sentence, or "context\\x04sentence" from NP_) in `lang`, fields unfilled."""
    if not message:  # gettext's "" is the catalogue's header, not a sentence
        return message
    context, _, english = message.rpartition(CONTEXT)
    words = catalogue(lang)
    return words.pgettext(context, english) if context else words.gettext(english)


class UnknownLanguage(ValueError):
    """--lang or GLASSFORMER_LANG names a language there is no catalogue for (a usage error: exit 2).
    Said in GLASSFORMER_LANG's language if that one is known, else in English."""

    code = "lang.unknown"

    def __init__(self, **fields) -> None:
        fallback = normalize(os.environ.get(ENV) or "en")
        self.fields, self.lang = fields, fallback if fallback in LANGS else "en"
        super().__init__(
            translated(N_("language {lang!r} is not one of {langs} (--lang or {env})."), self.lang).format(**fields)
        )

    @property
    def key(self) -> str:  # the old name of `code`
        return self.code


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


def t(message: str, /, **fields) -> str:
    """The English sentence `message` in the process's language, with its {fields} filled in."""
    return translated(message, language()).format(**fields)


def N_(message: str) -> str:
    """Marks a sentence that is looked up later (a table of titles, an exercise's hints): returns it
    unchanged; Babel's extraction finds it, and `t(value)` words it."""
    return message


def NP_(context: str, message: str) -> str:
    """N_ for a sentence whose Chinese depends on where it stands ("train" as a split, "train" as a
    verb): gettext's msgctxt. Returns the pair as one string ("context\\x04message"), which t() reads."""
    return f"{context}{CONTEXT}{message}"


def translations(lang: str) -> list[str]:
    """Every sentence of `lang`'s catalogue, as translated (the font's subset needs their characters)."""
    words = list(getattr(catalogue(lang), "_catalog", {}).values())  # gettext keeps them in _catalog
    return [w for w in words if isinstance(w, str)]


def has(message: str) -> bool:
    """Has `message` a translation in the catalogue?"""
    return bool(message) and translated(message, "zh") != message.rpartition(CONTEXT)[2]


def say(message: str, /, file=None, **fields) -> None:
    """print(t(message, **fields)) to stdout, or to `file` (sys.stderr for notes and errors), flushed."""
    if file is not None and file is not sys.stdout:
        note(t(message, **fields), file)
    else:
        print(t(message, **fields), flush=True)


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

"""The words of a hook point, looked up when a view shows it: the model declares ids only.

A hook point (nn/hooks.py) carries its stage id, its axes' letters and the id of what its tensor
is; this file finds their words in the glossary (messages/glossary.py: `stage.<id>`, `means.<id>`,
`letter.<L>`) in the language asked for. A field of a declaration that is a `Term` is worded in
the same language, and a `position` field brings its scheme's one line (`about`) with it.

A module outside the package declares its own ids and gives their words once, `add_words`.
"""

from __future__ import annotations

from glassformer.messages import TABLES
from glassformer.nn.hooks import LETTERS, HookPoint, Term
from glassformer.nn.position import POSITION_SCHEMES

# words a module outside the package gave for its own ids, per language (add_words)
ADDED: dict[str, dict[str, str]] = {"en": {}, "zh": {}}


def add_words(en: dict[str, str], zh: dict[str, str]) -> None:
    """Words for ids the glossary does not hold (`{"stage.toy": "toy stage"}`), in both languages."""
    ADDED["en"].update(en)
    ADDED["zh"].update(zh)


def word(key: str, lang: str = "en", **fields) -> str:
    """The glossary entry `key` in `lang` with its fields worded; an id nobody gave words for shows
    as itself (after its prefix), never as nothing."""
    lang = "zh" if lang == "zh" else "en"
    text = ADDED[lang].get(key) or TABLES[lang].get(key)
    if text is None:
        return key.split(".", 1)[-1]
    if "position" in fields:
        fields = {"about": scheme_about(fields["position"], lang), **fields}
    return text.format(**{k: word(v.key, lang, **v.fields) if isinstance(v, Term) else v for k, v in fields.items()})


def scheme_about(name: str, lang: str = "en") -> str:
    """A position scheme's one line: the words it was registered with, else the glossary's."""
    scheme = POSITION_SCHEMES.get(name)
    given = (scheme.zh if lang == "zh" else scheme.about) if scheme is not None else ""
    return given or TABLES["zh" if lang == "zh" else "en"].get(f"position.{name}", "")


def meaning(letter: str, lang: str = "en") -> str:
    """What a letter stands for, or "?" for a letter nobody has explained yet."""
    return TABLES["zh" if lang == "zh" else "en"].get(f"letter.{letter}", "?")


def letter_order(letter: str) -> int:
    """Where a letter sits in the views' order (LETTERS); an unknown one comes last."""
    return LETTERS.index(letter) if letter in LETTERS else len(LETTERS)


def describe(point: HookPoint, lang: str = "en") -> dict[str, str]:
    """A hook point's declaration as plain data, worded in one language: name, stage, axes, means."""
    return {
        "name": point.name,
        "stage": word(f"stage.{point.stage}", lang, **point.fields),
        "axes": point.axes,
        "means": word(f"means.{point.means}", lang, **point.fields),
    }

"""The learner's language: every sentence the exercises print or write comes from one table per
language (text_en.py, text_zh.py; the same keys and the same {fields} in both, a test checks),
chosen by --lang or, without it, the GLASSFORMER_LANG environment variable (default English).
Code, shapes and numbers are never translated: they are passed in as {fields}.
"""

from __future__ import annotations

import os

from glassformer.exercises import text_en, text_zh

TABLES = {"en": text_en.TEXT, "zh": text_zh.TEXT}


def resolve_lang(lang: str | None = None) -> str:
    """--lang if given, else $GLASSFORMER_LANG, else "en"; an unknown language is an error."""
    chosen = lang or os.environ.get("GLASSFORMER_LANG") or "en"
    chosen = chosen.split("_")[0].split("-")[0].lower()  # zh_CN, zh-Hans -> zh
    if chosen not in TABLES:
        raise ValueError(f"language {chosen!r} is not one of {sorted(TABLES)} (--lang or GLASSFORMER_LANG).")
    return chosen


def t(lang: str, key: str, **fields) -> str:
    """The sentence `key` in `lang`, with its {fields} filled in."""
    return TABLES[lang][key].format(**fields)


def has(key: str) -> bool:
    return key in TABLES["en"]

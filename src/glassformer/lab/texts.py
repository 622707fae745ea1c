"""The lab's sentences in English and Chinese, and the one function that fills in the figures.

Its own file so that the runner (which writes report.md) and the report (which reads the records
back) both import it, and neither imports the other's tables.
"""

from __future__ import annotations

from glassformer.errors import UsageError
from glassformer.lab import text_en, text_zh

TEXTS = {"en": text_en.TEXT, "zh": text_zh.TEXT}


def text(lang: str, key: str, **fields) -> str:
    """One sentence of the lab's tables in `lang`, with computed figures formatted in."""
    if lang not in TEXTS:
        raise UsageError("error.lab.lang", lang=lang, langs=sorted(TEXTS))
    return TEXTS[lang][key].format(**fields)

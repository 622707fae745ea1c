"""Every path the docs name exists (issue 42.6): a file moved or deleted takes its mentions along.

A path is a backticked or linked name ending in a source extension, rooted at the repository
(`tests/unit/x.py`, `bench/y.py`, `docs/z.md`) or at the package (`nn/attention.py`, `models/gpt.py`,
as the docs write them); `<placeholders>` and globs are recipes, not paths."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

import glassformer

PACKAGE = Path(glassformer.__file__).resolve().parent
NAMED = re.compile(r"`([A-Za-z0-9_./-]+\.(?:py|md|sh|json|toml|ipynb))(?:[:`]|::)")


def placeholder(path: str) -> bool:
    """`DIR/NAME.py`, `SUBMISSIONS/alice/x.py`: a part in capitals stands for the reader's own."""
    return any(part.isupper() for part in Path(path).with_suffix("").parts)


def named_paths(text: str) -> set[str]:
    return {m for m in NAMED.findall(text) if "/" in m and "<" not in m and "*" not in m and not placeholder(m)}


def exists(path: str, doc: Path) -> bool:
    candidates = [ROOT / path, PACKAGE / path, doc.parent / path, PACKAGE.parent / path]
    return any(c.exists() for c in candidates)


def test_every_path_named_in_docs_exists():
    missing = []
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        for path in sorted(named_paths(doc.read_text(encoding="utf-8"))):
            if not exists(path, doc):
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_check_sees_a_path_that_is_gone():
    text = "the flat step (`models/decode.py`) and `nn/attention.py`; a recipe's `nn/<scheme>.py`"
    assert named_paths(text) == {"models/decode.py", "nn/attention.py"}
    assert not exists("models/decode.py", ROOT / "docs" / "x.md") and exists("nn/attention.py", ROOT / "docs" / "x.md")

"""Every path and module the docs name exists (issues 42.6, 45.6): a file moved or deleted takes its
mentions along.

A path is a backticked or linked name ending in a source extension, rooted at the repository
(`tests/nn/x.py`, `bench/y.py`, `docs/z.md`) or at the package (`nn/attention.py`, `models/gpt.py`,
as the docs write them); `<placeholders>` and globs are recipes, not paths. A module is a package's
name and a module's, written as the docs write them, backticked or not (`text/choice`, `train/saved`),
or dotted (`glassformer.diagnose`); a folder is a backticked `tests/...` or `src/...` name. The docs
are docs/ (every page) and the READMEs."""

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


PACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
MODULE = re.compile(rf"(?<![\w/.-])((?:{'|'.join(PACKAGES)})/\w+)(?![\w-])")
DOTTED = re.compile(r"(?<![\w./])glassformer((?:\.\w+)+)")
PROSE = {"train/val", "train/eval"}  # the train/validation loss, train/eval mode: words, not modules
FOLDER = re.compile(r"`((?:tests|src)/[A-Za-z0-9_/]+?)/?`")


def documents() -> list[Path]:
    readmes = [p for p in ROOT.glob("*.md")] + [p for p in ROOT.glob("*/README*.md")]
    return sorted({*(ROOT / "docs").rglob("*.md"), *readmes})


def module_exists(name: str) -> bool:
    """`text/bpe` or `.text.bpe`: a module or package of glassformer, or a name its package defines."""
    parts = [p for p in re.split(r"[/.]", name) if p]
    path, used = PACKAGE, 0
    for part in parts:
        if (path / part).is_dir():
            path, used = path / part, used + 1
        elif (path / f"{part}.py").is_file():
            return True
        else:  # an attribute: a name the package's __init__ (or the module itself) defines
            init = path / "__init__.py"
            return (
                used > 0 and init.is_file() and re.search(rf"\b{part}\b", init.read_text(encoding="utf-8")) is not None
            )
    return used > 0


def named_modules(text: str) -> set[str]:
    """A mutant's name (`glassformer.nn.hooks.x_meaning__mutmut_1`) names a mutant of a module that may
    since have been merged (docs/mutants.md is a record): not a module; nor is the catalogue's file
    (`glassformer.po`, `glassformer.mo`)."""
    dotted = {m for m in DOTTED.findall(text) if "__mutmut_" not in m and m not in (".po", ".mo")}
    return (set(MODULE.findall(text)) - PROSE) | dotted


def exists(path: str, doc: Path) -> bool:
    candidates = [ROOT / path, PACKAGE / path, doc.parent / path, PACKAGE.parent / path]
    return any(c.exists() for c in candidates)


def test_every_path_named_in_docs_exists():
    missing = []
    for doc in documents():
        for path in sorted(named_paths(doc.read_text(encoding="utf-8"))):
            if not exists(path, doc):
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_check_sees_a_path_that_is_gone():
    text = "the flat step (`models/decode.py`) and `nn/attention.py`; a recipe's `nn/<scheme>.py`"
    assert named_paths(text) == {"models/decode.py", "nn/attention.py"}
    assert not exists("models/decode.py", ROOT / "docs" / "x.md") and exists("nn/attention.py", ROOT / "docs" / "x.md")


def test_every_module_and_folder_named_in_docs_exists():
    missing = []
    for doc in documents():
        text = doc.read_text(encoding="utf-8")
        missing += [f"{doc.relative_to(ROOT)}: {m}" for m in sorted(named_modules(text)) if not module_exists(m)]
        missing += [
            f"{doc.relative_to(ROOT)}: {f}" for f in sorted(set(FOLDER.findall(text))) if not (ROOT / f).is_dir()
        ]
    assert missing == []


def test_the_module_check_sees_a_module_that_is_gone():
    text = "it lives in text/choice and train/run; `glassformer.diagnose`, glassformer.nn.hooks.Hooked"
    assert named_modules(text) == {"text/choice", "train/run", ".diagnose", ".nn.hooks.Hooked"}
    assert [m for m in sorted(named_modules(text)) if not module_exists(m)] == [".diagnose", "text/choice"]
    paths_not_modules = "docs/lab/induction-text and src/glassformer/text/bpe.py, lab/induction-text"
    assert not named_modules(paths_not_modules)
    folders = "`tests/unit/` and `tests/nn` and `tests/nn/x.py`"
    assert FOLDER.findall(folders) == ["tests/unit", "tests/nn"]

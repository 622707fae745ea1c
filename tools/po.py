"""The Chinese catalogue's upkeep, with Babel: `make po` runs this file.

    python tools/po.py            extract every sentence from src/glassformer, update the Chinese
                                  catalogue (a sentence whose English changed becomes a *fuzzy* entry,
                                  a new one an untranslated entry, one no longer said an obsolete #~
                                  entry), then compile it to the .mo that glassformer reads
    python tools/po.py compile    only compile the .po to the .mo (after editing the .po)

What Babel extracts, by keyword (glassformer/messages): the first argument of t, say, N_ and
Clause; NP_'s context and sentence; N_plural's pair (argparse's plurals); and the second argument of
every error class (UsageError("config.heads", "English ...")), found by reading src/glassformer/.
tests/messages/test_catalogue.py checks that the .po is complete, clean and current. docs/translating.md
says how to add a sentence.
"""

from __future__ import annotations

import ast
import datetime
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "glassformer"
PO = SRC / "locale" / "zh" / "LC_MESSAGES" / "glassformer.po"
MO = PO.with_suffix(".mo")
DOMAIN = "glassformer"
# a fixed date in the header, so that extracting twice writes the same bytes (git shows what changed)
DATE = datetime.datetime(2026, 12, 7, tzinfo=datetime.timezone.utc)
HEADER = """\
# glassformer's sentences in Chinese. msgid: the English, as written at the call site; msgstr: its
# Chinese, with exactly the same {fields}. Kept with `make po` (tools/po.py); see docs/translating.md."""
ERROR_ROOTS = ("GlassformerError", "FontWarning")  # FontWarning: a warning with a code, as an error


def error_classes(src: Path = SRC) -> list[str]:
    """Every class under `src` that derives (in any file, through any chain) from GlassformerError or
    FontWarning: its calls take (code, English, **fields)."""
    bases: dict[str, set[str]] = {}
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                bases.setdefault(node.name, set()).update(names)
    found = set(ERROR_ROOTS)
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return sorted(found)
        found |= more


def keywords(src: Path = SRC) -> dict:
    """Babel's keywords: function name -> which arguments are the sentence (None: the first)."""
    words: dict = {"t": None, "say": None, "N_": None, "Clause": None}
    words["NP_"] = ((1, "c"), 2)  # context, sentence
    words["N_plural"] = (1, 2)  # singular, plural
    words.update({name: (2,) for name in error_classes(src)})
    return words


def extract_python(fileobj, keywords: dict, comment_tags, options):  # noqa: ANN001 - Babel's method
    """Babel's extraction method, reading the syntax tree: a marked call anywhere, also inside an
    f-string's {expression} (Babel's own tokenizing method does not see those on Python 3.11).
    Yields (line, function, its positional arguments' strings (None where not a literal), comments)."""
    tree = ast.parse(fileobj.read().decode(options.get("encoding", "utf-8")))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name not in keywords or not node.args:
            continue
        strings = tuple(
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
        )
        first = next((a for a in node.args if isinstance(a, ast.Constant)), node)
        yield first.lineno, name, strings if len(strings) > 1 else strings[0], []


def extract(src: Path = SRC) -> Catalog:
    """The template: every sentence said in `src`, with where it is said (path:line)."""
    template = Catalog(domain=DOMAIN, project="glassformer", creation_date=DATE, fuzzy=False)
    where = src.relative_to(src.parent.parent) if src.is_relative_to(ROOT) else Path(src.name)
    found = extract_from_dir(str(src), method_map=[("**.py", extract_python)], keywords=keywords(src))  # type: ignore[list-item]
    found = sorted(found, key=lambda m: (m[0], m[1]))  # by file, then line (the tree is walked breadth first)
    for filename, lineno, message, comments, context in found:
        template.add(message, None, [(f"{where}/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def new_catalogue() -> Catalog:
    """An empty Chinese catalogue with glassformer's header (one plural form, as Chinese has)."""
    return Catalog(
        locale="zh_CN",
        domain=DOMAIN,
        header_comment=HEADER,
        project="glassformer",
        version="0.1.0",
        copyright_holder="glassformer",
        msgid_bugs_address="",
        creation_date=DATE,
        revision_date=DATE,
        last_translator="glassformer",
        language_team="glassformer",
        fuzzy=False,
    )


def write(catalogue: Catalog, path: Path = PO) -> None:
    catalogue.revision_date = DATE
    path.parent.mkdir(parents=True, exist_ok=True)
    out = io.BytesIO()
    write_po(out, catalogue, width=100, include_previous=True)
    path.write_bytes(out.getvalue())


def read(path: Path = PO) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale="zh_CN", domain=DOMAIN)


def mo_bytes(path: Path = PO) -> bytes:
    """The compiled catalogue of the .po at `path` (fuzzy entries left out, as gettext's msgfmt does)."""
    out = io.BytesIO()
    write_mo(out, read(path), use_fuzzy=False)
    return out.getvalue()


def compile_mo(path: Path = PO) -> Path:
    mo = path.with_suffix(".mo")
    mo.write_bytes(mo_bytes(path))
    return mo


def update(path: Path = PO, src: Path = SRC) -> Catalog:
    """Babel's update: the .po follows the source; a changed English sentence becomes fuzzy (its old
    Chinese kept for the translator), one no longer said becomes obsolete (#~)."""
    catalogue = read(path)
    catalogue.update(extract(src), update_header_comment=False)
    write(catalogue, path)
    return catalogue


def main(argv: list[str]) -> int:
    if argv[:1] != ["compile"]:
        catalogue = update()
        fuzzy = [m.id for m in catalogue if m.id and m.fuzzy]
        empty = [m.id for m in catalogue if m.id and not m.string]
        print(f"{PO.relative_to(ROOT)}: {len(catalogue)} sentences, {len(fuzzy)} fuzzy, {len(empty)} untranslated")
    print(f"compiled {compile_mo().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""How readable the source is, in the figures issue 24 asked for: source files and those under 40 lines,
the places that hold user-facing words (text mechanisms), raises that carry literal English, and test
assertions that pin a sentence's wording. Run from the repository root, or name one:

    python bench/readability.py [ROOT] [--json] [--list]

--list prints each listed place under its count (file:line for a raise or a pin), to work through them.

The counts are heuristics written down here, so a before/after comparison uses the same rules:
- a *literal-English raise*: `raise X(...)` whose arguments hold a string literal of two or more words
  (runs of two or more letters, with a space between) that is not a catalogue key; a one-word value
  (a field such as option="mask" or code="not_found") is data, not a sentence;
  `argparse.ArgumentTypeError(t(...))` is not literal;
- a *text mechanism*: a module outside glassformer/messages that defines a table of sentences
  (a module-level dict named TEXT/TEXTS/TABLES or a `zh=`/`stage_zh=` keyword given a literal), and
  every JavaScript file under explore/static that holds Chinese text; the catalogue itself counts once;
- a *wording pin*: an `assert` in tests/ that compares with (==, !=, in) a piece of prose, or a
  `pytest.raises(..., match=...)` whose pattern is one. Prose is a string literal of two or more words with a
  space between (a sentence or its piece), or one of four or more Chinese characters; an identifier, a file
  or hook name or a catalogue key (`blocks.0.attn.weights`, `train_state.pt`, `train.resumed`) is not prose,
  however many words its dots and underscores join. (Until issue 24 closed, three words sufficed, space or
  not, and hook names counted as wording.)
- *of them the package's words*: the wording pins whose prose is words the package itself says (two of
  its adjacent word pairs, or all for a two-word piece, or four Chinese characters in a row, found in the
  catalogue's English or Chinese or in a non-docstring string of src/): what a rewording of a sentence
  would break, and the figure issue 45's bound (≤ 40, each a deliberate snapshot) reads. The others
  compare a test's own text (a tokenizer's input, a corpus line, a code snippet a lint test feeds) and
  are listed by the first figure; both are printed, so neither hides the other.
- *of them unmarked*: those of the package's words with no `# snapshot: why` comment on the assertion's
  lines or the line above it: a pin nobody said was meant. A snapshot names why the words themselves are
  the point (a learner's first lines, a label whose text is its id, a table whose layout is the lesson).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

WORD = re.compile(r"[A-Za-z]{2,}")
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _strings(node: ast.AST):
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            yield n.value


CODE = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_-]+)+")  # an error's code ("config.choice") or an old catalogue key


def _keys(root: Path) -> set[str]:
    """The old catalogue's keys, read from its tables' source (messages/<area>.py) where a tree still has
    them; since the gettext catalogue, sentences have no keys and this is empty."""
    keys: set[str] = set()
    for path in sorted((root / "src" / "glassformer" / "messages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys |= {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return {k for k in keys if CODE.fullmatch(k)}


def _prose(s: str) -> bool:
    """Two or more words with a space between: a sentence or its piece, not an identifier or a key."""
    return len(WORD.findall(s)) >= 2 and " " in s.strip()


def literal_raises(src: Path, keys: set[str]) -> list[str]:
    found = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            call = node.exc
            if call.args and isinstance(call.args[0], ast.Constant) and CODE.fullmatch(str(call.args[0].value)):
                continue  # a catalogue error: its code, then its English sentence (gettext's form)
            texts = []
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                if isinstance(arg, ast.Call):  # t("key", ...) or another call: its result, not a literal
                    continue
                texts += [s for s in _strings(arg) if _prose(s) and s not in keys and not s.endswith(".")]
                texts += [
                    s
                    for s in _strings(arg)
                    if _prose(s) and s.endswith(".") and s not in keys and not any(k.startswith(s) for k in keys)
                ]
            if texts:
                found.append(f"{path.relative_to(src)}:{node.lineno}")
    return found


def text_mechanisms(src: Path) -> list[str]:
    places = ["messages/ (the catalogue)"]
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if rel.parts[1] == "messages":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tables = [
            t.id
            for n in tree.body
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Name) and t.id in ("TEXT", "TEXTS", "TABLES") and isinstance(n.value, ast.Dict)
        ]
        inline = any(
            isinstance(n, ast.keyword) and n.arg in ("zh", "stage_zh") and any(CHINESE.search(s) for s in _strings(n))
            for n in ast.walk(tree)
        )
        if tables:  # a table of its own: one mechanism per folder that keeps one
            places.append(f"{rel.parent}/ tables")
        if inline:  # sentences given inline to a declaration (HookPoint(..., zh=...)): one mechanism
            places.append("inline zh= arguments")
    for js in sorted((src / "glassformer" / "explore" / "static").glob("*.js")):
        if CHINESE.search(js.read_text(encoding="utf-8")):
            places.append(str(js.relative_to(src)))
    return sorted(set(places), key=places.index)


def _wording(s: str, keys: set[str]) -> bool:
    """A piece of a sentence a learner reads: prose in English, or four Chinese characters; not a key."""
    return s not in keys and (_prose(s) or len(CHINESE.findall(s)) >= 4)


SNAPSHOT = "# snapshot:"


def wording_pins(tests: Path, keys: set[str] = frozenset(), said=None, unmarked: bool = False) -> list[str]:
    """Each assertion that pins wording, as tests/<file>:<line>, in file order. Given `said` (a
    predicate: is this prose the package's own words?), only the assertions whose prose it accepts;
    `unmarked`: only those with no `# snapshot:` comment on their lines or the line above."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        where = path.relative_to(tests.parent)
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Assert):
                texts = [s for c in ast.walk(node.test) if isinstance(c, ast.Compare) for s in _strings(c)]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "raises":
                texts = [s for k in node.keywords if k.arg == "match" for s in _strings(k.value)]
            else:
                continue
            if not any(_wording(s, keys) and (said is None or said(s)) for s in texts):
                continue
            if unmarked and any(SNAPSHOT in line for line in lines[max(node.lineno - 2, 0) : node.end_lineno]):
                continue  # a snapshot said to be meant, and why
            found.append((where, node.lineno))
    return [f"{path}:{line}" for path, line in sorted(found)]


PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _pairs(text: str) -> set[str]:
    """Adjacent word pairs of each literal run of `text` (a template is cut at its {fields})."""
    out = set()
    for run in PLACEHOLDER.split(text):
        words = [w.lower() for w in re.findall(r"[A-Za-z]{2,}|[^A-Za-z\s]+", run)]
        out |= {f"{a} {b}" for a, b in zip(words, words[1:], strict=False) if a.isalpha() and b.isalpha()}
    return out


def _han4(text: str) -> set[str]:
    return {m[i : i + 4] for m in re.findall(r"[\u4e00-\u9fff]+", text) for i in range(len(m) - 3)}


def package_words(root: Path):
    """A predicate: is a test's piece of prose words the package itself says? True when, of its
    adjacent word pairs, two (or all, for a piece of two words) occur in one of the package's
    sentences (the catalogue's English and Chinese, and every string of src/ that is not a
    docstring), or four Chinese characters in a row do; a test's own input text or a fake's words
    are then not counted as pinning the package's wording."""
    texts: list[str] = []
    po = root / "src" / "glassformer" / "locale" / "zh" / "LC_MESSAGES" / "glassformer.po"
    if po.exists():
        texts += [
            bytes(m, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
            for m in re.findall(r'^(?:msgid|msgstr|msgctxt)? ?"(.*)"$', po.read_text(encoding="utf-8"), re.M)
        ]
    for path in sorted((root / "src").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        texts += [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
        ]
    pairs = set().union(*map(_pairs, texts))
    han = set().union(*map(_han4, texts))

    def said(s: str) -> bool:
        mine = _pairs(s)
        shared = len(mine & pairs)
        return bool(_han4(s) & han) or (shared >= 2 or (mine and shared == len(mine)))

    return said


def measure(root: Path) -> dict:
    src = root / "src"
    files = sorted((src / "glassformer").rglob("*.py"))
    lines = {f: len(f.read_text(encoding="utf-8").splitlines()) for f in files}
    small = [f for f in files if lines[f] < 40 and f.name != "__init__.py"]
    keys = _keys(root)
    said = package_words(root)
    return {
        "source_files": len(files),
        "source_lines": sum(lines.values()),
        "files_under_40_lines": len(small),
        "text_mechanisms": text_mechanisms(src),
        "literal_english_raises": literal_raises(src, keys),
        "wording_pins_in_tests": wording_pins(root / "tests", keys),
        "of_them_the_package_s_words": wording_pins(root / "tests", keys, said),
        "of_them_unmarked": wording_pins(root / "tests", keys, said, unmarked=True),
    }


def main(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0] if args else ".").resolve()
    m = measure(root)
    if "--json" in argv:
        print(json.dumps(m, indent=1))
        return
    for key, value in m.items():
        print(f"{key:24} {len(value) if isinstance(value, list) else value}")
        if isinstance(value, list) and (key == "text_mechanisms" or "--list" in argv):
            for place in value:
                print(f"{'':26}{place}")


if __name__ == "__main__":
    main(sys.argv[1:])

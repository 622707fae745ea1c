"""The one-time conversion of glassformer's sentences from catalogue keys to gettext (issue 45), kept
so that it can be run again on any tree shaped like the one it was written on.

    PYTHONPATH=src python tools/gettext_convert.py                    convert; stop if a key is built
                                                                      dynamically (the list is printed)
    PYTHONPATH=src python tools/gettext_convert.py --leave-dynamic    convert what is literal; keys built
                                                                      dynamically stay in messages/leftover.py

What it does, in this order, deterministically (the same tree gives the same bytes):

1. reads the old tables (glassformer/messages/<area>.py, EN and ZH; ARGPARSE in core.py);
2. finds every key written as a string literal in src/, tests/ and bench/, and every place a key is
   *built* (an f-string, a "prefix." + name, a "{}".format template that matches keys): with any
   such place it stops before changing anything, unless --leave-dynamic;
3. rewrites each .py file: a key literal becomes its English sentence (wrapped in N_(...) in src/
   where no t/say/N_/has/Clause call already marks it, so that Babel extracts it); an error's
   `UsageError("error.config.heads", **fields)` becomes `UsageError("config.heads", "English ...",
   **fields)` (a choice of two keys, `X("a" if c else "b", ...)`, becomes a choice of two raises);
   in tests an error key compared or passed around (not worded through t/say) becomes its code, and
   `.key` in such a comparison becomes `.code`; a `code = "key"` assignment keeps the key as code;
4. an English sentence said under several keys with different Chinese gets a gettext context:
   `NP_("old.key", "English")` (the old key is the context); with the same Chinese they merge;
5. removes the `# transition{ ... # }transition` blocks that served the old tables;
6. deletes messages/<area>.py; keys said nowhere (dead) are listed and dropped;
7. writes src/glassformer/locale/zh/LC_MESSAGES/glassformer.po from Babel's extraction (tools/po.py:
   every msgid with its source locations, the Chinese from the old tables) and compiles the .mo;
8. runs ruff format and ruff's import fixes on the files it changed, and lists lines still too long.

Afterwards `make po` keeps the catalogue (docs/translating.md).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import po  # noqa: E402  (tools/po.py: extraction, the .po and the .mo)

ROOT = po.ROOT
SRC = po.SRC
MESSAGES = SRC / "messages"
TREES = ("src", "tests", "bench")
# calls whose first argument is worded (a sentence, not a code), in src and in tests' helpers
MARKS = {"t", "say", "N_", "NP_", "Clause"}
WORDING = MARKS | {"has", "zh", "en", "words", "said", "text", "title", "why", "_both", "word"}
LEFTOVER = MESSAGES / "leftover.py"
CHUNK = 60  # an English literal longer than this is written as implicit concatenation, by words
BEGIN, END = "# transition{", "# }transition"
# f"{name}.json" ends as a key does ("error.files.json") but names a file; these never end a key that is built
WORDLESS = ROOT / "src" / "glassformer" / "nn", ROOT / "src" / "glassformer" / "models"
ID_MARK = "# an id, not a key"
NOT_A_KEY_END = {
    "bin",
    "json",
    "jsonl",
    "txt",
    "py",
    "md",
    "pt",
    "png",
    "html",
    "csv",
    "safetensors",
    "bias",
    "weight",
    "meta",
}


# ---- reading ----------------------------------------------------------------------------------------
def old_tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]] | None:
    """(EN, ZH, ARGPARSE) of the old tables; None when there are none left (already converted)."""
    areas = sorted(p.stem for p in MESSAGES.glob("*.py") if p.name != "__init__.py")
    if not areas:
        return None
    from glassformer import messages

    tables = messages._tables()
    argparse_zh = {}
    if (MESSAGES / "core.py").exists():  # a second run (after --leave-dynamic) finds leftover.py alone
        from glassformer.messages import core

        argparse_zh = dict(getattr(core, "ARGPARSE", {}))
    return tables["en"], tables["zh"], argparse_zh


def is_context(node: ast.AST, parent: ast.AST | None) -> bool:
    """The first argument of NP_: a gettext context (named after the old key), not a key."""
    return isinstance(parent, ast.Call) and func_name(parent) == "NP_" and parent.args[:1] == [node]


def python_files() -> list[Path]:
    files = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if path.parent == MESSAGES and path.name != "__init__.py":
                continue  # the tables themselves
            if any(part in ("mutants", ".venv", "__pycache__") for part in path.parts):
                continue
            files.append(path)
    return files


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def func_name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def parents_of(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


# ---- keys built dynamically ------------------------------------------------------------------------
def template_regex(node: ast.AST) -> str | None:
    """A regex for the strings an f-string or a "{}"-template can make; None if it has no dot."""
    if isinstance(node, ast.JoinedStr):
        parts = [re.escape(v.value) if is_str(v) else ".+?" for v in node.values]
        fixed = "".join(v.value for v in node.values if is_str(v))
    elif is_str(node) and "{" in node.value:
        parts = re.split(r"(\{[^{}]*\})", node.value)
        fixed = "".join(p for i, p in enumerate(parts) if i % 2 == 0)
        parts = [re.escape(p) if i % 2 == 0 else ".+?" for i, p in enumerate(parts)]
    else:
        return None
    if "." not in fixed or not re.search(r"[a-z]", fixed):
        return None
    if fixed.startswith(".") and fixed[1:] in NOT_A_KEY_END and parts[0] == ".+?":
        return None  # f"{name}.json", f"{module}.bias": a file or a parameter, not a key
    return "".join(parts)


def dynamic_sites(files: list[Path], keys: set[str]) -> dict[str, list[str]]:
    """{"path:line: template": [keys it can build]} for every place a key is built, not written."""
    sites: dict[str, list[str]] = {}
    ordered = sorted(keys)
    for path in files:
        if any(folder in path.parents for folder in WORDLESS):
            continue  # nn/ and models/ say nothing (tests/repo/test_architecture.py): their dotted names are ids
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        parents = parents_of(tree)
        for node in ast.walk(tree):
            if isinstance(parents.get(node), ast.JoinedStr):
                continue  # a part of an f-string: the f-string is judged whole
            if ID_MARK in lines[getattr(node, "lineno", 1) - 1]:
                continue  # a line marked as building a glossary id (FORMULA_WORDS["embed.tied"]), not a key
            built: list[str] = []
            regex = template_regex(node)
            if regex is not None:
                pattern = re.compile(regex)
                built = [k for k in ordered if pattern.fullmatch(k)]
            elif is_str(node) and node.value not in keys and len(node.value) > 2 and re.search("[a-z]", node.value):
                s, parent = node.value, parents.get(node)
                call = parent if isinstance(parent, ast.Call) else parents.get(parent)
                tested = isinstance(call, ast.Call) and func_name(call) in ("startswith", "endswith")
                if (s.endswith(".") or tested) and " " not in s:  # "lab.report." + name, .startswith("error.files")
                    built = [k for k in ordered if k.startswith(s)]
                elif s.startswith(".") and isinstance(parent, ast.BinOp) and parent.right is node:  # name + ".title"
                    built = [k for k in ordered if k.endswith(s)]
            if built:
                sites[f"{rel(path)}:{node.lineno}: {ast.unparse(node)}"] = built
    return sites


# ---- what each key becomes -------------------------------------------------------------------------
def contexts(en: dict[str, str], zh: dict[str, str], keys: set[str], argparse_zh: dict[str, str]) -> dict[str, str]:
    """{key: context} for the keys whose English is said elsewhere with another Chinese."""
    chinese: dict[str, set[str]] = collections.defaultdict(set)
    for key in keys:
        chinese[en[key]].add(zh[key])
    for english, words in argparse_zh.items():
        chinese[english].add(words)
    return {key: key for key in sorted(keys) if len(chinese[en[key]]) > 1}


def code_of(key: str) -> str:
    return key.removeprefix("error.")


def quoted(text: str, quote: str = '"') -> str:
    """`text` as one Python string literal in `quote` (the original literal's: inside an f-string's
    {expression} the two kinds of quotes must differ)."""
    inner = json.dumps(text, ensure_ascii=False)[1:-1]
    if quote == "'":
        inner = inner.replace('\\"', '"')
        if "'" in inner:  # an apostrophe: no backslash may stand in an f-string's {expression} (3.11)
            triple = "'" * 3
            return triple + inner + triple if not inner.endswith("'") else '"' + inner.replace('"', '\\"') + '"'
    return quote + inner + quote


def literal(text: str, quote: str = '"') -> str:
    """`text` as Python source: one literal, or adjacent literals split between words."""
    if len(text) <= CHUNK + 10:
        return quoted(text, quote)
    words = re.findall(r"\S+\s*|\s+", text)
    merged: list[str] = []  # a {field} with a space inside stays in one piece
    for w in words:
        if merged and merged[-1].count("{") > merged[-1].count("}"):
            merged[-1] += w
        else:
            merged.append(w)
    chunks = [""]
    for w in merged:
        if chunks[-1] and len(chunks[-1]) + len(w) > CHUNK:
            chunks.append("")
        chunks[-1] += w
    return " ".join(quoted(c, quote) for c in chunks)


class Plan:
    """What the tables say and what each key becomes."""

    def __init__(self, en, zh, argparse_zh, literal_keys, dynamic_keys, error_keys, errors) -> None:
        self.en, self.zh, self.argparse_zh = en, zh, argparse_zh
        self.error_keys, self.errors = error_keys, set(errors)
        self.kept = literal_keys
        self.context = contexts(en, zh, literal_keys, argparse_zh)
        self.dynamic = dynamic_keys

    def sentence(self, key: str, quote: str = '"') -> str:
        """The sentence a key becomes where it is worded: its English, with its context if it has one."""
        english = literal(self.en[key], quote)
        return f"NP_({quoted(self.context[key], quote)}, {english})" if key in self.context else english

    def chinese(self) -> dict[tuple[str | None, str], str]:
        """(context, English) -> Chinese, for every converted key and argparse's words."""
        table: dict[tuple[str | None, str], str] = {}
        for key in sorted(self.kept):
            table[(self.context.get(key), self.en[key])] = self.zh[key]
        for english, words in self.argparse_zh.items():
            table.setdefault((None, english), words)
        return table


# ---- rewriting one file ----------------------------------------------------------------------------
class Rewriter:
    def __init__(self, path: Path, plan: Plan) -> None:
        self.path, self.plan = path, plan
        self.text = path.read_text(encoding="utf-8")
        self.data = self.text.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.tree = ast.parse(self.text)
        self.parents = parents_of(self.tree)
        self.in_src = rel(path).startswith("src/")
        self.edits: list[tuple[int, int, str]] = []
        self.needs: set[str] = set()
        self.problems: list[str] = []

    def at(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.at(node.lineno, node.col_offset), self.at(node.end_lineno, node.end_col_offset)

    def source(self, start: int, end: int, edits: list[tuple[int, int, str]]) -> str:
        """The text of bytes start..end with the edits inside that range applied."""
        out, at = [], start
        for a, b, new in sorted(e for e in edits if start <= e[0] and e[1] <= end):
            out.append(self.data[at:a].decode("utf-8"))
            out.append(new)
            at = b
        out.append(self.data[at:end].decode("utf-8"))
        return "".join(out)

    def host(self, node: ast.AST) -> tuple[ast.Call | None, bool]:
        """(the call a literal is an argument of, through `x if c else y` / `a or b`; is it the first?)"""
        child, parent = node, self.parents.get(node)
        while isinstance(parent, (ast.IfExp, ast.BoolOp)) and child is not getattr(parent, "test", None):
            child, parent = parent, self.parents.get(parent)
        if isinstance(parent, ast.Call) and child in parent.args:
            return parent, parent.args.index(child) == 0
        if isinstance(parent, ast.keyword):
            call = self.parents.get(parent)
            return (call if isinstance(call, ast.Call) else None), False
        return None, False

    def quote(self, node: ast.AST) -> str:
        """The quote the literal was written with (keep it: inside an f-string it must differ)."""
        a, b = self.span(node)
        return chr(self.data[a:b].lstrip(b"rRuUbB")[0])

    def error_call(self, call: ast.Call) -> bool:
        return func_name(call) in self.plan.errors

    def run(self) -> bool:
        plan = self.plan
        whole_calls: list[ast.Call] = []
        codes: list[ast.AST] = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and self.error_call(node) and node.args:
                first = node.args[0]
                if len(node.args) > 1 and is_str(node.args[1]):
                    continue  # already (code, English)
                if is_str(first) and first.value in plan.en:
                    a, b = self.span(first)
                    key = first.value
                    q = self.quote(first)
                    self.edits.append((a, b, f"{quoted(code_of(key), q)}, {plan.sentence(key, q)}"))
                    if key in plan.context:
                        self.needs.add("NP_")
                elif isinstance(first, ast.IfExp) and all(
                    is_str(leaf) and leaf.value in plan.en for leaf in self.leaves(first)
                ):
                    whole_calls.append(node)
                elif not isinstance(first, ast.JoinedStr) and self.in_src and len(node.args) == 1:
                    self.problems.append(f"{rel(self.path)}:{node.lineno}: {ast.unparse(node)[:100]}")
            if not is_str(node) or node.value not in plan.en:
                continue
            parent = self.parents.get(node)
            if isinstance(parent, (ast.JoinedStr, ast.FormattedValue, ast.MatchValue)):
                continue
            key = node.value
            call, first = self.host(node)
            if call is not None and self.error_call(call) and first:
                continue  # the error's own key: above
            if is_context(node, parent):
                continue  # NP_("old.key", ...): a context named after its key, not a key
            a, b = self.span(node)
            assigned_code = isinstance(parent, ast.Assign) and any(
                getattr(target, "id", getattr(target, "attr", None)) == "code" for target in parent.targets
            )
            worded = call is not None and first and func_name(call) in (MARKS if self.in_src else WORDING)
            compared_with_code = isinstance(parent, ast.Compare) and any(
                isinstance(side, ast.Attribute) and side.attr in ("key", "code")
                for side in (parent.left, *parent.comparators)
            )
            if assigned_code or compared_with_code or (key in plan.error_keys and not worded):
                self.edits.append((a, b, quoted(code_of(key), self.quote(node))))
                codes.append(node)
                continue
            new = plan.sentence(key, self.quote(node))
            if key in plan.context:
                self.needs.add("NP_")
            elif self.in_src and not (call is parent and first and func_name(call) in MARKS):
                # Babel reads a marked call's first argument only when it is the literal itself
                new = f"N_({new})"
                self.needs.add("N_")
            self.edits.append((a, b, new))
        self.rename_keys_compared_with(codes)
        for call in whole_calls:
            self.split_choice(call)
        if not self.edits:
            return False
        self.add_imports()
        new_text = self.source(0, len(self.data), self.edits)
        try:
            ast.parse(new_text)
        except SyntaxError as e:
            self.problems.append(f"{rel(self.path)}:{e.lineno}: NOT CONVERTED, the rewrite does not parse: {e.msg}")
            return False
        self.path.write_text(new_text, encoding="utf-8")
        return True

    def leaves(self, node: ast.AST):
        if isinstance(node, ast.IfExp):
            yield from self.leaves(node.body)
            yield from self.leaves(node.orelse)
        else:
            yield node

    def split_choice(self, call: ast.Call) -> None:
        """X("a" if c else "b", **f) -> (X("a", "A", **f) if c else X("b", "B", **f)): one raise per key."""
        start, end = self.span(call)
        first = call.args[0]
        f_start, f_end = self.span(call.func)
        a_start, a_end = self.span(first)
        func = self.source(f_start, f_end, self.edits)
        rest = self.source(a_end, end - 1, self.edits)  # ", fields..." up to the closing parenthesis

        def made(node: ast.AST) -> str:
            if isinstance(node, ast.IfExp):
                test = self.source(*self.span(node.test), self.edits)
                return f"({made(node.body)} if {test} else {made(node.orelse)})"
            key = node.value
            if key in self.plan.context:
                self.needs.add("NP_")
            return f'{func}("{code_of(key)}", {self.plan.sentence(key)}{rest})'

        self.edits = [e for e in self.edits if not (start <= e[0] and e[1] <= end)]
        self.edits.append((start, end, made(first)))

    def rename_keys_compared_with(self, codes: list[ast.AST]) -> None:
        """In tests, `error.key == "error.x"` compares a code now: `.code == "x"`."""
        if self.in_src:
            return
        done = set()
        for node in codes:
            compare = self.parents.get(node)
            while compare is not None and not isinstance(compare, (ast.Compare, ast.stmt, ast.Call)):
                compare = self.parents.get(compare)
            if not isinstance(compare, ast.Compare) or id(compare) in done:
                continue
            done.add(id(compare))
            stack = [compare.left, *compare.comparators]
            while stack:
                item = stack.pop()
                if isinstance(item, ast.Attribute) and item.attr == "key":
                    a, b = self.span(item)
                    self.edits.append((b - len("key"), b, "code"))
                elif isinstance(item, (ast.Tuple, ast.List, ast.Set, ast.BoolOp)):
                    stack.extend(getattr(item, "elts", None) or getattr(item, "values", []))

    def add_imports(self) -> None:
        """N_ / NP_ where a rewritten literal needs them and the module does not have them."""
        if self.path == MESSAGES / "__init__.py":
            return
        bound = set()
        imports = [s for s in self.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        for statement in imports:
            bound |= {alias.asname or alias.name for alias in statement.names}
        missing = sorted(self.needs - bound)
        if not missing:
            return
        ours = [s for s in imports if isinstance(s, ast.ImportFrom) and s.module == "glassformer.messages"]
        if ours:
            statement = ours[0]
            names = [a.name + (f" as {a.asname}" if a.asname else "") for a in statement.names] + missing
            a, b = self.span(statement)
            self.edits.append((a, b, f"from glassformer.messages import {', '.join(names)}"))
            return
        line = f"from glassformer.messages import {', '.join(missing)}\n"
        if imports:
            at = self.starts[imports[-1].end_lineno]
        else:
            body = self.tree.body
            docstring = body and isinstance(body[0], ast.Expr) and is_str(body[0].value)
            at = self.starts[body[0].end_lineno] if docstring else 0
            line = "\n" + line
        self.edits.append((at, at, line))


# ---- the transition blocks, the tables, the catalogue ----------------------------------------------
def remove_transition(path: Path) -> bool:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept, inside = [], False
    for line in lines:
        if line.strip().startswith(BEGIN):
            inside = True
        if not inside:
            kept.append(line)
        if inside and line.strip().startswith(END):
            inside = False
    if len(kept) == len(lines):
        return False
    path.write_text("".join(kept), encoding="utf-8")
    return True


def table_readers(files: list[Path]) -> list[str]:
    """Code that reads the old tables themselves (TABLES, messages.core, an area module), outside the
    transition blocks: it breaks when they are deleted, so the conversion stops on it."""
    areas = {p.stem for p in MESSAGES.glob("*.py") if p.name != "__init__.py"}
    old = areas | {"TABLES", "KeyDefinedTwice", "_tables", "argparse_words"}
    found = []
    for path in files:
        if path.parent == MESSAGES:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        inside, kept = False, set()
        for number, line in enumerate(lines, 1):
            inside = inside or line.strip().startswith(BEGIN)
            if not inside:
                kept.add(number)
            inside = inside and not line.strip().startswith(END)
        for node in ast.walk(ast.parse(text)):
            hit = (
                isinstance(node, ast.ImportFrom)
                and (
                    (node.module == "glassformer.messages" and any(a.name in old for a in node.names))
                    or (node.module or "").removeprefix("glassformer.messages.") in areas
                )
            ) or (isinstance(node, ast.Attribute) and node.attr in old and ast.unparse(node.value).endswith("messages"))
            if hit and node.lineno in kept:
                found.append(f"{rel(path)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def write_leftover(en: dict[str, str], zh: dict[str, str], keys: list[str]) -> None:
    body = ["EN = {"] + [f"    {json.dumps(k)}: {json.dumps(en[k], ensure_ascii=False)}," for k in keys] + ["}"]
    body += ["ZH = {"] + [f"    {json.dumps(k)}: {json.dumps(zh[k], ensure_ascii=False)}," for k in keys] + ["}"]
    LEFTOVER.write_text(
        "# ruff: noqa: E501\n"
        '"""Keys still built dynamically when tools/gettext_convert.py --leave-dynamic ran: make them literal\n'
        'and run the conversion again (without --leave-dynamic) to move them into the catalogue."""\n\n'
        + "\n".join(body)
        + "\n",
        encoding="utf-8",
    )


def _translated(catalogue):
    for m in catalogue:
        if m.id and m.string:
            english = m.id[0] if isinstance(m.id, tuple) else m.id
            yield m, english, m.string[0] if isinstance(m.string, tuple) else m.string


def write_catalogue(plan: Plan) -> tuple[list[str], list[str]]:
    """The .po from Babel's extraction, each msgid's Chinese from the old tables; then the .mo.
    Returns (extracted sentences with no Chinese, converted sentences Babel did not find in src)."""
    chinese = plan.chinese()
    if po.PO.exists():  # a second run: what the catalogue already holds stays (the tables add to it)
        for message, english, words in _translated(po.read()):
            chinese.setdefault((message.context, english), words)
    template = po.extract()
    catalogue = po.new_catalogue()
    no_chinese = []
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, tuple):  # a plural: one form in Chinese
            words = chinese.get((message.context, message.id[0]), "")
            string: str | tuple = (words,)
        else:
            string = words = chinese.get((message.context, message.id), "")
        if not words:
            no_chinese.append(f"{message.locations[0][0]}:{message.locations[0][1]}: {message.id!r}")
        catalogue.add(message.id, string, message.locations, flags=message.flags - {"fuzzy"}, context=message.context)
    found = {
        (m.context, english) for m in template if m.id for english in (m.id if isinstance(m.id, tuple) else [m.id])
    }
    unsaid = sorted(f"{context or ''}|{english}" for context, english in chinese if (context, english) not in found)
    po.write(catalogue)
    po.compile_mo()
    return no_chinese, unsaid


def unskip(path: Path) -> None:
    """A statement kept out of the formatter (`# fmt: skip`, for its old layout) that is now too long is
    given back to it: the comment goes."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt) and "# fmt: skip" in lines[node.end_lineno - 1]:
            if any(len(line.rstrip("\n")) > 120 for line in lines[node.lineno - 1 : node.end_lineno]):
                end = lines[node.end_lineno - 1]
                lines[node.end_lineno - 1] = re.sub(r"\s*# fmt: skip", "", end.rstrip("\n")) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def ruff(paths: list[Path]) -> list[str]:
    """ruff format, import order and unused imports on the changed files; a line still too long (an
    f-string's expression, which the formatter cannot split) gets ruff's own `# noqa: E501`, listed."""
    if not paths:
        return []
    names = [str(p) for p in paths]
    python = sys.executable
    for path in paths:
        unskip(path)
    subprocess.run([python, "-m", "ruff", "check", "--fix", "--select", "I,F401", "-q", *names], cwd=ROOT)
    subprocess.run([python, "-m", "ruff", "format", "-q", *names], cwd=ROOT, check=True)
    check = subprocess.run(
        [python, "-m", "ruff", "check", "--select", "E501", "--output-format", "concise", "-q", *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    too_long = [line for line in check.stdout.splitlines() if line.strip()]
    if too_long:
        subprocess.run([python, "-m", "ruff", "check", "--select", "E501", "--add-noqa", "-q", *names], cwd=ROOT)
    return too_long


def report(title: str, items, limit: int = 400) -> None:
    items = list(items)
    print(f"{title}: {len(items)}")
    for item in items[:limit]:
        print(f"  {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--leave-dynamic",
        action="store_true",
        help="convert the literal keys and keep the ones built dynamically in messages/leftover.py (not final)",
    )
    args = parser.parse_args(argv)
    tables = old_tables()
    if tables is None:
        print("no messages/<area>.py tables left: nothing to convert (the catalogue is kept with `make po`)")
        return 0
    en, zh, argparse_zh = tables
    files = python_files()
    errors = po.error_classes()
    keys = set(en)

    literal_keys: set[str] = set()
    error_keys: set[str] = set()
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = parents_of(tree)
        for node in ast.walk(tree):
            parent = parents.get(node)
            if is_str(node) and node.value in keys and not isinstance(parent, ast.JoinedStr):
                if not is_context(node, parent):
                    literal_keys.add(node.value)
            if isinstance(node, ast.Call) and func_name(node) in errors and node.args and rel(path).startswith("src/"):
                for leaf in ast.walk(node.args[0]):
                    if is_str(leaf) and leaf.value in keys:
                        error_keys.add(leaf.value)
    sites = dynamic_sites(files, keys)
    dynamic = sorted({k for built in sites.values() for k in built})
    if sites:
        report(
            "places that BUILD a key (f-string, prefix, template)", (f"{s}  -> {len(k)} keys" for s, k in sites.items())
        )
    readers = table_readers(files)
    if readers:
        report("code that reads the old tables (TABLES, messages.<area>)", readers)
    if (sites or readers) and not args.leave_dynamic:
        print('STOP: write keys literally (N_("key") in a table) and read sentences through t(), then run this again.')
        print("Nothing was changed.")
        return 1
    dead = sorted(keys - literal_keys - set(dynamic))

    plan = Plan(en, zh, argparse_zh, literal_keys, set(dynamic), error_keys, errors)
    changed, problems = [], []
    for path in files:
        rewriter = Rewriter(path, plan)
        if rewriter.run():
            changed.append(path)
        problems += rewriter.problems
    if problems:
        report("error calls whose first argument is neither a key nor (code, English): check by hand", problems)
    for path in files:  # --leave-dynamic: the library keeps serving the keys left (messages/leftover.py)
        if (not args.leave_dynamic or rel(path).startswith("tests/")) and remove_transition(path):
            changed += [] if path in changed else [path]
    for path in sorted(MESSAGES.glob("*.py")):
        if path.name != "__init__.py":
            path.unlink()
    shutil.rmtree(MESSAGES / "__pycache__", ignore_errors=True)
    if args.leave_dynamic and dynamic:
        write_leftover(en, zh, dynamic)
        changed.append(LEFTOVER)
    too_long = ruff(changed)  # first: the .po's locations are the formatted files' lines
    no_chinese, unsaid = write_catalogue(plan)

    print(
        f"{len(keys)} keys: {len(literal_keys)} written literally, {len(dynamic)} built dynamically, {len(dead)} dead"
    )
    print(f"{len(plan.context)} keys got a gettext context (same English, other Chinese): {sorted(plan.context)}")
    report("dead keys (said nowhere; dropped)", dead)
    if args.leave_dynamic:
        report("keys built dynamically (kept in messages/leftover.py)", dynamic, limit=0)
    report("sentences extracted from src/ with no Chinese (untranslated in the .po)", no_chinese)
    report("converted sentences said only outside src/ (not in the .po; English in both languages)", unsaid)
    report("lines longer than 120 after formatting (given # noqa: E501)", too_long)
    print(f"rewrote {len(changed)} files; wrote {rel(po.PO)} and {rel(po.MO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

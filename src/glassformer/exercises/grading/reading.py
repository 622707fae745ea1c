"""Reading a learner's file: is it there, is it UTF-8, does it parse, what does it define.

read(report)          -> (source, tree), or None with report.status set to missing,
                         encoding or syntax
read_source(path)     the file as text; DamagedFile naming the first byte that is not UTF-8
defined_names(tree)   the names the file defines at its top level (functions, assignments,
                      imports), to tell which of the exercise's functions are missing
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from glassformer.errors import DamagedFile

if TYPE_CHECKING:
    from glassformer.exercises.grading.report import Report


def read(report: Report) -> tuple[str, ast.Module] | None:
    """The file of `report` as text and syntax tree; None when it is missing, not UTF-8 or does
    not parse (report.status says which, and the report holds what the learner needs to fix it)."""
    file = report.file
    if not file.is_file():
        report.status = "missing"
        return None
    try:
        source = read_source(file)
    except DamagedFile as e:
        report.status, report.refusal = "encoding", e
        return None
    report.digest = hashlib.sha256(source.encode()).hexdigest()
    try:
        tree = ast.parse(source, filename=file.name)
    except SyntaxError as e:
        report.status = "syntax"
        report.syntax = {
            "line": e.lineno or 0,
            "col": e.offset or 0,
            "message": e.msg,
            "code": (e.text or "").rstrip("\n"),
        }
        return None
    return source, tree


def defined_names(tree: ast.Module) -> set[str]:
    """Top-level functions, assigned names and names imported from a module (the learner's own file)."""
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    return defined


def read_source(path: Path) -> str:
    """A learner's file as text; DamagedFile("error.exercise.encoding") when it is not UTF-8, with
    where the first bad byte is and what the bytes look like (Latin-1, UTF-16, ...)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise DamagedFile(
            "exercise.encoding",
            "{path} is not UTF-8: line {line}, column {col} holds the "
            "byte {byte}, which UTF-8 does not allow (the file looks "
            "like {guess}). Save it as UTF-8 in your editor (VS Code: "
            "click the encoding in the status bar, then Save with "
            "Encoding, UTF-8), then check again.",
            path=path,
            line=line,
            col=col,
            byte=f"0x{data[e.start]:02x}",
            guess=_guess_encoding(data),
        ) from None


def _guess_encoding(data: bytes) -> str:
    """What a file that is not UTF-8 most likely is: what an editor saved it as."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[1:2] == b"\x00":
        return "UTF-16"
    try:
        data.decode("cp1252")
        return "Latin-1 / Windows-1252"
    except UnicodeDecodeError:
        return "Latin-1"

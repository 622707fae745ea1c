"""Educator mode: grade a class, export the graded cases, and write learner files that make a
known mistake on purpose (for tests, and for showing a class what the grader says).

    grade(SUBMISSIONS, out.csv)   one folder per student, each graded in its own process ->
                                  out.csv (one row per student and exercise) + out.md (a table
                                  students × exercises, pass counts, the most frequent mistakes)
    export_golden(DIR)            per exercise: NAME.npz (inputs, expected outputs, cotangents,
                                  expected gradients) + NAME.json (shapes, dtypes, tolerance),
                                  and manifest.json, so a course can grade without glassformer
    variant_source(ex, variant)   a complete learner file making exactly that one mistake
"""

from __future__ import annotations

import csv
import inspect
import re
from collections import Counter
from pathlib import Path

import numpy as np

import glassformer.exercises.catalog as catalog
import glassformer.exercises.grading as grading
from glassformer.errors import NotFound
from glassformer.exercises.catalog import Exercise, Variant, speaks
from glassformer.exercises.grading.comparing import path_name, prepare
from glassformer.exercises.grading.report import STATUS, sandbox_line
from glassformer.files import write_json_atomic
from glassformer.messages import in_language, t

STATUS_MARK = {
    "passed": "✓",
    "failed": "✗",
    "crashed": "!",
    "timeout": "⏱",
    "syntax": "S",
    "forbidden": "F",
    "todo": "…",
    "missing": "·",
    "encoding": "E",
}


@speaks
def grade(
    submissions: Path,
    out_csv: Path,
    lang: str | None = None,
    timeout: float = grading.TIMEOUT,
    names: list[str] | None = None,
) -> tuple[list[dict], Path]:
    """Grade every student folder; write the CSV and the Markdown summary; return (rows, md path)."""
    submissions, out_csv = Path(submissions), Path(out_csv)
    students = sorted(p for p in submissions.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise NotFound(
            "exercise.no_students",
            "{folder} holds no student folders (one folder per student, "
            "each with that student's exercise files, e.g. "
            "alice/softmax.py).",
            folder=submissions,
        )
    names = [catalog.get(n).name for n in names] if names else list(catalog.ORDER)
    items = [(n, s / f"{n}.py") for s in students for n in names]
    # one worker for the class (torch imported once), each file in a process of its own forked from
    # it (sandbox.py): nothing a student's code does to its process (a changed default, a patched
    # function, a thread left running) reaches another student's grade
    reports = grading.check_many(items, timeout)
    ran = [r.sandbox for r in reports if r.sandbox is not None]
    mistakes = {v.note: v.id for n in names for v in catalog.get(n).variants}
    rows = []
    for (name, file), rep in zip(items, reports, strict=False):
        key = rep.diagnosis[0] if rep.diagnosis else ""
        rows.append(
            {
                "student": file.parent.name,
                "exercise": name,
                "status": rep.status,
                "cases_passed": rep.n_passed,
                "cases_total": len(rep.cases) or len(prepare(name).cases),
                "mistake": mistakes.get(key, key),  # a known mistake by its variant's id
                "detail": t(key, **rep.diagnosis[1]) if rep.diagnosis else "",
            }
        )
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with open(out_csv, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([{k: csv_cell(v) for k, v in row.items()} for row in rows])
    md = out_csv.with_suffix(".md")
    md.write_text(summary(rows, names, lang, sandbox=_weakest(ran)), encoding="utf-8")
    return rows, md


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula (OWASP)


def csv_cell(value):
    """A CSV cell no spreadsheet runs as a formula: text starting with = + - @ tab or CR gets a
    leading ' (a student folder named =HYPERLINK(...) stays text). Numbers are left as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _weakest(sandboxes: list[dict]) -> dict | None:
    """The confinement the whole class was graded in: off if any student's code ran without it."""
    if not sandboxes:
        return None
    return next((s for s in sandboxes if not s["on"]), sandboxes[0])


@speaks
def summary(rows: list[dict], names: list[str], lang: str | None = None, sandbox: dict | None = None) -> str:
    """The Markdown report; `sandbox`: the confinement the students' code ran in (it says so, on or off)."""
    students = list(dict.fromkeys(r["student"] for r in rows))
    by = {(r["student"], r["exercise"]): r for r in rows}
    lines = [
        f"# {t('Exercise grades')}",
        "",
        sandbox_line(sandbox),
        "",
        t(
            "Legend: {marks}",
            marks=", ".join(f"{m} {t(STATUS[s])}" for s, m in STATUS_MARK.items()),
        ),
        "",
    ]
    lines.append("| " + t("student") + " | " + " | ".join(names) + " | " + t("passed") + " |")
    lines.append("|---" * (len(names) + 2) + "|")
    for s in students:
        marks = [STATUS_MARK[by[s, n]["status"]] for n in names]
        passed = sum(by[s, n]["status"] == "passed" for n in names)
        lines.append(f"| {s} | " + " | ".join(marks) + f" | {passed}/{len(names)} |")
    lines += ["", f"## {t('Students passing each exercise')}", ""]
    for n in names:
        passed = sum(by[s, n]["status"] == "passed" for s in students)
        lines.append(f"- {n}: {passed}/{len(students)}")
    mistakes = Counter((r["exercise"], r["mistake"], r["detail"]) for r in rows if r["mistake"])
    if mistakes:
        lines += ["", f"## {t('Recognised mistakes, most frequent first')}", ""]
        for (n, mistake, detail), count in mistakes.most_common():
            lines.append(f"- {n} · `{mistake}` × {count}: {detail}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ golden files


def export_golden(out: Path, names: list[str] | None = None) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = [catalog.get(n).name for n in names] if names else list(catalog.ORDER)
    written, manifest = [], []
    for name in names:
        ex, prep = catalog.get(name), prepare(name)
        arrays, cases = {}, []
        for i, case in enumerate(prep.cases):
            fn = ex.function(case.fn)
            entry = {
                "index": i,
                "label": _english(case.label, **case.fields),
                "function": fn.name,
                "inputs": [_store(arrays, f"case{i}/in/{a}", a, v) for a, v in zip(fn.args, case.args, strict=False)],
                "outputs": [
                    _store(arrays, f"case{i}/out/{k}", o, v)
                    for k, (o, v) in enumerate(zip(fn.outputs, prep.ref[i], strict=False))
                ],
            }
            if case.grad:
                entry["cotangents"] = [
                    None if c is None else _store(arrays, f"case{i}/cot/{k}", fn.outputs[k], c)
                    for k, c in enumerate(prep.cot[i])
                ]
                entry["gradients"] = [
                    _store(arrays, f"case{i}/grad/{path_name(ex, case, p)}", path_name(ex, case, p), g)
                    for p, g in zip(case.grad, prep.ref_grads[i], strict=False)
                ]
            cases.append(entry)
        np.savez_compressed(out / f"{name}.npz", **arrays)
        spec = {
            "exercise": name,
            "number": catalog.number(name),
            "functions": [
                {"name": f.name, "signature": f.signature, "args": list(f.args), "outputs": list(f.outputs)}
                for f in ex.functions
            ],
            "tolerance": {
                "atol": ex.atol,
                "rule": "|yours - expected| <= atol * (1 + |expected|); "
                "infinities must be equal; bool and int outputs exactly equal; no NaN",
            },
            "gradients": "sum over outputs of <cotangent, output>, differentiated with respect to "
            "each listed input; compare with the same rule",
            "cases": cases,
        }
        write_json_atomic(out / f"{name}.json", spec, indent=1, ensure_ascii=False)
        manifest.append({"exercise": name, "npz": f"{name}.npz", "json": f"{name}.json", "cases": len(cases)})
        written += [out / f"{name}.npz", out / f"{name}.json"]
    write_json_atomic(out / "manifest.json", {"exercises": manifest}, indent=1)
    return written + [out / "manifest.json"]


def _store(arrays: dict, key: str, name: str, value) -> dict:
    """Put one value in the npz (tensors, dicts of tensors) or describe it in the JSON (scalars)."""
    if value is None:
        return {"name": name, "kind": "none"}
    if isinstance(value, dict):
        return {"name": name, "kind": "dict", "items": [_store(arrays, f"{key}/{k}", k, v) for k, v in value.items()]}
    if hasattr(value, "detach"):
        a = value.detach().numpy()
        arrays[key] = np.array(a)  # a C-ordered copy (a 0-d loss stays 0-d)
        return {
            "name": name,
            "kind": "array",
            "key": key,
            "shape": list(a.shape),
            "dtype": str(a.dtype),
            "contiguous": bool(value.is_contiguous()),
        }
    return {"name": name, "kind": type(value).__name__, "value": value}


def load_golden_args(spec_case: dict, arrays) -> list:
    """Rebuild a case's inputs from the exported files (what a course's own grader does)."""

    def value(d):
        if d["kind"] == "none":
            return None
        if d["kind"] == "dict":
            return {item["name"]: value(item) for item in d["items"]}
        if d["kind"] == "array":
            return arrays[d["key"]]
        return d["value"]

    return [value(d) for d in spec_case["inputs"]]


# -------------------------------------------------------------------------- known mistakes


def variant_source(ex: Exercise, variant: Variant) -> str:
    """The solution file with one function replaced by `variant` (renamed to the function's name),
    plus any helper of the definition file the variant calls. The solution's helpers are already
    in the file, so a variant may call them."""
    seen: set[str] = set()
    helpers = _helpers(variant.impl, seen)
    body = re.sub(r"^def \w+\(", f"def {variant.fn}(", inspect.getsource(variant.impl), count=1)
    return ex.solution + f"\n\n# --- a known mistake: {variant.id}\n\n" + "".join(h + "\n\n" for h in helpers) + body


def _helpers(fn, seen: set[str]) -> list[str]:
    out = []
    for name, value in inspect.getclosurevars(fn).globals.items():
        if inspect.isfunction(value) and value.__module__ == fn.__module__ and name not in seen:
            seen.add(name)
            out += _helpers(value, seen) + [inspect.getsource(value)]
    return out


def _english(key: str, **fields) -> str:
    """The exported files are read by a course's own tools: their labels are in English."""
    with in_language("en"):
        return t(key, **fields)

"""The report: what grading found (Report), and the text the learner reads (render).

Report                  one file's grade: its status, the cases' results, what was refused
render(report, lang)    the report as text, in the learner's language
sandbox_line(sandbox)   one line: the confinement the code ran in, or why it ran without one
STATUS                  each status in words (the learner's `list`, the educator's legend)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import glassformer.exercises.catalog as catalog
from glassformer.errors import DamagedFile
from glassformer.exercises.catalog import speaks
from glassformer.exercises.grading.comparing import CaseResult, prepare
from glassformer.exercises.sandbox import TIMEOUT
from glassformer.messages import N_, t


@dataclass(frozen=True)
class Offence:
    """A forbidden shortcut the learner's code reaches (found by scanning.py, or by the guard at run time)."""

    file: str  # the file's name (the learner's own, or a sibling it imports)
    line: int
    name: str  # what was reached, as written (e.g. "F.softmax")
    why: str  # text key


@dataclass
class Report:
    exercise: str
    file: Path
    status: str  # passed failed crashed timeout syntax forbidden todo missing encoding
    cases: list[CaseResult] = field(default_factory=list)
    syntax: dict | None = None
    offences: list[Offence] = field(default_factory=list)
    import_error: dict | None = None
    missing_functions: list[str] = field(default_factory=list)
    diagnosis: tuple[str, dict] | None = None  # a text key and its fields
    stdout: str = ""
    exit_code: int | None = None
    timeout: float = TIMEOUT
    digest: str = ""  # sha256 of the graded source, so progress can tell a changed file
    sandbox: dict | None = None  # the confinement the code ran in (sandbox.describe); None: it never ran
    refusal: DamagedFile | None = None  # why the file was not read (status "encoding"): a key and its fields

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def n_passed(self) -> int:
        return sum(c.ok for c in self.cases)

    def first_failure(self) -> CaseResult | None:
        return next((c for c in self.cases if not c.ok), None)


@speaks
def render(report: Report, lang: str | None = None) -> str:
    """The report as the learner reads it, in `lang` (None: the process's language)."""
    lines = [title_line(report.exercise), "  " + t("exercise.msg.file", path=report.file)]
    status = report.status
    if report.sandbox is not None and not report.sandbox["on"]:
        lines.append("  " + sandbox_line(report.sandbox))
    if status == "missing":
        lines.append(t("exercise.msg.missing", path=report.file, name=report.exercise))
    elif status == "encoding":
        lines.append(t(report.refusal.message, **report.refusal.fields))
    elif status == "syntax":
        s = report.syntax
        caret = " " * max(s["col"] - 1, 0) + "^"
        lines.append(
            t("exercise.msg.syntax", path=report.file.name, line=s["line"], col=s["col"], message=s["message"])
        )
        lines += ["    " + s["code"], "    " + caret]
    elif status == "forbidden":
        lines.append(t("exercise.msg.forbidden"))
        for o in report.offences:  # line 0: found after the code ran (the guard switched off), not at a line
            key = "exercise.msg.offence" if o.line else "exercise.msg.offence_file"
            lines.append("  " + t(key, path=o.file, line=o.line, name=o.name, why=t(o.why)))
    elif report.missing_functions:
        lines.append(t("exercise.msg.no_function", fns=", ".join(report.missing_functions)))
    elif status == "timeout":
        lines.append(t("exercise.msg.timeout", seconds=fmt_number(report.timeout), name=report.exercise))
    elif status == "crashed" and report.diagnosis is not None and report.diagnosis[0] == "exercise.msg.protocol":
        lines.append(t("exercise.msg.not_graded"))  # it ran, and answered for the grader: the reason follows
    elif status == "crashed" and report.import_error is None and not report.cases:
        lines.append(t("exercise.msg.died", code=report.exit_code))
        if report.diagnosis is None and report.stdout.strip():
            lines.append("    " + report.stdout.strip().splitlines()[-1])
    elif report.import_error is not None:
        lines.append(t("exercise.msg.import_failed"))
        lines.append("  " + _error_line(report.import_error))
    elif status == "todo":
        fns = sorted({prepare(report.exercise).cases[c.index].fn for c in report.cases if c.todo})
        lines.append(t("exercise.msg.todo", fns=", ".join(fns)))
    elif status == "passed":
        lines += _passed(report)
    else:
        lines += _failed(report)
    if report.diagnosis is not None:
        key, fields = report.diagnosis
        lines.append("  → " + t(key, **fields))
    if report.stdout.strip() and status not in ("passed", "timeout") and report.cases:
        printed = report.stdout.strip().splitlines()[-8:]
        lines.append("  " + t("exercise.msg.printed"))
        lines += ["    | " + line for line in printed]
    return "\n".join(lines)


def title_line(name: str) -> str:
    return t(
        "exercise.msg.header",
        n=catalog.number(name),
        total=len(catalog.ORDER),
        name=name,
        title=t(catalog.get(name).title),
    )


def case_label(name: str, index: int) -> str:
    case = prepare(name).cases[index]
    return t(case.label, **case.fields)


# a file's state in words: the statuses of a check, and the progress file's started / not_started
STATUS = {
    "passed": N_("exercise.msg.status.passed"),
    "failed": N_("exercise.msg.status.failed"),
    "crashed": N_("exercise.msg.status.crashed"),
    "timeout": N_("exercise.msg.status.timeout"),
    "syntax": N_("exercise.msg.status.syntax"),
    "forbidden": N_("exercise.msg.status.forbidden"),
    "todo": N_("exercise.msg.status.todo"),
    "started": N_("exercise.msg.status.started"),
    "not_started": N_("exercise.msg.status.not_started"),
    "missing": N_("exercise.msg.status.missing"),
    "encoding": N_("exercise.msg.status.encoding"),
}


# the layers of the confinement (sandbox.describe's "missing"), in words
SANDBOX_PARTS = {
    "files": N_("exercise.msg.sandbox.part.files"),
    "network": N_("exercise.msg.sandbox.part.network"),
    "processes": N_("exercise.msg.sandbox.part.processes"),
}


def sandbox_line(sandbox: dict | None) -> str:
    """One line: the confinement graded code ran in, or that it ran without one and why."""
    if sandbox is None:
        return t("exercise.msg.sandbox.unknown")
    if sandbox["on"]:
        return t("exercise.msg.sandbox.on", layers=", ".join(sandbox["layers"]))
    missing = ", ".join(t(SANDBOX_PARTS[m]) for m in sandbox["missing"])
    return t("exercise.msg.sandbox.off", reason=sandbox["reason"] or missing, missing=missing)


def _passed(report: Report) -> list[str]:
    ex = catalog.get(report.exercise)
    graded_grads = any(c.grad for c in prepare(report.exercise).cases)
    key = "exercise.msg.passed.grads" if graded_grads else "exercise.msg.passed.outputs"
    lines = [t(key, n=len(report.cases))]
    err_ref = max(c.err_ref for c in report.cases)
    err_twin = max(c.err_twin for c in report.cases)
    lines.append("  " + t("exercise.msg.errors", ref=f"{err_ref:.1e}", twin=f"{err_twin:.1e}", atol=f"{ex.atol:.0e}"))
    n = catalog.number(report.exercise)
    if n < len(catalog.ORDER):
        lines.append("  " + t("exercise.msg.next", command=f"glassformer exercise start {catalog.ORDER[n]}"))
    else:
        lines.append("  " + t("exercise.msg.last", total=len(catalog.ORDER)))
    return lines


def _failed(report: Report) -> list[str]:
    ex, prep = catalog.get(report.exercise), prepare(report.exercise)
    key = "exercise.msg.crashed" if report.status == "crashed" else "exercise.msg.failed"
    lines = [t(key, passed=report.n_passed, total=len(report.cases))]
    first = report.first_failure()
    case = prep.cases[first.index]
    fn = ex.function(case.fn)
    lines.append(
        "  "
        + t(
            "exercise.msg.case",
            label=case_label(report.exercise, first.index),
            i=first.index + 1,
            n=len(report.cases),
            fn=fn.name,
        )
    )
    inputs = ", ".join(describe_arg(name, value) for name, value in zip(fn.args, case.args, strict=False))
    lines.append("  " + t("exercise.msg.inputs", inputs=inputs))
    lines += ["  " + line for line in _problem_lines(first, fn.outputs, ex.atol)]
    return lines


# what is wrong with a returned value (Problem.what: shape, dtype, value, nan), or with its gradient
PROBLEMS = {
    "shape": N_("exercise.msg.problem.shape"),
    "dtype": N_("exercise.msg.problem.dtype"),
    "value": N_("exercise.msg.problem.value"),
    "nan": N_("exercise.msg.problem.nan"),
}


GRAD_PROBLEMS = {
    "shape": N_("exercise.msg.problem.grad_shape"),
    "dtype": N_("exercise.msg.problem.grad_dtype"),
    "value": N_("exercise.msg.problem.grad_value"),
    "nan": N_("exercise.msg.problem.grad_nan"),
}


# why no gradient came back (the worker's grad_note); any other note is shown as it is
GRAD_NOTES = {
    "no_graph": N_("exercise.msg.grad_note.no_graph"),
    "unused": N_("exercise.msg.grad_note.unused"),
    "shape": N_("exercise.msg.grad_note.shape"),
    "count": N_("exercise.msg.grad_note.count"),
}


def _problem_lines(res: CaseResult, outputs: tuple[str, ...], atol: float) -> list[str]:
    if res.error is not None:
        return [_error_line(res.error)]
    p = res.problem
    fields = {"where": res.where, "index": p.index, "yours": fmt_number(p.yours), "ref": fmt_number(p.ref)}
    if p.what == "missing":
        return [t("exercise.msg.problem.missing")]
    if p.what == "count":
        return [t("exercise.msg.problem.count", yours=p.yours, ref=p.ref, names=", ".join(outputs))]
    if p.what == "type":
        yours = t("exercise.msg.value.list", n=p.yours[1]) if isinstance(p.yours, tuple) else p.yours
        return [t("exercise.msg.problem.type", where=res.where, yours=yours)]
    if p.what == "grad_missing":
        note = str(p.yours)
        detail = t(GRAD_NOTES[note]) if note in GRAD_NOTES else note
        return [t("exercise.msg.problem.grad_missing", where=res.where or "—", note=detail)]
    if p.what == "twin_slope":
        return [t("exercise.msg.problem.twin_slope", where=res.where, yours=f"{p.yours:.10g}", ref=f"{p.ref:.10g}")]
    lines = [t((GRAD_PROBLEMS if res.stage == "grad" else PROBLEMS)[p.what], **fields)]
    if p.what in ("value", "nan"):
        lines.append(
            t(
                "exercise.msg.maxerr",
                ref=f"{p.max_err:.3g}",
                twin=f"{res.err_twin:.3g}" if res.stage == "output" else "—",
                atol=f"{atol:.0e}",
            )
        )
    return lines


def _error_line(error: dict) -> str:
    where = error.get("where")
    message = error["message"].strip().splitlines()[0][:300] if error["message"].strip() else ""
    if where:
        return t(
            "exercise.msg.error",
            type=error["type"],
            path=where["file"],
            line=where["line"],
            code=where["code"],
            message=message,
        )
    return t("exercise.msg.error_nowhere", type=error["type"], message=message)


def describe_arg(name: str, value) -> str:
    """An input for a message: `x (2, 5) float64`, `x (2, 5) float64 non-contiguous`, `n_heads = 2`."""
    if isinstance(value, torch.Tensor):
        layout = "" if value.is_contiguous() else " " + t("exercise.msg.noncontiguous")
        return f"{name} {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}{layout}"
    if isinstance(value, dict):
        return f"{name} " + t("exercise.msg.tensors", n=len(value))
    return f"{name} = {value!r}"


def fmt_number(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.10g}" if np.isfinite(v) else str(v)
    return str(v)

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

# the diagnosis of a submission that answered for the grader (grading/__init__.py sets it; render names it)
FORGED = N_(
    "{reason}: a submission may not answer for the grader (write "
    "a result, say it is done, or end its process with one of "
    "its own); write the functions and let the grader call them."
)


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
    lines = [title_line(report.exercise), "  " + t("file {path}", path=report.file)]
    status = report.status
    if report.sandbox is not None and not report.sandbox["on"]:
        lines.append("  " + sandbox_line(report.sandbox))
    if status == "missing":
        lines.append(
            t(
                "✗ {path} does not exist. Start it with:  glassformer exercise start {name}",
                path=report.file,
                name=report.exercise,
            )
        )
    elif status == "encoding":
        lines.append(t(report.refusal.message, **report.refusal.fields))
    elif status == "syntax":
        s = report.syntax
        caret = " " * max(s["col"] - 1, 0) + "^"
        lines.append(
            t(
                "✗ Syntax error in {path}, line {line}, column {col}: {message}",
                path=report.file.name,
                line=s["line"],
                col=s["col"],
                message=s["message"],
            )
        )
        lines += ["    " + s["code"], "    " + caret]
    elif status == "forbidden":
        lines.append(t("✗ Refused: your code calls what this exercise asks you to write."))
        for o in report.offences:  # line 0: found after the code ran (the guard switched off), not at a line
            key = (
                N_("{path} line {line}: {name} — {why}")
                if o.line
                else N_("{path} (found after it ran): {name} — {why}")
            )
            lines.append("  " + t(key, path=o.file, line=o.line, name=o.name, why=t(o.why)))
    elif report.missing_functions:
        lines.append(
            t(
                "✗ Your file defines no function {fns} (the name must match the skeleton's).",
                fns=", ".join(report.missing_functions),
            )
        )
    elif status == "timeout":
        lines.append(
            t(
                "✗ Stopped after {seconds} s: your code did not finish (an "
                "endless loop? a huge tensor?). Nothing else was affected; "
                "fix it and run glassformer exercise check {name} again.",
                seconds=fmt_number(report.timeout),
                name=report.exercise,
            )
        )
    elif status == "crashed" and report.diagnosis is not None and report.diagnosis[0] == FORGED:
        lines.append(
            t("✗ Not graded: what came back from the process running your code is not what the grader asked for.")
        )  # it ran, and answered for the grader: the reason follows
    elif status == "crashed" and report.import_error is None and not report.cases:
        lines.append(
            t(
                "✗ The process running your code died (exit code {code}) "
                "before it finished: a hard crash or an exit() call.",
                code=report.exit_code,
            )
        )
        if report.diagnosis is None and report.stdout.strip():
            lines.append("    " + report.stdout.strip().splitlines()[-1])
    elif report.import_error is not None:
        lines.append(t("✗ Your file could not be loaded:"))
        lines.append("  " + _error_line(report.import_error))
    elif status == "todo":
        fns = sorted({prepare(report.exercise).cases[c.index].fn for c in report.cases if c.todo})
        lines.append(
            t(
                "… Not finished yet: {fns} still raises NotImplementedError "
                "(the skeleton's TODO). Write it, then check again.",
                fns=", ".join(fns),
            )
        )
    elif status == "passed":
        lines += _passed(report)
    else:
        lines += _failed(report)
    if report.diagnosis is not None:
        key, fields = report.diagnosis
        lines.append("  → " + t(key, **fields))
    if report.stdout.strip() and status not in ("passed", "timeout") and report.cases:
        printed = report.stdout.strip().splitlines()[-8:]
        lines.append("  " + t("your code printed:"))
        lines += ["    | " + line for line in printed]
    return "\n".join(lines)


def title_line(name: str) -> str:
    return t(
        "Exercise {n}/{total} · {name} — {title}",
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
    "passed": N_("passing"),
    "failed": N_("failing"),
    "crashed": N_("failing (error)"),
    "timeout": N_("failing (time limit)"),
    "syntax": N_("failing (syntax error)"),
    "forbidden": N_("refused (forbidden call)"),
    "todo": N_("in progress (TODO left)"),
    "started": N_("started, not checked yet"),
    "not_started": N_("not started"),
    "missing": N_("missing"),
    "encoding": N_("refused (not UTF-8)"),
}


# the layers of the confinement (sandbox.describe's "missing"), in words
SANDBOX_PARTS = {
    "files": N_("files"),
    "network": N_("network"),
    "processes": N_("processes"),
}


def sandbox_line(sandbox: dict | None) -> str:
    """One line: the confinement graded code ran in, or that it ran without one and why."""
    if sandbox is None:
        return t("sandbox: no graded code was run")
    if sandbox["on"]:
        return t("sandbox: on ({layers})", layers=", ".join(sandbox["layers"]))
    missing = ", ".join(t(SANDBOX_PARTS[m]) for m in sandbox["missing"])
    return t(
        "⚠ sandbox: OFF ({reason}): this code ran with your own "
        "rights, so it could read and change your files, use the "
        "network and start processes (not confined: {missing}). "
        "Grade files you did not write only where the sandbox is on "
        "(docs/exercises.md says where).",
        reason=sandbox["reason"] or missing,
        missing=missing,
    )


def _passed(report: Report) -> list[str]:
    ex = catalog.get(report.exercise)
    graded_grads = any(c.grad for c in prepare(report.exercise).cases)
    key = N_("✓ Passed: all {n} cases, outputs and gradients.") if graded_grads else N_("✓ Passed: all {n} cases.")
    lines = [t(key, n=len(report.cases))]
    err_ref = max(c.err_ref for c in report.cases)
    err_twin = max(c.err_twin for c in report.cases)
    lines.append(
        "  "
        + t(
            "largest error {ref} against glassformer.nn, {twin} against "
            "numpy_ref (tolerance {atol} · (1 + |reference|))",
            ref=f"{err_ref:.1e}",
            twin=f"{err_twin:.1e}",
            atol=f"{ex.atol:.0e}",
        )
    )
    n = catalog.number(report.exercise)
    if n < len(catalog.ORDER):
        lines.append("  " + t("Next: {command}", command=f"glassformer exercise start {catalog.ORDER[n]}"))
    else:
        lines.append(
            "  "
            + t(
                "That was the last of the {total} exercises: every part of the model, written by you.",
                total=len(catalog.ORDER),
            )
        )
    return lines


def _failed(report: Report) -> list[str]:
    ex, prep = catalog.get(report.exercise), prepare(report.exercise)
    key = (
        N_("✗ Your code raised an error: {passed} of {total} cases pass.")
        if report.status == "crashed"
        else N_("✗ Failed: {passed} of {total} cases pass.")
    )
    lines = [t(key, passed=report.n_passed, total=len(report.cases))]
    first = report.first_failure()
    case = prep.cases[first.index]
    fn = ex.function(case.fn)
    lines.append(
        "  "
        + t(
            "first failing case: {label} (case {i} of {n}, {fn})",
            label=case_label(report.exercise, first.index),
            i=first.index + 1,
            n=len(report.cases),
            fn=fn.name,
        )
    )
    inputs = ", ".join(describe_arg(name, value) for name, value in zip(fn.args, case.args, strict=False))
    lines.append("  " + t("inputs: {inputs}", inputs=inputs))
    lines += ["  " + line for line in _problem_lines(first, fn.outputs, ex.atol)]
    return lines


# what is wrong with a returned value (Problem.what: shape, dtype, value, nan), or with its gradient
PROBLEMS = {
    "shape": N_("output{where}: shape {yours}, expected {ref}"),
    "dtype": N_("output{where}: dtype {yours}, expected {ref}"),
    "value": N_("output{where}: first mismatch at index {index}: yours {yours}, reference {ref}"),
    "nan": N_("output{where}: NaN first at index {index} (reference {ref})"),
}


GRAD_PROBLEMS = {
    "shape": N_("gradient of {where}: shape {yours}, expected {ref}"),
    "dtype": N_("gradient of {where}: dtype {yours}, expected {ref}"),
    "value": N_("gradient of {where}: first mismatch at index {index}: yours {yours}, reference {ref}"),
    "nan": N_("gradient of {where}: NaN first at index {index} (reference {ref})"),
}


# why no gradient came back (the worker's grad_note); any other note is shown as it is
GRAD_NOTES = {
    "no_graph": N_("your outputs are not connected to the inputs"),
    "unused": N_("this input does not influence your outputs"),
    "shape": N_("your outputs' shapes differ"),
    "count": N_("wrong number of outputs"),
}


def _problem_lines(res: CaseResult, outputs: tuple[str, ...], atol: float) -> list[str]:
    if res.error is not None:
        return [_error_line(res.error)]
    p = res.problem
    fields = {"where": res.where, "index": p.index, "yours": fmt_number(p.yours), "ref": fmt_number(p.ref)}
    if p.what == "missing":
        return [t("the function is not defined in your file")]
    if p.what == "count":
        return [
            t(
                "you return {yours} value(s), expected {ref}: {names}",
                yours=p.yours,
                ref=p.ref,
                names=", ".join(outputs),
            )
        ]
    if p.what == "type":
        yours = t("a list of {n} values", n=p.yours[1]) if isinstance(p.yours, tuple) else p.yours
        return [t("output{where}: you return {yours}, expected a torch.Tensor", where=res.where, yours=yours)]
    if p.what == "grad_missing":
        note = str(p.yours)
        detail = t(GRAD_NOTES[note]) if note in GRAD_NOTES else note
        return [t("no gradient for {where}: {note}", where=res.where or "—", note=detail)]
    if p.what == "twin_slope":
        return [
            t(
                "gradients of {where} along a random direction: yours "
                "{yours}, the NumPy twin's finite difference {ref}",
                where=res.where,
                yours=f"{p.yours:.10g}",
                ref=f"{p.ref:.10g}",
            )
        ]
    lines = [t((GRAD_PROBLEMS if res.stage == "grad" else PROBLEMS)[p.what], **fields)]
    if p.what in ("value", "nan"):
        lines.append(
            t(
                "largest error {ref} against glassformer.nn, {twin} against "
                "numpy_ref (tolerance {atol} · (1 + |reference|))",
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
            "your code raised {type} in {path} line {line}:  {code}\n    {message}",
            type=error["type"],
            path=where["file"],
            line=where["line"],
            code=where["code"],
            message=message,
        )
    return t("your code raised {type}: {message}", type=error["type"], message=message)


def describe_arg(name: str, value) -> str:
    """An input for a message: `x (2, 5) float64`, `x (2, 5) float64 non-contiguous`, `n_heads = 2`."""
    if isinstance(value, torch.Tensor):
        layout = "" if value.is_contiguous() else " " + t("non-contiguous")
        return f"{name} {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}{layout}"
    if isinstance(value, dict):
        return f"{name} " + t("{{{n} tensors}}", n=len(value))
    return f"{name} = {value!r}"


def fmt_number(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.10g}" if np.isfinite(v) else str(v)
    return str(v)

"""A grading Report as text for the learner, in their language.

Order of a failure report: the verdict, the first failing case (its name, its input shapes),
what differs (the first mismatching index, yours vs the reference, the largest error against
both references), then the most telling explanation the grader found (a known mistake, or a hint
read from the error message), then anything the learner's code printed.
"""

from __future__ import annotations

from glassformer.exercises import catalog
from glassformer.exercises.compare import describe_arg, fmt_number
from glassformer.exercises.expected import prepare
from glassformer.exercises.grader import CaseResult, Report
from glassformer.exercises.text import has, t


def title_line(lang: str, name: str) -> str:
    return t(
        lang, "msg.header", n=catalog.number(name), total=len(catalog.ORDER), name=name, title=t(lang, f"{name}.title")
    )


def case_label(lang: str, name: str, index: int) -> str:
    case = prepare(name).cases[index]
    return t(lang, case.label, **case.fields)


def render(report: Report, lang: str) -> str:
    lines = [title_line(lang, report.exercise), "  " + t(lang, "msg.file", file=report.file)]
    status = report.status
    if status == "missing":
        lines.append(t(lang, "msg.missing", file=report.file, name=report.exercise))
    elif status == "syntax":
        s = report.syntax
        caret = " " * max(s["col"] - 1, 0) + "^"
        lines.append(t(lang, "msg.syntax", file=report.file.name, line=s["line"], col=s["col"], message=s["message"]))
        lines += ["    " + s["code"], "    " + caret]
    elif status == "forbidden":
        lines.append(t(lang, "msg.forbidden"))
        for o in report.offences:
            lines.append("  " + t(lang, "msg.offence", file=o.file, line=o.line, name=o.name, why=t(lang, o.why)))
    elif report.missing_functions:
        lines.append(t(lang, "msg.no_function", fns=", ".join(report.missing_functions)))
    elif status == "timeout":
        lines.append(t(lang, "msg.timeout", seconds=fmt_number(report.timeout), name=report.exercise))
    elif status == "crashed" and report.import_error is None and not report.cases:
        lines.append(t(lang, "msg.died", code=report.exit_code))
        if report.diagnosis is None and report.stdout.strip():
            lines.append("    " + report.stdout.strip().splitlines()[-1])
    elif report.import_error is not None:
        lines.append(t(lang, "msg.import_failed"))
        lines.append("  " + _error_line(lang, report.import_error))
    elif status == "todo":
        fns = sorted({prepare(report.exercise).cases[c.index].fn for c in report.cases if c.todo})
        lines.append(t(lang, "msg.todo", fns=", ".join(fns)))
    elif status == "passed":
        lines += _passed(lang, report)
    else:
        lines += _failed(lang, report)
    if report.diagnosis is not None:
        key, fields = report.diagnosis
        lines.append("  → " + t(lang, key, **fields))
    if report.stdout.strip() and status not in ("passed", "timeout") and report.cases:
        printed = report.stdout.strip().splitlines()[-8:]
        lines.append("  " + t(lang, "msg.printed"))
        lines += ["    | " + line for line in printed]
    return "\n".join(lines)


def _passed(lang: str, report: Report) -> list[str]:
    ex = catalog.get(report.exercise)
    graded_grads = any(c.grad for c in prepare(report.exercise).cases)
    key = "msg.passed.grads" if graded_grads else "msg.passed.outputs"
    lines = [t(lang, key, n=len(report.cases))]
    err_ref = max(c.err_ref for c in report.cases)
    err_twin = max(c.err_twin for c in report.cases)
    lines.append("  " + t(lang, "msg.errors", ref=f"{err_ref:.1e}", twin=f"{err_twin:.1e}", atol=f"{ex.atol:.0e}"))
    n = catalog.number(report.exercise)
    if n < len(catalog.ORDER):
        lines.append("  " + t(lang, "msg.next", command=f"glassformer exercise start {catalog.ORDER[n]}"))
    else:
        lines.append("  " + t(lang, "msg.last", total=len(catalog.ORDER)))
    return lines


def _failed(lang: str, report: Report) -> list[str]:
    ex, prep = catalog.get(report.exercise), prepare(report.exercise)
    key = "msg.crashed" if report.status == "crashed" else "msg.failed"
    lines = [t(lang, key, passed=report.n_passed, total=len(report.cases))]
    first = report.first_failure()
    case = prep.cases[first.index]
    fn = ex.function(case.fn)
    lines.append(
        "  "
        + t(
            lang,
            "msg.case",
            label=case_label(lang, report.exercise, first.index),
            i=first.index + 1,
            n=len(report.cases),
            fn=fn.name,
        )
    )
    inputs = ", ".join(describe_arg(name, value) for name, value in zip(fn.args, case.args, strict=False))
    lines.append("  " + t(lang, "msg.inputs", inputs=inputs))
    lines += ["  " + line for line in _problem_lines(lang, first, fn.outputs, ex.atol)]
    return lines


def _problem_lines(lang: str, res: CaseResult, outputs: tuple[str, ...], atol: float) -> list[str]:
    if res.error is not None:
        return [_error_line(lang, res.error)]
    p = res.problem
    fields = {"where": res.where, "index": p.index, "yours": fmt_number(p.yours), "ref": fmt_number(p.ref)}
    if p.what == "missing":
        return [t(lang, "msg.problem.missing")]
    if p.what == "count":
        return [t(lang, "msg.problem.count", yours=p.yours, ref=p.ref, names=", ".join(outputs))]
    if p.what == "type":
        return [t(lang, "msg.problem.type", where=res.where, yours=p.yours)]  # already described
    if p.what == "grad_missing":
        note = str(p.yours)
        detail = t(lang, f"msg.grad_note.{note}") if has(f"msg.grad_note.{note}") else note
        return [t(lang, "msg.problem.grad_missing", where=res.where or "—", note=detail)]
    if p.what == "twin_slope":
        return [t(lang, "msg.problem.twin_slope", where=res.where, yours=f"{p.yours:.10g}", ref=f"{p.ref:.10g}")]
    prefix = "msg.problem.grad_" if res.stage == "grad" else "msg.problem."
    lines = [t(lang, prefix + p.what, **fields)]
    if p.what in ("value", "nan"):
        lines.append(
            t(
                lang,
                "msg.maxerr",
                ref=f"{p.max_err:.3g}",
                twin=f"{res.err_twin:.3g}" if res.stage == "output" else "—",
                atol=f"{atol:.0e}",
            )
        )
    return lines


def _error_line(lang: str, error: dict) -> str:
    where = error.get("where")
    message = error["message"].strip().splitlines()[0][:300] if error["message"].strip() else ""
    if where:
        return t(
            lang,
            "msg.error",
            type=error["type"],
            file=where["file"],
            line=where["line"],
            code=where["code"],
            message=message,
        )
    return t(lang, "msg.error_nowhere", type=error["type"], message=message)

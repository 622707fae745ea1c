"""Grade learner files: read, refuse shortcuts, run in a child process, compare, diagnose.

    check(name, file)                one file            -> Report
    check_many([(name, file), ...])  many, one process   -> [Report]   (educator mode, tests)

The expected values come from expected.py (glassformer.nn and the NumPy twin, computed once per
process). The learner passes a case when every output agrees with both references (compare.py),
the gradients agree with glassformer's autograd, and the derivative along a random direction
agrees with the NumPy twin's finite difference. diagnose.py names the mistake behind a failure.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import torch

from glassformer.exercises import catalog
from glassformer.exercises.compare import Problem, first_problem, max_error, unpack
from glassformer.exercises.diagnose import diagnose, error_hint
from glassformer.exercises.expected import Prepared, leaf, one_thread, path_name, prepare
from glassformer.exercises.forbidden import Offence, scan
from glassformer.exercises.runner import Job, JobResult, run_jobs
from glassformer.exercises.spec import Case, Exercise

TIMEOUT = 10.0  # seconds per learner file, all its cases together (torch's import not counted)
FD_STEP, FD_TOL, FD_MAX_INPUT = 1e-6, 1e-6, 50.0  # the twin's finite-difference check of gradients


@dataclass
class CaseResult:
    index: int
    ok: bool
    problem: Problem | None = None
    stage: str = "output"  # "output" or "grad": what the problem is about
    where: str = ""  # " 1 (keys)" after "output", or "q": which output, or which input's gradient
    error: dict | None = None  # the learner's exception
    todo: bool = False
    err_ref: float = 0.0  # largest error vs glassformer.nn
    err_twin: float = 0.0  # largest error vs numpy_ref


@dataclass
class Report:
    exercise: str
    file: Path
    status: str  # passed failed crashed timeout syntax forbidden todo missing
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

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def n_passed(self) -> int:
        return sum(c.ok for c in self.cases)

    def first_failure(self) -> CaseResult | None:
        return next((c for c in self.cases if not c.ok), None)


def check(name: str, file: Path | str, timeout: float = TIMEOUT) -> Report:
    return check_many([(name, file)], timeout)[0]


def check_many(items: list[tuple], timeout: float = TIMEOUT) -> list[Report]:
    """Grade several (exercise, file) pairs with one child process (torch imported once). An item
    may carry its own time limit as a third element: (exercise, file, seconds)."""
    with one_thread():
        return _check_many(items, timeout)


def _check_many(items: list[tuple], timeout: float) -> list[Report]:
    reports, jobs = [], []
    for n, (name, file, *own) in enumerate(items):
        limit = own[0] if own else timeout
        report = _static_checks(catalog.get(name).name, Path(file), limit)
        reports.append(report)
        if report.status == "pending":
            prep = prepare(report.exercise)
            calls = [
                {"fn": c.fn, "args": c.args, "grad": list(c.grad), "cot": cot or []}
                for c, cot in zip(prep.cases, prep.cot, strict=False)
            ]
            jobs.append(Job(f"j{n}", Path(file), calls, limit))
    results = run_jobs(jobs, timeout) if jobs else {}
    for job in jobs:
        report = reports[int(job.id[1:])]
        _grade(report, results[job.id])
    return reports


def _static_checks(name: str, file: Path, timeout: float) -> Report:
    """Missing file, syntax error, forbidden shortcut or missing function: no process needed."""
    report = Report(name, file, "pending", timeout=timeout)
    if not file.is_file():
        report.status = "missing"
        return report
    source = file.read_text(encoding="utf-8", errors="replace")
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
        return report
    report.offences = scan(file, catalog.get(name).forbidden, source)
    if report.offences:
        report.status = "forbidden"
        return report
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    report.missing_functions = [f.name for f in catalog.get(name).functions if f.name not in defined]
    if report.missing_functions:
        report.status = "failed"
    return report


def _grade(report: Report, result: JobResult) -> None:
    if result.status != "done":
        report.status = {"timeout": "timeout"}.get(result.status, "crashed")
        report.exit_code, report.stdout = result.exit_code, result.stderr
        if result.status == "no_start":
            report.diagnosis = ("msg.no_start", {"stderr": result.stderr.strip()[-400:]})
        return
    payload = result.payload
    report.stdout = payload["stdout"]
    if payload["import_error"]:
        report.import_error = payload["import_error"]
        report.status = "todo" if payload["import_error"]["type"] == "NotImplementedError" else "crashed"
        report.diagnosis = error_hint(report.exercise, payload["import_error"])
        return
    prep, ex = prepare(report.exercise), catalog.get(report.exercise)
    for i, (case, call) in enumerate(zip(prep.cases, payload["calls"], strict=False)):
        report.cases.append(_grade_case(ex, prep, i, case, call))
    failing = [c for c in report.cases if not c.ok]
    if not failing:
        report.status = "passed"
    elif all(c.todo for c in failing):
        report.status = "todo"
    else:
        report.status = "crashed" if any(c.error and not c.todo for c in failing) else "failed"
        report.diagnosis = diagnose(ex, prep, report, payload["calls"])


def _grade_case(ex: Exercise, prep: Prepared, i: int, case: Case, call: dict) -> CaseResult:
    res = CaseResult(i, ok=False)
    if call.get("missing"):
        res.problem = Problem("missing")
        return res
    if "error" in call:
        res.error, res.todo = call["error"], call["todo"]
        return res
    outs, ref, twin = unpack(call["outputs"]), prep.ref[i], prep.twin[i]
    fn = ex.function(case.fn)
    if len(outs) != len(ref):
        res.problem = Problem("count", yours=len(outs), ref=len(ref))
        return res
    for k, (y, r, t) in enumerate(zip(outs, ref, twin, strict=False)):
        label = f" {k} ({fn.outputs[k]})" if len(ref) > 1 else ""  # "output 1 (keys)" / "output"
        for reference, attr in ((r, "err_ref"), (t, "err_twin")):
            problem = first_problem(y, reference, ex.atol)
            if problem is not None:
                res.problem, res.where = problem, label
                if problem.what in ("value", "nan"):
                    problem.max_err = max_error(y, r)
                    res.err_twin = max_error(y, t)
                return res
            setattr(res, attr, max(getattr(res, attr), max_error(y, reference)))
    if case.grad:
        res.problem, res.where = _grade_grads(ex, prep, i, case, call)
        if res.problem is not None:
            res.stage = "grad"
            return res
    res.ok = True
    return res


def _grade_grads(ex: Exercise, prep: Prepared, i: int, case: Case, call: dict):
    names = [path_name(ex, case, p) for p in case.grad]
    if call["grads"] is None:
        return Problem("grad_missing", yours=call["grad_note"]), ""
    for name, g, r in zip(names, call["grads"], prep.ref_grads[i], strict=False):
        if g is None:
            return Problem("grad_missing", yours="unused"), name
        problem = first_problem(g, r, ex.atol)
        if problem is not None:
            return problem, name
    problem = _twin_directional(ex, case, call["grads"], prep.cot[i])
    return problem, ", ".join(names)


def _twin_directional(ex: Exercise, case: Case, grads: list, cot: list) -> Problem | None:
    """⟨your gradient, u⟩ against the twin's (f(x + εu) - f(x - εu)) / 2ε · cotangent."""
    leaves = [leaf(case.args, p) for p in case.grad]
    if any(float(x.abs().max()) > FD_MAX_INPUT for x in leaves):
        return None  # a finite difference around large inputs measures rounding, not slope
    gen = torch.Generator().manual_seed(7)
    dirs = [torch.randn(x.shape, generator=gen, dtype=torch.float64) for x in leaves]

    def twin_at(sign: float) -> tuple:
        args = list(case.args)
        for p, u in zip(case.grad, dirs, strict=False):
            if isinstance(p, int):
                args[p] = args[p] + sign * FD_STEP * u
            else:
                args[p[0]] = {**args[p[0]], p[1]: args[p[0]][p[1]] + sign * FD_STEP * u}
        return ex.numpy_reference[case.fn](*args)

    plus, minus = twin_at(1.0), twin_at(-1.0)
    slope = sum(
        float(((a - b) / (2 * FD_STEP) * c).sum()) for a, b, c in zip(plus, minus, cot, strict=False) if c is not None
    )
    yours = sum(float((g * u).sum()) for g, u in zip(grads, dirs, strict=False))
    if abs(yours - slope) > FD_TOL * (1 + abs(slope)):
        return Problem("twin_slope", yours=yours, ref=slope, max_err=abs(yours - slope))
    return None


# ------------------------------------------------------------------------------- diagnosis

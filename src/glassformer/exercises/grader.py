"""Grade learner files: read, refuse shortcuts, run in a child process, compare, diagnose.

    check(name, file)                one file            -> Report
    check_many([(name, file), ...])  many, one process   -> [Report]   (educator mode, tests)

For each exercise the cases and their expected values are computed once per process
(`prepare`): glassformer.nn's output and gradients (pulled back through a seeded random
cotangent, so every output entry counts) and the NumPy twin's output. The learner passes a case
when every output agrees with both references (compare.py), its gradients agree with
glassformer's, and the derivative along a random direction agrees with the NumPy twin's finite
difference. A failing learner output that equals a known-wrong variant's names that mistake.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch

from glassformer.exercises import catalog
from glassformer.exercises.compare import Problem, first_problem, max_error, same_values, unpack
from glassformer.exercises.forbidden import Offence, scan
from glassformer.exercises.runner import Job, JobResult, run_jobs
from glassformer.exercises.spec import Case, Exercise, as_tuple

TIMEOUT = 10.0  # seconds per learner file, all its cases together (torch's import not counted)
FD_STEP, FD_TOL, FD_MAX_INPUT = 1e-6, 1e-6, 50.0  # the twin's finite-difference check of gradients

# errors whose message says enough to name the mistake, in every exercise
COMMON_ERROR_HINTS = (
    (r"view size is not compatible with input tensor's size and stride", "err.view"),
    (r"mat1 and mat2 shapes cannot be multiplied", "err.matmul"),
    (r"leaf Variable that requires grad is being used in an in-place operation", "err.inplace"),
    (r"must match the size of tensor b|shape mismatch|cannot broadcast|not broadcastable", "err.broadcast"),
    (r"expected .*(Double|Float)|dtype", "err.dtype"),
)


@dataclass
class Prepared:
    cases: list[Case]
    ref: list[tuple]  # glassformer.nn's outputs, per case
    twin: list[tuple]  # the NumPy twin's outputs, per case
    cot: list[list | None]  # cotangent per output (None: not differentiable / no gradient graded)
    ref_grads: list[list | None]  # d(cot · outputs)/d(input) per graded input
    variants: dict = field(default_factory=dict)  # (variant id, case index) -> outputs or None


@dataclass
class CaseResult:
    index: int
    ok: bool
    problem: Problem | None = None
    stage: str = "output"  # "output" or "grad": what the problem is about
    where: str = ""  # "0 (output)" or "q": which output, or which input's gradient (code names only)
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


# ------------------------------------------------------------------------------- preparing


@functools.lru_cache(maxsize=None)
def prepare(name: str) -> Prepared:
    ex = catalog.get(name)
    cases = ex.cases()
    prep = Prepared(cases, [], [], [], [])
    for i, case in enumerate(cases):
        gen = torch.Generator().manual_seed(1000 * ex.seed + i)
        args = [_grad_copy(a, case, j) for j, a in enumerate(case.args)]
        out = as_tuple(ex.reference[case.fn](*args))
        twin = ex.numpy_reference[case.fn](*case.args)
        for o, t in zip(out, twin, strict=True):
            if first_problem(o.detach(), t, ex.atol) is not None or bool(torch.isnan(t.double()).any()):
                raise RuntimeError(f"internal: glassformer and its NumPy twin disagree on {name} case {i}")
        cot, grads = None, None
        if case.grad:
            cot = [torch.randn(o.shape, generator=gen, dtype=o.dtype) if o.is_floating_point() else None
                   for o in out]
            leaves = [_leaf(args, p) for p in case.grad]
            pairs = [(o, c) for o, c in zip(out, cot) if c is not None and o.requires_grad]
            grads = torch.autograd.grad([o for o, _ in pairs], leaves, [c for _, c in pairs],
                                        allow_unused=True)
            grads = [torch.zeros_like(x) if g is None else g for x, g in zip(leaves, grads)]
        prep.ref.append(tuple(o.detach() for o in out))
        prep.twin.append(tuple(twin))
        prep.cot.append(cot)
        prep.ref_grads.append(grads)
    return prep


def _grad_copy(arg, case: Case, j: int):
    """Argument j with requires_grad where the case grades its gradient (strides kept)."""
    paths = [p for p in case.grad if p == j or (isinstance(p, tuple) and p[0] == j)]
    if not paths:
        return arg
    if isinstance(arg, dict):
        keys = {p[1] for p in paths}
        return {k: v.detach().requires_grad_(True) if k in keys else v for k, v in arg.items()}
    return arg.detach().requires_grad_(True)


def _leaf(args, path):
    return args[path] if isinstance(path, int) else args[path[0]][path[1]]


def variant_outputs(name: str, variant_id: str, i: int) -> tuple | None:
    """A known-wrong variant's outputs on case i (None if it fails on that case)."""
    prep, ex = prepare(name), catalog.get(name)
    key = (variant_id, i)
    if key not in prep.variants:
        variant = next(v for v in ex.variants if v.id == variant_id)
        case = prep.cases[i]
        try:
            with torch.no_grad():
                prep.variants[key] = tuple(as_tuple(variant.impl(*case.args))) if variant.fn == case.fn else None
        except Exception:  # noqa: BLE001 - a variant may well crash where the mistake would
            prep.variants[key] = None
    return prep.variants[key]


# --------------------------------------------------------------------------------- grading


def check(name: str, file: Path | str, timeout: float = TIMEOUT) -> Report:
    return check_many([(name, file)], timeout)[0]


@contextlib.contextmanager
def one_thread():
    """The cases are tiny: extra intra-op threads only contend (badly, on a busy machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


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
            calls = [{"fn": c.fn, "args": c.args, "grad": list(c.grad), "cot": cot or []}
                     for c, cot in zip(prep.cases, prep.cot)]
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
        report.syntax = {"line": e.lineno or 0, "col": e.offset or 0, "message": e.msg,
                         "code": (e.text or "").rstrip("\n")}
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
        report.diagnosis = _error_hint(report.exercise, payload["import_error"])
        return
    prep, ex = prepare(report.exercise), catalog.get(report.exercise)
    for i, (case, call) in enumerate(zip(prep.cases, payload["calls"])):
        report.cases.append(_grade_case(ex, prep, i, case, call))
    failing = [c for c in report.cases if not c.ok]
    if not failing:
        report.status = "passed"
    elif all(c.todo for c in failing):
        report.status = "todo"
    else:
        report.status = "crashed" if any(c.error and not c.todo for c in failing) else "failed"
        report.diagnosis = _diagnose(ex, prep, report, payload["calls"])


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
    for k, (y, r, t) in enumerate(zip(outs, ref, twin)):
        label = f"{k} ({fn.outputs[k]})" if len(ref) > 1 else f"({fn.outputs[k]})"
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
    names = [_path_name(ex, case, p) for p in case.grad]
    if call["grads"] is None:
        return Problem("grad_missing", yours=call["grad_note"]), ""
    for name, g, r in zip(names, call["grads"], prep.ref_grads[i]):
        if g is None:
            return Problem("grad_missing", yours="unused"), name
        problem = first_problem(g, r, ex.atol)
        if problem is not None:
            return problem, name
    problem = _twin_directional(ex, case, call["grads"], prep.cot[i])
    return problem, ", ".join(names)


def _twin_directional(ex: Exercise, case: Case, grads: list, cot: list) -> Problem | None:
    """⟨your gradient, u⟩ against the twin's (f(x + εu) - f(x - εu)) / 2ε · cotangent."""
    leaves = [_leaf(case.args, p) for p in case.grad]
    if any(float(x.abs().max()) > FD_MAX_INPUT for x in leaves):
        return None  # a finite difference around large inputs measures rounding, not slope
    gen = torch.Generator().manual_seed(7)
    dirs = [torch.randn(x.shape, generator=gen, dtype=torch.float64) for x in leaves]

    def twin_at(sign: float) -> tuple:
        args = list(case.args)
        for p, u in zip(case.grad, dirs):
            if isinstance(p, int):
                args[p] = args[p] + sign * FD_STEP * u
            else:
                args[p[0]] = {**args[p[0]], p[1]: args[p[0]][p[1]] + sign * FD_STEP * u}
        return ex.numpy_reference[case.fn](*args)

    plus, minus = twin_at(1.0), twin_at(-1.0)
    slope = sum(float(((a - b) / (2 * FD_STEP) * c).sum()) for a, b, c in zip(plus, minus, cot) if c is not None)
    yours = sum(float((g * u).sum()) for g, u in zip(grads, dirs))
    if abs(yours - slope) > FD_TOL * (1 + abs(slope)):
        return Problem("twin_slope", yours=yours, ref=slope, max_err=abs(yours - slope))
    return None


def _path_name(ex: Exercise, case: Case, path) -> str:
    args = ex.function(case.fn).args
    return args[path] if isinstance(path, int) else f'{args[path[0]]}["{path[1]}"]'


# ------------------------------------------------------------------------------- diagnosis


def _diagnose(ex: Exercise, prep: Prepared, report: Report, calls: list) -> tuple[str, dict] | None:
    """The most telling explanation of the failures: a known-wrong variant the learner's outputs
    equal, else a message for the kind of problem, else a hint read from the error message."""
    failing = [c for c in report.cases if not c.ok and not c.error and c.problem is not None]
    best, best_score = None, (0, 0)
    for variant in ex.variants:
        # a variant explains a failure when the learner's outputs equal the variant's there and
        # the variant's differ from the reference's; among the variants explaining at least one,
        # the one agreeing with the learner on the most cases (passing ones too) wins
        explains = agrees = 0
        for c in report.cases:
            outs = variant_outputs(ex.name, variant.id, c.index)
            mine = unpack(calls[c.index]["outputs"]) if "outputs" in calls[c.index] else None
            if outs is not None and mine is not None and _same(mine, outs, ex.atol):
                agrees += 1
                explains += c in failing and not _same(prep.ref[c.index], outs, ex.atol)
        if explains and (agrees, explains) > best_score:
            best, best_score = variant, (agrees, explains)
    if best is not None:
        return f"{ex.name}.wrong.{best.id}", {}
    for c in failing:
        if c.problem.what in ("dtype", "type", "count", "grad_missing", "twin_slope", "shape", "nan"):
            return f"msg.why.{c.problem.what}", {}
    errors = [c.error for c in report.cases if c.error and not c.todo]
    return _error_hint(ex.name, errors[0]) if errors else None


def _same(a, b, atol: float) -> bool:
    return len(a) == len(b) and all(same_values(x, y, max(atol, 1e-9)) for x, y in zip(a, b))


def _error_hint(name: str, error: dict) -> tuple[str, dict] | None:
    text = f"{error['type']}: {error['message']}"
    for pattern, key in catalog.get(name).error_hints + COMMON_ERROR_HINTS:
        if re.search(pattern, text):
            return key, {}
    return None

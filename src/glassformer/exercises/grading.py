"""Grading a learner's file, from its syntax tree to the sentence the learner reads.

    check(name, file)                one file            -> Report
    check_many([(name, file), ...])  many, one process   -> [Report]   (educator mode, tests)
    render(report)                   a Report as text, in the process's language

In the order a file goes through it:
  forbidden shortcuts   found by walking the learner's syntax tree (never by running it)
  expected values       each exercise's cases with glassformer.nn's and the NumPy twin's outputs,
                        computed once per process (`prepare`)
  reading               the file's bytes, which must be UTF-8 (anything else is refused, naming the byte)
  running               the learner's calls in a confined child process with a time limit (sandbox.py);
                        the report says whether the confinement was on
  comparing             values against the references: first mismatch, largest error
  diagnosing            a known-wrong variant the learner's outputs equal, or a hint
  the report            in the learner's language (the catalogue's `exercise.msg.*` keys)

The learner passes a case when every output agrees with both references, the gradients agree
with glassformer's autograd, and the derivative along a random direction agrees with the NumPy
twin's finite difference.

Two finite values agree entry by entry when  |yours - reference| <= atol · (1 + |reference|)
(absolute near zero, relative for large entries such as a loss on large logits); an infinity
agrees only with the same infinity, and so do two NaNs when two outputs are compared with each
other (never with a reference: the references are NaN-free, and a test checks it). Booleans and
integers must be equal. `first_problem` says what is wrong with one value, in the order a
learner should fix it: its type, its shape, its dtype, and only then its numbers.

Forbidden shortcuts: a rule names functions the exercise is about (softmax in the softmax
exercise, PyTorch's fused attention in the attention ones, ...). The learner's code may not
reach such a name as an attribute (torch.softmax(x), F.softmax(x), x.softmax(-1)), imported
from a library (from torch.nn.functional import softmax), or looked up by its name
(getattr(torch, "softmax"), vars(F)["softmax"]). Defining a function of that name is fine (the
learner writes `def softmax`), and so is calling the learner's OWN files: `from attention import
scaled_dot_product_attention` reads the file attention.py beside theirs, which is scanned with the
same rules. Comments and docstrings are never refused. Three checks hold in every exercise: no
glassformer (it is what the answer is graded against), no dynamic code, no star imports.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import glassformer.exercises.catalog as catalog
from glassformer.errors import DamagedFile, Unsupported
from glassformer.exercises.catalog import Case, Exercise, Rule, as_tuple, speaks
from glassformer.exercises.sandbox import QUOTA, TIMEOUT, Job, JobResult, run_jobs
from glassformer.messages import has, t

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
            rules = [(rule.names, rule.why) for rule in catalog.get(name).forbidden]
            jobs.append(Job(f"j{n}", Path(file), calls, limit, rules))
    # the reference solutions' folder is not for the learner's code to read (unless it is being graded)
    results = run_jobs(jobs, timeout, deny=(catalog._solutions_folder(),)) if jobs else {}
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
    try:
        source = read_source(file)
    except DamagedFile as e:
        report.status, report.refusal = "encoding", e
        return report
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
    try:
        report.offences = scan(file, catalog.get(name).forbidden, source)
    except DamagedFile as e:  # a sibling the file imports is not UTF-8
        report.status, report.refusal = "encoding", e
        return report
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
            "error.exercise.encoding",
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


def _grade(report: Report, result: JobResult) -> None:
    report.sandbox = result.sandbox
    if result.status == "done" and result.payload.get("forbidden"):  # refused at run time: see sandbox.Gate
        report.status = "forbidden"
        report.offences = [Offence(h["file"], h["line"], h["name"], h["why"]) for h in result.payload["forbidden"]]
        report.stdout = result.payload["stdout"]
        return
    if result.status != "done":
        report.status = {"timeout": "timeout"}.get(result.status, "crashed")
        report.exit_code, report.stdout = result.exit_code, result.stderr
        if result.status == "no_start":
            report.diagnosis = ("exercise.msg.no_start", {"stderr": result.stderr.strip()[-400:]})
        if result.status == "quota":
            report.diagnosis = ("exercise.msg.quota", {"mib": QUOTA >> 20})
        if result.status == "protocol":  # what came back is not what run_job writes: forged or broken
            report.diagnosis = ("exercise.msg.protocol", {"reason": result.reason})
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
    for k, (y, r, tw) in enumerate(zip(outs, ref, twin, strict=False)):
        label = f" {k} ({fn.outputs[k]})" if len(ref) > 1 else ""  # "output 1 (keys)" / "output"
        for reference, attr in ((r, "err_ref"), (tw, "err_twin")):
            problem = first_problem(y, reference, ex.atol)
            if problem is not None:
                res.problem, res.where = problem, label
                if problem.what in ("value", "nan"):
                    problem.max_err = max_error(y, r)
                    res.err_twin = max_error(y, tw)
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


# ----------------------------------------------------------------------------- forbidden shortcuts

# in every exercise: no glassformer import, no dynamic code, no star import from a library
DYNAMIC = ("exec", "eval", "compile", "__import__")
# ... and nothing that reaches the grader's guard (sandbox.Guard): torch's C internals, where the
# torch-function mode is disabled or popped, and a function's insides, where its rules are kept
INTERNALS = Rule(
    (
        "_C",
        "overrides",
        "_python_dispatch",
        "DisableTorchFunction",
        "DisableTorchFunctionSubclass",
        "_DisableTorchDispatch",
        "_pop_mode",
        "_push_mode",
        "_pop_mode_temporarily",
        "_get_current_function_mode_stack",
        "_get_current_dispatch_mode_stack",
        "__closure__",
        "cell_contents",
        "__code__",
        "__globals__",
        "__defaults__",
        "__kwdefaults__",
        "__torch_function__",
        "__torch_dispatch__",
        "__builtins__",
        "__subclasses__",
    ),
    "exercise.forbid.internals",
)


@dataclass(frozen=True)
class Offence:
    file: str  # the file's name (the learner's own, or a sibling it imports)
    line: int
    name: str  # what was reached, as written (e.g. "F.softmax")
    why: str  # text key


class _Scanner(ast.NodeVisitor):
    def __init__(self, file: str, rules: tuple[Rule, ...], siblings: set[str]) -> None:
        self.file, self.siblings = file, siblings
        self.why = {name: rule.why for rule in (INTERNALS, *rules) for name in rule.names}
        self.sibling_aliases: set[str] = set()  # names bound to the learner's own modules
        self.offences: list[Offence] = []
        self.imported_siblings: list[str] = []

    def add(self, node: ast.AST, name: str, why: str) -> None:
        offence = Offence(self.file, getattr(node, "lineno", 0), name, why)
        if any((o.line, o.why) == (offence.line, why) and o.name.startswith(name + ".") for o in self.offences):
            return  # torch._C within torch._C.DisableTorchFunction: the same reach, said once
        self.offences.append(offence)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            inner = [part for part in alias.name.split(".") if part in INTERNALS.names]
            if inner:  # import torch._C as C
                self.add(node, f"import {alias.name}", INTERNALS.why)
            elif root == "glassformer":
                self.add(node, f"import {alias.name}", "exercise.forbid.glassformer")
            elif root == "importlib":
                self.add(node, f"import {alias.name}", "exercise.forbid.dynamic")
            elif root in self.siblings:
                self.sibling_aliases.add(alias.asname or root)
                self.imported_siblings.append(root)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        root = module.split(".")[0]
        if node.level > 0:
            return  # a relative import: the learner's folder is no package, so Python refuses it
        if root in self.siblings:  # the learner's own file: allowed, and scanned in turn
            self.imported_siblings.append(root)
            return
        if root == "glassformer":
            self.add(node, f"from {module} import ...", "exercise.forbid.glassformer")
            return
        if root == "importlib":
            self.add(node, f"from {module} import ...", "exercise.forbid.dynamic")
        if any(part in INTERNALS.names for part in module.split(".")):  # from torch._C import ...
            self.add(node, f"from {module} import ...", INTERNALS.why)
            return
        for alias in node.names:
            if alias.name == "*":
                self.add(node, f"from {module} import *", "exercise.forbid.star")
            elif alias.name in self.why:
                self.add(node, f"from {module} import {alias.name}", self.why[alias.name])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.why and not (isinstance(node.value, ast.Name) and node.value.id in self.sibling_aliases):
            self.add(node, _dotted(node), self.why[node.attr])
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in DYNAMIC:
            self.add(node, node.id, "exercise.forbid.dynamic")

    def visit_Call(self, node: ast.Call) -> None:  # getattr(F, "softmax")
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in self.why
        ):
            self.add(node, f"getattr(…, {node.args[1].value!r})", self.why[node.args[1].value])
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:  # vars(F)["softmax"]
        if isinstance(node.slice, ast.Constant) and node.slice.value in self.why:
            self.add(node, f"…[{node.slice.value!r}]", self.why[node.slice.value])
        self.generic_visit(node)


def _dotted(node: ast.AST) -> str:
    """torch.nn.functional.softmax as written, or '….softmax' when the left side is an expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "…")
    return ".".join(reversed(parts))


def scan(path: Path, rules: tuple[Rule, ...], source: str | None = None) -> list[Offence]:
    """Offences in the learner's file and in the learner's own files it imports (transitively).

    The file must parse (the grader reports syntax errors before calling this); a sibling that
    does not parse is skipped here and fails when it is imported.
    """
    path = Path(path)
    siblings = {p.stem for p in path.parent.glob("*.py")} - {path.stem}
    offences, seen, todo = [], set(), [(path, source)]
    while todo:
        file, text = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        try:
            tree = ast.parse(text if text is not None else read_source(file))  # DamagedFile: not UTF-8
        except (SyntaxError, OSError):
            continue
        scanner = _Scanner(file.name, rules, siblings | {path.stem})
        scanner.visit(tree)
        offences += scanner.offences
        todo += [(path.parent / f"{name}.py", None) for name in scanner.imported_siblings]
    return offences


# --------------------------------------------------------------------------------- expected values


@dataclass
class Prepared:
    cases: list[Case]
    ref: list[tuple]  # glassformer.nn's outputs, per case
    twin: list[tuple]  # the NumPy twin's outputs, per case
    cot: list[list | None]  # cotangent per output (None: not differentiable / no gradient graded)
    ref_grads: list[list | None]  # d(cot · outputs)/d(input) per graded input
    variants: dict = field(default_factory=dict)  # (variant id, case index) -> outputs or None


@contextlib.contextmanager
def one_thread():
    """The cases are tiny: extra intra-op threads only contend (badly, on a busy machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@functools.lru_cache(maxsize=None)
def prepare(name: str) -> Prepared:
    with one_thread():
        return _prepare(catalog.get(name))


def _prepare(ex: Exercise) -> Prepared:
    name, cases = ex.name, ex.cases()
    prep = Prepared(cases, [], [], [], [])
    for i, case in enumerate(cases):
        gen = torch.Generator().manual_seed(1000 * ex.seed + i)
        args = [_grad_copy(a, case, j) for j, a in enumerate(case.args)]
        out = as_tuple(ex.reference[case.fn](*args))
        twin = ex.numpy_reference[case.fn](*case.args)
        for o, tw in zip(out, twin, strict=True):
            if first_problem(o.detach(), tw, ex.atol) is not None or bool(torch.isnan(tw.double()).any()):
                raise Unsupported("error.exercise.twin_disagrees", name=name, case=i)
        cot, grads = None, None
        if case.grad:
            cot = [torch.randn(o.shape, generator=gen, dtype=o.dtype) if o.is_floating_point() else None for o in out]
            leaves = [leaf(args, p) for p in case.grad]
            pairs = [(o, c) for o, c in zip(out, cot, strict=False) if c is not None and o.requires_grad]
            grads = torch.autograd.grad([o for o, _ in pairs], leaves, [c for _, c in pairs], allow_unused=True)
            grads = [torch.zeros_like(x) if g is None else g for x, g in zip(leaves, grads, strict=False)]
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


def leaf(args, path):
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


def path_name(ex: Exercise, case: Case, path) -> str:
    args = ex.function(case.fn).args
    return args[path] if isinstance(path, int) else f'{args[path[0]]}["{path[1]}"]'


# --------------------------------------------------------------------------------------- comparing


@dataclass
class Problem:
    """What is wrong with one returned value. `what` is a text key suffix:
    type | shape | dtype | value | nan | grad_missing."""

    what: str
    index: tuple[int, ...] | None = None  # the first entry (row-major) that disagrees
    yours: object = None
    ref: object = None
    max_err: float | None = None


def unpack(exported: dict) -> list:
    """The worker's export of a return value -> a flat list of tensors / other descriptions."""
    if exported["kind"] == "seq":
        return [_leaf(e) for e in exported["items"]]
    return [_leaf(exported)]


def _leaf(e: dict):
    if e["kind"] == "tensor":
        return e["value"]
    if e["kind"] == "scalar":
        return e["value"]
    if e["kind"] == "seq":
        return ("list", len(e["items"]))
    return (e["type"], e["repr"])


def max_error(yours: torch.Tensor, ref: torch.Tensor) -> float:
    """Largest |yours - ref| (0 where both are the same infinity, inf where only one is NaN/inf)."""
    if yours.shape != ref.shape or yours.numel() == 0:
        return 0.0 if yours.shape == ref.shape else float("inf")
    if ref.dtype == torch.bool or not ref.is_floating_point():
        return float((yours != ref).sum() > 0)
    y, r = yours.detach().to(torch.float64), ref.detach().to(torch.float64)
    same = (y == r) | (torch.isnan(y) & torch.isnan(r))
    diff = torch.where(same, torch.zeros_like(y), (y - r).abs())
    diff = torch.nan_to_num(diff, nan=float("inf"), posinf=float("inf"))  # inf stays inf, not 1.8e308
    return float(diff.max())


def _bad(yours: torch.Tensor, ref: torch.Tensor, atol: float, nan_equal: bool) -> torch.Tensor:
    """Bool mask of the entries that disagree."""
    if ref.dtype == torch.bool or not ref.is_floating_point():
        return yours != ref
    y, r = yours.detach().to(torch.float64), ref.detach().to(torch.float64)
    same = y == r  # also equal infinities
    if nan_equal:
        same = same | (torch.isnan(y) & torch.isnan(r))
    close = torch.isfinite(y) & torch.isfinite(r) & ((y - r).abs() <= atol * (1.0 + r.abs()))
    return ~(same | close)


def first_problem(yours, ref: torch.Tensor, atol: float) -> Problem | None:
    """None when `yours` agrees with the reference tensor `ref`; else the first thing to fix."""
    if not isinstance(yours, torch.Tensor):
        return Problem("type", yours=_describe(yours))
    if tuple(yours.shape) != tuple(ref.shape):
        return Problem("shape", yours=tuple(yours.shape), ref=tuple(ref.shape))
    if _kind(yours.dtype) != _kind(ref.dtype) or (ref.is_floating_point() and yours.dtype != ref.dtype):
        return Problem("dtype", yours=str(yours.dtype).replace("torch.", ""), ref=str(ref.dtype).replace("torch.", ""))
    bad = _bad(yours, ref, atol, nan_equal=False)
    if not bool(bad.any()):
        return None
    index = tuple(int(i) for i in np.argwhere(bad.numpy())[0])
    what = "nan" if bool(torch.isnan(yours.detach()).any()) else "value"
    return Problem(what, index, _item(yours, index), _item(ref, index), max_error(yours, ref))


def same_values(a, b: torch.Tensor, atol: float) -> bool:
    """Does the learner's value `a` equal a variant's value `b` (NaN = NaN, dtype kind counts)?"""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    if tuple(a.shape) != tuple(b.shape) or _kind(a.dtype) != _kind(b.dtype):
        return False
    return not bool(_bad(a, b, atol, nan_equal=True).any())


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "bool"
    return "float" if dtype.is_floating_point else ("complex" if dtype.is_complex else "int")


def _item(x: torch.Tensor, index: tuple[int, ...]):
    v = x.detach()[index] if index else x.detach()
    return v.item()


def _describe(value) -> str | tuple[str, int]:
    """What the learner returned instead of a tensor: its type's name, or ("list", n), which the
    report says in words when it is shown."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return value
    if isinstance(value, tuple) and len(value) == 2:
        return value[0]
    return type(value).__name__ if value is not None else "None"


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


# -------------------------------------------------------------------------------------- diagnosing

# errors whose message says enough to name the mistake, in every exercise
COMMON_ERROR_HINTS = (
    (r"view size is not compatible with input tensor's size and stride", "exercise.err.view"),
    (r"mat1 and mat2 shapes cannot be multiplied", "exercise.err.matmul"),
    (r"leaf Variable that requires grad is being used in an in-place operation", "exercise.err.inplace"),
    (r"must match the size of tensor b|shape mismatch|cannot broadcast|not broadcastable", "exercise.err.broadcast"),
    (r"can't allocate memory|MemoryError|out of memory", "exercise.err.memory"),
    (r"expected .*(Double|Float)|dtype", "exercise.err.dtype"),
)


def diagnose(ex: Exercise, prep: Prepared, report, calls: list) -> tuple[str, dict] | None:
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
        return f"exercise.{ex.name}.wrong.{best.id}", {}
    for c in failing:
        if c.problem.what in ("dtype", "type", "count", "grad_missing", "twin_slope", "shape", "nan"):
            return f"exercise.msg.why.{c.problem.what}", {}
    errors = [c.error for c in report.cases if c.error and not c.todo]
    return error_hint(ex.name, errors[0]) if errors else None


def _same(a, b, atol: float) -> bool:
    return len(a) == len(b) and all(same_values(x, y, max(atol, 1e-9)) for x, y in zip(a, b, strict=False))


def error_hint(name: str, error: dict) -> tuple[str, dict] | None:
    text = f"{error['type']}: {error['message']}"
    for pattern, key in catalog.get(name).error_hints + COMMON_ERROR_HINTS:
        if re.search(pattern, text):
            return key, {}
    return None


# -------------------------------------------------------------------------------------- the report


def title_line(name: str) -> str:
    return t(
        "exercise.msg.header",
        n=catalog.number(name),
        total=len(catalog.ORDER),
        name=name,
        title=t(f"exercise.{name}.title"),
    )


def case_label(name: str, index: int) -> str:
    case = prepare(name).cases[index]
    return t(case.label, **case.fields)


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


def sandbox_line(sandbox: dict | None) -> str:
    """One line: the confinement graded code ran in, or that it ran without one and why."""
    if sandbox is None:
        return t("exercise.msg.sandbox.unknown")
    if sandbox["on"]:
        return t("exercise.msg.sandbox.on", layers=", ".join(sandbox["layers"]))
    missing = ", ".join(t(f"exercise.msg.sandbox.part.{m}") for m in sandbox["missing"])
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
        detail = t(f"exercise.msg.grad_note.{note}") if has(f"exercise.msg.grad_note.{note}") else note
        return [t("exercise.msg.problem.grad_missing", where=res.where or "—", note=detail)]
    if p.what == "twin_slope":
        return [t("exercise.msg.problem.twin_slope", where=res.where, yours=f"{p.yours:.10g}", ref=f"{p.ref:.10g}")]
    prefix = "exercise.msg.problem.grad_" if res.stage == "grad" else "exercise.msg.problem."
    lines = [t(prefix + p.what, **fields)]
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

"""Comparing the learner's numbers with the expected ones, case by case.

    prepare(name)                     each case's expected values, computed once per process:
                                      glassformer.nn's outputs and gradients, the NumPy twin's outputs
    grade_case(ex, prep, i, case, call) -> CaseResult   one case's outputs and gradients, compared
    first_problem(yours, ref, atol)   what is wrong with one value, or None
    variant_outputs(name, id, i)      a known-wrong variant's outputs on case i (for diagnosing.py)

The learner passes a case when every output agrees with both references, the gradients agree
with glassformer's autograd, and the derivative along a random direction agrees with the NumPy
twin's finite difference.

Two finite values agree entry by entry when  |yours - reference| <= atol · (1 + |reference|)
(absolute near zero, relative for large entries such as a loss on large logits); an infinity
agrees only with the same infinity, and so do two NaNs when two outputs are compared with each
other (never with a reference: the references are NaN-free, and a test checks it). Booleans and
integers must be equal. `first_problem` says what is wrong with one value, in the order a
learner should fix it: its type, its shape, its dtype, and only then its numbers.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field

import numpy as np
import torch

import glassformer.exercises.catalog as catalog
from glassformer.errors import Unsupported
from glassformer.exercises.catalog import Case, Exercise, as_tuple

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
class Problem:
    """What is wrong with one returned value. `what`: missing | count | type | shape | dtype |
    value | nan | grad_missing | twin_slope (report.py words each; diagnosing.WHY explains some)."""

    what: str
    index: tuple[int, ...] | None = None  # the first entry (row-major) that disagrees
    yours: object = None
    ref: object = None
    max_err: float | None = None


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
                raise Unsupported(
                    "exercise.twin_disagrees",
                    "internal: glassformer and its NumPy twin disagree on {name} "
                    "case {case}: the exercise is broken, not your code.",
                    name=name,
                    case=i,
                )
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


def grade_case(ex: Exercise, prep: Prepared, i: int, case: Case, call: dict) -> CaseResult:
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
    problem = twin_directional(ex, case, call["grads"], prep.cot[i])
    return problem, ", ".join(names)


def twin_directional(ex: Exercise, case: Case, grads: list, cot: list) -> Problem | None:
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

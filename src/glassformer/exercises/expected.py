"""What a right answer is: each exercise's cases with their expected values, computed once per
process and kept (`prepare`).

    ref        glassformer.nn's outputs (torch, float64)
    twin       the NumPy twin's outputs; the two must agree, or the exercise is broken (an error)
    cot        a seeded random cotangent per differentiable output, so gradients are compared
               through every output entry at once: d(Σ cot · outputs) / d(input)
    ref_grads  that gradient, by autograd through glassformer.nn

The known-wrong variants' outputs are computed on demand and kept too (`variant_outputs`).
Everything runs on one torch thread: the tensors are tiny, and extra threads only contend.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field

import torch

from glassformer.exercises import catalog
from glassformer.exercises.compare import first_problem
from glassformer.exercises.spec import Case, Exercise, as_tuple


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
        for o, t in zip(out, twin, strict=True):
            if first_problem(o.detach(), t, ex.atol) is not None or bool(torch.isnan(t.double()).any()):
                raise RuntimeError(f"internal: glassformer and its NumPy twin disagree on {name} case {i}")
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

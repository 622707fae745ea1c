"""What an exercise is made of: the functions the learner writes, the cases they are graded on,
the two references, the known-wrong variants, and the operations the learner may not call.

Every exercise in `glassformer/exercises/defs/` builds one `Exercise`. Nothing here runs the
learner's code (runner.py and worker.py do, in a separate process) or prints anything
(report.py does, in the learner's language).

Conventions
  * Graded in float64: every floating-point input a case holds is a float64 tensor.
  * `reference[fn](*args)` computes the answer through glassformer.nn (torch, autograd),
    `numpy_reference[fn](*args)` through glassformer.numpy_ref (NumPy, no torch) or, where the
    twin has no such function, through a small NumPy version written in the exercise's file.
    Both return a tuple of outputs. The learner must match both within the exercise's `atol`.
  * A `Variant` is a small function with the learner's signature that makes one usual mistake.
    When the learner's output equals a variant's, the report names that mistake. A variant
    uses only torch, math and the helpers of the exercise's own solution file, so a test can
    paste it into a learner file and check that the mistake is recognised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

SOLUTIONS = Path(__file__).parent / "solutions"
ATOL = 1e-10  # float64 everywhere: a right answer differs from the reference by rounding only


@dataclass(frozen=True)
class Function:
    """One function the learner writes: `def name(signature)`, returning `outputs`."""

    name: str
    signature: str  # the text between the parentheses and the return annotation, e.g. "(x, dim=-1) -> torch.Tensor"
    args: tuple[str, ...]  # argument names in the order a case passes them
    outputs: tuple[str, ...]  # names of the returned values, for messages ("output", "weights")


@dataclass(frozen=True)
class Case:
    """One graded call: fn(*args). `label` is a text key (its fields in `fields`); `grad` lists the
    arguments whose gradients are compared: an index, or (index, key) for a dict of tensors."""

    label: str
    fn: str
    args: tuple
    grad: tuple = ()
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Variant:
    """A known-wrong version of function `fn`; `id` names its message (`<exercise>.wrong.<id>`)."""

    id: str
    fn: str
    impl: Callable


@dataclass(frozen=True)
class Rule:
    """Names the learner's code may not reach: as an attribute (torch.softmax, x.softmax), as a
    name imported from a library, or as a string (getattr tricks). `why` is a text key."""

    names: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Exercise:
    name: str
    functions: tuple[Function, ...]
    make_cases: Callable[[np.random.Generator], list[Case]]
    reference: dict[str, Callable[..., tuple]]
    numpy_reference: dict[str, Callable[..., tuple]]
    variants: tuple[Variant, ...] = ()
    forbidden: tuple[Rule, ...] = ()
    allowed: tuple[str, ...] = ()  # operations the skeleton names as the ones to use
    atol: float = ATOL
    error_hints: tuple[tuple[str, str], ...] = ()  # (regex on the learner's error, text key)
    header: str = "import math\n\nimport torch\n"  # the skeleton's imports
    seed: int = 0
    plugs_into: str = ""  # the glassformer part this function can replace (see docs/exercises.md)

    @property
    def solution_path(self) -> Path:
        return SOLUTIONS / f"{self.name}.py"

    def function(self, name: str) -> Function:
        return next(f for f in self.functions if f.name == name)

    def cases(self) -> list[Case]:
        """The graded cases, always the same ones: drawn from a generator seeded by the exercise."""
        return self.make_cases(np.random.default_rng(self.seed))


# ------------------------------------------------------------------ helpers for the definitions


def randn(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    """A float64 tensor of standard normal values times `scale`."""
    return torch.from_numpy(rng.standard_normal(shape) * scale)


def noncontiguous(t: torch.Tensor) -> torch.Tensor:
    """The same values, stored transposed: a view whose last two axes are not contiguous, so
    code that calls .view() on it (instead of .reshape()) fails the way it would in a model."""
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def to_numpy(x: Any) -> Any:
    """Case arguments as NumPy for the twin: tensors to arrays, dicts entry by entry."""
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    return x


def numpy_twin(fn: Callable[..., Any]) -> Callable[..., tuple]:
    """Wrap a NumPy function: tensors in, a tuple of float64/bool tensors out."""

    def wrapped(*args):
        out = fn(*(to_numpy(a) for a in args))
        out = out if isinstance(out, tuple) else (out,)
        return tuple(torch.from_numpy(np.asarray(o)) for o in out)

    return wrapped


def as_tuple(out: Any) -> tuple:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)

"""What an exercise is made of, and the list of them in data-flow order.

    ORDER, get(name), number(name)   the exercises (each a file in defs/ holding its definition,
                                     its reference solution and its known-wrong variants)
    Exercise, Function, Case,        the parts of a definition: the functions the learner writes,
    Variant, Rule                    the graded cases, the known mistakes, the refused shortcuts
    SOFTMAX, ATTENTION, ...          the refused shortcuts several exercises share
    randn, noncontiguous, ...        helpers the definitions build their cases and twins with

Nothing here runs the learner's code (sandbox.py does, in a separate process) or grades it
(grading/). Every word an exercise says is a catalogue key written literally in its defs/NAME.py
(an Exercise's title, todo and hints, a Function's doc, a Variant's note, a Case's label); the
sentences are in the one catalogue (glassformer.messages).

Conventions
  * Graded in float64: every floating-point input a case holds is a float64 tensor.
  * `reference[fn](*args)` computes the answer through glassformer.nn (torch, autograd),
    `numpy_reference[fn](*args)` through glassformer.numpy_ref (NumPy, no torch) or, where the
    twin has no such function, through a small NumPy version written in the exercise's file.
    Both return a tuple of outputs. The learner must match both within the exercise's `atol`.
  * A `Variant` is a small function with the learner's signature that makes one usual mistake.
    When the learner's output equals a variant's, the report names that mistake. A variant
    uses only torch, math and the helpers of the exercise's reference solution, so a test can
    paste it into a learner file and check that the mistake is recognised.
"""

from __future__ import annotations

import atexit
import difflib
import functools
import importlib
import inspect
import shutil
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from glassformer.errors import UsageError
from glassformer.messages import N_, in_language, t

ATOL = 1e-10  # float64 everywhere: a right answer differs from the reference by rounding only


@dataclass(frozen=True)
class Function:
    """One function the learner writes: `def name(signature)`, returning `outputs`."""

    name: str
    signature: str  # the text between the parentheses and the return annotation, e.g. "(x, dim=-1) -> torch.Tensor"
    args: tuple[str, ...]  # argument names in the order a case passes them
    outputs: tuple[str, ...]  # names of the returned values, for messages ("output", "weights")
    doc: str  # text key: the skeleton's docstring (the math and the shape contract)


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
    """A known-wrong version of function `fn`; `note` (a text key) says what the mistake is when
    the learner's outputs equal the variant's."""

    id: str
    fn: str
    impl: Callable
    note: str


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
    title: str  # text keys: the exercise's title, its skeleton's TODO comment, three hints
    todo: str
    hints: tuple[str, str, str]
    variants: tuple[Variant, ...] = ()
    forbidden: tuple[Rule, ...] = ()
    allowed: tuple[str, ...] = ()  # operations the skeleton names as the ones to use
    atol: float = ATOL
    error_hints: tuple[tuple[str, str], ...] = ()  # (regex on the learner's error, text key)
    header: str = "import math\n\nimport torch\n"  # the skeleton's imports
    seed: int = 0
    plugs_into: str = ""  # the glassformer part this function can replace (see docs/exercises.md)
    solution: str = ""  # the reference solution: the text of a learner's file that passes

    @property
    def solution_path(self) -> Path:
        """The reference solution as a file, for what runs files (the grader's child process, a
        notebook): written once per process into a temporary folder removed at exit."""
        path = _solutions_folder() / f"{self.name}.py"
        if not path.is_file():
            path.write_text(self.solution, encoding="utf-8")
        return path

    def function(self, name: str) -> Function:
        return next(f for f in self.functions if f.name == name)

    def cases(self) -> list[Case]:
        """The graded cases, always the same ones: drawn from a generator seeded by the exercise."""
        return self.make_cases(np.random.default_rng(self.seed))


# ------------------------------------------------------------------ the shortcuts the exercises refuse

# rules the exercises share (each exercise picks its own)
# PyTorch's fused attention is a softmax too (softmax(q·kᵀ)·v with v the identity), and its math path
# runs aten._safe_softmax: both are refused where softmax is (sandbox.aten_names maps the fused
# kernels' aten names, _scaled_dot_product_flash_attention_for_cpu and the like, to its name)
SOFTMAX = Rule(
    (
        "softmax",
        "log_softmax",
        "softmin",
        "_softmax",
        "_safe_softmax",
        "Softmax",
        "LogSoftmax",
        "scaled_dot_product_attention",
    ),
    N_("PyTorch's softmax: this exercise is to write it."),
)
ATTENTION = Rule(
    (
        "scaled_dot_product_attention",
        "MultiheadAttention",
        "multi_head_attention_forward",
        "Transformer",
        "TransformerEncoder",
        "TransformerEncoderLayer",
        "TransformerDecoder",
        "TransformerDecoderLayer",
        "flash_attention",
    ),
    N_("PyTorch's built-in attention: this exercise is to write it."),
)
LAYER_NORM = Rule(
    (
        "layer_norm",
        "LayerNorm",
        "native_layer_norm",
        "group_norm",
        "GroupNorm",
        "batch_norm",
        "instance_norm",
        "rms_norm",
        "RMSNorm",
    ),
    N_("a built-in normalisation: this exercise is to write it."),
)
LINEAR = Rule(
    ("Linear", "linear", "bilinear", "addmm", "Sequential"), N_("a built-in linear layer: write x @ W.T + b.")
)
GELU = Rule(("gelu", "GELU"), N_("PyTorch's GELU: write it with torch.erf (or torch.tanh for 'gelu_tanh')."))
SILU = Rule(("silu", "SiLU", "swish"), N_("PyTorch's SiLU: write it as z * torch.sigmoid(z)."))
LOSS = Rule(
    ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "log_softmax", "LogSoftmax", "kl_div"),
    N_("a built-in loss or log-softmax: this exercise is to write it."),
)


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


# ------------------------------------------------------------------ the exercises

ORDER = (
    "softmax",  # the one nonlinearity attention needs
    "attention_scores",  # Q·Kᵀ/√D
    "causal_mask",  # who may attend to whom: no peeking at the future ...
    "padding_mask",  # ... nor at padding
    "attention",  # softmax(scores, masked)·V, NaN-free
    "heads",  # (B, T, C) <-> (B, H, T, D)
    "multi_head_attention",  # project, split, attend, merge, project
    "sinusoidal",  # + where each token sits
    "layer_norm",  # the normalisation around each half of a block
    "feed_forward",  # the per-token MLP
    "block",  # LN -> attention -> + -> LN -> FFN -> +
    "loss",  # next-token cross-entropy
    "sampling",  # top-k / top-p before drawing the next token
    "kv_cache",  # one decoding step that reuses the past keys and values
    "fruit",  # lesson 1's apple/banana/orange attention, by hand
    # the modern decoder's pieces (Llama, Qwen3, Mistral), each replacing one of GPT-2's above
    "rms_norm",  # instead of LayerNorm: no mean, no bias
    "swiglu",  # instead of the two-layer MLP: one path gates the other
    "rope",  # instead of a position table: q and k turned by their positions
    "gqa",  # instead of one key-value head per query head: groups share one
)


@functools.cache
def all_exercises() -> dict[str, Exercise]:
    return {name: importlib.import_module(f"glassformer.exercises.defs.{name}").EXERCISE for name in ORDER}


def get(name: str) -> Exercise:
    """The exercise called `name` (hyphens accepted for underscores); a clear error otherwise."""
    key = name.strip().replace("-", "_").removesuffix(".py")
    if key not in ORDER:
        near = difflib.get_close_matches(key, ORDER, n=1)
        hint = t(" Did you mean {near!r}?", near=near[0]) if near else ""
        raise UsageError(
            "exercise.unknown",
            "no exercise called {name!r}.{hint} `glassformer exercise list` shows all {n}.",
            name=name,
            hint=hint,
            n=len(ORDER),
        )
    return all_exercises()[key]


def number(name: str) -> int:
    """1-based position in the data-flow order."""
    return ORDER.index(get(name).name) + 1


def speaks(fn: Callable) -> Callable:
    """Run `fn` in the language of its `lang` argument (None: the process's language, which
    `glassformer --lang` sets), so a notebook or a test can ask for one view in Chinese."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def in_lang(*args, **kwargs):
        with in_language(signature.bind(*args, **kwargs).arguments.get("lang")):
            return fn(*args, **kwargs)

    return in_lang


@functools.cache
def _solutions_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="glassformer-solutions-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def solution_functions(source: str, *names: str) -> tuple[Callable, ...]:
    """Functions of a reference solution's text (run here: it imports only torch and math), for
    the known-wrong variants that reuse its helpers. They belong to no module of glassformer, so
    `variant_source` does not copy them: the solution's text already holds them."""
    namespace = types.ModuleType("glassformer_reference_solution")
    exec(compile(source, "<reference solution>", "exec"), namespace.__dict__)  # noqa: S102 - our own text
    return tuple(getattr(namespace, n) for n in names)

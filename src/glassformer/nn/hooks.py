"""Hook points: named identity functions that also say what the tensor passing through them is.

A module declares a hook point where it makes a tensor worth a name, in one line:

    self.hook_weights = HookPoint("weights", "B H T_q T_k", "attn.weights")

its stage id (one of STAGES: the step of the data flow it belongs to, the trace table's first
column), the letters of its axes (LETTERS, below), and what the tensor is, as an id. Ids, never
words: what a stage, a meaning or a letter is called, in English and Chinese, is the glossary's
(messages/glossary.py: `stage.<id>`, `means.<id>`, `letter.<L>`), looked up by a view only when it
shows one (inspect/words.py). Every view — the trace table, attention maps, gradient flow, the web
explorer, the lab — walks `model.hook_points()` and selects points by their stage id, so a new hook
point shows up everywhere with no edit elsewhere.

With nothing attached a hook point returns its input untouched, at the cost of one attribute check.
Attach a function and it can read the tensor (an activation cache) or replace it (ablation,
patching). The idea is TransformerLens's HookPoint; this is our own, deliberately small version.
`HookedModel` names the points after their place in the module tree and attaches the functions.
"""

from __future__ import annotations

import difflib
from contextlib import contextmanager
from typing import Callable, Iterator

import torch
from torch import nn

from glassformer.errors import Clause, Joined, NoKey, UsageError

# The stage ids of the model's own hook points, in data-flow order. A view selects points by these
# (`h.stage == "weights"`), never by the words shown for them; tests/nn/test_hook_ids.py keeps it so.
STAGES = (
    "embedding",
    "position",
    "mla",
    "qkv",
    "qk_norm",
    "rotary",
    "alibi",
    "scores",
    "weights",
    "z",
    "merged",
    "result",
    "attn_out",
    "cross_out",
    "residual",
    "layer_norm",
    "rms_norm",
    "final_norm",
    "identity",
    "router",
    "ffn_hidden",
    "moe",
    "ffn_out",
    "memory",
    "logits",
    "prediction",
)

# The letters every shape comment, hook declaration and parameter formula uses (nn/__init__.py states
# them in prose), in the order the views list them; what each stands for is the glossary's
# `letter.<L>`. A new letter is added here and there once; one missing still works, unexplained.
LETTERS = (
    *("B", "T", "T_q", "T_k", "S", "C", "H", "H_kv", "D", "D_n", "D_r", "D_v", "R_q", "R_kv"),
    *("F", "E", "K", "N_e", "V", "L", "d_in", "d_out"),
)


class Term:
    """A glossary id given as a field of another (the stage `layer_norm` inside the stage `identity`):
    its kind ("stage", "sublayer") and its id, data worded by the view in the same language as the
    sentence it goes into. Two strings, never one dotted name: an id is not a sentence's key."""

    def __init__(self, kind: str, id: str, **fields) -> None:
        self.kind, self.id, self.fields = kind, id, fields

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Term) and (self.kind, self.id, self.fields) == (other.kind, other.id, other.fields)

    def __repr__(self) -> str:
        return f"Term({self.kind!r}, {self.id!r}, **{self.fields!r})"


# fn(tensor, name) -> tensor to use instead, or None to keep the original
HookFn = Callable[[torch.Tensor, str], "torch.Tensor | None"]


class HookPoint(nn.Module):
    """Identity unless a function is attached. `stage`: a stage id; `axes`: letters; `means`: the
    id of what the tensor is; `fields`: the values its words need (`i=1`, `position="learned"`).
    `name` is filled in by the owning model."""

    def __init__(self, stage: str, axes: str, means: str, /, **fields) -> None:
        super().__init__()
        self.name = ""
        self.stage, self.axes, self.means, self.fields = stage, axes, means, fields
        self.fns: list[HookFn] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for fn in self.fns:
            out = fn(x, self.name)
            if out is not None:
                if out.shape != x.shape:
                    raise UsageError(
                        "hook.shape",
                        "hook on {name!r} returned shape {got}, expected {want}: a hook may change values, not shapes.",
                        name=self.name,
                        got=tuple(out.shape),
                        want=tuple(x.shape),
                    )
                x = out
        return x

    # nn.Module.__call__ runs PyTorch's own hook machinery; we have ours, so skip it when idle.
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward(x) if self.fns else x

    def extra_repr(self) -> str:
        return f"{self.name!r}, {self.axes!r}"


def hint(name: str, known) -> Joined:
    """`name` quoted, with the nearest of `known` suggested when one is close (model.run_with_hooks's
    unknown names, a cache's missing key); worded when shown, as every error field made in nn/."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return Joined([repr(name), Clause(" (did you mean {near!r}?)", near=near[0]) if near else ""], "")


class ActivationCache(dict):
    """name -> detached activation, in forward order. A dict with a readable summary; in a notebook
    a table with each tensor's stage, axes and meaning (inspect/display.py draws it: `html_view`,
    set when glassformer.inspect is imported). `cache.lang = "zh"` shows the declarations in Chinese."""

    points: dict[str, HookPoint] = {}  # the declarations, filled in by run_with_cache
    lang: str = "en"
    html_view: Callable[[ActivationCache], str] | None = None  # a view's, never the model's

    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: tuple(t.shape) for name, t in self.items()}

    def __missing__(self, name):
        """cache[name] for a name it does not hold: a KeyError naming the nearest name it does hold,
        or, for a hook point the run was told not to keep, how to keep it."""
        if name in self.points:
            raise NoKey(
                "cache.not_kept",
                "{name!r} is a hook point, but this run did not keep it (its "
                "names / names_filter left it out of the {n} kept); run "
                "run_with_cache again with it among the names.",
                name=name,
                n=len(self),
            )
        raise NoKey(
            "cache.missing",
            "This cache holds no activation {hint}; cache.keys() lists the {n} it holds.",
            hint=hint(str(name), self),
            n=len(self),
        )

    def __repr__(self) -> str:
        rows = "\n".join(f"  {name:<28} {tuple(t.shape)}" for name, t in self.items())
        return f"ActivationCache({len(self)} tensors)\n{rows}"

    def _repr_html_(self) -> str | None:  # Jupyter's rich display, drawn by the view
        view = type(self).html_view
        return view(self) if view is not None else None


class HookedModel(nn.Module):
    """Gives any module with HookPoints stable names and the two ways to use them.

    A HookPoint stored as attribute `hook_q` of the module at path `blocks.0.attn` is named
    `blocks.0.attn.q`; one of a list `hook_expert` (an nn.ModuleList of points, one per expert) keeps
    its index: `blocks.0.ffn.hook_expert.3` is `blocks.0.ffn.expert.3`. Subclasses call
    `self.name_hook_points()` at the end of __init__.
    """

    def name_hook_points(self) -> None:
        self._hooks: dict[str, HookPoint] = {}
        for path, module in self.named_modules():
            if isinstance(module, HookPoint):
                parts = path.split(".")
                at = max(i for i, part in enumerate(parts) if part.startswith("hook_"))  # the attribute's name
                name = ".".join([*parts[:at], parts[at][len("hook_") :], *parts[at + 1 :]])
                module.name = name
                self._hooks[name] = module
        self.read_submodules_directly()

    def read_submodules_directly(self) -> None:
        """Put a plain reference to each submodule in its parent's instance dict, beside nn.Module's own
        registry. nn.Module keeps submodules in `_modules` and finds `self.attn` through its Python
        `__getattr__` fallback, ~0.4 µs a read; a forward reads ~180 submodules and hook points a
        token at `baby` (its decoding: `python bench/decode.py`). With the reference, a read is an
        ordinary attribute. Assigning a submodule (`block.ffn = other`, as LoRA does) drops the
        reference through nn.Module's own `__setattr__`, so the new one is read; containers
        (ModuleList, ModuleDict) are indexed through `_modules` and get none."""
        for module in self.modules():
            if isinstance(module, (nn.ModuleList, nn.ModuleDict, nn.Sequential)):
                continue
            for key, child in module._modules.items():
                if child is not None:
                    module.__dict__[key] = child

    def hook_points(self) -> dict[str, HookPoint]:
        """Every hook point by name, in the order the modules were built (each carries its
        stage, axes and meaning)."""
        return dict(self._hooks)

    def hook_names(self) -> list[str]:
        return list(self._hooks)

    def _resolve(self, names) -> list[str]:
        if names is None:
            return self.hook_names()
        if isinstance(names, str):
            names = [names]
        if callable(names):
            return [n for n in self._hooks if names(n)]
        unknown = [n for n in names if n not in self._hooks]
        if unknown:
            raise UsageError(
                "hook.unknown",
                "unknown hook point(s) {hints}; model.hook_names() lists them all.",
                hints=Joined([hint(n, self._hooks) for n in unknown]),
            )
        return list(names)

    @contextmanager
    def hooks_attached(self, hooks: dict[str, HookFn]) -> Iterator[None]:
        """fn(tensor, name) attached at each named point while the block runs, for a call other than
        forward (e.g. the model's run_from); run_with_hooks is this around forward."""
        names = self._resolve(list(hooks))
        try:
            for name in names:
                self._hooks[name].fns.append(hooks[name])
            yield
        finally:  # detach exactly what this call attached, so nested calls keep theirs
            for name in names:
                self._hooks[name].fns.remove(hooks[name])

    def run_with_hooks(self, *inputs, hooks: dict[str, HookFn], **kwargs):
        """Run forward with fn(tensor, name) attached at each named point; a fn may return a
        replacement tensor (same shape) or None to leave the activation alone."""
        with self.hooks_attached(hooks):
            return self(*inputs, **kwargs)

    def run_with_cache(self, *inputs, names=None, names_filter=None, **kwargs):
        """Run forward and return (output, ActivationCache of detached activations).

        `names`: None for every hook point, a list of names, or a predicate on the name (e.g.
        `lambda n: n.endswith("weights")`) to keep memory bounded. `names_filter` is the same
        argument under TransformerLens's name (give one of the two).
        """
        if names_filter is not None:
            if names is not None:
                raise UsageError(
                    "cache.names_twice",
                    "Give run_with_cache names or names_filter (TransformerLens's name for it), not both.",
                )
            names = names_filter
        cache = ActivationCache()
        cache.points = self._hooks  # the declarations, for the notebook table

        def store(t: torch.Tensor, name: str) -> None:
            cache[name] = t.detach()

        out = self.run_with_hooks(*inputs, hooks={n: store for n in self._resolve(names)}, **kwargs)
        return out, cache

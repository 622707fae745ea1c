"""Hook points: named identity functions that also say what the tensor passing through them is.

A module declares a hook point where it makes a tensor worth a name, in one line:

    self.hook_weights = hook("weights", "B H T_q T_k", "attn.weights")

the step of the data flow it belongs to (the trace table's first column), the letters of its
axes (LETTERS, below), and what the tensor is. The last two are keys of the glossary
(messages/glossary.py: one entry per stage, one per concept), which holds the
words in English and Chinese; the declaration carries them worded, as `stage`, `means`, `zh`,
`stage_zh`. (`HookPoint(stage, axes, means, zh, stage_zh)` with the words themselves still
works, for a module outside the model code.) Every view — the trace table, attention maps, gradient flow, the web
explorer, the lab — walks `model.hook_points()` and reads these declarations, so a new hook point
shows up everywhere with no edit elsewhere.

With nothing attached a hook point returns its input untouched, at the cost of one attribute check.
Attach a function and it can read the tensor (an activation cache) or replace it (ablation,
patching). The idea is TransformerLens's HookPoint; this is our own, deliberately small version.
`HookedModel` names the points after their place in the module tree and attaches the functions.
"""

from __future__ import annotations

import difflib
import html
from contextlib import contextmanager
from typing import Callable, Iterator

import torch
from torch import nn

from glassformer.errors import NoKey, UsageError
from glassformer.messages import TABLES, t

# The letters every shape comment, hook declaration and parameter formula uses (nn/__init__.py states
# them in prose), in the order the views list them; what each stands for is the glossary's
# `letter.<L>`. A new letter is added here and there once; one missing still works, unexplained.
LETTERS: dict[str, tuple[str, str]] = {
    L: (TABLES["en"][f"letter.{L}"], TABLES["zh"][f"letter.{L}"])
    for L in ("B", "T", "T_q", "T_k", "S", "C", "H", "D", "F", "V", "L", "d_in", "d_out")
}


def meaning(letter: str, lang: str = "en") -> str:
    """What a letter stands for, or "?" for a letter nobody has explained yet."""
    en, zh = LETTERS.get(letter, ("?", "?"))
    return zh if lang == "zh" else en


# fn(tensor, name) -> tensor to use instead, or None to keep the original
HookFn = Callable[[torch.Tensor, str], "torch.Tensor | None"]


class HookPoint(nn.Module):
    """Identity unless a function is attached. `name` is filled in by the owning model."""

    def __init__(self, stage: str, axes: str, means: str, zh: str, stage_zh: str | None = None) -> None:
        super().__init__()
        self.name = ""
        self.stage, self.axes, self.means = stage, axes, means
        self.zh, self.stage_zh = zh, stage_zh or stage
        self.fns: list[HookFn] = []

    def describe(self, lang: str = "en") -> dict[str, str]:
        """The declaration as plain data, in one language: name, stage, axes, means."""
        zh = lang == "zh"
        return {
            "name": self.name,
            "stage": self.stage_zh if zh else self.stage,
            "axes": self.axes,
            "means": self.zh if zh else self.means,
        }

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for fn in self.fns:
            out = fn(x, self.name)
            if out is not None:
                if out.shape != x.shape:
                    raise UsageError("error.hook.shape", name=self.name, got=tuple(out.shape), want=tuple(x.shape))
                x = out
        return x

    # nn.Module.__call__ runs PyTorch's own hook machinery; we have ours, so skip it when idle.
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward(x) if self.fns else x

    def extra_repr(self) -> str:
        return f"{self.name!r}, {self.axes!r}"


class Term:
    """A glossary entry used as a field of another (`stage.identity` of `stage.layer_norm`), worded
    in the same language as the sentence it goes into."""

    def __init__(self, key: str, **fields) -> None:
        self.key, self.fields = key, fields

    def words(self, lang: str) -> str:
        return _say(self.key, lang, self.fields)


def _say(key: str, lang: str, fields: dict) -> str:
    """The glossary entry `key` in `lang`, its fields filled in; a field that is a Term or an
    {"en": ..., "zh": ...} pair is worded in the same language."""

    def field(v):
        if isinstance(v, Term):
            return v.words(lang)
        return v[lang] if isinstance(v, dict) and set(v) == {"en", "zh"} else v

    return TABLES[lang][key].format(**{k: field(v) for k, v in fields.items()})


def hook(stage: str, axes: str, means: str, /, **fields) -> HookPoint:
    """A hook point declared in the glossary's words (messages/glossary.py): its stage
    `stage.<stage>`, the letters of its axes, and what its tensor is, `means.<means>`."""
    stage_key, means_key = f"stage.{stage}", f"means.{means}"
    return HookPoint(
        _say(stage_key, "en", fields),
        axes,
        _say(means_key, "en", fields),
        _say(means_key, "zh", fields),
        _say(stage_key, "zh", fields),
    )


def hint(name: str, known) -> str:
    """`name` quoted, with the nearest of `known` suggested when one is close (model.run_with_hooks's
    unknown names, a cache's missing key)."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return repr(name) + (t("hook.did_you_mean", near=near[0]) if near else "")


class ActivationCache(dict):
    """name -> detached activation, in forward order. A dict with a readable summary; in a notebook
    a table with each tensor's stage, axes and meaning (from its hook point's declaration) and its
    first numbers. `cache.lang = "zh"` shows the declarations in Chinese."""

    points: dict[str, HookPoint] = {}  # the declarations, filled in by run_with_cache
    lang: str = "en"

    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: tuple(t.shape) for name, t in self.items()}

    def __missing__(self, name):
        """cache[name] for a name it does not hold: a KeyError naming the nearest name it does hold,
        or, for a hook point the run was told not to keep, how to keep it."""
        if name in self.points:
            raise NoKey("error.cache.not_kept", name=name, n=len(self))
        raise NoKey("error.cache.missing", hint=hint(str(name), self), n=len(self))

    def __repr__(self) -> str:
        rows = "\n".join(f"  {name:<28} {tuple(t.shape)}" for name, t in self.items())
        return f"ActivationCache({len(self)} tensors)\n{rows}"

    def _repr_html_(self) -> str:  # Jupyter's rich display; every text is escaped
        words = TABLES[self.lang]
        head = [words[f"cache.column.{c}"] for c in ("name", "stage", "shape", "means", "first", "spread")]
        rows = [_cache_row(name, t, self.points.get(name), self.lang) for name, t in self.items()]
        td = 'style="padding: 2px 8px; border-bottom: 1px solid #e5e5e5; text-align: left"'
        mono = td[:-1] + '; font-family: monospace"'
        body = "".join(
            "<tr>"
            + "".join(f"<td {mono if i in (0, 2, 4, 5) else td}>{html.escape(c)}</td>" for i, c in enumerate(row))
            + "</tr>"
            for row in rows
        )
        title = html.escape(words["cache.title"].format(n=len(self)))
        return (
            f'<table style="border-collapse: collapse; font-size: 12px"><caption style="text-align: left">'
            f"{title}</caption><thead><tr>{''.join(f'<th {td}>{h}</th>' for h in head)}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )


def _cache_row(name: str, t: torch.Tensor, point: HookPoint | None, lang: str) -> tuple[str, ...]:
    """One row of the cache's table: name, stage, named shape, meaning, first numbers, mean ± std."""
    d = point.describe(lang) if point is not None else {"stage": "", "axes": "", "means": ""}
    axes = d["axes"].split()
    named = len(axes) == t.dim()  # an unexpected layout shows plain sizes rather than wrong letters
    dims = ", ".join(f"{a}={n}" if named else str(n) for a, n in zip(axes if named else t.shape, t.shape, strict=False))
    x = t.detach().float().reshape(-1)  # (numel,)
    first = ", ".join(f"{v:.3g}" for v in x[:4].tolist()) + (", …" if x.numel() > 4 else "")
    finite = x[torch.isfinite(x)]  # masked scores are -inf: the statistics are of the rest
    spread = f"{finite.mean().item():.3g} ± {finite.std().item():.3g}" if finite.numel() > 1 else first
    if finite.numel() < x.numel():
        spread += TABLES[lang]["cache.not_finite"].format(n=x.numel() - finite.numel())
    return name, d["stage"], f"({dims})", d["means"], f"[{first}]", spread


class HookedModel(nn.Module):
    """Gives any module with HookPoints stable names and the two ways to use them.

    A HookPoint stored as attribute `hook_q` of the module at path `blocks.0.attn` is named
    `blocks.0.attn.q`. Subclasses call `self.name_hook_points()` at the end of __init__.
    """

    def name_hook_points(self) -> None:
        self._hooks: dict[str, HookPoint] = {}
        for path, module in self.named_modules():
            if isinstance(module, HookPoint):
                parent, _, leaf = path.rpartition(".")
                name = f"{parent}.{leaf[len('hook_') :]}" if parent else leaf[len("hook_") :]
                module.name = name
                self._hooks[name] = module

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
            raise UsageError("error.hook.unknown", hints=", ".join(hint(n, self._hooks) for n in unknown))
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
                raise UsageError("error.cache.names_twice")
            names = names_filter
        cache = ActivationCache()
        cache.points = self._hooks  # the declarations, for the notebook table

        def store(t: torch.Tensor, name: str) -> None:
            cache[name] = t.detach()

        out = self.run_with_hooks(*inputs, hooks={n: store for n in self._resolve(names)}, **kwargs)
        return out, cache

"""Gradient flow: how large each parameter's gradient is, and how much each step moves it.

After `loss.backward()`, for every parameter p with gradient g:

    grad_norm     ‖g‖₂                       vanishing below `vanish`, exploding above `explode`
    grad_abs_mean mean |g|                   the tutorials' "print(w.grad.mean())", made sign-proof
    update_ratio  ‖p_after - p_before‖ / ‖p_before‖   per optimizer step

A healthy update ratio is around 1e-3 (Karpathy, "Building makemore Part 3", 2022): far below,
the parameter hardly learns; far above, the step is large compared to the weight itself. The
ratio is measured, not estimated (lr·‖g‖/‖p‖ is only right for plain SGD; Adam rescales g), so
call `before_step()` and `after_step()` around `optimizer.step()`.

    monitor = GradientMonitor(model)
    loss.backward()
    rows = monitor.check(step)            # norms + GradientWarning on NaN/inf, vanish, explode
    monitor.before_step(); optimizer.step(); monitor.after_step()
    monitor.append_jsonl(run_dir / "metrics.jsonl", step)

or, for one look at a model without writing the loop: `gradient_flow(model, ids)` (the model is
left as it was). In a notebook the monitor shows itself as a table with a bar per gradient norm.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from glassformer.errors import Unsupported, UsageError
from glassformer.files import json_text
from glassformer.inspect.display import grads_html, status_words
from glassformer.inspect.params import first_use
from glassformer.inspect.trace import as_batch
from glassformer.messages import N_, columns, in_language, pad, pad_left, t
from glassformer.nn.loss import LOSSES


class GradientWarning(UserWarning):
    """A gradient vanished, exploded or became NaN/inf; the message names the parameter."""


@dataclass
class GradRow:
    name: str
    layer: str  # "embed", "block 0" … "block N-1", "head": the x axis of the plot
    shape: tuple[int, ...]
    grad_norm: float | None  # None: this parameter received no gradient
    grad_abs_mean: float | None
    weight_norm: float
    update_ratio: float | None = None  # filled by after_step()
    status: str = "ok"  # ok | vanishing | exploding | nan/inf | no grad


def layers_of(model: torch.nn.Module) -> dict[str, str]:
    """Parameter name -> the layer it belongs to: "block i" inside blocks.i, else "embed" for what
    the forward pass uses before the first block and "head" for what it uses after (measured by
    inspect/params.py, so any model kind groups correctly). When the output head holds no parameter
    of its own there (a head tied to the token table: its one weight is the table's, counted with
    "embed"), what is left after the blocks is named by its modules instead, e.g. "ln_final": a bar
    labelled "head" would show the final norm's gradient as the head's."""
    order = first_use(model)
    out = _layers(model, order)
    tail = [name for name, layer in out.items() if layer == "head"]
    owners = {name.rsplit(".", 1)[0] for name, _ in model.named_parameters(remove_duplicate=False)}
    output = max((m for m in owners if m in order), key=order.__getitem__, default=None)  # the last one used
    if tail and all(name.rsplit(".", 1)[0] != output for name in tail):
        label = " + ".join(dict.fromkeys(name.rsplit(".", 1)[0] for name in tail))
        out.update(dict.fromkeys(tail, label))
    return out


def _layers(model: torch.nn.Module, order: dict[str, int]) -> dict[str, str]:
    first_block = min((i for path, i in order.items() if re.fullmatch(r"(.*\.)?blocks\.\d+", path)), default=len(order))
    out = {}
    for name, _ in model.named_parameters():
        m = re.match(r"(.*?)blocks\.(\d+)\.", name)
        if m:
            out[name] = f"{m.group(1).replace('.', ' ')}block {m.group(2)}"
            continue
        module = name.rsplit(".", 1)[0]
        used = min(
            (i for path, i in order.items() if path == module or path.startswith(module + ".")), default=len(order)
        )
        out[name] = "embed" if used < first_block else "head"
    return out


class GradientMonitor:
    def __init__(self, model: torch.nn.Module, vanish: float = 1e-8, explode: float = 1e3) -> None:
        self.model, self.vanish, self.explode = model, vanish, explode
        self.layer = layers_of(model)
        self.rows: list[GradRow] = []
        self._before: dict[str, torch.Tensor] = {}
        self.loss: float | None = None  # set by gradient_flow: the loss whose gradients these are

    def check(self, step: int | None = None) -> list[GradRow]:
        """Read every parameter's .grad (after backward); warn about bad ones; return the rows."""
        self.rows = []
        for name, p in self.model.named_parameters():
            row = GradRow(name, self.layer[name], tuple(p.shape), None, None, p.detach().norm().item())
            if p.grad is None:
                row.status = "no grad"
            else:
                g = p.grad.detach()  # same shape as p
                row.grad_norm, row.grad_abs_mean = g.norm().item(), g.abs().mean().item()
                row.status = self._status(name, g, row.grad_norm, step)
            self.rows.append(row)
        return self.rows

    def _status(self, name: str, g: torch.Tensor, norm: float, step: int | None) -> str:
        at = t(" at step {step}", step=step) if step is not None else ""
        bad = int((~torch.isfinite(g)).sum())
        if bad:
            warnings.warn(
                t(
                    "gradient of {name!r}{at} has {bad} NaN/inf entries of "
                    "{total}: check the loss for log(0) or 0/0, lower the "
                    "learning rate, or clip gradients (grad_clip).",
                    name=name,
                    at=at,
                    bad=bad,
                    total=g.numel(),
                ),
                GradientWarning,
                stacklevel=3,
            )
            return "nan/inf"
        if norm > self.explode:
            warnings.warn(
                t(
                    "gradient of {name!r}{at} is exploding: norm {norm:.3g} > "
                    "{limit:g}. Lower the learning rate or set grad_clip.",
                    name=name,
                    at=at,
                    norm=norm,
                    limit=self.explode,
                ),
                GradientWarning,
                stacklevel=3,
            )
            return "exploding"
        if norm < self.vanish:
            warnings.warn(
                t(
                    "gradient of {name!r}{at} is vanishing: norm {norm:.3g} < "
                    "{limit:g}. Is the parameter used? Are activations saturated "
                    "or dead (ReLU)?",
                    name=name,
                    at=at,
                    norm=norm,
                    limit=self.vanish,
                ),
                GradientWarning,
                stacklevel=3,
            )
            return "vanishing"
        return "ok"

    def before_step(self) -> None:
        """Remember every parameter's value just before optimizer.step()."""
        self._before = {n: p.detach().clone() for n, p in self.model.named_parameters()}

    def after_step(self) -> None:
        """Fill each row's update_ratio = ‖p_after - p_before‖ / ‖p_before‖ (None where p_before = 0)."""
        if not self._before:
            raise Unsupported("grads.order", "call before_step() before optimizer.step(), then after_step().")
        by_name = {r.name: r for r in self.rows}
        for name, p in self.model.named_parameters():
            before = self._before[name]
            size = before.norm().item()
            if name in by_name and size > 0:  # a zero weight (fresh bias) has no ratio: left None
                by_name[name].update_ratio = (p.detach() - before).norm().item() / size
        self._before = {}

    def layer_norms(self) -> dict[str, float]:
        """Gradient norm per layer: √(Σ ‖g‖²) over the layer's parameters, in data-flow order."""
        out: dict[str, float] = {}
        for r in self.rows:
            if r.grad_norm is not None:
                out[r.layer] = math.hypot(out.get(r.layer, 0.0), r.grad_norm)
        layers = list(dict.fromkeys(self.layer.values()))  # parameter order: blocks in order

        def rank(k: str) -> tuple[int, int]:  # embed, the blocks in order, then what comes after them
            if k == "embed":
                return (0, 0)
            return (1, layers.index(k)) if re.fullmatch(r"(.* )?block \d+", k) else (2, 0)

        return {k: out[k] for k in sorted(out, key=rank)}

    def append_jsonl(self, path, step: int | None = None) -> Path:
        """Append one JSON line {"step", "kind": "grad_flow", "params": {name: {...}}}."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        params = {r.name: {k: v for k, v in asdict(r).items() if k not in ("name", "shape")} for r in self.rows}
        line = {"step": step, "kind": "grad_flow", "layers": self.layer_norms(), "params": params}
        with path.open("a", encoding="utf-8") as f:
            f.write(json_text(line) + "\n")  # a NaN or infinite norm: null
        return path

    def table(self, lang: str | None = None) -> str:
        """Aligned text table of the last check(); its words in `lang` ("en" or "zh"; default: the
        process's language). The rows' `status` stays the English word (metrics.jsonl keeps it)."""
        fmt = lambda v: "—" if v is None else f"{v:.2e}"  # noqa: E731
        with in_language(lang):
            c = {
                "parameter": t("parameter"),
                "shape": t("shape"),
                "norm": t("‖grad‖"),
                "mean": t("mean|g|"),
                "ratio": t("upd/w"),
                "status": t("status"),
            }
            head = (
                f"{pad(c['parameter'], 28)} {pad(c['shape'], 14)} {pad_left(c['norm'], 9)} "
                f"{pad_left(c['mean'], 9)} {pad_left(c['ratio'], 9)}  {c['status']}"
            )
            lines = [head, "-" * columns(head)]
            for r in self.rows:
                lines.append(
                    f"{r.name:<28} {str(r.shape):<14} {fmt(r.grad_norm):>9} "
                    f"{fmt(r.grad_abs_mean):>9} {fmt(r.update_ratio):>9}  {status_words(r.status)}"
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        loss = t(", loss {loss:.4f}", loss=self.loss) if self.loss is not None else ""
        head = t(
            "GradientMonitor({model}, {n} parameters checked{loss})",
            model=type(self.model).__name__,
            n=len(self.rows),
            loss=loss,
        )
        return head + ("\n" + self.table() if self.rows else t(": call loss.backward(), then check()"))

    def _repr_html_(self) -> str:  # Jupyter's rich display
        return grads_html(self)

    def plot(self, path) -> Path:
        """PNG: a bar per layer (its gradient norm, log scale) with each parameter as a dot."""
        from matplotlib.figure import Figure

        from glassformer.fonts import use_in_figure

        layers = self.layer_norms()
        if not layers:
            raise UsageError("grads.nothing_to_plot", "no gradients to plot: call loss.backward() and check() first.")
        names = list(layers)
        fig = Figure(figsize=(max(5.0, 1.1 * len(names) + 2), 4), layout="constrained")
        ax = fig.subplots()
        heights = [max(layers[n], 1e-30) for n in names]
        ax.bar(range(len(names)), heights, color="#4c72b0", alpha=0.6, label=t("layer ‖grad‖"))
        for r in self.rows:
            if r.grad_norm is not None and math.isfinite(r.grad_norm):
                ax.plot(names.index(r.layer), max(r.grad_norm, 1e-30), "o", color="#dd8452", ms=3)
        ax.plot([], [], "o", color="#dd8452", ms=3, label=t("one parameter's ‖grad‖"))
        finite = [v for v in layers.values() if math.isfinite(v) and v > 0] or [1.0]
        for level, colour, what in (
            (self.vanish, "grey", N_("vanish {level}")),
            (self.explode, "red", N_("explode {level}")),
        ):
            if min(finite) / 100 <= level <= max(finite) * 100:  # only thresholds near the data
                ax.axhline(level, color=colour, ls=":", lw=1, label=t(what, level=f"{level:g}"))
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 6 else 0)
        ax.set_ylabel(t("gradient L2 norm (log scale)"))
        ax.set_title(t("gradient flow: input side on the left, output side on the right"))
        ax.legend(fontsize=8, loc="best")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        use_in_figure(fig)  # Chinese words (and layer names) draw from the shipped font
        fig.savefig(path, dpi=110)
        return path


def gradient_flow(
    model: torch.nn.Module, ids_or_x, targets=None, lr: float | None = 1e-3, vanish: float = 1e-8, explode: float = 1e3
) -> GradientMonitor:
    """One forward/backward of the model's own loss, checked by a GradientMonitor, and with `lr` one
    Adam step so the update/weight ratio is measured. The model is left exactly as it was: weights,
    gradients, train/eval mode and the random state are put back.

    ids_or_x: what a user naturally has, (T,) or (B, T) ids, numbers as (T,), (T, d_in) or (B, T, d_in).
    targets: None to predict each next step of the input itself (input[:, :-1] -> input[:, 1:]).
    """
    x = as_batch(model, ids_or_x)  # (B, T) ids or (B, T, d_in) numbers
    if targets is None:
        if x.size(1) < 2:
            raise UsageError(
                "grads.too_short",
                "gradient_flow needs at least 2 steps to predict the next "
                "one, got {T}; pass a longer input, or targets=...",
                T=x.size(1),
            )
        x, targets = x[:, :-1], x[:, 1:]  # (B, T-1): each step predicts the next
    params = dict(model.named_parameters())
    saved = {n: (p.detach().clone(), p.grad) for n, p in params.items()}
    was_training = model.training
    try:
        cuda = sorted({p.device.index or 0 for p in params.values() if p.device.type == "cuda"})
        with torch.random.fork_rng(devices=cuda):  # dropout draws here do not move the caller's RNG
            model.train()
            for p in params.values():
                p.grad = None
            out = model(x)  # (B, T, V) logits or (B, T, d_out) numbers
            want = out.shape[:-1] if model.loss == "next_token" else out.shape  # (B, T) ids or (B, T, d_out)
            targets = torch.as_tensor(targets)
            if targets.numel() != want.numel():
                raise UsageError(
                    "grads.targets",
                    "targets of shape {shape} do not fit the model's output {out}: pass targets= of shape {want}.",
                    shape=tuple(targets.shape),
                    out=tuple(out.shape),
                    want=tuple(want),
                )
            targets = targets.reshape(want)
            loss = LOSSES[model.loss](out, targets)  # ()
            loss.backward()
        monitor = GradientMonitor(model, vanish, explode)
        monitor.loss = loss.item()
        monitor.check()
        if lr:
            optimizer = torch.optim.Adam(model.parameters(), lr=lr)
            monitor.before_step()
            optimizer.step()
            monitor.after_step()
    finally:
        with torch.no_grad():
            for n, p in params.items():
                p.copy_(saved[n][0])
                p.grad = saved[n][1]
        model.train(was_training)
    return monitor

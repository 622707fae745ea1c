"""What a learner sees in each picture, pinned: every figure the package draws, described artist by
artist and compared with an approved copy in tests/inspect/snapshots/figures/.

A picture's words, sizes, colours, line and marker styles, drawing order and data are its teaching,
and a wrong one is a bug no numeric test sees (mutation samples kept finding them one at a time: a
cell title's font size, a colour bar's length, a marker's size). The inputs are made by hand
(attention weights, a loss log, a patching grid, gradients), never a random model, so every number
is exact on any CPU. Positions that the layout engine computes from font metrics are left out;
positions in data coordinates (a cell's number, a line's points) are kept.

After an intended change of a picture, regenerate the copies and review the diff:

    GLASSFORMER_UPDATE_SNAPSHOTS=1 python -m pytest tests/inspect/test_figure_snapshots.py
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from glassformer import messages
from glassformer.inspect.attention_maps import AttentionMap, grid_figure, head_figure
from glassformer.inspect.causal_views import Grid, grid_png
from glassformer.inspect.gradflow import GradientMonitor
from glassformer.train.record import loss_figure

SNAPSHOTS = Path(__file__).parent / "snapshots" / "figures"
MATPLOTLIB = "matplotlib " + ".".join(matplotlib.__version__.split(".")[:2])  # the copies' first line


def num(v) -> str:
    """A number to 5 significant digits (a float32 sum's last bits, which may differ by CPU, do not show)."""
    v = float(v)
    return f"{v:.5g}" if math.isfinite(v) else str(v)


def colour(c) -> str:
    return "none" if c is None or (isinstance(c, str) and c == "none") else to_hex(c, keep_alpha=True)


def text_line(kind: str, t: Text, at: bool = True) -> str:
    where = f" at ({num(t.get_position()[0])}, {num(t.get_position()[1])})" if at else ""
    return (
        f"{kind} {t.get_text()!r}{where} size={num(t.get_fontsize())} colour={colour(t.get_color())} "
        f"ha={t.get_ha()} va={t.get_va()} rotation={num(t.get_rotation())} weight={t.get_weight()} "
        f"zorder={num(t.get_zorder())} font={t.get_fontname()}"
    )


def points(data) -> str:
    flat = [num(v) for v in np.asarray(data, dtype=np.float64).ravel()]
    return "[" + ", ".join(flat) + "]"


def artist_line(a) -> str | None:
    if isinstance(a, AxesImage):
        arr = a.get_array()
        mask = np.ma.getmaskarray(arr)
        values = np.round(np.ma.filled(arr.astype(np.float64), np.nan), 5)
        digest = hashlib.sha256(values.tobytes() + mask.tobytes()).hexdigest()[:16]
        lo, hi = a.get_clim()
        bad = colour(a.get_cmap().get_bad())
        return (
            f"image {arr.shape} values#{digest} masked={int(mask.sum())} cmap={a.get_cmap().name} bad={bad} "
            f"clim=({num(lo)}, {num(hi)}) interpolation={a.get_interpolation()} alpha={a.get_alpha()} "
            f"zorder={num(a.get_zorder())} extent={points(a.get_extent())}"
        )
    if isinstance(a, Line2D):
        return (
            f"line {a.get_label()!r} x={points(a.get_xdata())} y={points(a.get_ydata())} "
            f"colour={colour(a.get_color())} style={a.get_linestyle()} width={num(a.get_linewidth())} "
            f"marker={a.get_marker()} size={num(a.get_markersize())} alpha={a.get_alpha()} zorder={num(a.get_zorder())}"
        )
    if isinstance(a, Patch):
        box = a.get_bbox() if hasattr(a, "get_bbox") else None
        where = f"box=({num(box.x0)}, {num(box.y0)}, {num(box.x1)}, {num(box.y1)}) " if box is not None else ""
        return (
            f"patch {type(a).__name__} {a.get_label()!r} {where}face={colour(a.get_facecolor())} "
            f"edge={colour(a.get_edgecolor())} hatch={a.get_hatch()} width={num(a.get_linewidth())} "
            f"alpha={a.get_alpha()} zorder={num(a.get_zorder())}"
        )
    if isinstance(a, Text):
        return text_line("text", a) if a.get_text() else None
    if isinstance(a, Legend):
        entries = [text_line("  entry", t, at=False) for t in a.get_texts()]
        handles = [f"  handle {artist_line(h)}" for h in a.legend_handles if h is not None]
        return "\n".join([f"legend loc={a._loc} alpha={a.get_frame().get_alpha()}", *entries, *handles])
    return None


def describe(fig: Figure) -> str:
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()  # tick labels and layout exist once drawn
    w, h = fig.get_size_inches()
    out = [
        MATPLOTLIB,
        f"figure {num(w)} x {num(h)} in, dpi {num(fig.dpi)}, layout {type(fig.get_layout_engine()).__name__}",
    ]
    if fig._suptitle is not None:
        out.append(text_line("suptitle", fig._suptitle, at=False))
    for i, ax in enumerate(fig.axes):
        info = getattr(ax, "_colorbar_info", None)
        role = f"colour bar shrink={num(info['shrink'])} location={info['location']}" if info else "plot"
        out.append(f"axes {i}: {role}, xscale={ax.get_xscale()} yscale={ax.get_yscale()}")
        out.append(f"  xlim={points(ax.get_xlim())} ylim={points(ax.get_ylim())} aspect={ax.get_aspect()}")
        for label in (ax.title, ax.xaxis.label, ax.yaxis.label):
            if label.get_text():
                out.append("  " + text_line("label", label, at=False))
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            ticks = [t for t in axis.get_ticklabels() if t.get_text()]
            out.append(f"  {name}ticks at {points(axis.get_ticklocs())}")
            out += ["    " + text_line("tick", t, at=False) for t in ticks]
            grid = [g for g in axis.get_gridlines() if g.get_visible()]
            if grid:
                g = grid[0]
                out.append(f"    grid colour={colour(g.get_color())} alpha={g.get_alpha()} style={g.get_linestyle()}")
        for a in ax.get_children():
            if a is ax.patch or a in (ax.title, ax._left_title, ax._right_title):
                continue
            line = artist_line(a)
            if line is not None:
                out.append("  " + line.replace("\n", "\n  "))
    return "\n".join(out) + "\n"


def attention_maps():
    """Two layers of two heads over 4 tokens, causal, with weights chosen by hand (exact in float32)."""
    T = 4
    hidden = ~torch.tril(torch.ones(T, T, dtype=torch.bool))  # (T, T) the future
    base = torch.tensor([[1.0, 0, 0, 0], [0.75, 0.25, 0, 0], [0.5, 0.25, 0.25, 0], [0.125, 0.125, 0.25, 0.5]])
    other = torch.tensor([[1.0, 0, 0, 0], [0.0, 1.0, 0, 0], [0.0, 0.875, 0.125, 0], [0.0, 0.0, 0.625, 0.375]])
    heads = torch.stack([base, other])  # (H, T, T)
    return [
        AttentionMap("blocks.0.attn.weights", "B H T_q T_k", heads, hidden.expand(2, T, T)),
        AttentionMap("blocks.1.attn.weights", "B H T_q T_k", heads.flip(0), hidden.expand(2, T, T)),
    ]


def loss_records():
    logs = [{"kind": "log", "step": s, "loss": 4.0 - 0.25 * s / 10} for s in range(0, 101, 10)]
    evals = [{"kind": "eval", "step": s, "train_loss": 3.5 - s / 50, "val_loss": 3.75 - s / 60} for s in (0, 50, 100)]
    return logs + evals


def gradient_figure(keep, tmp_path):
    from glassformer.config import ModelConfig
    from glassformer.models import GPT

    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=4, d_model=4, n_heads=1, d_ff=4, n_layers=1, max_len=4))
    for i, p in enumerate(model.parameters()):
        p.grad = torch.full_like(p, 2.0**-i / math.sqrt(p.numel()))  # norms 1, 1/2, 1/4 ...: exact
    monitor = GradientMonitor(model, vanish=5e-6, explode=2.0)  # no parameter below or above
    monitor.check()
    monitor.plot(tmp_path / "grads.png")
    return keep


def patch_grid_figure(keep, tmp_path):
    values = [[1.0, 0.5, -0.25], [0.0, -1.0, 0.75]]
    grid_png(Grid("patching: resid_pre", ["L0", "L1"], ["a", "b", "c"], values), tmp_path / "grid.png")
    return keep


FIGURES = {  # name -> (the saved figures' list, tmp_path) -> the Figure or that list
    "attention-grid": lambda keep, tmp_path: grid_figure(attention_maps(), list("abcd")),
    "attention-head": lambda keep, tmp_path: head_figure(attention_maps(), list("abcd"), 1, 0),
    "loss": lambda keep, tmp_path: loss_figure(loss_records(), "baby"),
    "gradients": gradient_figure,
    "patch-grid": patch_grid_figure,
}


@pytest.mark.parametrize("name, lang", [(name, "en") for name in FIGURES] + [("loss", "zh"), ("attention-head", "zh")])
def test_each_picture_is_the_approved_one(name, lang, saved_figures, tmp_path):
    """In English, and two in Chinese (their words drawn from the shipped CJK font)."""
    path = SNAPSHOTS / f"{name}{'' if lang == 'en' else '-' + lang}.txt"
    with messages.speaking(lang):
        made = FIGURES[name](saved_figures, tmp_path)
        ((fig, _),) = made if isinstance(made, list) else [(made, None)]
        now = describe(fig)
    if os.environ.get("GLASSFORMER_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(now, encoding="utf-8")
    approved = path.read_text(encoding="utf-8")
    if approved.splitlines()[0] != MATPLOTLIB:  # another version draws its own defaults (tick fonts, margins)
        pytest.skip(f"{path} was approved on {approved.splitlines()[0]}, this is {MATPLOTLIB}: regenerate it")
    diff = "\n".join(difflib.unified_diff(approved.splitlines(), now.splitlines(), "approved", "now", lineterm=""))
    assert now == approved, f"{name}: the picture differs from {path} (if intended, see this file's docstring):\n{diff}"


def test_the_description_sees_a_style_change():
    """describe() must tell two figures apart that differ only in a title's size, a colour bar's
    length, a marker's size or a text's drawing order."""

    def fig(title_size=9, shrink=0.8, ms=3, zorder=2):
        f = Figure(layout="constrained")
        ax = f.subplots()
        im = ax.imshow(np.eye(2))
        ax.set_title("t", fontsize=title_size)
        ax.plot([0, 1], [1, 0], "o", ms=ms)
        ax.text(0, 0, "1.00", zorder=zorder)
        f.colorbar(im, ax=ax, shrink=shrink)
        return describe(f)

    same = fig()
    assert fig() == same
    for changed in (dict(title_size=10), dict(shrink=1.0), dict(ms=4), dict(zorder=None)):
        assert fig(**changed) != same, changed

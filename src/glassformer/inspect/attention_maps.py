"""Attention maps: where every head of every layer looks, as PNG heatmaps.

    weights[l, h, i, j] = softmax_j(q_i · k_j / √D, masked)      read from the hook points of stage "weights"

Row i is the query (the token doing the looking), column j the key (the token looked at); each
row sums to 1. Cells the mask forbids (the future, under a causal mask; padding keys) are drawn
grey and hatched, not as a dark 0, so a reader sees "not allowed" rather than "ignored".
The maps are found by their hook points' declarations (stage "weights", and "scores" beside it
for the masked cells), never by module attributes. With attention="fused" those hooks never fire
(the fast path does not form the matrix), so the model is run once on its glass path instead:
same weights, same function, matrices visible.

An encoder-decoder has maps of three shapes: S × S (encoder), T × T (decoder self-attention) and
T × S (cross-attention: target queries, source keys). `attention_map_list` returns each with its
own shape and axes; the PNGs draw each map with its own shape, and take `labels` either as one
list (a single sequence) or as {"S": source labels, "T": target labels}, which each map's declared
axes pick from (its last two letters: S is the source, any T is the target).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from glassformer.errors import UsageError
from glassformer.inspect.trace import as_batch
from glassformer.messages import t

MIN_VALUE_POINTS = 5.0  # a cell's number is written only where it fits at this size or larger
MAX_VALUE_CELLS = 32  # ... and only for maps up to 32 × 32 (beyond that the colours say it)


def masked_note() -> str:
    """The legend of the hatched cells, in the user's language."""
    return t("grey hatched = masked (may not attend)")


@contextlib.contextmanager
def glass_path(model):
    """Run a block with the model on its hand-written attention path, then put back what it had."""
    before = model.cfg.attention
    if before != "glass":
        model.set_attention("glass")
    try:
        yield model
    finally:
        if before != "glass":
            model.set_attention(before)


def attention_hooks(model) -> list[tuple[str, str]]:
    """(weights hook, scores hook) of every attention layer, in the order they were built."""
    points = model.hook_points()
    pairs = []
    for name, hook in points.items():
        if hook.stage == "weights":
            owner = name.rsplit(".", 1)[0]
            scores = [n for n, h in points.items() if h.stage == "scores" and n.rsplit(".", 1)[0] == owner]
            pairs.append((name, scores[0] if scores else name))
    return pairs


@dataclass
class AttentionMap:
    name: str  # the weights hook point, e.g. "decoder.0.cross.weights"
    axes: str  # its declared axes, e.g. "B H T_q S"
    weights: torch.Tensor  # (H, T_q, T_k) for the first sequence
    hidden: torch.Tensor  # (H, T_q, T_k) bool, True = masked
    groups: int = 1  # g: query heads that share one key-value head (grouped-query attention; 1: each its own)

    def kv_head(self, head: int) -> int:
        """The key-value head query head `head` reads: ⌊h / g⌋ (heads h·g .. h·g + g - 1 share one)."""
        return head // self.groups

    def title(self, head: int) -> str:
        """A cell's title: the layer and the head, and under grouped-query attention the key-value
        head it shares."""
        name = self.name.removesuffix(".weights")
        if self.groups > 1:
            return t("{name} · head {head} (kv {kv})", name=name, head=head, kv=self.kv_head(head))
        return t("{name} · head {head}", name=name, head=head)


def attention_map_list(model, ids_or_x) -> list[AttentionMap]:
    """Every attention layer's weights and masked cells for the first sequence, in build order.
    ids_or_x: what the model reads (a tuple (src, tgt_in) for an encoder-decoder)."""
    x = as_batch(model, ids_or_x)  # (B, T) ids, (B, T, d_in) numbers, or a tuple of id tensors
    pairs = attention_hooks(model)
    names = sorted({n for pair in pairs for n in pair})
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad(), glass_path(model):
            inputs = x if isinstance(x, tuple) else (x,)
            _, cache = model.run_with_cache(*inputs, names=names)
    finally:
        model.train(was_training)
    points = model.hook_points()
    return [
        AttentionMap(w, points[w].axes, cache[w][0], torch.isneginf(cache[s][0]), query_groups(model, w))
        for w, s in pairs
    ]


def query_groups(model, weights_hook: str) -> int:
    """g of the attention module that owns a weights hook point (1 for a module that shares none):
    the query heads that read one key-value head (the explorer groups its heads by it too)."""
    owner = weights_hook.rpartition(".")[0]
    try:
        return int(getattr(model.get_submodule(owner), "groups", 1))
    except AttributeError:  # a hook point whose name is not its module's path
        return 1


def attention_maps(model, ids_or_x) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights (L, H, T, T) and the masked cells (L, H, T, T) bool for the first sequence, when
    every map has the same shape (use attention_map_list for an encoder-decoder's)."""
    return stacked(attention_map_list(model, ids_or_x))


def stacked(maps: list[AttentionMap]) -> tuple[torch.Tensor, torch.Tensor]:
    """attention_maps of maps already read: (L, H, T, T) weights and masked cells, one shape or refused."""
    shapes = {tuple(m.weights.shape) for m in maps}
    if len(shapes) > 1:
        listed = ", ".join(f"{m.name} {m.axes}" for m in maps)
        raise UsageError(
            "inspect.maps_shape",
            "this model's attention maps differ in shape ({shapes}): "
            "they cannot be stacked; use attention_map_list(model, x).",
            shapes=listed,
        )
    return torch.stack([m.weights for m in maps]), torch.stack([m.hidden for m in maps])  # (L, H, T, T) each


def check_head(maps: list[AttentionMap], layer: int | None, head: int | None) -> None:
    """Refuse a layer or head the model does not have, naming the ranges it does (None counts as 0)."""
    L, H = len(maps), maps[0].weights.size(0)
    if not (0 <= (layer or 0) < L and 0 <= (head or 0) < H):
        raise UsageError(
            "inspect.head_range",
            "layer={layer}, head={head} is outside this model: layers 0..{last_layer}, heads 0..{last_head}.",
            layer=layer,
            head=head,
            last_layer=L - 1,
            last_head=H - 1,
        )


def _axis_labels(labels, letter: str, n: int) -> list[str]:
    """The labels of one axis: a dict {"S": …, "T": …} is read by the axis letter."""
    if isinstance(labels, dict):
        side = "S" if letter.startswith("S") else "T"
        if side not in labels:
            raise UsageError(
                "inspect.labels_side",
                "labels has no {side!r} entry for the axis {axis!r}: give {{'S': source labels, 'T': target labels}}.",
                side=side,
                axis=letter,
            )
        labels = labels[side]
    return _labels(labels, n)


def _map_labels(m: AttentionMap, labels) -> tuple[list[str], list[str]]:
    """(row labels, column labels) of a map: its query and key axes."""
    letters = m.axes.split()
    return _axis_labels(labels, letters[-2], m.weights.size(1)), _axis_labels(labels, letters[-1], m.weights.size(2))


def _labels(labels, T: int) -> list[str]:
    labels = [str(t) for t in range(T)] if labels is None else [str(s) for s in labels]
    if len(labels) != T:
        raise UsageError(
            "inspect.labels_count",
            "{n} labels for {tokens} tokens: give one label per token (or labels=None for positions).",
            n=len(labels),
            tokens=T,
        )
    return labels


def _draw(
    ax,
    w: np.ndarray,
    hidden: np.ndarray,
    labels,
    font,
    fontsize: float,
    xlabels: bool = True,
    ylabels: bool = True,
):
    """One heatmap (T_q, T_k): masked cells transparent over a hatched grey patch. labels: one
    list for both axes, or (row labels, column labels)."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    rows, cols = labels if isinstance(labels, tuple) else (labels, labels)
    T_q, T_k = w.shape
    cmap = colormaps["viridis"].with_extremes(bad=(0, 0, 0, 0))  # masked -> see-through
    ax.add_patch(
        Rectangle((-0.5, -0.5), T_k, T_q, facecolor="0.85", edgecolor="0.55", hatch="///", linewidth=0, zorder=0)
    )
    im = ax.imshow(np.ma.masked_array(w, hidden), cmap=cmap, vmin=0.0, vmax=1.0, zorder=1, interpolation="nearest")
    xticks = list(range(0, T_k, max(1, T_k // 32)))  # thin the ticks of long sequences
    yticks = list(range(0, T_q, max(1, T_q // 32)))
    ax.set_xticks(
        xticks,
        [cols[t] for t in xticks] if xlabels else [],
        fontproperties=font,
        fontsize=fontsize,
        rotation=90 if max(map(len, cols)) > 2 else 0,
    )
    ax.set_yticks(yticks, [rows[t] for t in yticks] if ylabels else [], fontproperties=font, fontsize=fontsize)
    return im


def value_fontsize(ax, T_k: int, T_q: int, wanted: float) -> float | None:
    """The largest size up to `wanted` at which "0.00" fits inside one cell of `ax` as laid out
    (read from the drawn figure), or None when even MIN_VALUE_POINTS would not fit."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.textpath import TextPath

    fig = ax.figure
    if fig.canvas is None or not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    fig.canvas.draw()  # the constrained layout places the axes: their size is known from here
    box = ax.get_window_extent()  # pixels
    points_per_pixel = 72.0 / fig.dpi
    cell_w, cell_h = box.width / T_k * points_per_pixel, box.height / T_q * points_per_pixel
    extent = TextPath((0, 0), "0.00", size=1.0).get_extents()  # the text's size at 1 pt
    fit = min(0.85 * cell_w / extent.width, 0.7 * cell_h / max(extent.height, 0.5))
    size = min(wanted, fit)
    return size if size >= MIN_VALUE_POINTS else None


def _write_values(ax, w: np.ndarray, hidden: np.ndarray, wanted: float) -> None:
    """Each visible cell's weight, written where it fits (never overlapping its neighbours)."""
    T_q, T_k = w.shape
    if max(T_q, T_k) > MAX_VALUE_CELLS:
        return
    size = value_fontsize(ax, T_k, T_q, wanted)
    if size is None:
        return
    for i in range(T_q):
        for j in range(T_k):
            if not hidden[i, j]:
                ax.text(
                    j,
                    i,
                    f"{w[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if w[i, j] < 0.6 else "black",
                    zorder=2,
                )


def _fonted(label_lists: list[list[str]], words: tuple[str, ...] = ()):
    """One font for every label and the picture's own words (titles, axes, in the user's language),
    and the label lists (escaped where the font lacks a glyph)."""
    from glassformer.inspect.fonts import label_font

    font, flat = label_font([s for labels in label_lists for s in labels] + list(words))  # one font for all
    out, start = [], 0
    for labels in label_lists:
        out.append(flat[start : start + len(labels)])
        start += len(labels)
    return font, out


def attention_grid_png(model, ids, labels, path) -> Path:
    """One PNG: a heatmap per (attention layer, head), layers as rows, heads as columns, one colour
    bar. Each map keeps its own shape (an encoder-decoder's cross maps are T × S)."""
    return _save(grid_figure(attention_map_list(model, ids), labels), path)


def grid_figure(maps: list[AttentionMap], labels):
    """The grid of every head of every map as a matplotlib Figure."""
    from matplotlib.figure import Figure

    L, H = len(maps), maps[0].weights.size(0)
    masked = f"; {masked_note()}" if any(m.hidden.any() for m in maps) else ""
    words = (
        t("attention weights: rows = query (looking), columns = key (looked at){masked}", masked=masked),
        t("attention weight"),
        *(m.title(0) for m in maps),
    )
    font, flat = _fonted([axis for m in maps for axis in _map_labels(m, labels)], words)
    T = max(max(m.weights.shape[1:]) for m in maps)
    side = 1.6 + 0.09 * T
    fig = Figure(figsize=(side * H + 1.5, side * L + 0.8), layout="constrained")
    axes = fig.subplots(L, H, squeeze=False)
    fontsize = max(4.0, min(9.0, 180 / T))
    mixed = len({(m.axes, m.weights.shape) for m in maps}) > 1  # maps of several shapes: label every row
    for i, m in enumerate(maps):
        for h in range(H):
            ax = axes[i, h]
            im = _draw(
                ax,
                m.weights[h].numpy(),
                m.hidden[h].numpy(),
                (flat[2 * i], flat[2 * i + 1]),
                font,
                fontsize,
                xlabels=(i == L - 1 or mixed),
                ylabels=(h == 0),
            )
            ax.set_title(m.title(h), fontproperties=font, fontsize=9)
    bar = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8)
    bar.set_label(t("attention weight"), fontproperties=font)
    fig.suptitle(
        t("attention weights: rows = query (looking), columns = key (looked at){masked}", masked=masked),
        fontproperties=font,
        fontsize=10,
    )
    return fig


def attention_head_png(model, ids, labels, layer: int, head: int, path) -> Path:
    """One large PNG for a chosen head of the `layer`-th attention (in build order), the weight
    written in each cell when the map is small."""
    return _save(head_figure(attention_map_list(model, ids), labels, layer, head), path)


def head_figure(maps: list[AttentionMap], labels, layer: int, head: int):
    """One head of the `layer`-th map as a matplotlib Figure."""
    from matplotlib.figure import Figure

    check_head(maps, layer, head)
    m = maps[layer]
    masked = f"\n{masked_note()}" if m.hidden[head].any() else ""
    title = t("{name}, head {head} (each row sums to 1){masked}", name=m.name, head=head, masked=masked)
    words = (title, t("key: the token looked at"), t("query: the token looking"), t("attention weight"))
    font, (rows, cols) = _fonted(list(_map_labels(m, labels)), words)
    T = max(m.weights.shape[1:])
    side = max(5.0, 0.32 * T)
    fig = Figure(figsize=(side + 1.8, side + 0.6), layout="constrained")
    ax = fig.subplots()
    fontsize = max(5.0, min(12.0, 300 / T))
    ax.set_xlabel(t("key: the token looked at"), fontproperties=font)
    ax.set_ylabel(t("query: the token looking"), fontproperties=font)
    ax.set_title(title, fontproperties=font, fontsize=10)
    w, hidden = m.weights[head].numpy(), m.hidden[head].numpy()
    im = _draw(ax, w, hidden, (rows, cols), font, fontsize)
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    bar.set_label(t("attention weight"), fontproperties=font)
    _write_values(ax, w, hidden, fontsize * 0.8)  # after the layout is complete: the cells' size is final
    return fig


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path

"""Attention maps: where every head of every layer looks, as PNG heatmaps.

    weights[l, h, i, j] = softmax_j(q_i · k_j / √D, masked)      read from the hook points of stage "weights"

Row i is the query (the token doing the looking), column j the key (the token looked at); each
row sums to 1. Cells the mask forbids (the future, under a causal mask; padding keys) are drawn
grey and hatched, not as a dark 0, so a reader sees "not allowed" rather than "ignored".
The maps are found by their hook points' declarations (stage "weights", and "scores" beside it
for the masked cells), never by module attributes. With attention="fused" those hooks never fire
(the fast path does not form the matrix), so the model is run once on its glass path instead:
same weights, same function, matrices visible.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import torch

from glassformer.inspect.trace import as_batch

MASKED_NOTE = "grey hatched = masked (may not attend)"


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


def attention_maps(model, ids_or_x) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights (L, H, T, T) and the masked cells (L, H, T, T) bool for the first sequence."""
    x = as_batch(model, ids_or_x)  # (B, T) ids or (B, T, d_in) numbers
    pairs = attention_hooks(model)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad(), glass_path(model):
            _, cache = model.run_with_cache(x, names=sorted({n for pair in pairs for n in pair}))
    finally:
        model.train(was_training)
    weights = torch.stack([cache[w][0] for w, _ in pairs])  # (L, H, T, T): the first sequence
    hidden = torch.stack([torch.isneginf(cache[s][0]) for _, s in pairs])  # (L, H, T, T) True = masked
    return weights, hidden


def _labels(labels, T: int) -> list[str]:
    labels = [str(t) for t in range(T)] if labels is None else [str(s) for s in labels]
    if len(labels) != T:
        raise ValueError(f"{len(labels)} labels for {T} tokens: give one label per token "
                         "(or labels=None for positions).")
    return labels


def _draw(ax, w: np.ndarray, hidden: np.ndarray, labels, font, fontsize: float,
          xlabels: bool = True, ylabels: bool = True, values: bool = False):
    """One heatmap: masked cells transparent over a hatched grey patch."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    T = w.shape[0]
    cmap = colormaps["viridis"].with_extremes(bad=(0, 0, 0, 0))  # masked -> see-through
    ax.add_patch(Rectangle((-0.5, -0.5), T, T, facecolor="0.85", edgecolor="0.55",
                           hatch="///", linewidth=0, zorder=0))
    im = ax.imshow(np.ma.masked_array(w, hidden), cmap=cmap, vmin=0.0, vmax=1.0, zorder=1,
                   interpolation="nearest")
    step = max(1, T // 32)  # thin the ticks of long sequences
    ticks = list(range(0, T, step))
    ax.set_xticks(ticks, [labels[t] for t in ticks] if xlabels else [], fontproperties=font,
                  fontsize=fontsize, rotation=90 if max(map(len, labels)) > 2 else 0)
    ax.set_yticks(ticks, [labels[t] for t in ticks] if ylabels else [], fontproperties=font,
                  fontsize=fontsize)
    if values:
        for i in range(T):
            for j in range(T):
                if not hidden[i, j]:
                    ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center", fontsize=fontsize * 0.8,
                            color="white" if w[i, j] < 0.6 else "black", zorder=2)
    return im


def attention_grid_png(model, ids, labels, path) -> Path:
    """One PNG: a heatmap per (layer, head), layers as rows, heads as columns, one colour bar."""
    from matplotlib.figure import Figure

    from glassformer.inspect.fonts import label_font

    W, hidden = attention_maps(model, ids)  # (L, H, T, T) each
    L, H, T, _ = W.shape
    font, labels = label_font(_labels(labels, T))
    side = 1.6 + 0.09 * T
    fig = Figure(figsize=(side * H + 1.5, side * L + 0.8), layout="constrained")
    axes = fig.subplots(L, H, squeeze=False)
    fontsize = max(4.0, min(9.0, 180 / T))
    for l in range(L):
        for h in range(H):
            ax = axes[l, h]
            im = _draw(ax, W[l, h].numpy(), hidden[l, h].numpy(), labels, font, fontsize,
                       xlabels=(l == L - 1), ylabels=(h == 0))
            ax.set_title(f"layer {l} · head {h}", fontsize=9)
    fig.colorbar(im, ax=axes.ravel().tolist(), label="attention weight", shrink=0.8)
    masked = f"; {MASKED_NOTE}" if hidden.any() else ""
    fig.suptitle(f"attention weights: rows = query (looking), columns = key (looked at){masked}",
                 fontsize=10)
    return _save(fig, path)


def attention_head_png(model, ids, labels, layer: int, head: int, path) -> Path:
    """One large PNG for a chosen head, the weight written in each cell when T is small."""
    from matplotlib.figure import Figure

    from glassformer.inspect.fonts import label_font

    W, hidden = attention_maps(model, ids)  # (L, H, T, T) each
    L, H, T, _ = W.shape
    if not (0 <= layer < L and 0 <= head < H):
        raise ValueError(f"layer={layer}, head={head} is outside this model: layers 0..{L - 1}, "
                         f"heads 0..{H - 1}.")
    font, labels = label_font(_labels(labels, T))
    side = max(5.0, 0.32 * T)
    fig = Figure(figsize=(side + 1.8, side + 0.6), layout="constrained")
    ax = fig.subplots()
    fontsize = max(5.0, min(12.0, 300 / T))
    im = _draw(ax, W[layer, head].numpy(), hidden[layer, head].numpy(), labels, font, fontsize,
               values=T <= 16)
    ax.set_xlabel("key: the token looked at")
    ax.set_ylabel("query: the token looking")
    masked = f"\n{MASKED_NOTE}" if hidden[layer, head].any() else ""
    ax.set_title(f"blocks.{layer}.attn.weights, head {head} (each row sums to 1){masked}",
                 fontsize=10)
    fig.colorbar(im, ax=ax, label="attention weight", shrink=0.8)
    return _save(fig, path)


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path

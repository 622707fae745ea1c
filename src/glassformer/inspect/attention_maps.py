"""Attention maps: where every head of every layer looks, as PNG heatmaps.

    weights[l, h, i, j] = softmax_j(q_i · k_j / √D, masked)        read from blocks.{l}.attn.weights

Row i is the query (the token doing the looking), column j the key (the token looked at); each
row sums to 1. Cells the mask forbids (the future, under a causal mask; padding keys) are drawn
grey and hatched, not as a dark 0, so a reader sees "not allowed" rather than "ignored".
With attention="fused" the weights hook never fires (the fast path does not form the matrix);
then the map is recomputed from the cached q and k with the model's own mask and functions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from glassformer.nn.attention import attention_scores, attention_weights

WANTED = ("attn.q", "attn.k", "attn.scores", "attn.weights")
MASKED_NOTE = "grey hatched = masked (may not attend)"


def attention_maps(model, ids_or_x) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights (L, H, T, T) and the masked cells (L, H, T, T) bool for the first sequence."""
    x = torch.as_tensor(ids_or_x)  # (B, T), (T,) ids or (B, T, d_in), (T, d_in) numbers
    if x.dim() == (2 if x.dtype.is_floating_point else 1):
        x = x.unsqueeze(0)  # add the batch axis
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            _, cache = model.run_with_cache(x, names=lambda n: n.endswith(WANTED))
    finally:
        model.train(was_training)
    n_layers = sum(name.endswith("attn.q") for name in cache)
    weights, hidden = [], []
    for i in range(n_layers):
        p = f"blocks.{i}.attn."
        if p + "weights" in cache:
            scores, w = cache[p + "scores"], cache[p + "weights"]  # (B, H, T, T) each
        else:  # fused attention: rebuild the two steps the fast path skipped showing
            mask = model.attention_mask(x)
            scores = attention_scores(cache[p + "q"], cache[p + "k"], mask)  # (B, H, T, T)
            w = attention_weights(scores, mask)  # (B, H, T, T)
        weights.append(w[0])  # (H, T, T): the first sequence
        hidden.append(torch.isneginf(scores[0]))  # (H, T, T) True = masked
    return torch.stack(weights), torch.stack(hidden)  # (L, H, T, T), (L, H, T, T)


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

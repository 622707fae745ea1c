"""Attention maps as one object that shows itself: a heatmap PNG inline and the interactive viewer
of html.py in a frame, in a notebook; a small table of numbers in a terminal.

    view = attention_view(model, ids, tokenizer=tok)        # every head of every layer
    view = attention_view(model, ids, tokenizer=tok, layer=1, head=2)   # one head, large
    view                                                    # in Jupyter: PNG + interactive page
    view.weights[1, 2]                                      # (T_q, T_k), each row sums to 1
    view.maps                                               # each layer's map (an encoder-decoder's differ)
    view.save("out/attention")                              # the PNG and the HTML page as files

The matrices are computed once (attention_maps.py reads them from the hook points of stage
"weights") and every picture is drawn from them. An encoder-decoder's maps differ in shape (S×S,
T×T, T×S): they are drawn each with its own shape, and the interactive page, which shows maps of
one shape, is left out. Nothing is loaded from anywhere: the PNG is inline (base64) and the page
sits in the frame's `srcdoc`, escaped, with no URL.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import torch

from glassformer.errors import UsageError
from glassformer.inspect.attention_maps import (
    AttentionMap,
    _map_labels,
    attention_map_list,
    check_head,
    grid_figure,
    head_figure,
    masked_note,
)
from glassformer.inspect.display import esc
from glassformer.inspect.html import attention_page
from glassformer.inspect.trace import _width, as_batch, token_labels

SHOWN = 12  # tokens a terminal repr shows (rows and columns)


@dataclass(repr=False)
class AttentionView:
    maps: list[AttentionMap]  # every attention layer in build order: weights (H, T_q, T_k), each row sums to 1
    labels: list[str] | dict  # one per token; an encoder-decoder's {"S": source labels, "T": target labels}
    layer: int | None = None  # with head: the one head drawn large; None: the grid of every head
    head: int | None = None

    @property
    def square(self) -> bool:
        """Do all maps share one shape (a GPT, an encoder), so they stack and the page can show them?"""
        return len({tuple(m.weights.shape) for m in self.maps}) == 1

    @property
    def weights(self) -> torch.Tensor:
        """(L, H, T_q, T_k) of the first sequence, when every map has one shape."""
        return self._stacked("weights")

    @property
    def masked(self) -> torch.Tensor:
        """(L, H, T_q, T_k) bool, True where the mask forbids looking."""
        return self._stacked("hidden")

    def _stacked(self, field: str) -> torch.Tensor:
        if not self.square:
            raise UsageError("error.inspect.view_shape")
        return torch.stack([getattr(m, field) for m in self.maps])  # (L, H, T_q, T_k)

    def figure(self):
        """The matplotlib Figure: one head when layer or head is set, else the grid."""
        if self.layer is None and self.head is None:
            return grid_figure(self.maps, self.labels)
        return head_figure(self.maps, self.labels, self.layer or 0, self.head or 0)

    def png(self, dpi: int = 90) -> bytes:
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=dpi)
        return buf.getvalue()

    def page(self) -> str:
        """The interactive viewer (html.py) as one self-contained HTML document (maps of one shape)."""
        return attention_page(self.weights, self.masked, self.labels)

    def save(self, folder) -> list[Path]:
        """attention.png, and attention.html when the page can show the maps, in `folder`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "attention.png").write_bytes(self.png(dpi=110))
        if not self.square:
            return [folder / "attention.png"]
        (folder / "attention.html").write_text(self.page(), encoding="utf-8")
        return [folder / "attention.png", folder / "attention.html"]

    def _repr_html_(self) -> str:  # Jupyter: the picture, then the page in a sandboxed frame
        image = base64.b64encode(self.png()).decode("ascii")
        html = f'<div><img alt="{esc(self._title())}" style="max-width: 100%" src="data:image/png;base64,{image}">'
        if self.square:
            T = self.maps[0].weights.size(-1)
            height = min(1400, 260 + 48 * T)  # the page's two views: token lines, then the matrix
            html += (
                f"<details><summary>{esc('interactive view: pick a layer and head, hover a token')}"
                f'</summary><iframe sandbox="allow-scripts" style="width: 100%; height: {height}px; '
                f'border: 1px solid #ddd" srcdoc="{esc(self.page())}"></iframe></details>'
            )
        return html + "</div>"

    def __repr__(self) -> str:  # a terminal: the chosen head's weights as numbers
        layer, head = self.layer or 0, self.head or 0
        m = self.maps[layer]
        rows, cols = _map_labels(m, self.labels)
        w, hidden = m.weights[head], m.hidden[head]  # (T_q, T_k) each
        n_q, n_k = min(len(rows), SHOWN), min(len(cols), SHOWN)
        width = max(5, *(_width(s) for s in rows[:n_q] + cols[:n_k])) + 1
        cut = f", the first {n_q} × {n_k}:" if (n_q, n_k) != tuple(w.shape) else ":"
        lines = [
            self._title(),
            f"{m.name}, head {head} (rows = query, columns = key; · = masked){cut}",
            " " * width + "".join(_right(s, width) for s in cols[:n_k]),
        ]
        for i in range(n_q):
            cells = ("·" if hidden[i, j] else f"{w[i, j].item():.2f}" for j in range(n_k))
            lines.append(_right(rows[i], width) + "".join(_right(c, width) for c in cells))
        return "\n".join(lines)

    def _title(self) -> str:
        H = self.maps[0].weights.size(0)
        shapes = sorted({"×".join(map(str, m.weights.shape[1:])) for m in self.maps})
        masked = f"; {masked_note()}" if any(m.hidden.any() for m in self.maps) else ""
        return f"AttentionView: {len(self.maps)} layers × {H} heads, maps {', '.join(shapes)}{masked}"


def _right(s: str, width: int) -> str:
    return " " * (width - _width(s)) + s  # wide (CJK) characters count as two columns


def attention_view(
    model, ids_or_x, labels=None, tokenizer=None, layer: int | None = None, head: int | None = None
) -> AttentionView:
    """Attention of the first sequence of `ids_or_x` — (T,) or (B, T) ids, numbers as (T,), (T, d_in)
    or (B, T, d_in), an encoder-decoder's (src, tgt_in) — labelled with `labels`, else the
    tokenizer's pieces, else positions (ids) or values (numbers). layer/head: the one head to draw
    large (either given, the other defaults to 0)."""
    x = as_batch(model, ids_or_x)  # (B, T) ids, (B, T, d_in) numbers, or a tuple of (B, ·) ids
    x = tuple(part[:1] for part in x) if isinstance(x, tuple) else x[:1]  # the first sequence
    maps = attention_map_list(model, x)
    check_head(maps, layer, head)
    if labels is None:
        if isinstance(x, tuple):  # source and target, each by its own tokens
            labels = {"S": token_labels(x[0][0], tokenizer), "T": token_labels(x[1][0], tokenizer)}
        elif x.dtype.is_floating_point:
            labels = [f"{v:.2g}" for v in x[0, :, 0].tolist()]  # numbers: each step's first value
        else:
            labels = token_labels(x[0], tokenizer)
    view = AttentionView(maps, labels, layer, head)
    for m in maps:
        _map_labels(m, labels)  # one label per token, checked now rather than when first drawn
    return view

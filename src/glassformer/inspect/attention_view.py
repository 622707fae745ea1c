"""Attention maps as one object that shows itself: a heatmap PNG inline and the interactive viewer
of html.py in a frame, in a notebook; a small table of numbers in a terminal.

    view = attention_view(model, ids, tokenizer=tok)        # every head of every layer
    view = attention_view(model, ids, tokenizer=tok, layer=1, head=2)   # one head, large
    view                                                    # in Jupyter: PNG + interactive page
    view.weights[1, 2]                                      # (T_q, T_k), each row sums to 1
    view.save("out/attention")                              # the PNG and the HTML page as files

The matrices are computed once (attention_maps.py reads them from the hook points of stage
"weights") and every picture is drawn from them. Nothing is loaded from anywhere: the PNG is
inline (base64) and the page sits in the frame's `srcdoc`, escaped, with no URL.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import torch

from glassformer.inspect.attention_maps import MASKED_NOTE, _labels, attention_maps, grid_figure, head_figure
from glassformer.inspect.display import esc
from glassformer.inspect.html import attention_page
from glassformer.inspect.trace import _width, as_batch, token_labels

SHOWN = 12  # tokens a terminal repr shows (rows and columns)


@dataclass(repr=False)
class AttentionView:
    weights: torch.Tensor  # (L, H, T_q, T_k) of the first sequence; each row sums to 1
    masked: torch.Tensor  # (L, H, T_q, T_k) bool: True where the mask forbids looking
    labels: list[str]  # one per token
    layer: int | None = None  # with head: the one head drawn large; None: the grid of every head
    head: int | None = None

    def figure(self):
        """The matplotlib Figure: one head when layer and head are set, else the grid."""
        if self.layer is None and self.head is None:
            return grid_figure(self.weights, self.masked, self.labels)
        return head_figure(self.weights, self.masked, self.labels, self.layer or 0, self.head or 0)

    def png(self, dpi: int = 90) -> bytes:
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=dpi)
        return buf.getvalue()

    def page(self) -> str:
        """The interactive viewer (html.py) as one self-contained HTML document."""
        return attention_page(self.weights, self.masked, self.labels)

    def save(self, folder) -> list[Path]:
        """attention.png and attention.html in `folder`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "attention.png").write_bytes(self.png(dpi=110))
        (folder / "attention.html").write_text(self.page(), encoding="utf-8")
        return [folder / "attention.png", folder / "attention.html"]

    def _repr_html_(self) -> str:  # Jupyter: the picture, then the page in a sandboxed frame
        L, H, T, _ = self.weights.shape
        image = base64.b64encode(self.png()).decode("ascii")
        height = min(1400, 260 + 48 * T)  # the page's two views: token lines, then the matrix
        return (f'<div><img alt="{esc(self._title())}" style="max-width: 100%" '
                f'src="data:image/png;base64,{image}">'
                f'<details><summary>{esc("interactive view: pick a layer and head, hover a token")}</summary>'
                f'<iframe sandbox="allow-scripts" style="width: 100%; height: {height}px; border: 1px solid '
                f'#ddd" srcdoc="{esc(self.page())}"></iframe></details></div>')

    def __repr__(self) -> str:  # a terminal: the chosen head's weights as numbers
        T = self.weights.shape[-1]
        layer, head, n = self.layer or 0, self.head or 0, min(T, SHOWN)
        w, hidden = self.weights[layer, head], self.masked[layer, head]  # (T, T) each
        labels = self.labels[:n]
        width = max(5, *(_width(s) for s in labels)) + 1
        lines = [self._title(), f"layer {layer}, head {head} (rows = query, columns = key; · = masked)"
                 + (f", the first {n} of {T} tokens:" if n < T else ":"),
                 " " * width + "".join(_right(s, width) for s in labels)]
        for i in range(n):
            cells = ("·" if hidden[i, j] else f"{w[i, j].item():.2f}" for j in range(n))
            lines.append(_right(labels[i], width) + "".join(_right(c, width) for c in cells))
        return "\n".join(lines)

    def _title(self) -> str:
        L, H, T, _ = self.weights.shape
        masked = f"; {MASKED_NOTE}" if self.masked.any() else ""
        return f"AttentionView: {L} layers × {H} heads over {T} tokens{masked}"


def _right(s: str, width: int) -> str:
    return " " * (width - _width(s)) + s  # wide (CJK) characters count as two columns


def attention_view(model, ids_or_x, labels=None, tokenizer=None, layer: int | None = None,
                   head: int | None = None) -> AttentionView:
    """Attention of the first sequence of `ids_or_x` — (T,) or (B, T) ids, numbers as (T,), (T, d_in)
    or (B, T, d_in) — labelled with `labels`, else the tokenizer's pieces, else positions (ids) or
    values (numbers). layer/head: the one head to draw large (either given, the other defaults to 0)."""
    x = as_batch(model, ids_or_x)[:1]  # (1, T) or (1, T, d_in)
    W, masked = attention_maps(model, x)  # (L, H, T, T) each
    L, H = W.shape[:2]
    if not (0 <= (layer or 0) < L and 0 <= (head or 0) < H):
        raise ValueError(f"layer={layer}, head={head} is outside this model: layers 0..{L - 1}, heads 0..{H - 1}.")
    if labels is None:
        if x.dtype.is_floating_point:
            labels = [f"{v:.2g}" for v in x[0, :, 0].tolist()]  # numbers: each step's first value
        else:
            labels = token_labels(x[0], tokenizer)
    return AttentionView(W, masked, _labels(labels, W.shape[-1]), layer, head)

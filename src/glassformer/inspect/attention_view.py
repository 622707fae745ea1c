"""Attention maps as one object that shows itself: a heatmap PNG inline and the interactive viewer
(at the end of this file) in a frame, in a notebook; a small table of numbers in a terminal.

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

The interactive viewer: an interactive attention viewer in one self-contained HTML file (the spirit of bertviz and
CircuitsVis, in ~100 lines of our own JavaScript).

Open the file in any browser, offline: no CDN, no network, no URL anywhere in it. Pick a layer
and a head (or all heads); hover a token on the left to see where it looks (lines to the keys on
the right, thicker = more weight), hover a token on the right to see who looks at it. Below, the
same head as a matrix: rows = queries, columns = keys, masked cells hatched grey.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import torch

from glassformer.errors import UsageError
from glassformer.files import json_text
from glassformer.fonts import SANS, embedded_css, html_lang
from glassformer.inspect.attention_maps import (
    AttentionMap,
    _labels,
    _map_labels,
    attention_map_list,
    check_head,
    grid_figure,
    head_figure,
    masked_note,
    stacked,
)
from glassformer.inspect.display import esc
from glassformer.inspect.trace import _width, as_batch, token_labels
from glassformer.messages import NP_, t

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
            raise UsageError(
                "inspect.view_shape",
                "this model's attention maps differ in shape (an "
                "encoder-decoder): read view.maps[i].weights, each (H, T_q, "
                "T_k).",
            )
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
        """The interactive viewer (attention_page, below) as one self-contained HTML document (maps of one shape)."""
        return attention_page(self.weights, self.masked, self.labels, self.maps[0].groups)

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
                f"<details><summary>{esc(t('interactive view: pick a layer and head, hover a token'))}"
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
        cut = t(", the first {rows} × {cols}", rows=n_q, cols=n_k) if (n_q, n_k) != tuple(w.shape) else ""
        lines = [
            self._title(),
            t("{name}, head {head} (rows = query, columns = key; · = masked){cut}:", name=m.name, head=head, cut=cut),
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
        return t(
            "AttentionView: {layers} layers × {heads} heads, maps {shapes}{masked}",
            layers=len(self.maps),
            heads=H,
            shapes=", ".join(shapes),
            masked=masked,
        )


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


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The interactive viewer: one self-contained HTML page
# ────────────────────────────────────────────────────────────────────────────────────────────────

# JSON inside <script>: escape what could end the script or form a URL ("http:\/\/" is inert).
_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "/": "\\/"}


def script_json(value) -> str:
    """`value` as compact JSON to sit in a page's <script> (Chinese written as itself), with nothing in
    it that could end the script or form a URL. Every offline page with data uses it (the lab's
    attention-steps page too)."""
    data = json_text(value, ensure_ascii=False, separators=(",", ":"))
    for ch, escaped in _SAFE.items():
        data = data.replace(ch, escaped)
    return data


# The script pieces every offline page with words and a colour scale shares: its words (DATA.words,
# in its language) with their {fields} filled in, and viridis.
FILL_JS = """
const fill = (s, f) => Object.keys(f).reduce((a, k) => a.split("{" + k + "}").join(f[k]), s);
"""
VIRIDIS_JS = """
function viridis(x) {  // a few stops of viridis, linearly interpolated
  const s = [[68,1,84],[59,82,139],[33,145,140],[94,201,98],[253,231,37]];
  const p = Math.min(0.9999, Math.max(0, x)) * (s.length - 1), i = Math.floor(p), f = p - i;
  const c = s[i].map((v, k) => Math.round(v + f * (s[i + 1][k] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
"""

CSS = """
body { font-family: SANS; margin: 1.2em; color: #222; }
select { font-family: inherit; }
.controls { margin-bottom: 1em; } select { margin-right: 1.2em; font-size: 1em; }
.view { display: flex; align-items: flex-start; }
.col div { height: 22px; line-height: 22px; padding: 0 6px; cursor: default; white-space: pre;
           border-radius: 3px; }
.col.q div { text-align: right; } .col div.on { outline: 2px solid #e67e22; }
table { border-collapse: collapse; margin-top: 1.5em; font-size: 12px; }
td, th { width: 30px; height: 24px; text-align: center; padding: 0; }
th { font-weight: normal; white-space: pre; }
td.masked { background: repeating-linear-gradient(45deg, #d9d9d9 0 4px, #f2f2f2 4px 8px); }
tr.on th { color: #e67e22; font-weight: bold; }
.note { color: #666; font-size: 0.9em; }
"""

JS = (
    FILL_JS
    + VIRIDIS_JS
    + """
const L = DATA.weights.length, H = DATA.weights[0].length, T = DATA.tokens.length, ROW = 22;
const $ = (id) => document.getElementById(id);
let focus = null, side = null;  // hovered token index and which column it is in
function hue(h) { return `hsl(${Math.round(360 * h / H)}, 70%, 45%)`; }
function heads() { const v = $("head").value; return v === "all" ? [...Array(H).keys()] : [+v]; }
function tokenColumn(id, cls) {
  const col = $(id); col.className = "col " + cls; col.innerHTML = "";
  DATA.tokens.forEach((t, i) => {
    const d = document.createElement("div"); d.textContent = t;
    d.onmouseenter = () => { focus = i; side = cls; draw(); };
    d.onmouseleave = () => { focus = null; draw(); };
    col.appendChild(d);
  });
}
function draw() {
  const l = +$("layer").value, hs = heads(), cv = $("lines"), g = cv.getContext("2d");
  cv.height = T * ROW; g.clearRect(0, 0, cv.width, cv.height);
  for (const h of hs) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
    const w = DATA.weights[l][h][i][j];
    if (w === null || w < 0.01) continue;
    if (focus !== null && ((side === "q" && i !== focus) || (side === "k" && j !== focus))) continue;
    g.strokeStyle = hue(h); g.globalAlpha = focus === null ? w * 0.35 : Math.min(1, w + 0.1);
    g.lineWidth = 1 + 4 * w; g.beginPath();
    g.moveTo(0, i * ROW + ROW / 2); g.lineTo(cv.width, j * ROW + ROW / 2); g.stroke();
  }
  const qs = $("q").children, ks = $("k").children;
  for (let t = 0; t < T; t++) {
    qs[t].classList.toggle("on", side === "q" && focus === t);
    ks[t].classList.toggle("on", side === "k" && focus === t);
    qs[t].style.background = ks[t].style.background = "";
    if (focus !== null && hs.length === 1) {  // shade the other column by weight
      const w = side === "q" ? DATA.weights[l][hs[0]][focus][t] : DATA.weights[l][hs[0]][t][focus];
      const cell = side === "q" ? ks[t] : qs[t];
      cell.style.background = w === null ? "#e4e4e4" : `rgba(230,126,34,${w})`;
    }
  }
  matrix(l, hs[0]);
}
function matrix(l, h) {
  const tb = $("matrix"); tb.innerHTML = "";
  $("mtitle").textContent = fill(DATA.words.matrix, {l, h});
  const top = tb.insertRow(); top.appendChild(document.createElement("th"));
  DATA.tokens.forEach((t) => { const th = document.createElement("th"); th.textContent = t; top.appendChild(th); });
  for (let i = 0; i < T; i++) {
    const tr = tb.insertRow(); const th = document.createElement("th");
    th.textContent = DATA.tokens[i]; tr.appendChild(th);
    if (side === "q" && focus === i) tr.className = "on";
    for (let j = 0; j < T; j++) {
      const td = tr.insertCell(), w = DATA.weights[l][h][i][j];
      if (w === null) { td.className = "masked"; td.title = DATA.words.masked; continue; }
      td.style.background = viridis(w);
      td.title = `${DATA.tokens[i]} \\u2192 ${DATA.tokens[j]}: ${w.toFixed(3)}`;
    }
  }
}
for (let l = 0; l < L; l++) $("layer").add(new Option(fill(DATA.words.layer, {n: l}), l));
$("head").add(new Option(DATA.words.all_heads, "all"));
for (let h = 0; h < H; h++) {
  const kv = DATA.groups > 1 ? " · " + fill(DATA.words.kv, {n: DATA.kv[h]}) : "";  // the key-value head it shares
  $("head").add(new Option(fill(DATA.words.head, {n: h}) + kv, h));
}
$("layer").onchange = $("head").onchange = draw;
tokenColumn("q", "q"); tokenColumn("k", "k"); draw();
"""
)

PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>{font}{css}</style></head>
<body>
<h2>{heading}</h2>
<p class="note">{note}</p>
<div class="controls"><select id="layer"></select><select id="head"></select></div>
<div class="view"><div id="q"></div><canvas id="lines" width="260"></canvas><div id="k"></div></div>
<div id="mtitle" class="note" style="margin-top:1.5em"></div><table id="matrix"></table>
<script>const DATA = {data};</script>
<script>{js}</script>
</body></html>
"""


def attention_html(model, ids, labels, path) -> Path:
    """Write the viewer for the first sequence of `ids`; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    maps = attention_map_list(model, ids)
    path.write_text(attention_page(*stacked(maps), labels, maps[0].groups), encoding="utf-8")
    return path


def attention_page(W, hidden, labels, groups: int = 1) -> str:
    """The viewer as one HTML string, from weights and masked cells (L, H, T, T). Masked cells are null.
    groups: g query heads per key-value head (grouped-query attention); the page names each query
    head's key-value head (`kv`: ⌊h / g⌋) when g > 1."""
    labels = _labels(labels, W.shape[-1])
    kv = [h // groups for h in range(W.shape[1])]  # the key-value head each query head reads
    weights = [
        [
            [
                [None if hidden[k, h, i, j] else round(float(W[k, h, i, j]), 4) for j in range(W.shape[3])]
                for i in range(W.shape[2])
            ]
            for h in range(W.shape[1])
        ]
        for k in range(W.shape[0])
    ]
    words = {  # in the page's language; the script fills in {n} (a layer or head) and {l}, {h}
        "layer": t("layer {n}", n="{n}"),
        "head": t(NP_("pictures.attn.page.head", "head {n}"), n="{n}"),
        "all_heads": t("all heads"),
        "kv": t("kv head {n}", n="{n}"),
        "matrix": t(
            "layer {layer}, head {head}: rows = query, columns = key, each row sums to 1", layer="{l}", head="{h}"
        ),
        "masked": t("masked: may not attend"),
    }
    data = script_json({"tokens": labels, "weights": weights, "words": words, "kv": kv, "groups": groups})
    shown = {
        "title": t("glassformer attention"),
        "heading": t("Attention: where each token looks"),
        "note": t(
            "Hover a token on the left (query) to see the keys it "
            "attends to; hover one on the right (key) to see which "
            "queries attend to it. Colour = head; thickness = weight."
        ),
    }
    return fill_page(PAGE, CSS, JS, data, shown, [*labels, *words.values()])


def fill_page(page: str, css: str, js: str, data: str, shown: dict[str, str], drawn: list[str]) -> str:
    """An offline page's template filled in: its language, the shipped font cut to every character
    it may draw (`shown`, the words it states, and `drawn`, what its script writes), its style with
    the SANS fonts, its script and data. attention.html and the lab's attention-steps page use it."""
    text = "".join([*drawn, *shown.values()])
    return page.format(
        lang=html_lang(),
        font=embedded_css(text),
        css=css.replace("SANS", SANS),
        js=js,
        data=data,
        **{k: esc(v) for k, v in shown.items()},
    )

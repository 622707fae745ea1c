"""An interactive attention viewer in one self-contained HTML file (the spirit of bertviz and
CircuitsVis, in ~100 lines of our own JavaScript).

Open the file in any browser, offline: no CDN, no network, no URL anywhere in it. Pick a layer
and a head (or all heads); hover a token on the left to see where it looks (lines to the keys on
the right, thicker = more weight), hover a token on the right to see who looks at it. Below, the
same head as a matrix: rows = queries, columns = keys, masked cells hatched grey.
"""

from __future__ import annotations

import json
from pathlib import Path

from glassformer.inspect.attention_maps import _labels, attention_maps

# JSON inside <script>: escape what could end the script or form a URL ("http:\/\/" is inert).
_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "/": "\\/"}

CSS = """
body { font-family: "Noto Sans CJK SC", "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC",
       "DejaVu Sans", sans-serif; margin: 1.2em; color: #222; }
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

JS = """
const L = DATA.weights.length, H = DATA.weights[0].length, T = DATA.tokens.length, ROW = 22;
const $ = (id) => document.getElementById(id);
let focus = null, side = null;  // hovered token index and which column it is in
function hue(h) { return `hsl(${Math.round(360 * h / H)}, 70%, 45%)`; }
function viridis(x) {  // a few stops of viridis, linearly interpolated
  const s = [[68,1,84],[59,82,139],[33,145,140],[94,201,98],[253,231,37]];
  const p = Math.min(0.9999, Math.max(0, x)) * (s.length - 1), i = Math.floor(p), f = p - i;
  const c = s[i].map((v, k) => Math.round(v + f * (s[i + 1][k] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
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
  $("mtitle").textContent = `layer ${l}, head ${h}: rows = query, columns = key, each row sums to 1`;
  const top = tb.insertRow(); top.appendChild(document.createElement("th"));
  DATA.tokens.forEach((t) => { const th = document.createElement("th"); th.textContent = t; top.appendChild(th); });
  for (let i = 0; i < T; i++) {
    const tr = tb.insertRow(); const th = document.createElement("th");
    th.textContent = DATA.tokens[i]; tr.appendChild(th);
    if (side === "q" && focus === i) tr.className = "on";
    for (let j = 0; j < T; j++) {
      const td = tr.insertCell(), w = DATA.weights[l][h][i][j];
      if (w === null) { td.className = "masked"; td.title = "masked: may not attend"; continue; }
      td.style.background = viridis(w);
      td.title = `${DATA.tokens[i]} \\u2192 ${DATA.tokens[j]}: ${w.toFixed(3)}`;
    }
  }
}
for (let l = 0; l < L; l++) $("layer").add(new Option(`layer ${l}`, l));
$("head").add(new Option("all heads", "all"));
for (let h = 0; h < H; h++) $("head").add(new Option(`head ${h}`, h));
$("layer").onchange = $("head").onchange = draw;
tokenColumn("q", "q"); tokenColumn("k", "k"); draw();
"""

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>glassformer attention</title>
<style>{css}</style></head>
<body>
<h2>Attention: where each token looks</h2>
<p class="note">Hover a token on the left (query) to see the keys it attends to; hover one on the
right (key) to see which queries attend to it. Colour = head; thickness = weight.</p>
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
    path.write_text(attention_page(*attention_maps(model, ids), labels), encoding="utf-8")
    return path


def attention_page(W, hidden, labels) -> str:
    """The viewer as one HTML string, from weights and masked cells (L, H, T, T). Masked cells are null."""
    labels = _labels(labels, W.shape[-1])
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
    data = json.dumps({"tokens": labels, "weights": weights}, ensure_ascii=False)
    for ch, esc in _SAFE.items():
        data = data.replace(ch, esc)
    return PAGE.format(css=CSS, js=JS, data=data)

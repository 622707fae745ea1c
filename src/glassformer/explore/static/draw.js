// Drawing helpers with no knowledge of the model: colour scales, heatmaps on a canvas, line charts
// in SVG, a strip of coloured squares for a vector. Everything is drawn here, nothing loaded.
"use strict";

const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

function viridis(x) {  // x in [0, 1] -> [r, g, b], a few stops of viridis, linearly interpolated
  const p = Math.min(0.9999, Math.max(0, x)) * (VIRIDIS.length - 1), i = Math.floor(p), f = p - i;
  return VIRIDIS[i].map((v, k) => Math.round(v + f * (VIRIDIS[i + 1][k] - v)));
}

function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }

function diverging(x, scale) {  // blue < 0 < red, white at 0
  const a = Math.min(1, Math.abs(x) / (scale || 1));
  return x < 0 ? `rgba(44,123,182,${a})` : `rgba(215,48,39,${a})`;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function hatch(g) {  // grey diagonal hatching: a cell the mask forbids
  const c = document.createElement("canvas"); c.width = c.height = 6;
  const x = c.getContext("2d");
  x.fillStyle = "#f0f0f0"; x.fillRect(0, 0, 6, 6);
  x.strokeStyle = "#c8c8c8"; x.beginPath(); x.moveTo(0, 6); x.lineTo(6, 0); x.stroke();
  return g.createPattern(c, "repeat");
}

// One (T, T) matrix with token labels on both axes. Returns the geometry, for hit testing.
function drawMatrix(canvas, matrix, labels, focus) {
  const T = labels.length, cell = Math.max(7, Math.min(22, Math.floor(560 / Math.max(T, 1))));
  const g = canvas.getContext("2d"), font = `${Math.min(13, cell)}px sans-serif, "Glassformer CJK"`;
  g.font = font;  // room for the longest label, on the left and (turned) on top
  const margin = Math.ceil(Math.min(120, Math.max(16, ...labels.map((s) => g.measureText(s).width))) + 8);
  canvas.width = margin + T * cell + 4; canvas.height = margin + T * cell + 4;
  g.clearRect(0, 0, canvas.width, canvas.height);
  let lo = Infinity, hi = -Infinity;
  for (const row of matrix) for (const v of row) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const absolute = lo >= 0 && hi <= 1, span = absolute ? 1 : (hi - lo) || 1, base = absolute ? 0 : lo;
  const masked = hatch(g);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
    const v = matrix[i][j];
    g.fillStyle = v === null ? masked : rgb(viridis((v - base) / span));
    g.fillRect(margin + j * cell, margin + i * cell, cell, cell);
  }
  g.font = font; g.fillStyle = "#333"; g.textBaseline = "middle";
  for (let i = 0; i < T; i++) {
    g.textAlign = "right"; g.fillStyle = focus && focus.q === i ? "#d35400" : "#333";
    g.fillText(labels[i], margin - 4, margin + i * cell + cell / 2);
    g.save(); g.translate(margin + i * cell + cell / 2, margin - 4); g.rotate(-Math.PI / 2);
    g.textAlign = "left"; g.fillStyle = focus && focus.k === i ? "#1f6fb2" : "#333";
    g.fillText(labels[i], 0, 0); g.restore();
  }
  if (focus && focus.q !== null && focus.q < T) {  // outline the hovered row and column
    g.strokeStyle = "#d35400"; g.lineWidth = 2;
    g.strokeRect(margin, margin + focus.q * cell, T * cell, cell);
    if (focus.k !== null && focus.k < T) {
      g.strokeStyle = "#1f6fb2"; g.strokeRect(margin + focus.k * cell, margin, cell, T * cell);
    }
  }
  return {margin, cell, T};
}

function cellAt(geo, event) {  // mouse position -> [query, key] or null
  const r = event.target.getBoundingClientRect();
  const x = event.clientX - r.left - geo.margin, y = event.clientY - r.top - geo.margin;
  const i = Math.floor(y / geo.cell), j = Math.floor(x / geo.cell);
  return i >= 0 && j >= 0 && i < geo.T && j < geo.T ? [i, j] : null;
}

// One thumbnail per layer × head from the bytes the server sends (255 = masked).
function drawThumbnail(canvas, bytes, offset, T) {
  canvas.width = T; canvas.height = T;
  const g = canvas.getContext("2d"), img = g.createImageData(T, T);
  for (let p = 0; p < T * T; p++) {
    const b = bytes[offset + p], c = b === 255 ? [236, 236, 236] : viridis(b / 254);
    img.data.set([c[0], c[1], c[2], 255], p * 4);
  }
  g.putImageData(img, 0, 0);
}

function decodeBytes(b64) {
  const s = atob(b64), out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// A line chart: series [{values, color, dash, width, dots}], x labels under the points.
function lineChart(svg, series, xLabels, yLabel) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.dataset.w = svg.dataset.w || svg.getAttribute("width");  // the chart's own size, before fitLabels grew it
  svg.dataset.h = svg.dataset.h || svg.getAttribute("height");
  const W = +svg.dataset.w, H = +svg.dataset.h, L = 44, R = 10, Tp = 10, B = 44;
  const all = series.flatMap((s) => s.values.filter((v) => v !== null && v !== undefined));
  if (!all.length) return;
  let lo = Math.min(0, ...all), hi = Math.max(...all); if (hi === lo) hi = lo + 1;
  const n = Math.max(...series.map((s) => s.values.length));
  const x = (i) => L + (n > 1 ? i * (W - L - R) / (n - 1) : (W - L - R) / 2);
  const y = (v) => Tp + (H - Tp - B) * (1 - (v - lo) / (hi - lo));
  svg.appendChild(svgEl("line", {x1: L, y1: y(lo), x2: W - R, y2: y(lo), stroke: "#999"}));
  svg.appendChild(svgEl("line", {x1: L, y1: Tp, x2: L, y2: H - B, stroke: "#999"}));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    const tx = svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis"});
    tx.textContent = (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)); svg.appendChild(tx);
  }
  if (yLabel) {
    const tx = svgEl("text", {x: L + 6, y: Tp + 8, class: "axis"}); tx.textContent = yLabel; svg.appendChild(tx);
  }
  const every = Math.ceil(n / 16);
  (xLabels || []).forEach((lab, i) => {
    if (i % every) return;
    const tx = svgEl("text", {x: x(i), y: H - B + 14, "text-anchor": "end", class: "axis",
                              transform: `rotate(-35 ${x(i)} ${H - B + 14})`});
    tx.textContent = lab; svg.appendChild(tx);
  });
  for (const s of series) {
    const pts = s.values.map((v, i) => (v === null ? null : `${x(i)},${y(v)}`)).filter(Boolean).join(" ");
    svg.appendChild(svgEl("polyline", {points: pts, fill: "none", stroke: s.color,
                                       "stroke-width": s.width || 2, "stroke-dasharray": s.dash || ""}));
    if (s.dots) s.values.forEach((v, i) => {
      if (v !== null) svg.appendChild(svgEl("circle", {cx: x(i), cy: y(v), r: 2.5, fill: s.color}));
    });
  }
  fitLabels(svg, W, H);
}

// Grow an SVG's canvas to hold everything drawn in it (long turned axis labels ran past its edges
// and were cut off): the drawing keeps its scale, the canvas gains the margins it needs.
function fitLabels(svg, W, H) {
  const box = svg.getBBox();  // every child, its transform (the turned labels) applied
  const x0 = Math.min(0, Math.floor(box.x) - 2), y0 = Math.min(0, Math.floor(box.y) - 2);
  const x1 = Math.max(W, Math.ceil(box.x + box.width) + 2), y1 = Math.max(H, Math.ceil(box.y + box.height) + 2);
  svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
  svg.setAttribute("width", x1 - x0); svg.setAttribute("height", y1 - y0);
}

// A vector as a strip of squares, blue < 0 < red, each with its value as a tooltip.
function vectorStrip(values) {
  const strip = el("div", "strip"), scale = Math.max(...values.map(Math.abs), 1e-9);
  values.forEach((v, d) => {
    const sq = el("span", "sq"); sq.style.background = diverging(v, scale);
    sq.title = `[${d}] ${v}`; strip.appendChild(sq);
  });
  return strip;
}

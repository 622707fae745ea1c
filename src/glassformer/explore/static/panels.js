// One function per panel: the server's JSON in, the panel's DOM out. No requests are made here.
"use strict";

const $ = (id) => document.getElementById(id);
const pct = (p) => (100 * p).toFixed(p >= 0.1 ? 1 : 2) + "%";

function renderModelLine(info) {
  const c = info.config;
  const source = (info.sources || {})[LANG] || info.source;  // the header in one language: the page's
  $("model-line").textContent = t("model.line", {source, layers: info.layers, heads: info.heads,
    d_model: c.d_model, params: info.params.toLocaleString()});
}

function renderTokens(tokens, handlers) {
  const box = $("tokens"); box.textContent = "";
  tokens.forEach((tok, i) => {
    const chip = el("span", "tok"); chip.dataset.i = i;
    chip.appendChild(el("span", "tok-text", tok.text));
    chip.appendChild(el("span", "tok-id", tok.id === null ? String(i) : String(tok.id)));
    chip.onmouseenter = () => handlers.hover(i);
    chip.onmouseleave = () => handlers.hover(null);
    chip.onclick = () => handlers.click(i);
    box.appendChild(chip);
  });
}

// Shade the chips by how much the hovered query attends to each key (one head), mark q and k.
function markTokens(weightsRow, q, k, chosen) {
  const chips = $("tokens").children;
  for (let j = 0; j < chips.length; j++) {
    const w = weightsRow ? weightsRow[j] : null;
    chips[j].style.background = w === null || w === undefined ? "" : `rgba(230,126,34,${Math.min(1, w)})`;
    chips[j].classList.toggle("q-on", q === j);
    chips[j].classList.toggle("k-on", k === j);
    chips[j].classList.toggle("chosen", chosen === j);
  }
}

function renderNotes(notes) {
  $("notes").textContent = notes.map((n) => t("note." + n.code, n)).join(" ");
}

function renderBars(next) {
  const box = $("bars"); box.textContent = "";
  const hasBase = next.rows.some((r) => "p_base" in r);
  // the grey mark: the intact model (heads zeroed), or the unpatched corrupted run (a patched cell)
  const corrupted = next.base === "corrupted";
  const baseNote = corrupted ? "next.base_corrupted" : "next.base";
  const tipBase = corrupted ? "next.tip_base_corrupted" : "next.tip_base";
  const top = Math.max(...next.rows.map((r) => Math.max(r.p, r.p_model, r.p_base || 0)), 1e-9);
  for (const r of next.rows) {
    const row = el("div", "bar" + (r.kept ? "" : " cut")); row.dataset.id = r.id;
    row.appendChild(el("span", "bar-label", r.text));
    row.appendChild(el("span", "bar-id", String(r.id)));
    const track = el("span", "bar-track"), fill = el("span", "bar-fill"), own = el("span", "bar-model");
    fill.style.width = (100 * r.p / top) + "%"; own.style.left = (100 * r.p_model / top) + "%";
    track.appendChild(fill); track.appendChild(own);
    if (hasBase) {
      const base = el("span", "bar-base"); base.style.left = (100 * r.p_base / top) + "%"; track.appendChild(base);
    }
    row.appendChild(track);
    row.appendChild(el("span", "bar-value", r.kept ? pct(r.p) : t("next.cut")));
    row.title = t("next.tip", {id: r.id, p: r.p, m: r.p_model}) + (hasBase ? t(tipBase, {b: r.p_base}) : "");
    box.appendChild(row);
  }
  $("bars-note").textContent = t("next.kept", next) + (hasBase ? " " + t(baseNote) : "");
}

function renderPrediction(pred, tokens) {
  const series = [{values: pred.inputs, color: "#1f6fb2", dots: true},
                  {values: pred.values, color: "#e67e22", dots: true}];
  if (pred.base) series.push({values: pred.base, color: "#777", dash: "4 3", width: 1.5});
  lineChart($("prediction"), series, tokens.map((_, i) => String(i)), "");
}

function fillSelect(select, options, value) {
  select.textContent = "";
  for (const [v, label] of options) select.add(new Option(label, v));
  select.value = String(value);
}

function renderAttentionControls(info, view) {
  fillSelect($("stage"), info.stages.map((s) => [s.stage, s[LANG].stage]), view.stage);
  fillSelect($("layer"), [...Array(info.layers).keys()].map((l) => [l, t("attn.layer_n", {n: l})]), view.layer);
  fillSelect($("head"), [...Array(info.heads).keys()].map((h) => [h, t("attn.head_n", {n: h})]), view.head);
  const s = info.stages.find((x) => x.stage === view.stage);
  $("stage-means").textContent = s ? `${s[LANG].name.replace(/^.*\./, "")} (${s.en.axes}): ${s[LANG].means}` : "";
}

function renderGrid(grid, view, ablated, handlers) {
  const box = $("heads"); box.textContent = "";
  const bytes = decodeBytes(grid.data), T = grid.T;
  for (let l = 0; l < grid.layers; l++) {
    const row = el("div", "grid-row");
    row.appendChild(el("span", "grid-label", t("attn.layer_n", {n: l})));
    // grouped-query attention: the query heads that share one key-value head sit in one labelled box
    const g = grid.groups ? grid.groups[l] : 1, boxes = {};
    for (let h = 0; h < grid.heads; h++) {
      let parent = row;
      if (g > 1) {
        const kv = grid.kv_head[l][h];
        if (!boxes[kv]) {
          boxes[kv] = el("div", "kv-group"); boxes[kv].dataset.kv = kv;
          boxes[kv].appendChild(el("span", "kv-label", t("attn.kv_group", {kv, first: kv * g, last: kv * g + g - 1})));
          row.appendChild(boxes[kv]);
        }
        parent = boxes[kv];
      }
      const key = `${l}-${h}`, cell = el("div", "thumb");
      cell.dataset.layer = l; cell.dataset.head = h;
      cell.classList.toggle("selected", l === view.layer && h === view.head);
      cell.classList.toggle("off", ablated.includes(key));
      const canvas = el("canvas"); drawThumbnail(canvas, bytes, (l * grid.heads + h) * T * T, T);
      canvas.title = `${t("attn.layer_n", {n: l})}, ${t("attn.head_n", {n: h})}`;
      canvas.onclick = () => handlers.select(l, h);
      const zero = el("button", "ablate", t("attn.zero")); zero.type = "button";
      zero.dataset.layer = l; zero.dataset.head = h;
      zero.classList.toggle("on", ablated.includes(key));
      zero.onclick = () => handlers.ablate(key);
      cell.appendChild(canvas); cell.appendChild(el("span", "thumb-label", `h${h}`)); cell.appendChild(zero);
      parent.appendChild(cell);
    }
    box.appendChild(row);
  }
  const box2 = $("ablated"); box2.textContent = "";
  box2.appendChild(el("span", "", ablated.length ? t("attn.ablated", {list: ablated.map((k) => {
    const [l, h] = k.split("-"); return `L${l}H${h}`; }).join(", ")}) : t("attn.none")));
  if (ablated.length) {
    const clear = el("button", "", t("attn.clear")); clear.id = "clear-ablate"; clear.type = "button";
    clear.onclick = handlers.clear; box2.appendChild(clear);
  }
  box2.appendChild(el("span", "scale", " · " + t("attn.scale." + grid.scale)));
}

function renderVectors(vec, tokens) {
  const box = $("vectors"); box.textContent = "";
  if (!vec) return;
  const tok = tokens[vec.token] ? tokens[vec.token].text : "";
  box.appendChild(el("div", "vec-of", t("vec.of", {i: vec.token, t: tok, l: vec.layer, h: vec.head})));
  for (const v of vec.vectors) {
    const row = el("div", "vec");
    row.appendChild(el("span", "vec-name", v.name.replace(/^.*\./, "")));
    row.appendChild(vectorStrip(v.values));
    row.appendChild(el("span", "vec-means", v.means));
    box.appendChild(row);
  }
}

// The RoPE view of one pair i: each position's q and k before and after the turn by p·θ_i, as a table
// and as arrows from 0 (q before grey, q after blue, k after orange), labelled by position.
function renderRope(r, pair) {
  const i = Math.min(pair, r.theta.length - 1), [a, b] = r.features[i];
  fillSelect($("rope-pair"), r.theta.map((th, j) => [j, t("rope.pair_n", {i: j, a: r.features[j][0],
    b: r.features[j][1], theta: th.toPrecision(3)})]), i);
  $("rope-of").textContent = t("rope.of", {l: r.layer, h: r.head, kv: r.kv_head, a, b});
  const fmt = (p) => `(${p[0].toFixed(3)}, ${p[1].toFixed(3)})`;
  const table = $("rope-table"); table.textContent = "";
  const head = table.insertRow();
  for (const key of ["rope.position", "rope.token", "rope.angle", "rope.q_before", "rope.q_after", "rope.k_before",
                     "rope.k_after"]) head.appendChild(el("th", "", t(key)));
  r.positions.forEach((p, n) => {
    const row = table.insertRow();
    [p, r.tokens[n] || "", r.angles[n][i].toFixed(4), fmt(r.q.before[n][i]), fmt(r.q.after[n][i]),
     fmt(r.k.before[n][i]), fmt(r.k.after[n][i])].forEach((c) => { row.insertCell().textContent = c; });
  });
  const svg = $("rope-plot"); svg.textContent = "";
  const W = +svg.getAttribute("width"), c = W / 2;
  const all = [r.q, r.k].flatMap((v) => [...v.before, ...v.after]).map((pts) => Math.hypot(...pts[i]));
  const s = (c - 16) / Math.max(1e-9, ...all);
  svg.appendChild(svgEl("line", {x1: 0, y1: c, x2: W, y2: c, stroke: "#ddd"}));
  svg.appendChild(svgEl("line", {x1: c, y1: 0, x2: c, y2: W, stroke: "#ddd"}));
  const arrow = (pt, color, dash, label) => {
    const x = c + s * pt[0], y = c - s * pt[1];
    svg.appendChild(svgEl("line", {x1: c, y1: c, x2: x, y2: y, stroke: color, "stroke-dasharray": dash || "",
                                   class: "rope-arrow"}));
    if (label !== undefined) {
      const txt = svgEl("text", {x, y, "font-size": 10, fill: color}); txt.textContent = label; svg.appendChild(txt);
    }
  };
  r.positions.forEach((p, n) => {
    arrow(r.q.before[n][i], "#aaa", "3 2");
    arrow(r.q.after[n][i], "#1f6fb2", "", p);
    arrow(r.k.after[n][i], "#e67e22", "", p);
  });
}

function pointLabel(info, name) {
  const p = info.stream.find((s) => s.name === name);
  return p ? p[LANG].means : name;
}

function renderStream(stream, tokens, token) {
  const names = stream.points.map((n) => n.replace(/^blocks\.(\d+)\./, "L$1 ").replace(/_/g, " "));
  const mean = stream.points.map((_, p) => {
    const row = stream.norms[p]; return row.reduce((a, b) => a + b, 0) / row.length;
  });
  const series = [{values: mean, color: "#999", dash: "4 3", dots: true}];
  const i = token === null || token >= tokens.length ? tokens.length - 1 : token;
  series.push({values: stream.points.map((_, p) => stream.norms[p][i]), color: "#e67e22", dots: true});
  lineChart($("norms"), series, names, t("stream.norm"));
}

function renderLens(lens, tokens, info) {
  const table = $("lens"); table.textContent = "";
  const head = table.insertRow(); head.appendChild(el("th", "", ""));
  tokens.forEach((tok) => head.appendChild(el("th", "", tok.text)));
  lens.points.forEach((name, p) => {
    const row = table.insertRow(), th = el("th", "point", name);
    th.title = pointLabel(info, name); row.appendChild(th);
    tokens.forEach((_, i) => {
      const td = row.insertCell();
      if (lens.cells) {
        const top = lens.cells[p][i];
        td.textContent = top[0][0];
        td.style.background = `rgba(31,111,178,${0.08 + 0.8 * top[0][2]})`;
        td.classList.toggle("light", top[0][2] > 0.5);
        td.title = top.map(([s, id, pr]) => `${s} (${id}) ${pct(pr)}`).join("\n");
      } else {
        td.textContent = lens.values[p][i].toFixed(2);
      }
    });
  });
}

function renderTrace(trace) {
  const table = $("trace"); table.textContent = "";
  const head = table.insertRow();
  trace.columns.forEach((c) => head.appendChild(el("th", "", c)));
  for (const r of trace.rows) {
    const row = table.insertRow();
    [r[0], r[1], r[2] ? `(${r[2].join(", ")})` : "", r[3], r[4]].forEach((c) => row.insertCell().textContent = c);
  }
  $("legend").textContent = trace.legend;
}

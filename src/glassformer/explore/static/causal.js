// The causal panel (its engine: the end of explore/explorer.py): a corrupted text beside the text, the patching grids over
// layers × positions and layers × heads, a click on a cell patches that one activation and the
// next-token bars show the result (grey marks: the corrupted run), and under every attention
// thumbnail how much that head matters. Loaded after app.js; it follows the page by wrapping two of
// app.js's functions (analyze: refresh the grids; showAttention: label the fresh thumbnails), so
// the other files need no change.
"use strict";

const C = {data: null, patched: null, timer: null};

async function causalRefresh() {
  if (!S.info) return;
  $("causal-panel").hidden = !S.info.samples;
  if (!S.info.samples || S.useIds) return;
  const corrupt = $("corrupt").value;
  try {
    const r = await api("patching", {text: $("text").value, corrupt});
    if (!r) return;
    C.data = r; C.patched = null;
    $("causal-error").textContent = "";
    renderCausal(r);
  } catch (e) {
    C.data = null; renderCausal(null);
    $("causal-error").textContent = e.network ? t("err.network", {msg: e.network}) : e.error;
  }
  markHeads();
}

function cellTable(table, rows, cols, values, kind) {
  table.textContent = "";
  const head = el("tr"); head.appendChild(el("th", "", ""));
  for (const c of cols) head.appendChild(el("th", "", c));
  table.appendChild(head);
  values.forEach((row, l) => {
    const tr = el("tr"); tr.appendChild(el("th", "", rows[l]));
    row.forEach((v, i) => {
      const td = el("td", "pcell", v.toFixed(2));
      td.style.background = diverging(v, 1);
      td.dataset.kind = kind; td.dataset.layer = l; td.dataset.index = i;
      td.title = String(v);
      td.onclick = () => patchCell(kind, l, i);
      tr.appendChild(td);
    });
    table.appendChild(tr);
  });
}

function renderCausal(r) {
  for (const id of ["patch-positions", "patch-heads"]) $(id).textContent = "";
  $("patched").textContent = "";
  if (!r) { $("causal-status").textContent = ""; return; }
  if (!r.positions) { $("causal-status").textContent = t("causal.none", {a: r.answer.text}); return; }
  $("causal-status").textContent = t("causal.status", {a: r.answer.text, w: r.wrong.text, clean: r.clean,
                                                      corrupt: r.corrupt, gap: r.gap}) + " " + t("causal.legend");
  cellTable($("patch-positions"), r.positions.rows.map((_, l) => t("attn.layer_n", {n: l})), r.tokens,
            r.positions.values, "position");
  const heads = r.heads.values[0].map((_, h) => t("attn.head_n", {n: h}));
  cellTable($("patch-heads"), r.heads.rows.map((_, l) => t("attn.layer_n", {n: l})), heads, r.heads.values, "head");
}

async function patchCell(kind, layer, index) {
  try {
    const r = await api("patch_cell", {text: $("text").value, corrupt: $("corrupt").value, kind, layer, index,
                                       ...shape()});
    if (!r) return;
    C.patched = r;
    for (const td of document.querySelectorAll(".pcell.on")) td.classList.remove("on");
    const cell = document.querySelector(`.pcell[data-kind='${kind}'][data-layer='${layer}'][data-index='${index}']`);
    if (cell) cell.classList.add("on");
    renderBars(r);
    const what = kind === "position"
      ? t("causal.what.position", {l: layer, i: index, tok: C.data.tokens[index]})
      : t("causal.what.head", {l: layer, h: index});
    $("patched").textContent = t("causal.patched", {what, d: r.logit_diff, clean: C.data.clean,
                                                   corrupt: C.data.corrupt});
  } catch (e) { $("causal-error").textContent = e.network ? t("err.network", {msg: e.network}) : e.error; }
}

// under each attention thumbnail: the head's patching effect (with a corrupted text) or its
// zero-ablation effect, beside the map of where it looks
function markHeads() {
  for (const old of document.querySelectorAll("#heads .matters")) old.remove();
  if (!C.data) return;
  const patch = C.data.heads, values = patch ? patch.values : C.data.ablation;
  for (const cell of document.querySelectorAll("#heads .thumb")) {
    const v = values[+cell.dataset.layer][+cell.dataset.head];
    const tag = el("span", "matters", t(patch ? "causal.thumb.patch" : "causal.thumb.ablation", {v: v.toFixed(2)}));
    tag.style.background = diverging(v, patch ? 1 : Math.max(...values.flat().map(Math.abs), 1e-9));
    tag.dataset.value = String(v);
    cell.appendChild(tag);
  }
}

{
  const analyzeFirst = analyze, showFirst = showAttention;
  analyze = async function () { await analyzeFirst(); await causalRefresh(); };  // eslint-disable-line no-global-assign
  showAttention = function (a) { showFirst(a); markHeads(); };  // eslint-disable-line no-global-assign
  $("corrupt").addEventListener("input", () => { clearTimeout(C.timer); C.timer = setTimeout(causalRefresh, 150); });
}

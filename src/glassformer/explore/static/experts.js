// The routing panel (its engine: explore/experts.py): for a model with a mixture of experts, one table
// per layer — a row per expert, a column per token of the text, each cell the weight that token gave
// that expert (0: not chosen), the last column each expert's share of the token slots — and under each
// layer's name its MaxVio and routing entropy. Loaded after app.js; it follows the page by wrapping
// app.js's analyze (as causal.js does), so the other files need no change. A model without experts
// (info.experts = 0) hides the panel and never asks.
"use strict";

const X = {data: null};

async function expertsRefresh() {
  if (!S.info) return;
  $("experts-panel").hidden = !S.info.experts;
  if (!S.info.experts) return;
  try {
    const r = await api("experts", input());
    if (!r) return;
    X.data = r;
    $("experts-error").textContent = "";
    renderExperts(r);
  } catch (e) {
    X.data = null; renderExperts(null);
    $("experts-error").textContent = e.network ? t("err.network", {msg: e.network}) : e.error;
  }
}

function renderExperts(r) {
  const box = $("experts-layers");
  box.textContent = "";
  if (!r) return;
  r.layers.forEach((layer, l) => {
    box.appendChild(el("h3", "experts-layer", t("experts.layer", {
      layer: layer.name, maxvio: layer.max_violation.toFixed(3), worst: r.experts - 1,
      entropy: layer.entropy.toFixed(3), most: r.most.toFixed(3)})));
    const table = el("table", "patch experts");
    table.dataset.layer = l;
    const head = el("tr"); head.appendChild(el("th", "", ""));
    for (const tok of r.tokens) head.appendChild(el("th", "", tok));
    head.appendChild(el("th", "", t("experts.load")));
    table.appendChild(head);
    for (let e = 0; e < r.experts; e++) {
      const tr = el("tr"); tr.appendChild(el("th", "", t("experts.expert", {e})));
      layer.map.forEach((row, i) => {
        const v = row[e], td = el("td", "ecell", v ? v.toFixed(2) : "·");
        td.style.background = diverging(v, 1);
        td.dataset.layer = l; td.dataset.expert = e; td.dataset.token = i; td.title = String(v);
        tr.appendChild(td);
      });
      const share = layer.share[e], load = el("td", "eload", share.toFixed(2));
      load.style.background = diverging(share, 1);
      load.dataset.layer = l; load.dataset.expert = e; load.title = String(share);
      tr.appendChild(load);
      table.appendChild(tr);
    }
    const wrap = el("div", "scroll"); wrap.appendChild(table);
    box.appendChild(wrap);
  });
}

{
  const analyzeBefore = analyze;
  analyze = async function () { await analyzeBefore(); await expertsRefresh(); };  // eslint-disable-line no-global-assign
}

// The diff view (its engine: explore/diffview.py, post/diff.py's views, the ones `glassformer diff`
// prints): `glassformer explore BASE --against TUNED` shows the base in every panel and here what tuning
// changed inside it — each layer's, parameter's and head's weight change, a LoRA run's own update, how far
// each head's attention and causal effect moved, the next tokens that moved most — on the tuned run's own
// data, or on the text typed above. Loaded after app.js; it wraps analyze, as causal.js does.
"use strict";

const DF = {data: null, lang: null, onText: false};
// views whose columns are different quantities (a ratio, a norm, a rank; p, p, Δp): coloured column by column
const BY_COLUMN = new Set(["diff_weights", "diff_lora", "diff_tokens"]);

async function diffRefresh() {
  try {
    const r = await api("diff", {prompt: DF.onText ? $("text").value : null, lang: LANG});
    if (!r) return;
    DF.data = r; DF.lang = LANG;
    $("diff-error").textContent = "";
    renderDiff(r);
  } catch (e) { $("diff-error").textContent = e.network ? t("err.network", {msg: e.network}) : e.error; }
}

function renderDiff(r) {
  $("diff-title").textContent = t("diff.title", {base: r.base, tuned: r.tuned});
  $("diff-prompts").textContent = t(r.prompts === "text" ? "diff.prompts_text" : "diff.prompts_data");
  const box = $("diff-views");
  box.textContent = "";
  for (const v of r.views) {
    const part = el("div", "diff-view");
    part.dataset.stem = v.stem;
    part.appendChild(el("h3", "", v.title));
    const table = el("table", "patch"), head = el("tr");
    head.appendChild(el("th", "", ""));
    for (const c of v.columns) head.appendChild(el("th", "", c));
    table.appendChild(head);
    const biggest = (xs) => Math.max(...xs.map((x) => Math.abs(x || 0)), 1e-12);
    const all = biggest(v.values.flat());
    const scales = v.columns.map((_, j) => (BY_COLUMN.has(v.stem) ? biggest(v.values.map((r) => r[j])) : all));
    v.values.forEach((row, i) => {
      const tr = el("tr");
      tr.appendChild(el("th", "", v.rows[i]));
      for (const [j, x] of row.entries()) {
        const scale = scales[j];
        const td = el("td", "dcell", x === null ? "" : Number(x.toPrecision(3)).toString());
        td.title = String(x); td.dataset.value = String(x);
        if (x !== null) td.style.background = diverging(x, scale);
        tr.appendChild(td);
      }
      table.appendChild(tr);
    });
    const scroll = el("div", "scroll");
    scroll.appendChild(table);
    part.appendChild(scroll);
    for (const note of v.notes) part.appendChild(el("p", "help", note));
    box.appendChild(part);
  }
}

{
  const analyzeFirst = analyze;
  analyze = async function () {  // eslint-disable-line no-global-assign
    await analyzeFirst();
    $("diff-panel").hidden = !S.info.against;
    if (S.info.against && (DF.lang !== LANG || DF.onText)) await diffRefresh();  // new language, or your text
  };
  $("diff-text").onclick = () => { DF.onText = true; diffRefresh(); };
  $("diff-data").onclick = () => { DF.onText = false; diffRefresh(); };
}

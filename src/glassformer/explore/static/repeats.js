// The repeats panel and the sampling knobs (issue 49). Loaded after app.js and causal.js, it builds
// its own elements and follows the page by wrapping two of app.js's functions, as causal.js does:
// shape() also sends the repetition knobs (the server turns them into logits_processors.Knobs, so the
// bars and the generated tokens are generate_ids' own), and analyze() shows or hides the panel. The
// panel's tables are `glassformer repeats`' own (POST /api/repeats: explore/repeats.py repeats_view),
// drawn here as they come, in the page's language; nothing is computed in the page.
"use strict";

const R = {data: null, lang: null};
// each knob: its request field, its word, the input's attributes and its off value (the default)
const KNOB_FIELDS = [
  ["repetition_penalty", "knobs.repetition_penalty", {step: "0.05", value: "1"}],
  ["frequency_penalty", "knobs.frequency_penalty", {step: "0.1", value: "0"}],
  ["presence_penalty", "knobs.presence_penalty", {step: "0.1", value: "0"}],
  ["no_repeat_ngram", "knobs.no_repeat_ngram", {step: "1", min: "0", value: "0"}],
  ["min_p", "knobs.min_p", {step: "0.01", min: "0", max: "1", value: "0"}],
  ["typical_p", "knobs.typical_p", {step: "0.05", max: "1", value: "1"}],
];

function knobs() {
  const out = {};
  for (const [name] of KNOB_FIELDS) {
    const v = +$("knob-" + name).value;
    if ($("knob-" + name).value !== "" && Number.isFinite(v)) out[name] = name === "no_repeat_ngram" ? Math.floor(v) : v;
  }
  return out;
}

function buildKnobs() {
  const box = el("div", "controls knobs");
  for (const [name, word, attrs] of KNOB_FIELDS) {
    const label = el("label"), span = el("span");
    span.dataset.t = word;
    const input = el("input");
    input.type = "number"; input.id = "knob-" + name;
    for (const [k, v] of Object.entries(attrs)) input.setAttribute(k, v);
    input.addEventListener("input", () => { S.session = null; analyze(); });  // analyze: its bars, and a refusal cleared
    label.append(span, " ", input);
    box.appendChild(label);
  }
  $("bars").before(box);
}

function buildPanel() {
  const panel = el("section", "panel wide");
  panel.id = "repeats-panel"; panel.hidden = true;
  const title = el("h2"); title.dataset.t = "repeats.title";
  const help = el("p", "help"); help.dataset.t = "repeats.help";
  const controls = el("div", "controls");
  for (const [id, key] of [["repeats-prompt", "repeats.prompt"], ["repeats-control", "repeats.control"]]) {
    const label = el("label"), span = el("span"), box = el("input");
    span.dataset.t = key; box.id = id; box.type = "text"; box.spellcheck = false;
    label.append(span, " ", box);
    controls.appendChild(label);
  }
  const look = el("button"); look.id = "repeats-look"; look.type = "button"; look.dataset.t = "repeats.look";
  look.onclick = () => lookAtRepeats();
  controls.appendChild(look);
  const error = el("div"); error.id = "repeats-error"; error.setAttribute("role", "status");
  const parts = [];
  for (const part of ["heads", "lens"]) {
    const h = el("h3"); h.id = `repeats-${part}-title`;
    const notes = el("div", "help"); notes.id = `repeats-${part}-notes`;
    const scroll = el("div", "scroll"), table = el("table", "patch"); table.id = `repeats-${part}`;
    scroll.appendChild(table);
    parts.push(h, scroll, notes);
  }
  panel.append(title, help, controls, error, ...parts);
  $("next-panel").after(panel);
}

function gridTable(table, grid, named) {
  table.textContent = "";
  const head = el("tr"); head.appendChild(el("th", "", ""));
  for (const c of grid.columns) head.appendChild(el("th", "", c));
  table.appendChild(head);
  const scale = Math.max(1e-9, ...grid.values.map((row) => Math.abs(row.at(-1))));
  grid.rows.forEach((name, i) => {
    const tr = el("tr"); tr.appendChild(el("th", "", name));
    tr.dataset.row = name;
    if (named.includes(name)) tr.classList.add("named");
    grid.values[i].forEach((v, j) => {
      const td = el("td", "rcell", v === null ? "" : v.toFixed(3));
      td.title = String(v);
      if (j === grid.values[i].length - 1 && v !== null) td.style.background = diverging(v, scale);
      tr.appendChild(td);
    });
    table.appendChild(tr);
  });
}

function renderRepeats(r) {
  for (const part of ["heads", "lens"]) {
    $(`repeats-${part}`).textContent = ""; $(`repeats-${part}-notes`).textContent = "";
    $(`repeats-${part}-title`).textContent = r ? r[part].title : "";
  }
  if (!r) return;
  const named = r.heads.extra.named.map(([l, h]) => `L${l}H${h}`);
  gridTable($("repeats-heads"), r.heads, named);
  gridTable($("repeats-lens"), r.lens, []);
  for (const part of ["heads", "lens"]) {
    for (const note of r[part].notes) $(`repeats-${part}-notes`).appendChild(el("p", "", note));
  }
  for (const row of document.querySelectorAll("#repeats-heads tr.named th")) row.style.fontWeight = "bold";
}

async function lookAtRepeats() {
  const text = $("repeats-prompt").value, control = $("repeats-control").value;
  try {
    const r = await api("repeats", {text, control, lang: LANG});
    if (!r) return;
    R.data = r; R.lang = LANG;
    $("repeats-error").textContent = "";
    renderRepeats(r);
  } catch (e) {
    R.data = null; R.lang = null; renderRepeats(null);
    $("repeats-error").textContent = e.network ? t("err.network", {msg: e.network}) : e.error;
    $("repeats-error").className = "error";
  }
}

{
  buildKnobs(); buildPanel();
  const shapeFirst = shape, analyzeFirst = analyze;
  shape = function () { return {...shapeFirst(), ...knobs()}; };  // eslint-disable-line no-global-assign
  analyze = async function () {  // eslint-disable-line no-global-assign
    await analyzeFirst();
    if (!S.info) return;
    $("repeats-panel").hidden = !S.info.samples;
    if (R.data && R.lang !== LANG) await lookAtRepeats();  // the page changed language: the tables' words too
  };
}

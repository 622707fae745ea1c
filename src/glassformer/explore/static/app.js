// The page's state and its conversation with the local server (same origin only, JSON both ways).
"use strict";

const S = {
  info: null, data: null, tokens: [], ids: [], useIds: false,  // after generation the page sends ids
  view: {layer: 0, head: 0, stage: null}, token: null, hover: null, matrix: null, geo: null,
  ablate: [], ropePair: 0, rope: null, session: null, generating: false, stop: false, status: null, traceKey: null, seq: {},
};

// ---------------------------------------------------------------- talking to the server
async function api(name, body) {
  S.seq[name] = (S.seq[name] || 0) + 1;
  const mine = S.seq[name];
  let res;
  try {
    res = await fetch("/api/" + name + "?lang=" + LANG, {method: body ? "POST" : "GET", body: body ? JSON.stringify(body) : undefined,
      headers: body ? {"Content-Type": "application/json"} : {}});
  } catch (e) {
    throw {network: String(e)};
  }
  const json = await res.json();
  if (!res.ok) throw json;
  return mine === S.seq[name] ? json : null;  // null: a newer request of the same kind is on its way
}

function showError(e) {
  const m = $("message");
  if (!e) { m.textContent = ""; m.className = ""; return; }
  // the server's refusal is already in the page's language (every request carries ?lang=)
  m.textContent = e.network ? t("err.network", {msg: e.network}) : e.error; m.className = "error";
}

const input = () => (S.useIds ? {ids: S.ids} : {text: $("text").value});
const ablation = () => S.ablate.map((k) => k.split("-").map(Number));
function shape() {  // a function, so repeats.js can add the repetition knobs to it
  return {temperature: +$("temperature").value, top_k: Math.max(0, Math.floor(+$("top-k").value || 0)),
          top_p: +$("top-p").value};
}
const view = () => ({layer: S.view.layer, head: S.view.head, stage: S.view.stage});

// ---------------------------------------------------------------- panels
async function analyze() {
  try {
    const r = await api("analyze", {...input(), ...shape(), ...view(), ablate: ablation(), lang: LANG});
    if (!r) return;
    showError(null);
    S.data = r; S.tokens = r.tokens;
    if (!S.useIds) S.ids = r.ids;
    if (S.token !== null && S.token >= r.tokens.length) S.token = null;
    renderTokens(r.tokens, {hover: hoverToken, click: chooseToken});
    renderNotes(r.notes);
    if (r.next) renderBars(r.next);
    if (r.prediction) renderPrediction(r.prediction, r.tokens);
    showAttention(r.attention);
    renderStream(r.stream, r.tokens, S.token);
    renderLens(r.lens, r.tokens, S.info);
    if (S.traceKey !== `${r.tokens.length} ${LANG}`) traceTable(`${r.tokens.length} ${LANG}`);
    if (S.token !== null) await vectors(); else renderVectors(null, r.tokens);
    await rope();
  } catch (e) { showError(e); }
}

function showAttention(a) {
  S.matrix = a.matrix;
  if (a.grid) S.grid = a.grid;
  renderAttentionControls(S.info, S.view);
  renderGrid(S.grid, S.view, S.ablate, {select: selectHead, ablate: toggleAblate, clear: clearAblation});
  drawMatrixNow();
}

function drawMatrixNow(k) {
  const q = S.hover;
  S.geo = drawMatrix($("matrix"), S.matrix, S.tokens.map((x) => x.text), {q, k: k === undefined ? null : k});
  markTokens(q !== null && S.matrix[q] ? S.matrix[q] : null, q, k === undefined ? null : k, S.token);
}

async function attention(grid) {
  try {
    const r = await api("attention", {...input(), ...view(), ablate: ablation(), grid});
    if (r) showAttention(r);
  } catch (e) { showError(e); }
}

async function traceTable(key) {  // depends only on the input's length and the language
  try {
    const r = await api("trace", {...input(), lang: LANG});
    if (r) { renderTrace(r); S.traceKey = key; }
  } catch (e) { showError(e); }
}

async function vectors() {
  if (S.token === null) return;
  try {
    const r = await api("vectors", {...input(), ...view(), token: S.token, ablate: ablation(), lang: LANG});
    if (r) renderVectors(r, S.tokens);
  } catch (e) { showError(e); }
}

async function rope() {  // the RoPE view of the chosen layer and head (models with rotary positions only)
  if (!S.info.rope) return;
  try {
    const r = await api("rope", {...input(), layer: S.view.layer, head: S.view.head});
    if (r) { S.rope = r; renderRope(r, S.ropePair); }
  } catch (e) { showError(e); }
}

async function nextTokens() {
  if (!S.info.samples) return;
  try {
    const r = await api("next", {...input(), ...shape(), ablate: ablation()});
    if (r) renderBars(r);
  } catch (e) { showError(e); }
}

// ---------------------------------------------------------------- interactions
function hoverToken(i) { S.hover = i; drawMatrixNow(); }
function chooseToken(i) {
  S.token = i; drawMatrixNow(); vectors();
  renderStream(S.data.stream, S.tokens, S.token);
}
function selectHead(l, h) { S.view.layer = l; S.view.head = h; attention(false).then(vectors).then(rope); }
function toggleAblate(key) {
  S.ablate = S.ablate.includes(key) ? S.ablate.filter((k) => k !== key) : [...S.ablate, key];
  S.session = null; analyze();
}
function clearAblation() { S.ablate = []; S.session = null; analyze(); }

async function generate(n) {
  if (S.generating) return;
  S.generating = true; S.stop = false;
  $("step").disabled = $("run").disabled = $("text").readOnly = true; $("stop").disabled = false;
  try {
    for (let i = 0; i < n && !S.stop; i++) {
      const r = await api("generate", {ids: S.ids, n: 1, session: S.session, seed: Math.max(0, +$("seed").value || 0),
                                       ablate: ablation(), ...shape()});
      if (!r) break;
      S.made = r.resumed ? (S.made || 0) + 1 : 1;  // tokens since this cache was filled
      S.session = r.session; S.ids = r.ids; S.useIds = true;
      $("text").value += r.text;
      renderBars(r.next);
      for (const tok of r.tokens) $("tokens").appendChild(el("span", "tok new", tok.text));
      S.status = {n: S.made, cached: r.cached, resumed: r.resumed};
      renderStatus();
    }
  } catch (e) { showError(e); }
  S.generating = false;
  $("step").disabled = $("run").disabled = $("text").readOnly = false; $("stop").disabled = true;
  await analyze();
}

function renderStatus() {
  const s = S.status;
  $("gen-status").textContent = !s ? "" : !S.info.kv_cache ? t("gen.no_cache")
    : t("gen.status", {n: s.n, cached: s.cached, how: s.resumed ? t("gen.resumed") : t("gen.fresh")});
}

function wire() {
  let timer = null;
  $("text").addEventListener("input", () => {
    S.useIds = false; S.session = null;
    clearTimeout(timer); timer = setTimeout(analyze, 150);
  });
  for (const id of ["temperature", "top-p"]) $(id).addEventListener("input", () => {
    $(id + "-value").textContent = (+$(id).value).toFixed(2); S.session = null; nextTokens();
  });
  $("top-k").addEventListener("input", () => { S.session = null; nextTokens(); });
  $("layer").onchange = () => selectHead(+$("layer").value, S.view.head);
  $("head").onchange = () => selectHead(S.view.layer, +$("head").value);
  $("rope-pair").onchange = () => { S.ropePair = +$("rope-pair").value; if (S.rope) renderRope(S.rope, S.ropePair); };
  $("stage").onchange = () => { S.view.stage = $("stage").value; attention(true); };
  $("matrix").addEventListener("mousemove", (e) => {
    const hit = S.geo && cellAt(S.geo, e);
    if (!hit) return;
    const [q, k] = hit, v = S.matrix[q][k];
    S.hover = q; drawMatrixNow(k);
    $("cell").textContent = t("attn.cell", {q, k, qt: S.tokens[q].text, kt: S.tokens[k].text,
                                            v: v === null ? t("attn.masked") : v});
  });
  $("matrix").addEventListener("mouseleave", () => { S.hover = null; drawMatrixNow(); });
  $("step").onclick = () => generate(1);
  $("run").onclick = () => generate(Math.min(64, Math.max(1, +$("run-n").value || 1)));
  $("stop").onclick = () => { S.stop = true; };
  $("lang-en").onclick = () => setLang("en");
  $("lang-zh").onclick = () => setLang("zh");
}

async function setLang(lang) {
  try {
    await loadWords(lang);
  } catch (e) { showError({network: String(e)}); return; }
  translatePage(); renderModelLine(S.info); renderStatus();
  analyze();
}

async function start() {
  wire();
  try {  // the served Chinese font first, so no Chinese is laid out before it can be drawn
    await document.fonts.load('16px "Glassformer CJK"', "\u4e2d\u6587");  // two hanzi: the browser fetches the CJK face
  } catch (e) { /* without it the system's fonts draw what they can */ }
  try {
    await loadWords(new URLSearchParams(location.search).get("lang") || "en");  // the server answers en or zh
    translatePage();
    S.info = await api("model");
  } catch (e) { showError(e); return; }
  S.view.stage = (S.info.stages.at(-1) || {}).stage;  // the last matrix a layer makes: its weights
  $("next-panel").hidden = !S.info.samples;
  $("prediction-panel").hidden = S.info.inputs !== "numbers";
  $("rope-panel").hidden = !S.info.rope;
  if (S.info.inputs === "numbers") {  // a regressor: numbers in, numbers out
    document.querySelector("[data-t='lens.help']").dataset.t = "lens.help_numbers";
    document.querySelector("[data-t='input.help']").dataset.t = "input.help_numbers";
  }
  $("top-k").max = S.info.config.vocab_size;
  $("text").value = S.info.example;
  setLang(LANG);
}

start();

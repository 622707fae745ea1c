// The page's words come from glassformer's one catalogue (explore/server.py PAGE_WORDS):
// GET /api/words?lang=xx answers them for one language, and t() fills their {fields} the way
// Python's format does. No sentence is written here. What the model says about itself (stage
// names, what a tensor means) comes from its hook declarations, in both languages.
"use strict";

let LANG = "en";
let WORDS = {};

// the page's words in `lang`, from the server; LANG follows what the server answered
async function loadWords(lang) {
  const res = await fetch("/api/words?lang=" + encodeURIComponent(lang));
  const json = await res.json();
  LANG = json.lang; WORDS = json.words;
}

// t("key", {name: value}) -> the text in the current language, {name} filled in
function t(key, vars) {
  let s = key in WORDS ? WORDS[key] : key;
  for (const [k, v] of Object.entries(vars || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}

function translatePage() {
  document.documentElement.lang = LANG === "zh" ? "zh-CN" : "en";
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  document.getElementById("lang-en").classList.toggle("on", LANG === "en");
  document.getElementById("lang-zh").classList.toggle("on", LANG === "zh");
}

// The chat tab (its engine: explore/conversation.py, a turn of post/talk.py's ChatSession, the one that
// `glassformer chat` uses): talk with a post-trained run, the history kept on the server for this page's
// session, each answer shown as the model writes it (POST /api/chat/stream). The answer comes with the whole conversation as the run's chat template renders it, token by
// token; clicking a token the assistant said opens the conversation up to it in every other panel (the
// text box is the one way a text reaches them: tokens, attention, logit lens, next tokens, trace, causal),
// "open all" opens all of it. Loaded after app.js; it follows the page by wrapping analyze (as causal.js
// does), so the other files need no change.
"use strict";

const CH = {session: null, last: null, busy: false, pending: null, writing: null, opened: null};

function chatError(e) {
  $("chat-error").textContent = !e ? "" : e.network ? t("err.network", {msg: e.network}) : e.error;
}

// POST /api/chat/stream: JSON lines, {"piece": text} while the model writes, then {"done": the turn};
// a refusal before the first piece is the usual JSON 4xx (conversation.py)
async function chatStream(body, onPiece) {
  let res;
  try {
    res = await fetch("/api/chat/stream?lang=" + LANG, {method: "POST", body: JSON.stringify(body),
                                                        headers: {"Content-Type": "application/json"}});
  } catch (e) { throw {network: String(e)}; }
  if (!res.ok) throw await res.json();
  const reader = res.body.getReader(), decoder = new TextDecoder();
  let held = "";
  for (;;) {
    const {value, done} = await reader.read();
    held += decoder.decode(value || new Uint8Array(), {stream: !done});
    const lines = held.split("\n");
    held = lines.pop();
    for (const line of lines.filter((l) => l)) {
      const event = JSON.parse(line);
      if (event.refused) throw event.refused;
      if (event.done) return event.done;
      onPiece(event.piece);
    }
    if (done) throw {network: "end of stream"};
  }
}

async function chatSend() {
  const message = $("chat-input").value;
  if (CH.busy) return;
  CH.busy = true; CH.pending = message; CH.writing = ""; $("chat-send").disabled = true;
  renderChat();
  try {
    const r = await chatStream({message, session: CH.session, system: $("chat-system").value || null,
                                max_new_tokens: Math.min(64, Math.max(1, +$("chat-max").value || 1)),
                                seed: Math.max(0, +$("seed").value || 0), ...shape()},
                               (piece) => { CH.writing += piece; renderChat(); });
    CH.session = r.session; CH.last = r; CH.opened = null; $("chat-input").value = ""; chatError(null);
  } catch (e) { chatError(e); }
  CH.busy = false; CH.pending = null; CH.writing = null; $("chat-send").disabled = false;
  renderChat();
}

function chatNew() { CH.session = null; CH.last = null; CH.opened = null; chatError(null); renderChat(); }

// the conversation: a line a message (the answer being written grows piece by piece), then the rendered text's tokens (the template's included), the
// assistant's tokens clickable
function renderChat() {
  const log = $("chat-log"), strip = $("chat-tokens"), r = CH.last;
  log.textContent = ""; strip.textContent = "";
  const messages = r ? r.history : [];
  const shown = CH.pending === null ? messages : [...messages, {role: "user", content: CH.pending},
                                                  {role: "assistant", content: CH.writing || ""}];  // as it comes
  for (const m of shown) {
    const line = el("div", "chat-msg " + m.role);
    line.appendChild(el("span", "chat-who", t(m.role === "user" ? "chat.user" : m.role === "assistant" ? "chat.assistant"
                                                                                                  : "chat.system")));
    line.appendChild(el("span", "chat-said", m.content));
    log.appendChild(line);
  }
  $("chat-status").textContent = CH.busy ? t("chat.waiting")
    : r && r.dropped ? t("chat.dropped", {n: r.dropped}) : "";
  $("chat-open").disabled = !r || !r.text;
  if (!r) return;
  r.tokens.forEach((tok, i) => {
    const box = el("span", "tok" + (tok.assistant ? " said" : " template") + (CH.opened === i ? " chosen" : ""));
    box.appendChild(el("span", "tok-text", tok.text));
    box.appendChild(el("span", "tok-id", String(tok.id)));
    box.dataset.i = i;
    if (tok.assistant) box.onclick = () => chatOpen(i);
    strip.appendChild(box);
  });
  if (CH.opened !== null && r.tokens[CH.opened]) {
    $("chat-opened").textContent = t("chat.opened", {i: CH.opened, tok: r.tokens[CH.opened].text});
  } else $("chat-opened").textContent = "";
}

// hand a text to every panel, as typing it would
function chatOpen(i) {
  const r = CH.last;
  CH.opened = i;
  $("text").value = i === null ? r.text : r.text.slice(0, r.tokens[i].start);
  S.useIds = false; S.session = null;
  renderChat();
  analyze();
}

{
  const analyzeFirst = analyze;
  analyze = async function () {  // eslint-disable-line no-global-assign
    $("chat-panel").hidden = !S.info.chat;
    renderChat();  // the labels follow the language
    await analyzeFirst();
  };
  $("chat-send").onclick = chatSend;
  $("chat-new").onclick = chatNew;
  $("chat-open").onclick = () => chatOpen(null);
  $("chat-input").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); chatSend(); } });
}

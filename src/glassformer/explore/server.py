"""The explorer's server: which model it opens, and the web app that shows it (a JSON API over an
Explorer and one static page, nothing else), served by uvicorn on 127.0.0.1.

Which model (the second half of this file):

    open_run(path)        a trained run (any kind), via train.run.load_model
    latest_run(runs/)     the run whose checkpoint was written last
    open_preset(name)     a preset with random weights (token models get a character vocabulary
                          that covers English and common Chinese, unseen characters -> <unk>)
    serve(explorer, ...)  uvicorn on 127.0.0.1 until Ctrl-C; another host only when asked
    Background(explorer)  the same server in a background thread (tests, notebooks)

The app (create_app, the first half):

    GET  /                 the page (static/index.html); its scripts, styles and Chinese font under /static/
    GET  /api/model        what the page needs once (model, stages, stream points, limits)
    GET  /api/words?lang=  the page's words in one language, from the one catalogue
                           (PAGE_WORDS below, from the one catalogue), {fields} left for the page
    POST /api/analyze | attention | vectors | rope | next | generate | experts     JSON in, JSON out

Every refusal is said in the language the page asks in (`?lang=zh` on any request; English
otherwise): a RequestError carries a catalogue key, and its sentence is made here.

Safety, all here:
- the page's files are read from the package when the app is made and served from a fixed table
  (one route per file): no request names a path on disk;
- a request body must be JSON (`Content-Type: application/json`, which also makes a browser ask
  before another site's page may post here) and at most `limits.body_bytes` long;
- requests addressed to another host name are refused (a web page cannot reach the explorer by
  pointing its own domain at 127.0.0.1: "DNS rebinding"), unless the server was started with a
  remote host on purpose (`hosts=None`);
- every answer says: load scripts, styles, images and data from this server only
  (Content-Security-Policy), so the page cannot fetch anything from the network even by mistake;
- every error is JSON with a message: 4xx for the request's fault, 500 (logged) for ours; the
  server stays up either way.
"""

from __future__ import annotations

import functools
import logging
import re
import socket
import string
import sys
import threading
import traceback
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from urllib.parse import parse_qs

import torch
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from glassformer.config import apply_overrides, get_preset
from glassformer.errors import NotFound, UsageError
from glassformer.explore import conversation, diffview
from glassformer.explore.experts import EXPERT_WORDS
from glassformer.explore.explorer import Explorer
from glassformer.explore.repeats import PANEL_WORDS
from glassformer.explore.requests import SPECS, RequestError, parse_json, read
from glassformer.files import json_text
from glassformer.messages import LANGS, N_, NP_, language, normalize, say, t, translated
from glassformer.models import build_model, model_class
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE
from glassformer.train.run import RUNS_DIR, load_model

# ────────────────────────────────────────────────────────────────────────────────────────────────
# The web app
# ────────────────────────────────────────────────────────────────────────────────────────────────

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
MEDIA = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".otf": "font/otf",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
log = logging.getLogger("glassformer.explore")


def static_files() -> dict[str, bytes]:
    """Every file of the page, by name, read once from the installed package, and the Chinese
    font the page's styles name (glassformer.fonts: Chinese shows on a machine without a CJK font)."""
    from glassformer.fonts import CJK_FONT

    folder = files("glassformer.explore") / "static"
    pages = {
        f.name: f.read_bytes() for f in folder.iterdir() if f.is_file() and "." + f.name.rpartition(".")[2] in MEDIA
    }
    return {**pages, CJK_FONT.name: CJK_FONT.read_bytes()}


# the page's words, by the name its scripts ask for (static/i18n.js: t("next.title")); {fields} are
# left for the page to fill
PAGE_WORDS = {
    "causal.title": N_("What matters: activation patching"),
    "causal.help": N_(
        "Type a corrupted text of the same number of tokens (change "
        "one detail). Each cell copies one activation from the "
        "text's run into the corrupted run: 1 = the answer comes "
        "back, 0 = nothing changes. Click a cell to see the "
        "next-token bars with that one patch."
    ),
    "causal.corrupt": N_("corrupted text"),
    "causal.positions": N_("layer × position (the residual stream after each block)"),
    "causal.heads": N_("layer × head (each head's output at every position)"),
    "causal.status": N_(
        "answer {a} (the text's top token) against {w} (the "
        "corrupted run's likeliest token other than the answer); "
        "logit difference: text {clean}, corrupted {corrupt}, gap "
        "{gap}"
    ),
    "causal.legend": N_(
        "1 = the text's run, 0 = the corrupted run; above 1 a patch "
        "overshoots the text's run, below 0 it moves further from "
        "the answer than the corruption did."
    ),
    "causal.none": N_("No corrupted text: under each head, how much zeroing it changes the log-probability of {a}."),
    "causal.patched": N_(
        "patched {what}: logit difference {d} (text {clean}, "
        "corrupted {corrupt}); grey marks: the corrupted run, "
        "unpatched"
    ),
    "causal.what.position": N_("layer {l} at position {i} ({tok})"),
    "causal.what.head": N_("layer {l}, head {h}"),
    "causal.thumb.patch": N_("patch {v}"),
    "causal.thumb.ablation": N_("zeroed Δlog p {v}"),
    "app.explore": N_("explore"),
    "model.line": N_("{source} · {layers} layers × {heads} heads · d_model {d_model} · {params} parameters"),
    "input.title": N_("Your text"),
    "input.help": N_(
        "Type anything: every panel follows as you type. Each box is "
        "one token — its text, and below it its id in the "
        "vocabulary. Hover a token to see where the chosen head "
        "makes it look; click it for its Q, K, V vectors."
    ),
    "input.help_numbers": N_("Type numbers separated by spaces, one per step. Each box is one step the model reads."),
    "note.cropped": N_("The model has {kept} positions: it sees the last {kept} of your {total} tokens."),
    "err.network": N_("The explorer did not answer ({msg}). Is `glassformer explore` still running?"),
    "next.title": N_("Next token"),
    "next.help": N_(
        "The 20 tokens with the highest scores after the last token. "
        "Bar: probability after temperature, top-k and top-p — what "
        "sampling draws from. Thin mark: the model's own probability "
        "(temperature 1, nothing cut). Hatched: cut by top-k or "
        "top-p."
    ),
    "next.temperature": N_("temperature"),
    "next.top_k": N_("top-k (0 = off)"),
    "next.top_p": N_("top-p"),
    "next.kept": N_("{kept} of {vocab} tokens can be drawn."),
    "next.base": N_("Grey mark: the intact model, before any head was zeroed."),
    "next.base_corrupted": N_("Grey mark: the corrupted run, unpatched."),
    "next.cut": N_("cut"),
    "next.tip": N_("id {id}: p {p} · model {m}"),
    "next.tip_base": N_(" · intact {b}"),
    "next.tip_base_corrupted": N_(" · corrupted run {b}"),
    "gen.step": N_("+1 token"),
    "gen.run": N_("Run"),
    "gen.stop": N_("Stop"),
    "gen.seed": N_("seed"),
    "gen.status": N_("Generated {n} token(s). KV cache: {cached} positions{how}."),
    "gen.resumed": N_(", kept from the step before (only the new token was computed)"),
    "gen.fresh": N_(", filled from the whole text"),
    "gen.no_cache": N_("This model has no KV cache (its tokens see the future), so each step recomputes everything."),
    "pred.title": N_("Prediction"),
    "pred.help": N_(
        "Blue: the numbers you typed. Orange: what the model outputs "
        "at each step. Dashed: the intact model, when heads are "
        "zeroed."
    ),
    "attn.title": N_("Attention"),
    "attn.stage": N_("stage"),
    "attn.layer": N_("layer"),
    "attn.head": N_("head"),
    "attn.grid_help": N_(
        "Every layer (rows) × head (columns) at this stage. Click a "
        'map to open it below. "zero" ablates a head — its output z '
        "is multiplied by 0 — and every panel shows the model "
        "without it."
    ),
    "attn.kv_group": N_("kv head {kv}: q heads {first}–{last}"),
    "attn.zero": N_("zero"),
    "attn.ablated": N_("Zeroed: {list}."),
    "attn.none": N_("No head is zeroed."),
    "attn.clear": N_("restore all"),
    "attn.matrix_help": N_(
        "Rows: the token that looks (query). Columns: the token "
        "looked at (key). Grey hatching: masked, it may not look "
        "there. Hover a cell."
    ),
    "attn.cell": N_("query {q} “{qt}” → key {k} “{kt}”: {v}"),
    "attn.masked": N_("masked"),
    "attn.scale.absolute": N_("colour: 0 (dark) to 1 (bright)"),
    "attn.scale.per_head": N_("colour: each head from its own lowest (dark) to highest (bright) value"),
    "attn.layer_n": N_("layer {n}"),
    "attn.head_n": N_(NP_("explore.page.attn.head_n", "head {n}")),
    "vec.title": N_("Q, K, V of one token"),
    "vec.help": N_(
        "Click a token. Each square is one number of the chosen "
        "head's vector for that token (blue < 0 < red); hover for "
        "the value."
    ),
    "vec.of": N_("token {i} “{t}”, layer {l}, head {h}"),
    "rope.title": N_("RoPE: how position turns q and k"),
    "rope.help": N_(
        "Rotary positions turn each pair of a head's features by "
        "the angle p·θ: the position p times the pair's frequency "
        "θ. Choose a pair: the table shows, at the first positions, "
        "its angle and the pair of q (this query head) and of k "
        "(its key-value head) before and after the turn; the plot "
        "draws q before (grey, dashed), q after (blue) and k after "
        "(orange) as arrows from 0, each marked with its position."
    ),
    "rope.pair": N_("pair"),
    "rope.pair_n": N_("pair {i} (features {a}, {b}) · θ = {theta}"),
    "rope.of": N_("layer {l}, query head {h}, key-value head {kv}: features {a} and {b} as one point"),
    "rope.position": N_("position"),
    "rope.token": N_("token"),
    "rope.angle": N_("angle p·θ"),
    "rope.q_before": N_("q before"),
    "rope.q_after": N_("q after"),
    "rope.k_before": N_("k before"),
    "rope.k_after": N_("k after"),
    "stream.title": N_("Residual stream and logit lens"),
    "stream.help": N_(
        "The length ‖x‖ of each token's vector in the residual "
        "stream, at every point the model declares as the stream: "
        "entering block 0, then after each attention and each "
        "feed-forward. Orange: the chosen token. Grey: the mean over "
        "tokens."
    ),
    "stream.norm": N_("‖x‖"),
    "lens.title": N_("Logit lens"),
    "lens.help": N_(
        "What the model would predict if it stopped at each point: "
        "its final norm and head applied to the stream there. Each "
        "cell is the most likely next token at that position; darker "
        "= more sure. Hover for the top 3."
    ),
    "lens.help_numbers": N_(
        "What the model would output if it stopped at each point: "
        "its final norm and output layer applied to the stream there."
    ),
    "trace.title": N_("Shape trace"),
    "trace.help": N_(
        "Every named tensor of one forward pass on this input, in the order it was made, with the meaning of each axis."
    ),
}

PAGE_WORDS.update(EXPERT_WORDS)  # the routing panel's (explore/experts.py)
PAGE_WORDS.update(conversation.WORDS | diffview.WORDS)  # the chat tab's and the diff view's
PAGE_WORDS |= PANEL_WORDS  # the repeats panel's and the sampling knobs' (explore/repeats.py)


def page_words(lang: str) -> dict[str, str]:
    """The page's words in `lang`, by their names on the page ("next.title": "Next token")."""
    return {name: translated(key, lang) for name, key in PAGE_WORDS.items()}


def asked_language(scope) -> str:
    """The language a request asks in: its ?lang= (en, zh, zh-CN ...), else English."""
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", ["en"])[0]
    lang = normalize(asked)
    return lang if lang in LANGS else "en"


class Answer(JSONResponse):
    """JSON in UTF-8, written by the package's one JSON writer (files.json_text: a number that is not
    finite is null, never a bare NaN the page's JSON.parse would refuse). A lone surrogate, which a
    JSON string may hold ("\\ud800") but UTF-8 cannot, is written escaped instead of failing, so a
    refusal that quotes the request's own text still reaches the page."""

    def render(self, content) -> bytes:
        text = json_text(content, ensure_ascii=False, separators=(",", ":"))
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return json_text(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _error(error: RequestError, lang: str) -> JSONResponse:
    return Answer(error.body(lang), status_code=error.status)


HOST = re.compile(r"\[(?P<v6>[0-9A-Fa-f:.]+)\](:\d{1,5})?|(?P<name>[^:\[\]]+)(:\d{1,5})?")


def host_name(header: str) -> str | None:
    """The host name a Host header names ("name", "name:port", "[v6]" or "[v6]:port"), or None when
    it is none of these (e.g. "[::1].evil.com"): compared with the allowed names exactly."""
    found = HOST.fullmatch(header)
    return (found["v6"] or found["name"]) if found else None


class Guard:
    """ASGI middleware: refuse other host names; add the security headers to every answer."""

    def __init__(self, app, hosts: tuple[str, ...] | None) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = Headers(scope=scope).get("host", "")
        if self.hosts is not None and host_name(host) not in self.hosts:
            refusal = RequestError(
                "explore.wrong_host",
                "this explorer answers requests addressed to {hosts} only, not to '{host}'.",
                421,
                code="wrong_host",
                hosts=", ".join(self.hosts),
                host=host,
            )
            answer = _error(refusal, asked_language(scope))
            return await answer(scope, receive, send)

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _body(request: Request, limit: int) -> dict:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(
            "explore.body.content_type",
            "send the request as JSON with Content-Type: application/json (got {got}).",
            415,
            code="content_type",
            got=repr(kind or "none"),
        )
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise RequestError(
            "explore.body.too_large",
            "the request body is {size} bytes; at most {most} are accepted.",
            413,
            code="too_large",
            size=int(length),
            most=limit,
        )
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise RequestError(
                "explore.body.over",
                "the request body is over {most} bytes, the most accepted.",
                413,
                code="too_large",
                most=limit,
            )
    return parse_json(bytes(raw))


def create_app(explorer, hosts: tuple[str, ...] | None = LOCAL_HOSTS) -> Starlette:
    """The app for one Explorer. hosts: the host names it answers to (None: any — remote use)."""
    limit = explorer.limits.body_bytes

    async def api(request: Request, endpoint: str) -> Response:
        try:
            body = await _body(request, limit)
            return Answer(await run_in_threadpool(explorer.handle, endpoint, body))
        except RequestError as e:
            return _error(e, asked_language(request.scope))
        except Exception as e:  # ours, not the request's: say so, log it, keep serving
            return _error(internal_error(endpoint, e), asked_language(request.scope))

    async def chat_stream(request: Request) -> Response:  # JSON lines (explore/conversation.py: streamed)
        lang = asked_language(request.scope)

        def line(event: dict) -> bytes:
            return Answer({"refused": event["refused"].body(lang)} if "refused" in event else event).body + b"\n"

        try:
            return await conversation.streamed(explorer, read(await _body(request, limit), SPECS["chat"]), line,
                                               internal_error)  # fmt: skip
        except RequestError as e:
            return _error(e, lang)

    async def model_info(request: Request) -> Response:
        return Answer(explorer.info())

    async def words(request: Request) -> Response:
        lang = asked_language(request.scope)
        return Answer({"lang": lang, "words": page_words(lang)})

    async def static(request: Request, name: str, content: bytes) -> Response:
        return Response(content, media_type=MEDIA["." + name.rpartition(".")[2]], headers={"Cache-Control": "no-cache"})

    async def http_error(request: Request, exc: HTTPException) -> Response:
        what = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        refusal = RequestError(
            "explore.http",
            "{method} {path}: {detail}. The API is GET /api/model, GET /api/words and POST /api/{endpoints}.",
            exc.status_code,
            what,
            method=request.method,
            path=request.url.path,
            detail=exc.detail,
            endpoints=" | ".join(sorted(SPECS)),
        )
        return _error(refusal, asked_language(request.scope))

    pages = static_files()
    routes = [Route("/", functools.partial(static, name="index.html", content=pages["index.html"]))]
    routes += [
        Route(f"/static/{name}", functools.partial(static, name=name, content=content))
        for name, content in pages.items()
    ]
    routes += [Route("/api/model", model_info), Route("/api/words", words)]
    routes += [Route(f"/api/{name}", functools.partial(api, endpoint=name), methods=["POST"]) for name in SPECS]
    routes.append(Route("/api/chat/stream", chat_stream, methods=["POST"]))  # the chat tab's answer, as it comes
    return Starlette(
        routes=routes, middleware=[Middleware(Guard, hosts=hosts)], exception_handlers={HTTPException: http_error}
    )


def internal_error(endpoint: str, e: Exception) -> RequestError:
    """A bug of ours while answering `endpoint` (called where it was caught): logged with its
    traceback, answered as a 500 that quotes it; the server keeps serving."""
    log.error(t("explore {endpoint} failed:\n{traceback}", endpoint=endpoint, traceback=traceback.format_exc()))
    return RequestError(
        "explore.internal",
        "internal error in {endpoint}: {error}",
        500,
        code="internal",
        endpoint=endpoint,
        error=_said(e),
    )


def _said(error: Exception) -> str:
    """A bug's type and message, as the 500 answer quotes it (a typed error in its own words)."""
    return f"{type(error).__name__}: {error}"


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Which model, and serving it
# ────────────────────────────────────────────────────────────────────────────────────────────────

# A preset's random model needs a vocabulary that lets a reader type: printable ASCII, newline,
# and a few hundred frequent Chinese characters with common punctuation (others become <unk>).
PRESET_CHARS = (
    string.printable[:95]
    + "\n"
    + (
        "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里"
        "后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从"
        "动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给"
        "等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入"
        "先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感"
        "金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林"
        "题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往"
        "展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李"
        "息写呢识极令黄德收脸钱党倒未持音注意模型词向量训练字，。！？、：；“”（）《》"
    )
)


def latest_run(runs_dir=RUNS_DIR) -> Path:
    """The run under `runs_dir` whose checkpoint is newest; a clear error when there is none."""
    runs = [p.parent for p in Path(runs_dir).glob(f"*/{MODEL_FILE}") if (p.parent / "config.json").exists()]
    if not runs:
        raise NotFound(
            "explore.no_run",
            "no trained run under {runs_dir}/ (a folder with config.json "
            "and {weights}). Make one with `glassformer demo` (trains "
            "`baby` on Shakespeare, a few minutes), name one with "
            "`glassformer explore RUN`, or explore random weights with "
            "`glassformer explore --preset baby`.",
            runs_dir=runs_dir,
            weights=MODEL_FILE,
        )
    return max(runs, key=lambda r: (r / MODEL_FILE).stat().st_mtime)


def open_run(run_dir, against=None) -> Explorer:
    """A trained run, named in the page's language; it opens on its own training text when
    config.json keeps an example of it (runs made since issue 27). against: a run tuned from it, for
    the diff view (runs that do not line up are refused here, before anything is served)."""
    pair = diffview.open_against(run_dir, against) if against is not None else None
    model, tokenizer, config = load_model(run_dir)
    if isinstance(config.get("imported"), dict):  # imported GPT-2 files: no preset, say where from
        source = (N_("run {run} ({kind}, imported GPT-2 weights)"), {"run": str(run_dir), "kind": model.kind})
    else:
        source = (
            N_("run {run} ({kind}, preset {preset})"),
            {"run": str(run_dir), "kind": model.kind, "preset": config.get("preset", "?")},
        )
    example = config.get("example") if isinstance(config.get("example"), str) else None
    if example is None and isinstance(config.get("post"), dict):  # a chat run: its first example, templated
        example = chat_example(config, tokenizer)
    explorer = Explorer(model, tokenizer, source, example=example)
    explorer.run, explorer.config, explorer.against = str(run_dir), config, pair
    return explorer


def chat_example(config: dict, tokenizer) -> str | None:
    """A post-training run's first example as its chat template renders it, or None when its data
    cannot be read any more (a file moved): the page then starts empty, as before."""
    from glassformer.errors import GlassformerError
    from glassformer.post.diff import run_examples

    try:
        return tokenizer.decode(run_examples(config, tokenizer, 1)[0])
    except (GlassformerError, OSError, KeyError, IndexError):
        return None


def open_preset(name: str, seed: int = 0, overrides=()) -> Explorer:
    preset = apply_overrides(get_preset(name), list(overrides))
    tokenizer = None
    if model_class(preset.model.kind).inputs == "tokens":
        tokenizer = CharTokenizer.from_text(PRESET_CHARS, unk=True)
        preset.model = replace(preset.model, vocab_size=tokenizer.vocab_size, pad_id=None)
    torch.manual_seed(seed)
    model = build_model(preset.model)
    return Explorer(
        model,
        tokenizer,
        (
            N_("preset {preset} ({kind}), random weights, seed {seed}"),
            {"preset": name, "kind": model.kind, "seed": seed},
        ),
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one), or an error that says what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections whose
    # socket says so, and with it on, every answer waited ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise UsageError(
            "explore.cannot_listen",
            "cannot listen on {host}:{port} ({reason}). Choose another --port, or --port 0 for any free one.",
            host=host,
            port=port,
            reason=e.strerror,
        ) from None
    sock.listen(64)
    return sock


def check_host(host: str, allow_remote: bool) -> tuple[str, ...] | None:
    """The host names the app answers to (None: any); refuses a non-local host unless allow_remote."""
    if host in LOCAL_HOSTS:
        return LOCAL_HOSTS
    if not allow_remote:
        raise UsageError(
            "explore.remote_host",
            "--host {host} would let other machines reach the explorer "
            "(and run your model). If that is what you want, add "
            "--allow-remote; otherwise leave --host at {local}.",
            host=host,
            local=LOCAL_HOSTS[0],
        )
    return None


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def make_server(explorer: Explorer, hosts):
    import uvicorn  # the server, only when serving

    config = uvicorn.Config(
        create_app(explorer, hosts), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    return uvicorn.Server(config)


def page_address(url: str, lang: str) -> str:
    """The page's address in a language: English is the page's default, any other says ?lang=."""
    return url if lang == "en" else f"{url}?lang={lang}"


def serve(explorer: Explorer, host: str = "127.0.0.1", port: int = 8321, allow_remote: bool = False) -> None:
    """Serve until Ctrl-C (uvicorn finishes the requests in flight, then returns). The address
    printed opens the page in the command's language (`--lang zh` or GLASSFORMER_LANG=zh)."""
    hosts = check_host(host, allow_remote)
    if hosts is None:
        say(
            "WARNING: listening on {host}: anyone who can reach this "
            "machine can use the explorer. There is no password; stop it "
            "with Ctrl-C when done.",
            file=sys.stderr,
            host=host,
        )
    sock = bind(host, port)
    server = make_server(explorer, hosts)
    say(
        "glassformer explore: {source}\n  open {url}   (Ctrl-C stops)",
        source=explorer.source_text(language()),
        url=page_address(url_of(sock), language()),
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    say("glassformer explore: stopped.")


class Background:
    """The server in a background thread (tests, notebooks): `with Background(ex) as url: ...`."""

    def __init__(self, explorer: Explorer, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sock = bind(host, port)
        self.url = url_of(self.sock)
        self.server = make_server(explorer, check_host(host, allow_remote=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            threading.Event().wait(0.02)
        return self.url

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

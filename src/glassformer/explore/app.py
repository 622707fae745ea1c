"""The web app: a JSON API over an Explorer and one static page, nothing else.

    GET  /                 the page (static/index.html); its scripts, styles and Chinese font under /static/
    GET  /api/model        what the page needs once (model, stages, stream points, limits)
    GET  /api/words?lang=  the page's words in one language, from the one catalogue
                           (glassformer.messages, keys explore.page.*), {fields} left for the page
    POST /api/analyze | attention | vectors | next | generate     JSON in, JSON out

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
import traceback
from importlib.resources import files
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from glassformer.explore.requests import SPECS, RequestError, parse_json
from glassformer.messages import LANGS, TABLES, normalize

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


PAGE = "explore.page."  # the catalogue's keys for the page's words


def page_words(lang: str) -> dict[str, str]:
    """The page's words in `lang`, keyed without the prefix ("next.title": "Next token")."""
    return {key[len(PAGE) :]: text for key, text in TABLES[lang].items() if key.startswith(PAGE)}


def asked_language(scope) -> str:
    """The language a request asks in: its ?lang= (en, zh, zh-CN ...), else English."""
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", ["en"])[0]
    lang = normalize(asked)
    return lang if lang in LANGS else "en"


def _error(error: RequestError, lang: str) -> JSONResponse:
    return JSONResponse(error.body(lang), status_code=error.status)


class Guard:
    """ASGI middleware: refuse other host names; add the security headers to every answer."""

    def __init__(self, app, hosts: tuple[str, ...] | None) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = Headers(scope=scope).get("host", "")
        name = host[1 : host.find("]")] if host.startswith("[") else host.rpartition(":")[0] or host
        if self.hosts is not None and name not in self.hosts:
            refusal = RequestError(
                "error.explore.wrong_host", 421, "wrong_host", hosts=", ".join(self.hosts), host=host
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
        raise RequestError("error.explore.body.content_type", 415, "content_type", got=repr(kind or "none"))
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise RequestError("error.explore.body.too_large", 413, "too_large", size=int(length), most=limit)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise RequestError("error.explore.body.over", 413, "too_large", most=limit)
    return parse_json(bytes(raw))


def create_app(explorer, hosts: tuple[str, ...] | None = LOCAL_HOSTS) -> Starlette:
    """The app for one Explorer. hosts: the host names it answers to (None: any — remote use)."""
    limit = explorer.limits.body_bytes

    async def api(request: Request, endpoint: str) -> Response:
        try:
            body = await _body(request, limit)
            return JSONResponse(await run_in_threadpool(explorer.handle, endpoint, body))
        except RequestError as e:
            return _error(e, asked_language(request.scope))
        except Exception as e:  # ours, not the request's: say so, log it, keep serving
            log.error("explore %s failed:\n%s", endpoint, traceback.format_exc())
            ours = RequestError("error.explore.internal", 500, "internal", endpoint=endpoint, error=_said(e))
            return _error(ours, asked_language(request.scope))

    async def model_info(request: Request) -> Response:
        return JSONResponse(explorer.info())

    async def words(request: Request) -> Response:
        lang = asked_language(request.scope)
        return JSONResponse({"lang": lang, "words": page_words(lang)})

    async def static(request: Request, name: str, content: bytes) -> Response:
        return Response(content, media_type=MEDIA["." + name.rpartition(".")[2]], headers={"Cache-Control": "no-cache"})

    async def http_error(request: Request, exc: HTTPException) -> Response:
        what = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        refusal = RequestError(
            "error.explore.http",
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
    return Starlette(
        routes=routes, middleware=[Middleware(Guard, hosts=hosts)], exception_handlers={HTTPException: http_error}
    )


def _said(error: Exception) -> str:
    """A bug's type and message, as the 500 answer quotes it (a typed error in its own words)."""
    return f"{type(error).__name__}: {error}"

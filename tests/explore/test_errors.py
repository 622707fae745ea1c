"""Every bad request gets a JSON 4xx with a message that names the problem, and the server keeps
answering; the page's files come from a fixed table and load nothing from the network."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest
from explore_kit import client_for, make_explorer, post
from starlette.testclient import TestClient

from glassformer.explore import LIMITS
from glassformer.explore.app import CSP, create_app


def refused(client, endpoint: str, body, status: int, words: str, code: str | None = None, **kwargs) -> dict:
    r = (
        client.post(f"/api/{endpoint}", json=body, **kwargs)
        if isinstance(body, dict)
        else client.post(f"/api/{endpoint}", content=body, **kwargs)
    )
    assert r.status_code == status, r.text
    answer = r.json()
    assert re.search(words, answer["error"]), answer["error"]
    if code:
        assert answer["code"] == code
    assert client.post("/api/next", json={"text": "the"}).status_code == 200  # still serving
    return answer


JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    "endpoint,body,status,words,code",
    [
        ("analyze", {"text": "the", "colour": 1}, 400, r"unknown field.*'colour'.*reads", "bad_request"),
        ("analyze", {"text": "the", "layer": True}, 400, r"'layer' must be a whole number", None),
        ("analyze", {"text": 5}, 400, r"'text' must be a string", None),
        ("analyze", {"ids": [1, "2"]}, 400, r"'ids' must be a list of whole numbers", None),
        ("analyze", {"text": "the", "ablate": [[0]]}, 400, r"\[layer, head\] pairs", None),
        ("analyze", {"text": "the", "ids": [1]}, 400, r"exactly one of 'text'.*'ids'", None),
        ("analyze", {}, 400, r"exactly one of", None),
        ("analyze", {"text": ""}, 422, r"empty", "empty"),
        ("analyze", {"text": "the", "layer": 2}, 422, r"layer=2 is out of range.*2 attention layers", "out_of_range"),
        ("analyze", {"text": "the", "head": -1}, 400, r"'head' must be at least 0", None),
        ("analyze", {"text": "the", "stage": "pattern"}, 422, r"stage 'pattern'.*\['scores', 'weights'\]", None),
        ("analyze", {"text": "the", "ablate": [[0, 4]]}, 422, r"head=4 is out of range", None),
        ("analyze", {"text": "the", "lang": "fr"}, 400, r"one of \['en', 'zh'\]", None),
        ("analyze", {"ids": [0, 999]}, 422, r"\[999\] are outside the vocabulary", "out_of_range"),
        ("analyze", {"text": "x" * (LIMITS.text_chars + 1)}, 413, r"'text' is too long.*at most 2000", "too_long"),
        ("vectors", {"text": "the", "token": 3}, 422, r"token=3 is out of range.*3 tokens", None),
        ("next", {"text": "the", "temperature": -0.5}, 400, r"between 0.0 and 5.0", None),
        ("next", {"text": "the", "top_p": 0}, 400, r"'top_p' must be between", None),
        ("next", {"text": "the", "top_k": 2.5}, 400, r"'top_k' must be a whole number", None),
        ("generate", {"ids": [1], "n": 65}, 400, r"'n' must be between 1 and 64", None),
        ("generate", {"text": "the"}, 400, r"unknown field.*'text'", None),
        ("generate", {"ids": []}, 422, r"needs 'ids'", "empty"),
        ("generate", {"ids": [1], "session": "s" * 65}, 413, r"'session' is too long", None),
    ],
)
def test_bad_fields(client, endpoint, body, status, words, code):
    refused(client, endpoint, body, status, words, code)


def test_unknown_characters_are_named(client):
    answer = refused(client, "analyze", {"text": "the zebra€¥€"}, 422, r"2 character\(s\).*'€', '¥'", "unknown_chars")
    assert answer["chars"] == ["€", "¥"]  # z, b, r, a are in the vocabulary


def test_bodies_that_are_not_json_objects(client):
    refused(client, "analyze", b"{not json", 400, r"not valid JSON", headers=JSON)
    refused(client, "analyze", b"[1, 2]", 400, r"must be a JSON object", headers=JSON)
    refused(client, "analyze", b'{"text": "the", "temperature": NaN}', 400, r"NaN, which is not JSON", headers=JSON)
    refused(client, "analyze", b"\xff\xfe", 400, r"not UTF-8", headers=JSON)
    refused(
        client,
        "analyze",
        b'{"text": "the"}',
        415,
        r"Content-Type: application/json.*'text/plain'",
        headers={"Content-Type": "text/plain"},
    )


def test_body_size_is_bounded(client):
    big = b'{"text": "' + b"a" * LIMITS.body_bytes + b'"}'
    refused(client, "analyze", big, 413, rf"at most {LIMITS.body_bytes}", "too_large", headers=JSON)

    def chunks():  # no Content-Length: the limit holds while reading
        yield b'{"text": "'
        for _ in range(LIMITS.body_bytes // 1000 + 1):
            yield b"a" * 1000
        yield b'"}'

    refused(client, "analyze", chunks(), 413, rf"over {LIMITS.body_bytes} bytes", "too_large", headers=JSON)


def test_routes_methods_and_paths(client):
    for path in ("/api/nothing", "/static/../pyproject.toml", "/static/", "/etc/passwd", "/api/../api/model/x"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["code"] == "not_found", path
        assert "POST /api/analyze" in r.json()["error"]
    r = client.get("/api/analyze")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert client.post("/api/model", json={}).status_code == 405


def test_other_host_names_are_refused(gpt):
    evil = TestClient(create_app(gpt), base_url="http://attacker.example:8321")
    r = evil.get("/api/model")
    assert r.status_code == 421 and "127.0.0.1" in r.json()["error"]
    for host in ("http://localhost:9", "http://[::1]:8321"):
        assert TestClient(create_app(gpt), base_url=host).get("/api/model").status_code == 200
    assert TestClient(create_app(gpt, hosts=None), base_url="http://10.0.0.5").get("/").status_code == 200


def test_an_internal_error_is_json_and_the_server_stays_up(monkeypatch, capsys):
    ex = make_explorer("gpt")
    c = client_for(ex)
    monkeypatch.setattr(ex, "vectors", lambda req: 1 / 0)
    r = c.post("/api/vectors", json={"text": "the"})
    assert r.status_code == 500 and r.json() == {
        "error": "internal error in vectors: ZeroDivisionError: division by zero",
        "code": "internal",
    }
    assert post(c, "next", {"text": "the"})["rows"]


def test_the_page_is_local_only(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP and "connect-src 'self'" in CSP
    assert "default-src 'none'" in CSP and r.headers["x-content-type-options"] == "nosniff"
    static = files("glassformer.explore") / "static"
    names = sorted(f.name for f in static.iterdir())
    assert {"index.html", "app.js", "app.css", "i18n.js", "draw.js", "panels.js"} <= set(names)
    for name in names:
        served = client.get(f"/static/{name}")
        assert served.status_code == 200 and served.content == (static / name).read_bytes()
        text = served.text.replace("http://www.w3.org/2000/svg", "")  # an SVG namespace name, never fetched
        assert not re.search(r"(https?:)?//[a-z0-9]|@import|url\(", text, re.I), name
        assert not re.search(r"<style|style=|<script>|\son[a-z]+=\"", text), name  # CSP: no inline code or style


def test_pyproject_ships_every_static_file():
    import tomllib
    from fnmatch import fnmatch
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["glassformer.explore"]
    static = root / "src/glassformer/explore/static"
    for f in static.iterdir():
        assert any(fnmatch(f"static/{f.name}", p) for p in patterns), f"{f.name} would be left out of the wheel"


def test_both_languages_have_every_label():
    static = files("glassformer.explore") / "static"
    table = (static / "i18n.js").read_text(encoding="utf-8")
    en_part, zh_part = table.split("\n  zh: {")
    en, zh = (set(re.findall(r'^\s+"([a-z_.]+)":', part, re.M)) for part in (en_part, zh_part))
    assert en == zh and len(en) > 50
    used = {"attn.scale.absolute", "attn.scale.per_head", "note.cropped"}  # keys the code builds from data
    for name in ("index.html", "app.js", "panels.js"):
        text = (static / name).read_text(encoding="utf-8")
        used |= set(re.findall(r'data-t="([a-z_.]+)"', text)) | set(re.findall(r'\bt\("([a-z_.]+)"', text))
    assert used - {"attn.scale.", "note."} <= en, used - en  # (those two prefixes are completed from data)

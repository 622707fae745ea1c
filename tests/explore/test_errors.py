"""Every bad request gets a JSON 4xx with a catalogue key and its fields (the sentence in the
page's language), and the server keeps answering; the page's files come from a fixed table and load
nothing from the network."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest
from explore_kit import client_for, make_explorer, post
from helpers import format_fields as fields
from starlette.testclient import TestClient

from glassformer.explore import LIMITS
from glassformer.explore.app import CSP, create_app, page_words
from glassformer.messages import TABLES, has, t


def refused(client, endpoint: str, body, status: int, key: str, code: str | None = None, headers=None, **fields):
    """The refusal's status, catalogue key, code and the fields named; and the server still serves."""
    r = (
        client.post(f"/api/{endpoint}", json=body, headers=headers)
        if isinstance(body, dict)
        else client.post(f"/api/{endpoint}", content=body, headers=headers)
    )
    assert r.status_code == status, r.text
    answer = r.json()
    assert answer["key"] == key, answer
    assert has(key) and answer["error"] == t(key, **{k: v for k, v in answer.items() if k not in BODY})
    if code:
        assert answer["code"] == code
    assert {k: answer[k] for k in fields} == fields, answer
    assert client.post("/api/next", json={"text": "the"}).status_code == 200  # still serving
    return answer


BODY = ("error", "code", "key")  # the rest of a refusal's JSON is its fields
JSON = {"Content-Type": "application/json"}
E = "error.explore."


@pytest.mark.parametrize(
    "endpoint,body,status,key,code,fields",
    [
        ("analyze", {"text": "the", "colour": 1}, 400, "field.unknown", "bad_request", {"unknown": '["colour"]'}),
        ("analyze", {"text": "the", "layer": True}, 400, "field.int", None, {"field": "layer", "got": "true"}),
        ("analyze", {"text": 5}, 400, "field.str", None, {"field": "text", "got": "5"}),
        ("analyze", {"ids": [1, "2"]}, 400, "field.ints", None, {"field": "ids"}),
        ("analyze", {"text": "the", "ablate": [[0]]}, 400, "field.pairs", None, {"field": "ablate"}),
        ("analyze", {"text": "the", "ids": [1]}, 400, "text_or_ids", None, {}),
        ("analyze", {}, 400, "text_or_ids", None, {}),
        ("analyze", {"text": ""}, 422, "empty", "empty", {}),
        ("analyze", {"text": "the", "layer": 2}, 422, "range.layers", "out_of_range", {"value": 2, "size": 2}),
        ("analyze", {"text": "the", "head": -1}, 400, "field.at_least", None, {"field": "head", "lo": 0}),
        ("analyze", {"text": "the", "stage": "pattern"}, 422, "stage", None, {"stages": "scores, weights"}),
        ("analyze", {"text": "the", "ablate": [[0, 4]]}, 422, "range.heads", None, {"field": "head", "value": 4}),
        ("analyze", {"text": "the", "lang": "fr"}, 400, "field.choice", None, {"choices": '["en", "zh"]'}),
        ("analyze", {"ids": [0, 999]}, 422, "ids_outside", "out_of_range", {"ids": "[999]"}),
        ("analyze", {"text": "x" * (LIMITS.text_chars + 1)}, 413, "field.too_long.str", "too_long", {"most": 2000}),
        ("vectors", {"text": "the", "token": 3}, 422, "range.tokens", None, {"value": 3, "size": 3}),
        ("next", {"text": "the", "temperature": -0.5}, 400, "field.between", None, {"lo": 0.0, "hi": 5.0}),
        ("next", {"text": "the", "top_p": 0}, 400, "field.between", None, {"field": "top_p"}),
        ("next", {"text": "the", "top_k": 2.5}, 400, "field.int", None, {"field": "top_k"}),
        ("generate", {"ids": [1], "n": 65}, 400, "field.between", None, {"field": "n", "lo": 1, "hi": 64}),
        ("generate", {"text": "the"}, 400, "field.unknown", None, {"unknown": '["text"]'}),
        ("generate", {"ids": []}, 422, "generate_empty", "empty", {}),
        ("generate", {"ids": [1], "session": "s" * 65}, 413, "field.too_long.str", None, {"field": "session"}),
    ],
)
def test_bad_fields(client, endpoint, body, status, key, code, fields):
    refused(client, endpoint, body, status, E + key, code, **fields)


def test_unknown_characters_are_named(client):
    answer = refused(client, "analyze", {"text": "the zebra€¥€"}, 422, E + "unknown_chars", "unknown_chars", n=2)
    assert answer["chars"] == ["€", "¥"]  # z, b, r, a are in the vocabulary


def test_a_refusal_speaks_the_language_the_page_asks_in(client):
    """The one deliberate wording check here: the same refusal, in English and in Chinese."""
    en = client.post("/api/analyze", json={"text": "the", "layer": 2}).json()
    zh = client.post("/api/analyze?lang=zh", json={"text": "the", "layer": 2}).json()
    assert en["error"] == "layer=2 is out of range: this model has 2 attention layers (0 to 1)."
    assert zh["error"] == "layer=2 超出范围：这个模型有 2 个注意力层（0 到 1）。"
    assert {k: v for k, v in en.items() if k != "error"} == {k: v for k, v in zh.items() if k != "error"}


def test_bodies_that_are_not_json_objects(client):
    refused(client, "analyze", b"{not json", 400, E + "body.not_json", headers=JSON)
    refused(client, "analyze", b"[1, 2]", 400, E + "body.not_object", headers=JSON, kind="list")
    refused(client, "analyze", b'{"text": "the", "temperature": NaN}', 400, E + "body.constant", headers=JSON)
    refused(client, "analyze", b"\xff\xfe", 400, E + "body.not_utf8", headers=JSON)
    refused(
        client,
        "analyze",
        b'{"text": "the"}',
        415,
        E + "body.content_type",
        headers={"Content-Type": "text/plain"},
        got="'text/plain'",
    )


def test_body_size_is_bounded(client):
    big = b'{"text": "' + b"a" * LIMITS.body_bytes + b'"}'
    refused(client, "analyze", big, 413, E + "body.too_large", "too_large", headers=JSON, most=LIMITS.body_bytes)

    def chunks():  # no Content-Length: the limit holds while reading
        yield b'{"text": "'
        for _ in range(LIMITS.body_bytes // 1000 + 1):
            yield b"a" * 1000
        yield b'"}'

    refused(client, "analyze", chunks(), 413, E + "body.over", "too_large", headers=JSON, most=LIMITS.body_bytes)


def test_routes_methods_and_paths(client):
    for path in ("/api/nothing", "/static/../pyproject.toml", "/static/", "/etc/passwd", "/api/../api/model/x"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["code"] == "not_found", path
        assert r.json()["key"] == E + "http" and "analyze" in r.json()["endpoints"]
    r = client.get("/api/analyze")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert client.post("/api/model", json={}).status_code == 405


def test_other_host_names_are_refused(gpt):
    evil = TestClient(create_app(gpt), base_url="http://attacker.example:8321")
    r = evil.get("/api/model")
    assert r.status_code == 421 and r.json()["key"] == E + "wrong_host" and "127.0.0.1" in r.json()["hosts"]
    for host in ("http://localhost:9", "http://[::1]:8321"):
        assert TestClient(create_app(gpt), base_url=host).get("/api/model").status_code == 200
    assert TestClient(create_app(gpt, hosts=None), base_url="http://10.0.0.5").get("/").status_code == 200


def test_an_internal_error_is_json_and_the_server_stays_up(monkeypatch, capsys):
    ex = make_explorer("gpt")
    c = client_for(ex)
    monkeypatch.setattr(ex, "vectors", lambda req: 1 / 0)
    r = c.post("/api/vectors", json={"text": "the"})
    assert r.status_code == 500 and r.json()["code"] == "internal" and r.json()["key"] == E + "internal"
    assert r.json()["endpoint"] == "vectors" and r.json()["error"].endswith("ZeroDivisionError: division by zero")
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
        assert not re.search(r"(https?:)?//[a-z0-9]|@import|url\((?!\"/static/)", text, re.I), name  # only ours
        assert not re.search(r"<style|style=|<script>|\son[a-z]+=\"", text), name  # CSP: no inline code or style
    font = client.get("/static/GlassformerCJK-Regular.otf")  # the one url( the styles name: the Chinese font
    assert font.status_code == 200 and font.headers["content-type"] == "font/otf"
    assert font.content == (files("glassformer.fonts") / "GlassformerCJK-Regular.otf").read_bytes()


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


def test_the_page_s_words_come_from_the_catalogue_in_both_languages(client):
    """GET /api/words serves the catalogue's explore.page.* keys; every key the page names is there,
    with the same {fields} in both languages, and no script holds a table of sentences."""
    en, zh = (client.get(f"/api/words?lang={lang}").json() for lang in ("en", "zh-CN"))
    assert en["lang"] == "en" and zh["lang"] == "zh" and en["words"].keys() == zh["words"].keys()
    assert len(en["words"]) > 50 and en["words"] == page_words("en")
    for key, text in en["words"].items():
        assert TABLES["en"]["explore.page." + key] == text
        assert fields(text) == fields(zh["words"][key]), key
    assert zh["words"]["next.title"] == "下一个词元" and client.get("/api/words?lang=fr").json()["lang"] == "en"
    static = files("glassformer.explore") / "static"
    used = {"attn.scale.absolute", "attn.scale.per_head", "note.cropped"}  # keys the code builds from data
    for name in ("index.html", "app.js", "panels.js"):
        text = (static / name).read_text(encoding="utf-8")
        used |= set(re.findall(r'data-t="([a-z_.]+)"', text)) | set(re.findall(r'\bt\("([a-z_.]+)"', text))
    assert used - {"attn.scale.", "note."} <= set(en["words"]), used - set(en["words"])
    for name in ("i18n.js", "app.js", "panels.js", "draw.js"):
        assert not re.search(r'^\s+"[a-z_.]+":\s*"', (static / name).read_text(encoding="utf-8"), re.M), name


def test_pyproject_ships_the_chinese_font_and_its_licence():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["glassformer.fonts"] == ["*.otf", "OFL.txt"]

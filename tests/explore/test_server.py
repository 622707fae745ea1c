"""The explorer's server (server.py). The app: every bad request gets a JSON 4xx with a catalogue key
and its fields (the sentence in the page's language), and the server keeps answering; the page's
files come from a fixed table and load nothing from the network. Serving (`glassformer explore`):
which model it opens, what it refuses, a real start/stop by Ctrl-C, and requests answered one at a
time on a real server under concurrent load."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path

import pytest
from explore_kit import client_for, decisive, make_explorer, make_run, post, tiny_model
from helpers import ROOT, said, strict_json
from helpers import format_fields as fields
from starlette.testclient import TestClient

from glassformer.cli import main
from glassformer.errors import NotFound, UsageError
from glassformer.explore import LIMITS, Explorer
from glassformer.explore import server as server_module
from glassformer.explore.server import (
    CSP,
    PAGE_WORDS,
    Background,
    create_app,
    latest_run,
    open_preset,
    open_run,
    page_words,
)
from glassformer.messages import t, translated
from glassformer.train.checkpoint import MODEL_FILE

CJK = re.compile("[\u4e00-\u9fff]")  # a Chinese character: the Chinese rendering is Chinese


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
    words = answer["error"]
    assert words and not re.search(r"\{\w+\}", words), answer  # worded, every field filled in
    if code:
        assert answer["code"] == code
    assert {k: answer[k] for k in fields} == fields, answer
    assert client.post("/api/next", json={"text": "the"}).status_code == 200  # still serving
    return answer


BODY = ("error", "code", "key")  # the rest of a refusal's JSON is its fields
JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    "endpoint,body,status,key,code,fields",
    [
        (
            "analyze",
            {"text": "the", "colour": 1},
            400,
            "explore.field.unknown",
            "bad_request",
            {"unknown": '["colour"]'},
        ),
        (
            "analyze",
            {"text": "the", "layer": True},
            400,
            "explore.field.int",
            None,
            {"field": "layer", "got": "true"},
        ),
        ("analyze", {"text": 5}, 400, "explore.field.str", None, {"field": "text", "got": "5"}),
        (
            "analyze",
            {"ids": [1, "2"]},
            400,
            "explore.field.ints",
            None,
            {"field": "ids"},
        ),
        (
            "analyze",
            {"text": "the", "ablate": [[0]]},
            400,
            "explore.field.pairs",
            None,
            {"field": "ablate"},
        ),
        ("analyze", {"text": "the", "ids": [1]}, 400, "explore.text_or_ids", None, {}),
        ("analyze", {}, 400, "explore.text_or_ids", None, {}),
        ("analyze", {"text": ""}, 422, "explore.empty", "empty", {}),
        (
            "analyze",
            {"text": "the", "layer": 2},
            422,
            "explore.range.layers",
            "out_of_range",
            {"value": 2, "size": 2},
        ),
        (
            "analyze",
            {"text": "the", "head": -1},
            400,
            "explore.field.at_least",
            None,
            {"field": "head", "lo": 0},
        ),
        (
            "analyze",
            {"text": "the", "stage": "pattern"},
            422,
            "explore.stage",
            None,
            {"stages": "scores, weights"},
        ),
        (
            "analyze",
            {"text": "the", "ablate": [[0, 4]]},
            422,
            "explore.range.heads",
            None,
            {"field": "head", "value": 4},
        ),
        (
            "analyze",
            {"text": "the", "lang": "fr"},
            400,
            "explore.field.choice",
            None,
            {"choices": '["en", "zh"]'},
        ),
        ("analyze", {"ids": [0, 999]}, 422, "explore.ids_outside", "out_of_range", {"ids": "[999]"}),
        (
            "analyze",
            {"text": "x" * (LIMITS.text_chars + 1)},
            413,
            "explore.field.too_long.str",
            "too_long",
            {"most": 2000},
        ),
        (
            "vectors",
            {"text": "the", "token": 3},
            422,
            "explore.range.tokens",
            None,
            {"value": 3, "size": 3},
        ),
        (
            "next",
            {"text": "the", "temperature": -0.5},
            400,
            "explore.field.between",
            None,
            {"lo": 0.0, "hi": 5.0},
        ),
        (
            "next",
            {"text": "the", "top_p": 0},
            400,
            "explore.field.between",
            None,
            {"field": "top_p"},
        ),
        (
            "next",
            {"text": "the", "top_k": 2.5},
            400,
            "explore.field.int",
            None,
            {"field": "top_k"},
        ),
        (
            "generate",
            {"ids": [1], "n": 65},
            400,
            "explore.field.between",
            None,
            {"field": "n", "lo": 1, "hi": 64},
        ),
        ("generate", {"text": "the"}, 400, "explore.field.unknown", None, {"unknown": '["text"]'}),
        ("generate", {"ids": []}, 422, "explore.generate_empty", "empty", {}),
        (
            "generate",
            {"ids": [1], "session": "s" * 65},
            413,
            "explore.field.too_long.str",
            None,
            {"field": "session"},
        ),
    ],
)
def test_bad_fields(client, endpoint, body, status, key, code, fields):
    refused(client, endpoint, body, status, key, code, **fields)


def test_unknown_characters_are_named(client):
    answer = refused(client, "analyze", {"text": "the zebra€¥€"}, 422, "explore.unknown_chars", "unknown_chars", n=2)
    assert answer["chars"] == ["€", "¥"]  # z, b, r, a are in the vocabulary


def test_a_refusal_speaks_the_language_the_page_asks_in(client):
    """The same refusal, in English and in Chinese: the same key and fields, its figures in both words."""
    en = client.post("/api/analyze", json={"text": "the", "layer": 2}).json()
    zh = client.post("/api/analyze?lang=zh", json={"text": "the", "layer": 2}).json()
    assert (en["key"], en["field"], en["value"], en["size"], en["last"]) == ("explore.range.layers", "layer", 2, 2, 1)
    for words in (en["error"], zh["error"]):
        figures = sorted(re.findall(r"\d+", words))  # in any order: 0 to last, the value, the size
        assert "layer=2" in words and figures == ["0", "1", "2", "2"]
    assert not CJK.search(en["error"]) and CJK.search(zh["error"])
    assert {k: v for k, v in en.items() if k != "error"} == {k: v for k, v in zh.items() if k != "error"}


def test_bodies_that_are_not_json_objects(client):
    refused(client, "analyze", b"{not json", 400, "explore.body.not_json", headers=JSON)
    refused(client, "analyze", b"[1, 2]", 400, "explore.body.not_object", headers=JSON, kind="list")
    refused(client, "analyze", b'{"text": "the", "temperature": NaN}', 400, "explore.body.constant", headers=JSON)
    refused(client, "analyze", b"\xff\xfe", 400, "explore.body.not_utf8", headers=JSON)
    refused(
        client,
        "analyze",
        b'{"text": "the"}',
        415,
        "explore.body.content_type",
        headers={"Content-Type": "text/plain"},
        got="'text/plain'",
    )


def test_a_body_nested_too_deep_or_holding_too_long_a_number_names_what_stopped_the_reader(client):
    """Within the size limit, JSON that Python's reader gives up on (nested thousands deep, an integer
    of thousands of digits) is refused as not JSON, naming the reader's error, not a 500."""
    depth = LIMITS.body_bytes // 2 - 1
    nested = b"[" * depth + b"]" * depth
    refused(client, "analyze", nested, 400, "explore.body.not_json", headers=JSON, reason="RecursionError", pos=0)
    digits = b'{"text": "the", "temperature": ' + b"1" * 5000 + b"}"
    refused(client, "analyze", digits, 400, "explore.body.not_json", headers=JSON, reason="ValueError", pos=0)


def test_body_size_is_bounded(client):
    big = b'{"text": "' + b"a" * LIMITS.body_bytes + b'"}'
    refused(client, "analyze", big, 413, "explore.body.too_large", "too_large", headers=JSON, most=LIMITS.body_bytes)

    def chunks():  # no Content-Length: the limit holds while reading
        yield b'{"text": "'
        for _ in range(LIMITS.body_bytes // 1000 + 1):
            yield b"a" * 1000
        yield b'"}'

    refused(client, "analyze", chunks(), 413, "explore.body.over", "too_large", headers=JSON, most=LIMITS.body_bytes)


def test_routes_methods_and_paths(client):
    for path in ("/api/nothing", "/static/../pyproject.toml", "/static/", "/etc/passwd", "/api/../api/model/x"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["code"] == "not_found", path
        assert r.json()["key"] == "explore.http" and "analyze" in r.json()["endpoints"]
    r = client.get("/api/analyze")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert client.post("/api/model", json={}).status_code == 405


def test_other_host_names_are_refused(gpt):
    evil = TestClient(create_app(gpt), base_url="http://attacker.example:8321")
    r = evil.get("/api/model")
    assert r.status_code == 421 and r.json()["key"] == "explore.wrong_host" and "127.0.0.1" in r.json()["hosts"]
    for host in ("http://localhost:9", "http://[::1]:8321"):
        assert TestClient(create_app(gpt), base_url=host).get("/api/model").status_code == 200
    assert TestClient(create_app(gpt, hosts=None), base_url="http://10.0.0.5").get("/").status_code == 200


@pytest.mark.parametrize(
    "host",
    ["[::1].evil.com", "[::1].evil.com:8321", "[::1]x", "localhost.evil.com", "127.0.0.1.evil.com:8321", "localhost:",
     "localhost:80:80", "[::1", "::1", ""],
)  # fmt: skip
def test_a_host_header_names_an_allowed_host_exactly_or_is_refused(gpt, host):
    """Issue 43: `Host: [::1].evil.com` was taken for ::1 (the name was cut at the first "]"). A
    name, or [v6], with at most a port after it: anything else is another host."""
    r = TestClient(create_app(gpt), base_url="http://127.0.0.1:8321").get("/api/model", headers={"Host": host})
    assert r.status_code == 421 and r.json()["key"] == "explore.wrong_host" and r.json()["host"] == host


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8321", "localhost", "localhost:9", "[::1]", "[::1]:8321"])
def test_every_allowed_host_with_or_without_a_port_is_answered(gpt, host):
    r = TestClient(create_app(gpt), base_url="http://127.0.0.1:8321").get("/api/model", headers={"Host": host})
    assert r.status_code == 200


@pytest.mark.parametrize("endpoint", ["analyze", "patching", "next"])
def test_a_lone_surrogate_is_refused_in_json(client, endpoint):
    """Issue 43: a lone surrogate (a JSON string may hold one, UTF-8 cannot) made the refusal that
    quotes it fail to encode: a plain-text 500. Now the refusal reaches the page, escaped."""
    body = '{"text": "the q\\ud800ick", "corrupt": "the quick"}' if endpoint == "patching" else '{"text": "a\\ud800"}'
    r = client.post(f"/api/{endpoint}", content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/json")
    answer = json.loads(r.content.decode("utf-8"))
    assert answer["key"] == "explore.unknown_chars" and answer["chars"] == ["\ud800"]


def test_a_seq2seq_model_is_refused_at_start_in_one_line(capsys):
    """Issue 43: `explore` on an encoder-decoder crashed while reading its structure (its forward takes
    two sequences); the Explorer refuses it by key, and the command says so in one line, exit 2."""
    from glassformer.config import get_preset
    from glassformer.models import build_model

    model = build_model(get_preset("seq2seq").model)
    with pytest.raises(UsageError) as e:
        Explorer(model)
    assert e.value.code == "explore.kind" and e.value.fields == {"kind": "seq2seq", "inputs": model.inputs}
    with said() as heard:
        assert main(["explore", "--preset", "seq2seq"]) == 2
    assert heard.of("explore.kind") == [e.value.fields] and model.inputs not in ("tokens", "numbers")
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_an_internal_error_is_json_and_the_server_stays_up(monkeypatch, capsys):
    ex = make_explorer("gpt")
    c = client_for(ex)
    monkeypatch.setattr(ex, "vectors", lambda req: 1 / 0)
    r = c.post("/api/vectors", json={"text": "the"})
    assert r.status_code == 500 and r.json()["code"] == "internal" and r.json()["key"] == "explore.internal"
    assert r.json()["endpoint"] == "vectors" and r.json()["error"].endswith("ZeroDivisionError: division by zero")
    assert post(c, "next", {"text": "the"})["rows"]


def test_a_reply_holding_a_number_that_is_not_finite_is_json_with_null(monkeypatch):
    """The explorer's replies come from the one JSON writer (files.json_text): a NaN or an infinity
    in what an endpoint computes is null, and the page's JSON.parse reads the reply (it was an
    internal error, HTTP 500: Starlette refuses NaN). A lone surrogate beside it is still escaped."""
    ex = make_explorer("gpt")
    c = client_for(ex)
    monkeypatch.setattr(ex, "vectors", lambda req: {"x": [1.5, float("nan")], "y": float("-inf"), "w": "a\ud800"})
    r = c.post("/api/vectors", json={"text": "the"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert strict_json(r.content.decode("ascii")) == {"x": [1.5, None], "y": None, "w": "a\ud800"}
    monkeypatch.setattr(ex, "info", lambda: {"entropy": float("inf"), "name": "中"})
    r = c.get("/api/model")
    assert r.status_code == 200 and strict_json(r.content.decode("utf-8")) == {"entropy": None, "name": "中"}


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

    root = ROOT
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["glassformer.explore"]
    static = root / "src/glassformer/explore/static"
    for f in static.iterdir():
        assert any(fnmatch(f"static/{f.name}", p) for p in patterns), f"{f.name} would be left out of the wheel"


def test_the_page_s_words_come_from_the_catalogue_in_both_languages(client):
    """GET /api/words serves the page's words (PAGE_WORDS); every word the page names is there and
    every word there is named by the page, with the same {fields} in both languages, and no script
    holds a table of sentences."""
    en, zh = (client.get(f"/api/words?lang={lang}").json() for lang in ("en", "zh-CN"))
    assert en["lang"] == "en" and zh["lang"] == "zh" and en["words"].keys() == zh["words"].keys()
    assert len(en["words"]) > 50 and en["words"] == page_words("en")
    for name, text in en["words"].items():
        assert translated(PAGE_WORDS[name], "en") == text
        assert fields(text) == fields(zh["words"][name]), name
    assert zh["words"]["next.title"] == translated(PAGE_WORDS["next.title"], "zh") != en["words"]["next.title"]
    assert client.get("/api/words?lang=fr").json()["lang"] == "en"  # a language with no catalogue: English
    static = files("glassformer.explore") / "static"
    used = {"attn.scale.absolute", "attn.scale.per_head", "note.cropped"}  # keys the code builds from data
    pages = sorted(f.name for f in static.iterdir() if f.name.endswith((".html", ".js")))  # every panel's file
    for name in [n for n in pages if n != "i18n.js"]:  # i18n.js defines t("key", ...) itself
        text = (static / name).read_text(encoding="utf-8")
        used |= set(re.findall(r'data-t="([a-z_.]+)"', text)) | set(re.findall(r'\bt\("([a-z_.]+)"', text))
    assert used - {"attn.scale.", "note."} <= set(en["words"]), used - set(en["words"])
    scripts = "".join((static / name).read_text(encoding="utf-8") for name in pages)
    named = {name for name in en["words"] if f'"{name}"' in scripts or f"'{name}'" in scripts}
    assert set(en["words"]) - named == {"attn.scale.absolute", "attn.scale.per_head", "note.cropped"}  # no dead word
    for name in ("i18n.js", "app.js", "panels.js", "draw.js"):
        assert not re.search(r'^\s+"[a-z_.]+":\s*"', (static / name).read_text(encoding="utf-8"), re.M), name


def test_pyproject_ships_the_chinese_font_and_its_licence():
    import tomllib

    root = ROOT
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["glassformer.fonts"] == ["*.otf", "OFL.txt"]


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Which model, and serving it (`glassformer explore`)
# ────────────────────────────────────────────────────────────────────────────────────────────────


SRC = str(ROOT / "src")


def test_latest_run_is_the_newest_checkpoint(tmp_path):
    for i, name in enumerate(["b-old", "a-new", "c-mid"]):
        make_run(tmp_path / name)
        stamp = 1_000_000 + [0, 200, 100][i]
        os.utime(tmp_path / name / "model.safetensors", (stamp, stamp))
    (tmp_path / "not-a-run").mkdir()
    assert latest_run(tmp_path) == tmp_path / "a-new"


def test_no_run_says_how_to_make_one(tmp_path, capsys, monkeypatch):
    with pytest.raises(NotFound) as none:
        latest_run(tmp_path)
    assert none.value.code == "explore.no_run" and none.value.fields == {"runs_dir": tmp_path, "weights": MODEL_FILE}
    monkeypatch.chdir(tmp_path)  # `glassformer explore` with no RUN looks in ./runs
    with said() as heard:
        assert main(["explore"]) == 2
    [no_run] = heard.of("explore.no_run")
    err = capsys.readouterr().err
    assert no_run == {"runs_dir": Path("runs"), "weights": MODEL_FILE} and len(err.strip().splitlines()) == 1
    with pytest.raises(NotFound) as here:
        latest_run(Path("runs"))
    assert str(here.value) in err  # the library's refusal, the fix included, is what the command prints


@pytest.mark.parametrize(
    "argv,code,named",
    [
        (["explore", "--host", "0.0.0.0"], "explore.remote_host", {"host": "0.0.0.0", "local": "127.0.0.1"}),
        (["explore", "RUN", "--preset", "baby"], "explore.run_and_preset", {}),
        (["explore", "RUN", "--n_layers=3"], "explore.overrides", {"overrides": ["--n-layers=3"]}),
        (["explore", "--preset", "nope"], "config.preset", {"name": "nope"}),
    ],
)
def test_refusals_are_one_line_errors(argv, code, named, capsys):
    """What the command line refuses, by code and fields, printed on one line (with the values named)."""
    with said() as heard:
        assert main(argv) == 2
    [fields] = heard.of(code)
    assert {k: fields[k] for k in named} == named
    [line] = capsys.readouterr().err.strip().splitlines()
    assert all(str(v) in line for v in named.values())


def test_a_port_out_of_range_is_a_usage_error(capsys):
    """Checked by the option's range type (cli/options.py), like every number the CLI reads."""
    with pytest.raises(SystemExit) as exit_, said() as heard:
        main(["explore", "--port", "70000", "--preset", "baby"])
    assert exit_.value.code == 2
    assert heard.rendered(value="70000", most=65535) in capsys.readouterr().err  # the range, and what was given


def assert_names(ex, *names) -> None:
    """The header (ex.source_text) names the model by these, in English and in Chinese words."""
    en, zh = ex.source_text("en"), ex.source_text("zh")
    assert all(name in en and name in zh for name in names) and CJK.search(zh) and not CJK.search(en)


def test_open_run_and_preset_models():
    ex = open_preset("seed000", seed=3, overrides=["--n_layers=1"])
    assert ex.model.cfg.n_layers == 1 and ex.source[1] == {"preset": "seed000", "kind": "gpt", "seed": 3}
    assert_names(ex, "seed000", "gpt", "3")
    a = ex.handle("analyze", {"text": "你好 world 😀"})  # unseen characters become <unk>, not an error
    assert a["tokens"][-1]["text"] == "<unk>" and a["tokens"][0]["text"] == "你"
    sine = open_preset("sine")
    assert sine.tokenizer is None and sine.info()["inputs"] == "numbers"


def test_text_sent_to_a_model_without_a_tokenizer_is_a_422_that_asks_for_ids():
    client = client_for(Explorer(tiny_model("gpt"), None, "tiny gpt without its tokenizer"))
    r = client.post("/api/next", json={"text": "the"})
    assert r.status_code == 422 and (r.json()["key"], r.json()["code"]) == ("explore.no_tokenizer", "bad_request")
    assert post(client, "next", {"ids": [1, 2]})  # its ids are read as before


def test_a_run_of_each_kind_opens(tmp_path):
    for kind in ("gpt", "encoder", "regressor"):
        model = make_run(tmp_path / kind, kind)
        ex = open_run(tmp_path / kind)
        assert ex.model.kind == kind and ex.source[1] == {"run": str(tmp_path / kind), "kind": kind, "preset": "tiny"}
        assert_names(ex, str(tmp_path / kind), kind, "tiny")
        first = next(iter(ex.model.state_dict()))
        assert ex.model.state_dict()[first].equal(model.state_dict()[first])


def test_remote_host_prints_a_warning(monkeypatch, capsys):
    class Quick:
        def run(self, sockets):
            assert sockets[0].getsockname()[0] == "0.0.0.0"

    monkeypatch.setattr(server_module, "make_server", lambda explorer, hosts: Quick())
    with said() as heard:
        server_module.serve(open_preset("sine"), "0.0.0.0", 0, allow_remote=True)
    out = capsys.readouterr()
    assert heard.rendered(host="0.0.0.0") in out.err  # the warning names the host it listens on
    [serving] = [fields for fields in heard.carrying() if "url" in fields]
    assert serving["url"].startswith("http://127.0.0.1:") and serving["source"] == open_preset("sine").source_text("en")
    assert heard.rendered(**serving) in out.out
    stopped, said_fields = heard[-1]  # last: the line that says the server stopped, on stdout
    assert said_fields == {} and t(stopped) in out.out and out.out.index(t(stopped)) > out.out.index(serving["url"])


def test_the_server_it_makes_logs_only_warnings_and_no_line_per_request():
    """The terminal that runs `glassformer explore` shows the explorer's own lines: uvicorn's access log
    (a line per request, several per click) and its info lines are off; Ctrl-C waits 2 s at most."""
    config = server_module.make_server(open_preset("sine"), None).config
    assert (config.access_log, config.log_level, config.lifespan, config.timeout_graceful_shutdown) == (
        False,
        "warning",
        "off",
        2,
    )


def test_port_in_use_is_a_clear_error():
    sock = server_module.bind("127.0.0.1", 0)
    try:
        with pytest.raises(UsageError) as busy:
            server_module.bind("127.0.0.1", sock.getsockname()[1])
        assert busy.value.code == "explore.cannot_listen"
        assert busy.value.fields["port"] == sock.getsockname()[1] and busy.value.fields["host"] == "127.0.0.1"
    finally:
        sock.close()


@pytest.mark.slow
def test_serves_a_run_until_ctrl_c(tmp_path):
    make_run(tmp_path / "runs" / "tiny")
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "glassformer", "explore", "--port", "0"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        url = re.search(r"http://127\.0\.0\.1:\d+/", lines[1]).group(0)
        assert str(Path("runs") / "tiny") in lines[0] and "gpt" in lines[0]  # the run and its kind
        info = json.loads(urllib.request.urlopen(url + "api/model", timeout=30).read())
        assert info["kind"] == "gpt" and info["layers"] == 2
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_connections_send_at_once():
    """Nagle's algorithm off on every accepted connection: with it on, each answer (headers, then
    body) waited ~40 ms for the client's delayed ACK. asyncio turns it off only for sockets made
    with proto=IPPROTO_TCP, which `bind` must therefore use."""
    bg = Background(make_explorer("gpt"))
    with bg as url:
        conn = http.client.HTTPConnection("127.0.0.1", int(url.rstrip("/").rpartition(":")[2]), timeout=30)
        conn.request("GET", "/api/model")
        assert conn.getresponse().read()
        sockets = [c.transport.get_extra_info("socket") for c in bg.server.server_state.connections]
        assert sockets and all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in sockets)
        conn.close()


def test_the_page_speaks_the_commands_language_and_a_run_opens_on_its_own_text(tmp_path, monkeypatch, capsys):
    """Issue 27, item 2: `explore --lang zh` printed an English address (the page's language came
    only from ?lang=zh) and a Chinese run opened on an empty box (every example was English)."""
    from glassformer.messages import speaking

    class Quick:
        def run(self, sockets):
            pass

    model = make_run(tmp_path / "zh")
    config = json.loads((tmp_path / "zh" / "config.json").read_text(encoding="utf-8"))
    config["example"] = "你好，世界！"  # as new_run keeps it: the first line of its training text
    (tmp_path / "zh" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setattr(server_module, "make_server", lambda explorer, hosts: Quick())
    ex = open_run(tmp_path / "zh")
    with speaking("zh"):
        server_module.serve(ex, "127.0.0.1", 0)
        info = ex.info()
    out = capsys.readouterr().out
    assert ex.source[1] == {"run": str(tmp_path / "zh"), "kind": "gpt", "preset": "tiny"}
    english, chinese = ex.source_text("en"), ex.source_text("zh")
    assert chinese in out and english not in out and CJK.search(chinese)
    assert re.search(r"http://127\.0\.0\.1:\d+/\?lang=zh", out)  # the address opens the page in Chinese
    assert info["example"] == config["example"] and model.kind == "gpt"
    assert info["sources"] == {"en": english, "zh": chinese} and info["source"] == chinese  # the header: one language
    assert server_module.page_address("http://127.0.0.1:1/", "en") == "http://127.0.0.1:1/"


def test_a_chinese_run_without_a_kept_example_opens_on_chinese_and_an_imported_run_says_so(tmp_path):
    from glassformer.explore import panels
    from glassformer.text import CharTokenizer

    second = [text for text in panels.EXAMPLES if CJK.search(text)][1]  # the second Chinese example
    tok = CharTokenizer.from_text(second)
    ex = Explorer(tiny_model("gpt", vocab_size=tok.vocab_size), tok, "zh")
    assert panels.example(ex) == second  # the examples before it cannot be spelled: this one can
    make_run(tmp_path / "imported")
    config = json.loads((tmp_path / "imported" / "config.json").read_text(encoding="utf-8"))
    del config["preset"]
    config["imported"] = {"format": "gpt2", "from": "/x", "weights": "model.safetensors"}
    (tmp_path / "imported" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    imported = open_run(tmp_path / "imported")
    assert imported.source[1] == {"run": str(tmp_path / "imported"), "kind": "gpt"}  # no preset: where it came from
    make_run(tmp_path / "plain")
    assert imported.source[0] != open_run(tmp_path / "plain").source[0]  # not the sentence of a run with a preset
    assert_names(imported, str(tmp_path / "imported"), "gpt", "GPT-2")


def test_concurrent_requests_on_a_real_server_get_their_own_answers():
    ex = make_explorer("gpt")
    bodies = [
        {"text": text, "ablate": ablate, "layer": i % 2, "head": i % 4}
        for i, (text, ablate) in enumerate(
            [("the fox", []), ("lazy dog", [[0, 1]]), ("你好", [[1, 2], [0, 0]]), ("over the", [[1, 3]])] * 3
        )
    ]
    alone = [ex.handle("analyze", dict(b)) for b in bodies]

    with Background(ex) as url:

        def ask(body):
            req = urllib.request.Request(
                url + "api/analyze", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())

        with ThreadPoolExecutor(6) as pool:
            together = list(pool.map(ask, bodies))
        info = json.loads(urllib.request.urlopen(url + "api/model", timeout=10).read())
    assert info["kind"] == "gpt"
    for a, b in zip(alone, together, strict=False):
        assert a["next"] == b["next"] and a["attention"]["matrix"] == b["attention"]["matrix"]
        assert a["ablated"] == b["ablated"] and a["tokens"] == b["tokens"]
    assert not any(h.fns for h in ex.model.hook_points().values())  # every hook detached afterwards


def test_concurrent_causal_requests_with_hooks_give_the_sequential_answers():
    """Issue 50: the causal endpoints attach hooks to the one shared model (a patch, a zeroed head,
    the analyze panel's ablation); the Explorer's lock serialises them, so requests sent together
    from several threads get exactly the answers they get one at a time."""
    ex = decisive(make_explorer("gpt"))
    asks = [
        ("patching", {"text": "the quick", "corrupt": "the quack"}),
        ("patching", {"text": "lazy dog"}),  # no corrupted text: every head zeroed in turn
        ("patch_cell", {"text": "the quick", "corrupt": "the quack", "kind": "head", "layer": 1, "index": 2}),
        ("patch_cell", {"text": "over the", "corrupt": "over tha", "kind": "position", "layer": 0, "index": 3}),
        ("analyze", {"text": "the fox", "ablate": [[0, 1], [1, 3]]}),
    ] * 3
    alone = [ex.handle(endpoint, dict(body)) for endpoint, body in asks]

    with Background(ex) as url:

        def ask(job):
            endpoint, body = job
            req = urllib.request.Request(
                url + f"api/{endpoint}", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read())

        with ThreadPoolExecutor(8) as pool:
            together = list(pool.map(ask, asks))
    assert together == alone
    assert not any(h.fns for h in ex.model.hook_points().values())  # every hook detached afterwards

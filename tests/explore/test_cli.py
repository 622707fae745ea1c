"""`glassformer explore`: which model it opens, what it refuses, and a real start/stop by Ctrl-C."""

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
from pathlib import Path

import pytest
from explore_kit import make_explorer, make_run, tiny_model

from glassformer.cli import main
from glassformer.errors import NotFound, UsageError
from glassformer.explore import Explorer
from glassformer.explore import serve as serve_module
from glassformer.explore.serve import Background, latest_run, open_preset, open_run
from glassformer.train.checkpoint import MODEL_FILE

SRC = str(Path(__file__).resolve().parents[2] / "src")


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
    assert none.value.key == "explore.no_run" and none.value.fields == {"runs_dir": tmp_path, "weights": MODEL_FILE}
    monkeypatch.chdir(tmp_path)  # `glassformer explore` with no RUN looks in ./runs
    assert main(["explore"]) == 2
    assert "no trained run under runs/" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,words",
    [
        (["explore", "--host", "0.0.0.0"], r"--host 0.0.0.0 would let other machines.*--allow-remote"),
        (["explore", "RUN", "--preset", "baby"], r"a RUN or --preset NAME, not both"),
        (["explore", "RUN", "--n_layers=3"], r"overrides .* apply to a --preset"),
        (["explore", "--preset", "nope"], r"unknown preset 'nope'"),
    ],
)
def test_refusals_are_one_line_errors(argv, words, capsys):
    """A deliberate snapshot of what the command line prints (the library's refusals are checked by key)."""
    assert main(argv) == 2
    assert re.search(words, capsys.readouterr().err)


def test_a_port_out_of_range_is_a_usage_error(capsys):
    """Checked by the option's range type (cli/options.py), like every number the CLI reads."""
    with pytest.raises(SystemExit) as exit_:
        main(["explore", "--port", "70000", "--preset", "baby"])
    assert exit_.value.code == 2
    assert "--port: must be a port number from 0 (any free port) to 65535, got '70000'" in capsys.readouterr().err


def test_open_run_and_preset_models():
    ex = open_preset("seed000", seed=3, overrides=["--n_layers=1"])
    assert ex.model.cfg.n_layers == 1 and ex.source == (
        "explore.source.preset",
        {"preset": "seed000", "kind": "gpt", "seed": 3},
    )
    a = ex.handle("analyze", {"text": "你好 world 😀"})  # unseen characters become <unk>, not an error
    assert a["tokens"][-1]["text"] == "<unk>" and a["tokens"][0]["text"] == "你"
    sine = open_preset("sine")
    assert sine.tokenizer is None and sine.info()["inputs"] == "numbers"


def test_a_run_of_each_kind_opens(tmp_path):
    for kind in ("gpt", "encoder", "regressor"):
        model = make_run(tmp_path / kind, kind)
        ex = open_run(tmp_path / kind)
        assert ex.model.kind == kind and ex.source == (
            "explore.source.run",
            {"run": str(tmp_path / kind), "kind": kind, "preset": "tiny"},
        )
        first = next(iter(ex.model.state_dict()))
        assert ex.model.state_dict()[first].equal(model.state_dict()[first])


def test_remote_host_prints_a_warning(monkeypatch, capsys):
    class Quick:
        def run(self, sockets):
            assert sockets[0].getsockname()[0] == "0.0.0.0"

    monkeypatch.setattr(serve_module, "make_server", lambda explorer, hosts: Quick())
    serve_module.serve(open_preset("sine"), "0.0.0.0", 0, allow_remote=True)
    out = capsys.readouterr()
    assert "WARNING: listening on 0.0.0.0: anyone who can reach this machine" in out.err
    assert "open http://127.0.0.1:" in out.out and "stopped" in out.out


def test_port_in_use_is_a_clear_error():
    sock = serve_module.bind("127.0.0.1", 0)
    try:
        with pytest.raises(UsageError) as busy:
            serve_module.bind("127.0.0.1", sock.getsockname()[1])
        assert busy.value.key == "explore.cannot_listen"
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
        url = re.search(r"open (http://127\.0\.0\.1:\d+/)", lines[1]).group(1)
        assert "runs/tiny (gpt" in lines[0]
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
    from glassformer.messages import speaking, t

    class Quick:
        def run(self, sockets):
            pass

    model = make_run(tmp_path / "zh")
    config = json.loads((tmp_path / "zh" / "config.json").read_text(encoding="utf-8"))
    config["example"] = "你好，世界！"  # as new_run keeps it: the first line of its training text
    (tmp_path / "zh" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setattr(serve_module, "make_server", lambda explorer, hosts: Quick())
    ex = open_run(tmp_path / "zh")
    with speaking("zh"):
        serve_module.serve(ex, "127.0.0.1", 0)
        info = ex.info()
    out = capsys.readouterr().out
    fields = {"run": str(tmp_path / "zh"), "kind": "gpt", "preset": "tiny"}
    with speaking("zh"):
        assert t("explore.source.run", **fields) in out
    assert re.search(r"http://127\.0\.0\.1:\d+/\?lang=zh", out)  # the address opens the page in Chinese
    assert info["example"] == "你好，世界！" and model.kind == "gpt"
    with speaking("en"):
        english = t("explore.source.run", **fields)
    with speaking("zh"):
        chinese = t("explore.source.run", **fields)
    assert info["sources"] == {"en": english, "zh": chinese} and info["source"] == chinese  # the header: one language
    assert serve_module.page_address("http://127.0.0.1:1/", "en") == "http://127.0.0.1:1/"


def test_a_chinese_run_without_a_kept_example_opens_on_chinese_and_an_imported_run_says_so(tmp_path):
    from glassformer.explore import render
    from glassformer.text import CharTokenizer

    tok = CharTokenizer.from_text("春眠不觉晓，处处闻啼鸟。")
    ex = Explorer(tiny_model("gpt", vocab_size=tok.vocab_size), tok, "zh")
    assert render.example(ex) == "春眠不觉晓，处处闻啼鸟。"  # English examples cannot be spelled: a Chinese one can
    make_run(tmp_path / "imported")
    config = json.loads((tmp_path / "imported" / "config.json").read_text(encoding="utf-8"))
    del config["preset"]
    config["imported"] = {"format": "gpt2", "from": "/x", "weights": "model.safetensors"}
    (tmp_path / "imported" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert open_run(tmp_path / "imported").source == (
        "explore.source.imported",
        {"run": str(tmp_path / "imported"), "kind": "gpt"},
    )

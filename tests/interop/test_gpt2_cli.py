"""`glassformer import gpt2` / `export gpt2` from the command line, and the verbs that open the run:
sample (greedy = transformers' greedy text), trace, attention, explore; errors in one clear line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
from gpt2_kit import copy_dir, gpt2_dir, transformers

from glassformer.cli import main

sys.path.insert(0, str(Path(__file__).parents[1] / "reliability"))
from reliability_kit import assert_clean_failure, cli  # noqa: E402

PROMPT = "The cat sat"


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("gpt2_cli")
    folder, hf, tok = gpt2_dir(root / "hf")
    code, out, err = cli(["import", "gpt2", str(folder), "--out", str(root / "run")])
    assert code == 0, err
    assert "imported" in out and "glassformer sample" in out
    return root, hf, tok


def test_sample_greedy_writes_transformers_greedy_text(dirs, capsys):
    root, hf, tok = dirs
    ids = torch.tensor([tok(PROMPT)["input_ids"]])  # (1, T0)
    new = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, min_new_tokens=12,
                      do_sample=False, pad_token_id=0)[0, ids.size(1):]
    code = main(["sample", str(root / "run"), "--prompt", PROMPT, "--temperature", "0", "--max-new-tokens", "12",
                 "--threads", "1"])
    assert code == 0
    assert capsys.readouterr().out == PROMPT + tok.decode(new) + "\n"


def test_trace_attention_and_explore_open_the_run(dirs, monkeypatch, tmp_path):
    root, hf, _ = dirs
    code, out, err = cli(["trace", "--run", str(root / "run"), "--prompt", "你好 the cat", "--threads", "1"])
    assert code == 0 and "blocks.1.attn.weights" in out, err
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["attention", "--run", str(root / "run"), "--prompt", PROMPT, "--threads", "1"])
    assert code == 0 and "attention.html" in out, err

    from starlette.testclient import TestClient

    from glassformer.explore.app import create_app
    from glassformer.explore.serve import open_run

    client = TestClient(create_app(open_run(root / "run")), base_url="http://127.0.0.1:8321")
    r = client.post("/api/analyze", json={"text": PROMPT})
    assert r.status_code == 200, r.text
    bars = r.json()["next"]["rows"]
    ids = torch.tensor([r.json()["ids"]])  # (1, T)
    with torch.no_grad():
        assert bars[0]["id"] == int(hf(ids).logits[0, -1].argmax())


def test_export_from_the_command_line(dirs):
    root, hf, _ = dirs
    code, out, err = cli(["export", "gpt2", str(root / "run"), "--out", str(root / "exported")])
    assert code == 0 and "from_pretrained" in out, err
    again = transformers.GPT2LMHeadModel.from_pretrained(root / "exported").eval()
    ids = torch.randint(0, hf.config.vocab_size, (1, 8))  # (1, T)
    with torch.no_grad():
        assert torch.equal(again(ids).logits, hf(ids).logits)


def test_mistakes_are_one_clear_line(dirs, tmp_path):
    root, _, _ = dirs
    cases = [
        (["import", "gpt2", str(tmp_path / "missing"), "--out", str(tmp_path / "r")], "is not a directory"),
        (["import", "gpt2", str(copy_dir(root / "hf", tmp_path / "v", {"scale_attn_weights": False})),
          "--out", str(tmp_path / "r")], "scale_attn_weights=False"),
        (["import", "gpt2", str(root / "hf"), "--out", str(root / "run")], "already holds a checkpoint"),
        (["export", "gpt2", str(root / "run"), "--out", str(root / "hf")], "is not empty"),
        (["export", "gpt2", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")], "not a run directory"),
        (["train", "--resume", str(root / "run")], "imported from"),
        (["import", "gpt2", str(root / "hf")], "--out"),
    ]
    for argv, says in cases:
        code, _, err = cli(argv)
        assert_clean_failure(code, err)
        assert says in err, (argv, err)
    assert json.loads((root / "run" / "config.json").read_text())["imported"]["format"] == "gpt2"  # untouched

"""`glassformer diff BASE TUNED` (post/diff.py) through the real dispatcher, on a tiny base run: a copy
with one head's query weights moved by a known amount is named with that norm, identical runs are all
zeros, a LoRA run's own update is the change of its merged weights with rank at most r, an SFT run is
compared from its grown start, and runs that do not line up are refused in one line."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace

import pytest
import torch
from helpers import arithmetic_base, said

from glassformer.cli import main
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.post.data import BUILTIN
from glassformer.train.checkpoint import MODEL_FILE, read_weights, save_weights
from glassformer.train.run import load_model

TINY = ["--max_steps=4", "--eval_interval=4", "--eval_iters=1", "--batch_size=4", "--threads=1"]
LAYER, HEAD, SHIFT = 1, 2, 0.5


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return arithmetic_base(tmp_path_factory.mktemp("diff-cli"), steps=4, n_sums=200)


def copy_run(base, to):
    shutil.copytree(base, to, ignore=shutil.ignore_patterns("*.lock"))
    return to


def diff_cli(capsys, *argv):
    capsys.readouterr()
    with said() as heard:
        code = main(["diff", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


def grid(out, stem):
    return json.loads((out / f"{stem}.json").read_text(encoding="utf-8"))


def test_one_moved_head_is_named_with_its_norm(base, tmp_path, capsys):
    tuned = copy_run(base, tmp_path / "tuned")
    model, _, _ = load_model(tuned)
    attn = model.blocks[LAYER].attn
    D, C = attn.d_head, model.cfg.d_model
    rows = slice(HEAD * D, (HEAD + 1) * D)  # the q part's rows of head HEAD (the packed qkv: q, then k, then v)
    with torch.no_grad():
        w = attn.qkv.weight[rows].clone().double()  # (D, C)
        b = attn.qkv.bias[rows].clone().double()  # (D,)
        attn.qkv.weight[rows] += SHIFT
    save_weights(tuned / MODEL_FILE, model, read_weights(tuned / MODEL_FILE)[2])
    out = tmp_path / "views"
    code, stdout, _, _ = diff_cli(capsys, str(base), str(tuned), "--prompt", "12+30=", "--out", str(out))
    assert code == 0
    heads = grid(out, "diff_heads")
    values = torch.tensor(heads["values"])  # (rows, heads)
    r, h = divmod(int(values.argmax()), values.size(1))
    assert (heads["rows"][r], heads["columns"][h]) == (f"blocks.{LAYER}.attn q", heads["columns"][HEAD])
    expected = SHIFT * math.sqrt(D * C) / math.sqrt(float(w.pow(2).sum() + b.pow(2).sum()))
    assert values[r, h].item() == pytest.approx(expected, rel=1e-6)
    assert int((values != 0).sum()) == 1  # no other head moved
    weights = grid(out, "diff_weights")
    moved = {name: v[1] for name, v in zip(weights["rows"], weights["values"], strict=True) if v[1] > 0}
    assert moved == {f"blocks.{LAYER}.attn.qkv.weight": pytest.approx(SHIFT * math.sqrt(D * C), rel=1e-6)}
    assert f"blocks.{LAYER}.attn q" in stdout and (out / "diff_heads.png").stat().st_size > 0


def test_identical_runs_are_all_zeros(base, tmp_path, capsys):
    out = tmp_path / "views"
    code, _, _, _ = diff_cli(capsys, str(base), str(base), "--prompt", "7+5=", "--out", str(out))
    assert code == 0
    for stem in ("diff_layers", "diff_weights", "diff_heads", "diff_tokens"):
        values = grid(out, stem)["values"]
        column = 0 if stem != "diff_tokens" else 2  # the change: relative (weights), Δp (tokens)
        assert values and all(row[column] == 0 for row in values), stem
    assert not (out / "diff_lora.json").exists()  # not a LoRA run


def test_a_lora_run_shows_its_update_and_rank(base, tmp_path, capsys):
    tuned = tmp_path / "lora"
    argv = ["sft", str(base), "--data", BUILTIN, "--out", str(tuned), "--no-progress", "--lora-r", "2"]
    assert main([*argv, "--lora-alpha", "4", "--lr=0.05", *TINY]) == 0
    out = tmp_path / "views"
    code, _, _, heard = diff_cli(capsys, str(base), str(tuned), "--out", str(out))  # prompts: the run's data
    lora = grid(out, "diff_lora")
    weights = grid(out, "diff_weights")
    # the base grew 2 vocabulary rows first (chatml's two control tokens): the weights' one note says so
    [grown] = [(key, fields) for key, fields in heard if fields == {"n": 2}]
    assert code == 0 and weights["notes"] == [t(grown[0], n=2)]
    relative = dict(zip(weights["rows"], (v[0] for v in weights["values"]), strict=True))
    assert lora["rows"] == ["blocks.0.attn.proj", "blocks.0.attn.qkv", "blocks.1.attn.proj", "blocks.1.attn.qkv"]
    for layer, (rel, rank) in zip(lora["rows"], lora["values"], strict=True):
        assert 0 < rank <= 2
        assert rel == pytest.approx(relative[f"{layer}.weight"], rel=1e-4)  # merged W − W₀ is (α/r)·B·A
    untouched = [n for n in relative if ".attn." not in n and not n.startswith(("tok_embed", "head"))]
    assert untouched and all(relative[n] == 0 for n in untouched)  # LoRA trains nothing else
    assert grid(out, "diff_tokens")["values"]  # the run's own conversations gave prompts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_runs_that_do_not_line_up_are_one_line(base, tmp_path, capsys, lang):
    wider = copy_run(base, tmp_path / "wider")
    config = json.loads((wider / "config.json").read_text())
    config["model"]["n_layers"] = 3
    (wider / "config.json").write_text(json.dumps(config))
    model, _, _ = load_model(base)
    save_weights(wider / MODEL_FILE, build_model(replace(model.cfg, n_layers=3)), 0)  # a whole run, one block more
    code, _, err, heard = diff_cli(capsys, str(base), str(wider), "--lang", lang)
    assert code == 2 and heard.of("diff.shapes")[0]["fields"] == "n_layers"
    assert len(err.strip().splitlines()) == 1
    code, _, err, heard = diff_cli(capsys, str(base), str(base), "--lang", lang)  # no data to take prompts from
    assert code == 2 and "diff.no_prompt" in heard.keys() and len(err.strip().splitlines()) == 1

"""Every preset that `train --help` offers trains from the command line, and every inspection
verb works with --run on a run of every model kind (one source of truth: the run records its kind)."""

from __future__ import annotations

import json
import math

import pytest
from helpers import said

from glassformer.cli import main
from glassformer.config import PRESETS, get_preset
from glassformer.messages import t
from glassformer.models import model_class

# just enough to take two steps; long-context presets get a block the seed text can fill
QUICK = ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--batch_size=2", "--threads=1", "--sample-chars", "8"]
SHORTER = {
    name: ["--seq_len=16"] for name in ("small", "baby", "baby-llama", "baby-qwen3", "baby-moe", "baby-mla")
}  # the seed text has ~18 val tokens


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One tiny run per preset: {preset: (exit code, run dir, stdout)}."""
    tmp = tmp_path_factory.mktemp("every_kind")
    made = {}
    for name in sorted(PRESETS):
        reads = model_class(get_preset(name).model.kind).inputs  # a text corpus only for token models
        data = ["--data", "builtin:seed"] if reads == "tokens" else []
        code = main(
            [
                "train",
                "--preset",
                name,
                *data,
                "--out",
                str(tmp / name),
                "--cache-dir",
                str(tmp / "cache"),
                "--no-progress",
                *QUICK,
                *SHORTER.get(name, []),
            ]
        )
        made[name] = (code, tmp / name)
    return made


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_trains_from_the_cli(runs, preset):
    code, run = runs[preset]
    assert code == 0
    config = json.loads((run / "config.json").read_text())
    assert config["model"]["kind"] == get_preset(preset).model.kind  # the run records its kind
    evals = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in evals if r["kind"] == "eval"] == [0, 2]
    vals = [r["val_loss"] for r in evals if r["kind"] == "eval"]
    assert all(math.isfinite(v) and v > 0 for v in vals)
    assert [r["best_val"] for r in evals if r["kind"] == "eval"] == [min(vals[: i + 1]) for i in range(len(vals))]
    if get_preset(preset).model.kind != "regressor":  # untrained: about ln V nats, the uniform guess
        assert abs(vals[0] - math.log(config["model"]["vocab_size"])) < 1.0


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["trace", "attention", "grads", "params"])
# gpt, encoder, regressor, seq2seq; and the modern decoder (RMSNorm, SwiGLU, RoPE, GQA, QK-norm)
@pytest.mark.parametrize("preset", ["seed000", "seed002", "sine", "seq2seq", "baby-qwen3"])
def test_every_inspection_verb_reads_a_run_of_every_kind(runs, preset, verb, tmp_path, capsys):
    _, run = runs[preset]
    kind = get_preset(preset).model.kind
    prompt = {"regressor": ["--prompt", "0 0.5 1 0.5 0"], "seq2seq": ["--prompt", "一千二百零五"]}.get(
        kind, ["--prompt", "a tiny"]
    )
    with said() as heard:
        code = main([verb, "--run", str(run), *prompt, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    source = [key for key, fields in heard if fields == {"run": str(run), "kind": kind}]  # what was read: run, kind
    assert source and t(source[0], run=str(run), kind=kind) in out
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written, f"{verb} wrote nothing"


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["baby-llama", "baby-qwen3"])
def test_the_causal_verbs_read_a_run_of_the_modern_decoder(runs, preset, tmp_path, capsys):
    """heads and attribute on a grouped-query run (patch: tests/causal/test_causal_patching.py, whose
    corruption has a gap an untrained run's may not); the attribution's parts and bias add up to the
    model's own logit difference through its RMSNorm."""
    _, run = runs[preset]
    assert main(["heads", str(run), "--n", "6", "--batch", "2", "--out", str(tmp_path / "heads")]) == 0
    assert (
        main(["attribute", str(run), "--prompt", "a tin", "--answer", "y", "--wrong", "e", "--out", str(tmp_path)]) == 0
    )
    dla = json.loads((tmp_path / "attribute.json").read_text())["extra"]
    assert abs(dla["sum"] + dla["bias"] - dla["logit_diff"]) < 1e-5 and dla["bias"] == 0.0  # RMSNorm: no β
    assert main(["params", "--run", str(run), "--out", str(tmp_path)]) == 0
    cfg = get_preset(preset).model
    kv = json.loads((tmp_path / "params.json").read_text())["kv_cache_per_token"]
    per_layer = 2 * cfg.head_dim if cfg.head_dim else 2 * cfg.d_model // cfg.n_heads  # a key and a value of D
    assert (kv["mine"], kv["mha"]) == (
        cfg.n_layers * per_layer * cfg.n_kv_heads * 4,
        cfg.n_layers * per_layer * cfg.n_heads * 4,
    )
    capsys.readouterr()


@pytest.mark.slow
def test_sample_works_where_it_applies_and_says_why_not_elsewhere(runs, capsys):
    _, gpt = runs["seed000"]
    assert main(["sample", str(gpt), "--prompt", "a", "--max-new-tokens", "5", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("a")
    _, sine = runs["sine"]
    with said() as heard:
        assert main(["sample", str(sine)]) == 2
    err = capsys.readouterr().err
    assert heard.of("sample.no_text") == [{"run": str(sine), "kind": "regressor"}]  # it writes no text; trace it
    assert len(err.splitlines()) == 1 and str(sine) in err


def test_train_help_offers_every_preset(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in PRESETS)


def test_options_take_either_spelling_and_either_form(tmp_path, capsys):
    """`--max-steps 3`, `--max_steps=3` and `--max_steps 3` are one option."""
    base = [
        "train",
        "--preset",
        "seed000",
        "--data",
        "builtin:seed",
        "--cache-dir",
        str(tmp_path / "c"),
        "--no-progress",
        "--eval-iters",
        "1",
        "--threads",
        "1",
        "--sample-chars",
        "0",
    ]
    for i, form in enumerate((["--max-steps", "3"], ["--max_steps=3"], ["--max_steps", "3"])):
        assert main([*base, "--out", str(tmp_path / str(i)), *form]) == 0
        config = json.loads((tmp_path / str(i) / "config.json").read_text())
        assert config["train"]["max_steps"] == 3 and config["train"]["eval_iters"] == 1

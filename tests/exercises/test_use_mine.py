"""`glassformer train --use-mine DIR`: the learner's passing block and LayerNorm train the char
model, and learn as ours do; anything not ready is refused with a message that says what to do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import ROOT, said

from glassformer.cli import main
from glassformer.config import ModelConfig
from glassformer.errors import NotFound, UsageError
from glassformer.exercises import catalog, plug
from glassformer.exercises.plug import REQUIRED
from glassformer.messages import t

TRAIN = [
    "train",
    "--preset",
    "baby",
    "--data",
    "builtin:seed",
    "--seq_len=16",
    "--max_steps=20",
    "--eval_interval=20",
    "--eval_iters=2",
    "--no-progress",
    "--sample-chars",
    "0",
    "--threads=1",
]


def mine(tmp_path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in REQUIRED:
        (folder / f"{name}.py").write_text(catalog.get(name).solution, encoding="utf-8")
    return folder


def val_loss(run: Path) -> float:
    evals = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in evals if r["kind"] == "eval"][-1]["val_loss"]


@pytest.mark.slow
def test_the_reference_solutions_train_the_char_model_like_ours(tmp_path, capsys):
    folder = mine(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main([*TRAIN, *cache, "--out", str(tmp_path / "ours")]) == 0
    with said() as heard:
        assert main([*TRAIN, *cache, "--out", str(tmp_path / "theirs"), "--use-mine", str(folder)]) == 0
    (plugged,) = [f for _, f in heard if set(f) == {"dir", "parts"}]  # it says whose code computes which parts
    assert str(plugged["dir"]) == str(folder) and plugged["parts"] and str(folder) in capsys.readouterr().out
    ours, theirs = val_loss(tmp_path / "ours"), val_loss(tmp_path / "theirs")
    assert abs(theirs - ours) <= 0.03 * ours  # within a few percent at the same step (here: equal to ~1e-4)


def test_a_failing_or_missing_file_is_refused_with_the_fix(tmp_path, capsys):
    folder = mine(tmp_path)
    (folder / "feed_forward.py").unlink()
    assert main([*TRAIN, "--out", str(tmp_path / "a"), "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "a").exists()
    with pytest.raises(NotFound) as missing:
        plug.check_ready(folder)
    assert missing.value.code == "exercise.use_mine.missing" and missing.value.fields["files"] == "feed_forward.py"
    (folder / "feed_forward.py").write_text(catalog.get("feed_forward").solution, encoding="utf-8")
    text = (folder / "layer_norm.py").read_text()  # plant a bug: the mean is off by half
    (folder / "layer_norm.py").write_text(
        text.replace("mean = x.mean(dim=-1, keepdim=True)", "mean = 1.5 * x.mean(dim=-1, keepdim=True)")
    )
    with pytest.raises(UsageError) as failing:
        plug.check_ready(folder)
    assert failing.value.code == "exercise.use_mine.failing"
    assert failing.value.fields == {"folder": folder, "failing": "layer_norm", "first": "layer_norm"}


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*")) if f.is_file()}


def test_a_refused_use_mine_makes_and_touches_nothing(tmp_path, capsys):
    folder = mine(tmp_path)
    (folder / "block.py").write_text("def block(*args):\n    return args[0]\n", encoding="utf-8")  # fails its check
    capsys.readouterr()
    out = tmp_path / "new"
    assert main([*TRAIN, "--out", str(out), "--use-mine", str(folder)]) == 2
    assert not out.exists()  # no empty run directory left behind
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "block" in err  # one line, naming the failing file
    existing = tmp_path / "existing"  # a run already there: neither --out nor --resume may touch it
    existing.mkdir()
    (existing / "config.json").write_text('{"preset": "baby"}\n', encoding="utf-8")
    (existing / "metrics.jsonl").write_text('{"kind": "eval", "val_loss": 1.0}\n', encoding="utf-8")
    before = files_in(existing)
    assert main([*TRAIN, "--out", str(existing), "--use-mine", str(folder)]) == 2
    assert main(["train", "--resume", str(existing), "--no-progress", "--use-mine", str(folder)]) == 2
    assert files_in(existing) == before


def test_configurations_the_learner_cannot_compute_are_refused(tmp_path, capsys):
    folder = mine(tmp_path)
    assert main([*TRAIN, "--out", str(tmp_path / "c"), "--dropout=0.1", "--norm=post", "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "c").exists()  # refused before the run directory is made
    cfg = ModelConfig(dropout=0.1, norm="post", mha_style="heads")
    with said() as heard, pytest.raises(UsageError) as refused:
        plug.check_config(cfg)
    assert refused.value.code == "exercise.use_mine.model"
    problems = [(k, f) for k, f in heard if set(f) & {"dropout", "style", "norm"}]
    assert [f for _, f in problems] == [{"dropout": 0.1}, {"style": "heads"}, {"norm": "post"}]  # each, in order
    assert refused.value.fields["problems"] == "; ".join(t(k, **f) for k, f in problems)


def test_a_block_importing_its_sibling_inside_the_function_trains(tmp_path, capsys):
    """The grader accepts a block.py that imports layer_norm inside block(); --use-mine imports the
    learner's files the same way (one loader), so it trains too, and none of their modules stays behind."""
    folder = mine(tmp_path)
    source = (folder / "block.py").read_text()
    inside = "    from layer_norm import layer_norm as _layer_norm  # imported when block() runs\n    p = params\n"
    (folder / "block.py").write_text(source.replace("    p = params\n", inside))
    assert plug.check_ready(folder) is None  # the grader accepts it
    out = tmp_path / "run"
    assert main([*TRAIN, "--out", str(out), "--use-mine", str(folder)]) == 0
    assert val_loss(out) > 0
    assert "layer_norm" not in sys.modules and str(folder) not in sys.path


def test_functions_that_fail_together_are_refused_before_a_run_is_made(tmp_path, capsys):
    folder = mine(tmp_path)
    cfg = ModelConfig(vocab_size=8, d_model=8, n_heads=2, d_ff=16, n_layers=2, max_len=8, dropout=0.0)
    plug.check_config(cfg, folder)  # the right files: the trial step passes
    source = (folder / "block.py").read_text()
    broken = "    from layer_norm import no_such_function  # fails only when block() runs\n    p = params\n"
    (folder / "block.py").write_text(source.replace("    p = params\n", broken))
    with pytest.raises(UsageError) as refused:
        plug.check_config(cfg, folder)
    assert refused.value.code == "exercise.use_mine.trial" and refused.value.fields["folder"] == folder
    assert refused.value.fields["error"].startswith("ImportError")
    earlier = tmp_path / "earlier"  # an earlier run: untouched; the new one: never made
    earlier.mkdir()
    (earlier / "config.json").write_text('{"preset": "baby"}\n', encoding="utf-8")
    capsys.readouterr()
    assert main([*TRAIN, "--out", str(tmp_path / "new"), "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "new").exists() and files_in(earlier) == {"config.json": b'{"preset": "baby"}\n'}
    assert capsys.readouterr().err.count("\n") == 1  # one line


def test_both_readmes_say_which_exercises_must_pass_for_use_mine():
    root = ROOT
    for readme in ("README.md", "README.zh.md"):
        lines = [line for line in (root / readme).read_text(encoding="utf-8").splitlines() if "--use-mine" in line]
        assert any(all(f"`{name}`" in line for name in REQUIRED) for line in lines), readme

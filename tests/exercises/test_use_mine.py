"""`glassformer train --use-mine DIR`: the learner's passing block and LayerNorm train the char
model, and learn as ours do; anything not ready is refused with a message that says what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
    assert main([*TRAIN, *cache, "--out", str(tmp_path / "theirs"), "--use-mine", str(folder)]) == 0
    assert "your code from" in capsys.readouterr().out
    ours, theirs = val_loss(tmp_path / "ours"), val_loss(tmp_path / "theirs")
    assert abs(theirs - ours) <= 0.03 * ours  # within a few percent at the same step (here: equal to ~1e-4)


def test_a_failing_or_missing_file_is_refused_with_the_fix(tmp_path, capsys):
    folder = mine(tmp_path)
    (folder / "feed_forward.py").unlink()
    assert main([*TRAIN, "--out", str(tmp_path / "a"), "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "a").exists()
    with pytest.raises(NotFound) as missing:
        plug.check_ready(folder)
    assert missing.value.key == "error.exercise.use_mine.missing" and missing.value.fields["files"] == "feed_forward.py"
    (folder / "feed_forward.py").write_text(catalog.get("feed_forward").solution, encoding="utf-8")
    text = (folder / "layer_norm.py").read_text()  # plant a bug: the mean is off by half
    (folder / "layer_norm.py").write_text(
        text.replace("mean = x.mean(dim=-1, keepdim=True)", "mean = 1.5 * x.mean(dim=-1, keepdim=True)")
    )
    with pytest.raises(UsageError) as failing:
        plug.check_ready(folder)
    assert failing.value.key == "error.exercise.use_mine.failing"
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
    with pytest.raises(UsageError) as refused:
        plug.check_config(cfg)
    assert refused.value.key == "error.exercise.use_mine.model"
    assert refused.value.fields["problems"] == "; ".join(
        [
            t("exercise.use_mine.dropout", dropout=0.1),
            t("exercise.use_mine.mha_style", style="heads"),
            t("exercise.use_mine.norm", norm="post"),
        ]
    )

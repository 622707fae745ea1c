"""What a run directory keeps (train/record.py): best weights only when validation improves, and
a resumed run's metrics without the lines a crashed run wrote after its checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from matplotlib.image import imread
from safetensors.torch import load_file

from glassformer.config import ModelConfig, TrainConfig
from glassformer.models import build_model
from glassformer.train.checkpoint import load_weights
from glassformer.train.data import TensorBatches, TextWindows
from glassformer.train.loop import Trainer

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

MODEL = ModelConfig(vocab_size=11, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_len=8, dropout=0.0)
DATA = (np.arange(2000) % 11).astype(np.uint16)


def trainer(run_dir, max_steps, eval_interval, grad_accum=1, **kw) -> Trainer:
    cfg = TrainConfig(
        batch_size=4,
        block_size=8,
        max_steps=max_steps,
        eval_interval=eval_interval,
        eval_iters=1,
        log_interval=1,
        lr=1e-2,
        seed=2,
        grad_accum=grad_accum,
    )
    torch.manual_seed(0)
    model = build_model(MODEL)
    return Trainer(model, cfg, TextWindows(DATA, DATA, 4, 8, 1, cfg.seed), run_dir, progress="silent", **kw)


def records(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_best_weights_are_those_of_the_lowest_validation_loss(tmp_path):
    """Bug guarded: best.safetensors written at every evaluation (a test that only checks the
    file exists cannot tell). Scripted validation losses 5, 3, 4, 2, 2.5 at steps 0, 2, 4, 6, 8:
    best.safetensors must hold the step-2 weights after step 4 and the step-6 weights at the end."""
    val = iter([5.0, 3.0, 4.0, 2.0, 2.5])
    snapshots, best_steps = {}, []

    def at_eval(event, t):
        if event == "eval":
            snapshots[t.step] = {n: p.detach().clone() for n, p in t.model.named_parameters()}
            best_steps.append(load_weights(t.run_dir / "best.safetensors", build_model(MODEL)))

    t = trainer(tmp_path, 8, 2, evaluate=lambda: {"train_loss": 1.0, "val_loss": next(val)}, callbacks=[at_eval])
    result = t.fit()
    assert best_steps == [0, 2, 2, 6, 6]
    assert result.best_val == 2.0 and result.val_loss == 2.5
    best = load_file(tmp_path / "best.safetensors")
    assert all(torch.equal(best[n], snapshots[6][n]) for n in snapshots[6])
    assert not torch.equal(best["head.weight"], snapshots[8]["head.weight"])  # training went on
    assert [r["best_val"] for r in records(tmp_path) if r["kind"] == "eval"] == [5.0, 3.0, 3.0, 2.0, 2.0]


def test_a_source_without_a_val_split_trains_plots_and_writes_no_best_file(tmp_path):
    """A TensorBatches source without val data evaluates only "train". The run still checkpoints
    and plots (the plot once raised KeyError 'val_loss'), and no best.safetensors is written, since
    nothing measures "best"."""
    x = torch.randint(0, 11, (12, 8))
    cfg = TrainConfig(batch_size=4, block_size=8, max_steps=4, eval_interval=2, log_interval=1)
    torch.manual_seed(0)
    result = Trainer(
        build_model(MODEL), cfg, TensorBatches(x, x.roll(-1, dims=1), 4), tmp_path, progress="silent"
    ).fit()
    assert result.status == "done" and result.val_loss is None and result.best_val is None
    assert not (tmp_path / "best.safetensors").exists() and (tmp_path / "model.safetensors").exists()
    assert [sorted(r) for r in records(tmp_path) if r["kind"] == "eval"][0] == [
        "best_val",
        "kind",
        "lr",
        "step",
        "time",
        "train_loss",
    ]
    image = (imread(tmp_path / "loss.png")[..., :3] * 255).round()  # (H, W, 3)

    def pixels(rgb):
        return int((np.abs(image - np.array(rgb)) <= 2).all(-1).sum())

    assert pixels((31, 119, 180)) > 100 and pixels((255, 127, 14)) == 0  # a train curve (blue), no val (orange)


class Crash(RuntimeError):
    pass


def crash_at(step):
    def callback(event, t):
        if event == "step" and t.step == step:
            raise Crash(f"power cut at step {step}")

    return callback


def test_resume_forgets_metrics_written_after_the_checkpoint(tmp_path):
    """Bug guarded: resume keeps the metrics lines a crashed run wrote after the checkpoint it
    restarts from, so steps 21..24 would appear twice. A run checkpoints at 10 and 20 and dies at
    step 25 (no Ctrl-C handler, no save); the resumed run starts from 20 and must leave exactly
    the metrics an uninterrupted run writes (times aside)."""
    whole_dir, part_dir = tmp_path / "whole", tmp_path / "part"
    whole_dir.mkdir(), part_dir.mkdir()
    trainer(whole_dir, 30, 10).fit()

    with pytest.raises(Crash):
        trainer(part_dir, 30, 10, callbacks=[crash_at(25)]).fit()
    assert max(r["step"] for r in records(part_dir)) == 24  # lines past the checkpoint exist ...
    again = trainer(part_dir, 30, 10)
    again.resume()
    assert again.step == 20
    assert max(r["step"] for r in records(part_dir)) == 20  # ... and are dropped on resume
    assert again.fit().status == "done"

    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("time", "ms_per_step", "tokens_per_s")} for r in rs]
    assert strip(records(part_dir)) == strip(records(whole_dir))  # steps 1..30 once, bit-equal losses
    assert [r["step"] for r in records(part_dir) if r["kind"] == "log"] == list(range(1, 31))


@pytest.mark.parametrize("grad_accum", [1, 3])
def test_logged_throughput_counts_batch_times_block_tokens_per_step(tmp_path, grad_accum):
    """tokens_per_s and ms_per_step come from one timed interval, so their product is the tokens of
    one step, B·T·accumulated micro-batches = 4·8·accum, whatever the clock says (bugs guarded:
    B/T instead of B·T; dividing by the accumulation instead of multiplying)."""
    trainer(tmp_path, max_steps=3, eval_interval=10, grad_accum=grad_accum).fit()
    logs = [r for r in records(tmp_path) if r["kind"] == "log"]
    assert len(logs) == 3
    for r in logs:
        assert r["tokens_per_s"] * r["ms_per_step"] / 1000 == pytest.approx(32 * grad_accum)

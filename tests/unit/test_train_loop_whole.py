"""The Trainer's observable output whole (train/loop.py): when it logs and evaluates, every field of
the records it writes, the result of each way a fit ends and its message word for word, eval mode
during evaluation, callbacks' events. A one-weight linear model keeps each test near a tenth of a second."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

from glassformer.config import TrainConfig
from glassformer.train.data import TensorBatches
from glassformer.train.loop import Trainer, TrainResult


def mse(out, y):
    return ((out - y) ** 2).mean()


def setup(tmp_path=None, val=True, **cfg):
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    x = torch.linspace(-1, 1, 8)[:, None]  # (8, 1)
    batches = TensorBatches(x, 2 * x, 4, val=(x[:4], 2 * x[:4]) if val else None)
    base = dict(max_steps=4, eval_interval=2, log_interval=1, batch_size=4, block_size=3, lr=0.1, threads=1)
    cfg = TrainConfig(**{**base, **cfg})
    return model, cfg, batches


def records(run_dir):
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_a_run_logs_every_log_interval_and_evaluates_at_step_0_each_interval_and_the_end(tmp_path):
    model, cfg, batches = setup(max_steps=5, eval_interval=2, log_interval=2)
    events = []
    trainer = Trainer(
        model,
        cfg,
        batches,
        tmp_path,
        loss=mse,
        progress="silent",
        lr_at=lambda s: 0.01 * (s + 1),
        callbacks=[lambda e, t: events.append((e, t.step))],
    )
    result = trainer.fit()
    recs = records(tmp_path)
    assert [(r["kind"], r["step"]) for r in recs] == [
        ("eval", 0),
        ("log", 2),
        ("eval", 2),
        ("log", 4),
        ("eval", 4),
        ("log", 5),
        ("eval", 5),
    ]
    assert events == [
        ("eval", 0),
        ("step", 1),
        ("step", 2),
        ("eval", 2),
        ("step", 3),
        ("step", 4),
        ("eval", 4),
        ("step", 5),
        ("eval", 5),
        ("end", 5),
    ]
    log = recs[1]
    assert list(log) == ["kind", "step", "loss", "lr", "grad_norm", "ms_per_step", "tokens_per_s", "time"]
    assert log["lr"] == pytest.approx(0.02) and log["grad_norm"] > 0 and log["ms_per_step"] > 0
    assert log["tokens_per_s"] == pytest.approx(2 * 4 * 3 / (log["ms_per_step"] * 2 / 1000))
    ev = recs[2]
    assert list(ev) == ["kind", "step", "train_loss", "val_loss", "best_val", "lr", "time"]
    assert ev["best_val"] == min(recs[0]["val_loss"], ev["val_loss"]) and ev["lr"] == pytest.approx(0.02)
    assert recs[0]["lr"] == pytest.approx(0.01)  # step 0's rate is lr_at(0), not lr_at(-1)
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.05)  # step 5 was taken at lr_at(4)
    assert isinstance(result, TrainResult) and result.status == "done" and result.message == "" and result.step == 5
    assert result.train_loss == recs[-1]["train_loss"] and result.val_loss == recs[-1]["val_loss"]
    assert result.best_val == min(r["val_loss"] for r in recs if r["kind"] == "eval")
    assert trainer.run_dir == tmp_path and (tmp_path / "model.safetensors").is_file()


def test_the_losses_logged_are_the_mean_of_the_steps_since_the_last_log(tmp_path):
    model, cfg, batches = setup(max_steps=4, eval_interval=4, log_interval=2)
    seen = []

    def loss(out, y):
        value = mse(out, y)
        seen.append(value.item())
        return value

    Trainer(model, cfg, batches, tmp_path, loss=loss, evaluate=None, progress="silent").fit()
    logs = [r for r in records(tmp_path) if r["kind"] == "log"]
    assert [r["step"] for r in logs] == [2, 4]
    assert logs[0]["loss"] == pytest.approx((seen[0] + seen[1]) / 2) and logs[1]["loss"] == pytest.approx(
        (seen[2] + seen[3]) / 2
    )


def test_without_a_run_directory_or_evaluation_nothing_is_written_and_step_0_is_not_evaluated(tmp_path):
    model, cfg, batches = setup()
    calls = []
    trainer = Trainer(
        model, cfg, batches, loss=mse, progress="silent", evaluate=lambda: calls.append(1) or {"train_loss": 1.0}
    )
    result = trainer.fit()
    assert calls == [1, 1] and trainer.run_dir is None  # steps 2 and 4, no untrained evaluation
    assert result.best_val is None and result.train_loss == 1.0 and result.val_loss is None
    quiet = Trainer(*setup()[:3], tmp_path, loss=mse, evaluate=None, progress="silent")
    assert quiet.fit().status == "done" and not (tmp_path / "model.safetensors").exists()


def test_evaluation_runs_in_eval_mode_and_restores_training_mode(tmp_path):
    model, cfg, batches = setup()
    modes = []

    def loss(out, y):
        modes.append(model.training)
        return mse(out, y)

    trainer = Trainer(model, cfg, batches, loss=loss, progress="silent")
    out = trainer.evaluate_loss()
    assert set(out) == {"train_loss", "val_loss"} and modes == [False] * 3  # 2 train batches, 1 val batch
    assert model.training  # as it was
    model.eval()
    trainer.evaluate_loss()
    assert not model.training
    want = mse(model(batches.val[0]), batches.val[1]).item()
    assert out["val_loss"] == pytest.approx(want)


def test_a_stop_request_ends_after_the_step_with_a_log_an_evaluation_and_its_reason(tmp_path):
    model, cfg, batches = setup(max_steps=10, eval_interval=5, log_interval=5)

    def stop_at_3(event, trainer):
        if event == "step" and trainer.step == 3:
            trainer.request_stop("patience ran out")

    result = Trainer(model, cfg, batches, tmp_path, loss=mse, progress="silent", callbacks=[stop_at_3]).fit()
    assert (result.status, result.step, result.message) == ("stopped", 3, "patience ran out")
    assert [(r["kind"], r["step"]) for r in records(tmp_path)] == [("eval", 0), ("log", 3), ("eval", 3)]


def test_a_nonfinite_evaluation_names_the_step_losses_and_rate(tmp_path):
    model, cfg, batches = setup(max_steps=4, eval_interval=2)
    values = iter([{"val_loss": 1.0}, {"val_loss": float("nan"), "train_loss": 0.5}])
    result = Trainer(model, cfg, batches, tmp_path, loss=mse, progress="silent", evaluate=lambda: next(values)).fit()
    assert result.status == "nonfinite" and result.step == 2
    assert result.message == (
        "evaluation at step 2 gave {'val_loss': nan, 'train_loss': 0.5} (lr 0.1)\n"
        f"The last good checkpoint (step 0) in {tmp_path} is kept."
    )
    assert result.best_val == 1.0
    alone = Trainer(*setup()[:3], loss=mse, progress="silent", evaluate=lambda: {"val_loss": float("inf")}).fit()
    assert alone.message == "evaluation at step 2 gave {'val_loss': inf} (lr 0.1)\nNo checkpoint was written."


def test_ctrl_c_between_steps_saves_and_inside_a_step_keeps_the_last_save(tmp_path):
    model, cfg, batches = setup(max_steps=10, eval_interval=5)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()

    def interrupt_at_3(event, trainer):
        if event == "step" and trainer.step == 3:
            raise KeyboardInterrupt

    result = Trainer(model, cfg, batches, tmp_path / "a", loss=mse, progress="silent", callbacks=[interrupt_at_3]).fit()
    assert result.status == "interrupted" and result.step == 3
    assert result.message == f"Interrupted at step 3; checkpoint saved in {tmp_path / 'a'}."
    assert [r["step"] for r in records(tmp_path / "a") if r["kind"] == "log"] == [1, 2, 3]
    trainer = Trainer(*setup(max_steps=10, eval_interval=5)[:3], tmp_path / "b", loss=mse, progress="silent")
    trainer.in_step = True
    assert trainer.on_interrupt() == "Interrupted at step 0. No checkpoint was written."
    bare = Trainer(*setup()[:3], loss=mse, progress="silent")
    assert (
        bare.on_interrupt() == "Interrupted at step 0. No checkpoint was written."
        and bare.kept() == "No checkpoint was written."
    )


def test_a_tuple_input_is_spread_over_the_models_arguments_and_bfloat16_autocasts():
    class Two(nn.Module):
        def forward(self, a, b):
            return a + b

    model, cfg, batches = setup()
    trainer = Trainer(model, cfg, batches, loss=mse, progress="silent")
    trainer.forward = Two()
    assert torch.equal(trainer.run_model((torch.ones(2), torch.ones(2))), torch.full((2,), 2.0))
    with trainer.autocast():
        assert not torch.is_autocast_enabled("cpu")
    bf = Trainer(*setup(dtype="bfloat16")[:3], loss=mse, progress="silent")
    with bf.autocast():
        assert torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.bfloat16


def test_resume_restores_step_best_and_last_evaluation(tmp_path):
    model, cfg, batches = setup(max_steps=2, eval_interval=2)
    first = Trainer(model, cfg, batches, tmp_path, loss=mse, progress="silent").fit()
    model2, cfg2, batches2 = setup(max_steps=4, eval_interval=2)
    again = Trainer(model2, cfg2, batches2, tmp_path, loss=mse, progress="silent")
    again.resume()
    assert again.step == 2 and again.best_val == first.best_val
    assert again.last_eval == {"train_loss": first.train_loss, "val_loss": first.val_loss}
    assert again.fit().step == 4 and [r["step"] for r in records(tmp_path) if r["kind"] == "eval"] == [0, 2, 4]

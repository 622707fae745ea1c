"""The trainer's smaller collaborators, each against what it promises: early stopping
(train/early_stop.py), the sine-wave data (train/waves.py) and the paper's schedule (schedules.noam)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from glassformer.config import ModelConfig, TrainConfig
from glassformer.models import build_model
from glassformer.train import data as waves
from glassformer.train.data import TextWindows
from glassformer.train.loop import EarlyStopping, Trainer
from glassformer.train.optim import noam

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

MODEL = ModelConfig(vocab_size=7, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8)
DATA = (np.arange(500) % 7).astype(np.uint16)


def fit_with(vals, patience, max_steps=20, run_dir=None):
    """Train with scripted validation losses, an evaluation every 2 steps (and one at step 0,
    before training, when there is a run directory)."""
    torch.manual_seed(0)
    model = build_model(MODEL)
    cfg = TrainConfig(batch_size=2, block_size=8, max_steps=max_steps, eval_interval=2, log_interval=2, lr=1e-2)
    stopper = EarlyStopping(patience)
    seen = {}
    scripted = iter(vals)

    def evaluate():
        seen[len(seen)] = {n: p.detach().clone() for n, p in model.named_parameters()}  # weights at eval i
        return {"val_loss": next(scripted)}

    result = Trainer(
        model,
        cfg,
        TextWindows(DATA, DATA, 2, 8, 1, 0),
        run_dir,
        evaluate=evaluate,
        callbacks=[stopper],
        progress="silent",
    ).fit()
    return model, stopper, result, seen


def test_stops_after_patience_evaluations_without_improvement_and_restores_the_best(tmp_path):
    # step 0's evaluation is the untrained model (not a candidate, however good), then steps 2..10
    # give 3, 2, 2.5, 2.0 (a tie is no improvement), 2.6 -> stop after the third non-improvement
    model, stopper, result, seen = fit_with([0.1, 3.0, 2.0, 2.5, 2.0, 2.6, 1.0, 1.0], patience=3, run_dir=tmp_path)
    assert result.status == "stopped" and result.step == 10
    assert "no better val_loss for 3 evaluations" in result.message
    assert stopper.stopped and stopper.best == 2.0 and stopper.best_eval == 1
    assert all(torch.equal(p, seen[2][n]) for n, p in model.named_parameters())  # the step-4 weights


def test_without_patience_it_only_watches():
    model, stopper, result, seen = fit_with([5.0, 3.0, 4.0, 4.0, 4.0], patience=None, max_steps=10)
    assert result.status == "done" and result.step == 10 and not stopper.stopped
    assert stopper.best == 3.0 and stopper.best_eval == 1
    assert all(torch.equal(p, seen[4][n]) for n, p in model.named_parameters())  # the last weights stay


def test_a_new_best_resets_the_count():
    # five evaluations without improvement in all, but never three in a row since the last best
    _, stopper, result, _ = fit_with([3.0, 4.0, 2.0, 4.0, 4.0, 1.0, 4.0, 4.0, 0.5, 4.0], patience=3)
    assert result.status == "done" and result.step == 20 and not stopper.stopped
    assert stopper.best == 0.5 and stopper.best_eval == 8


def test_sine_waves_follow_the_tutorials_recipe():
    s = waves.make(400, np.random.default_rng(3))
    assert s.x.shape == s.y.shape == (400, 50)
    np.testing.assert_allclose(s.x[:, -1] - s.x[:, 0], 2 * math.pi, rtol=0, atol=1e-12)  # one 2π span
    np.testing.assert_allclose(np.diff(s.x, axis=1), 2 * math.pi / 49, rtol=0, atol=1e-12)  # 50 even points
    np.testing.assert_allclose(s.x[:, 0], s.start)
    assert 0 <= s.start.min() and s.start.max() < 2 * math.pi and s.start.max() - s.start.min() > 5
    assert 0.5 <= s.freq.min() and s.freq.max() < 2.0 and s.freq.max() - s.freq.min() > 1.3
    noise = s.y - np.sin(s.freq[:, None] * s.x)
    assert abs(noise.std() - 0.01) < 0.001 and abs(noise.mean()) < 0.001  # N(0, 0.01²)
    np.testing.assert_allclose(s.period_steps(), 2 * math.pi / (s.freq * (2 * math.pi / 49)))
    again = waves.make(400, np.random.default_rng(3))
    assert np.array_equal(again.y, s.y)  # the seed decides everything
    rng = np.random.default_rng(3)  # the recipe replayed draw by draw: start, freq, then the noise, added
    start, freq = rng.uniform(0, 2 * math.pi, 400), rng.uniform(0.5, 2.0, 400)
    np.testing.assert_array_equal(s.start, start)
    np.testing.assert_array_equal(s.freq, freq)
    np.testing.assert_allclose(noise, rng.normal(0, 0.01, (400, 50)), rtol=0, atol=1e-12)


def test_forecast_windows_predict_the_next_ten_values():
    y = np.arange(3 * 50, dtype=np.float64).reshape(3, 50)
    x, t = waves.forecast_windows(y)
    assert x.shape == (3, 40, 1) and t.shape == (3, 40, 10) and x.dtype == torch.float32
    assert x[1, :, 0].tolist() == y[1, :40].tolist()
    assert t[2, 7].tolist() == y[2, 8:18].tolist()  # position 7 predicts values 8..17
    assert t[0, 39].tolist() == y[0, 40:50].tolist()  # the last position predicts the held-back ten


def test_wave_source_framings_shapes_and_a_fixed_data_seed():
    tutorial, forecast = waves.wave_source("sine"), waves.wave_source("sine:forecast")
    assert tutorial.x_train.shape == (5000, 50, 1) and tutorial.y_val.shape == (1000, 50, 1)
    assert forecast.x_train.shape == (5000, 40, 1) and forecast.y_train.shape == (5000, 40, 10)
    assert forecast.x_val.shape == (1000, 40, 1)
    assert not torch.equal(tutorial.y_train[:1000], tutorial.y_val)  # val is drawn after train
    assert torch.equal(forecast.x_train[..., 0], tutorial.y_train[:, :40, 0])  # the same waves, reframed
    assert tutorial.identity == waves.wave_source("sine").identity  # same data every time
    assert tutorial.identity != forecast.identity and len(tutorial.identity["data_sha256"]) == 64
    with pytest.raises(ValueError, match=r"unknown numeric source 'sin'.*'sine'"):
        waves.wave_source("sin")


def test_noam_schedule_values_from_the_paper():
    """lr = d_model^-0.5 · min(s^-0.5, s · warmup^-1.5), s = step + 1 (Vaswani et al. 2017, eq. 3)."""
    d, w = 512, 4000
    assert noam(0, d, w) == pytest.approx(d**-0.5 * w**-1.5)  # the first step: s = 1
    assert noam(w - 1, d, w) == pytest.approx((d * w) ** -0.5)  # the peak, at s = warmup
    assert noam(4 * w - 1, d, w) == pytest.approx(0.5 * (d * w) ** -0.5)  # then 1/√s: four times on, half
    assert noam(99, d, w) == pytest.approx(100 * d**-0.5 * w**-1.5)  # linear during warmup


def test_a_wave_sources_data_are_the_seeded_recipe_and_its_fingerprint_covers_all_four_tensors():
    import hashlib

    data = waves.wave_source("sine")
    rng = np.random.default_rng(0)  # DATA_SEED: train first, then val, from one stream
    train, val = waves.make(5000, rng), waves.make(1000, rng)
    assert torch.equal(data.x_train[..., 0], torch.tensor(train.x, dtype=torch.float32))
    assert torch.equal(data.y_val[..., 0], torch.tensor(val.y, dtype=torch.float32))
    assert data.x_train.dtype == torch.float32 and data.source == "sine" and data.tokenizer is None
    h = hashlib.sha256()
    for t in (data.x_train, data.y_train, data.x_val, data.y_val):
        h.update(t.numpy().tobytes())
    assert data.identity == {"data_sha256": h.hexdigest()}
    with pytest.raises(ValueError) as e:
        waves.wave_source("cosine")
    assert str(e.value) == "unknown numeric source 'cosine'; choose one of ['sine', 'sine:forecast']."

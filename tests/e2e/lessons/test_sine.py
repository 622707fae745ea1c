"""Lesson 3: the forecaster beats both naive baselines; the tutorial's task cannot beat its floor,
and that floor is confirmed here by an independent (closed-form) computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lesson_checks import assert_valid_png

from glassformer.errors import UsageError
from glassformer.lessons import sine
from glassformer.train.data import forecast_windows, make
from glassformer.train.loop import noam


@pytest.fixture(scope="module")
def forecast(tmp_path_factory):
    return sine.run(out=tmp_path_factory.mktemp("sine"), fast=True, echo=lambda s: None)


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return sine.run(out=tmp_path_factory.mktemp("sine_t"), fast=True, task="tutorial", echo=lambda s: None)


def closed_form_mean(x):
    """E_f[sin(f·x)] for f ~ U(0.5, 2), integrated exactly."""
    return (np.cos(0.5 * x) - np.cos(2.0 * x)) / (1.5 * x)


def closed_form_floor(n_start=20000):
    """σ² + E[Var_f sin(f·x)]: exact in f, midpoint rule over start, exact average over the 50 points."""
    start = (np.arange(n_start) + 0.5) * 2 * math.pi / n_start
    x = start[:, None] + np.linspace(0, 2 * math.pi, 50)[None, :]  # (S, 50)
    mean_sq = 0.5 - (np.sin(4 * x) - np.sin(x)) / (6 * x)  # E_f[sin²(f·x)]
    return 0.01**2 + float((mean_sq - closed_form_mean(x) ** 2).mean())


def test_forecast_beats_both_naive_baselines(forecast):
    y = forecast["val_set"].y
    zero = float((y[:, 40:] ** 2).mean())
    last = float(((y[:, 40:] - y[:, 39:40]) ** 2).mean())
    zero_name, last_name = sine.BASELINE_WORDS  # the baselines' names, as the lesson keys them
    assert forecast["baselines"] == pytest.approx({zero_name: zero, last_name: last})
    assert forecast["val_mse"] < 0.25 * min(zero, last)
    fit = forecast["fit"]
    assert forecast["val_mse"] == min(fit.val) and len(fit.train) == len(fit.val)


def test_forecast_attention_report(forecast):
    look = forecast["attention"]
    assert len(look["heads"]) == 2 * 4  # 2 layers × 4 heads
    period = forecast["val_set"].period_steps()[look["sequence"]]
    assert look["period"] == pytest.approx(period) and period <= 31
    assert all(0 <= r["top"] < 40 and 0 <= r["near_period"] <= 1 for r in look["heads"].values())


def test_forecast_files_are_valid_pngs(forecast):
    names = [f.name for f in forecast["files"]]
    assert names == ["learning_rates.png", "loss_curves.png", "forecasts.png", "attention_head.png"]
    for f in forecast["files"]:
        assert_valid_png(f)


def test_tutorial_floor_matches_an_independent_computation(tutorial):
    ref = tutorial["reference"]
    exact = closed_form_floor()
    assert abs(ref["floor"] - exact) < 4 * ref["floor_se"] + 1e-3
    val = tutorial["val_set"]
    on_val = float(((val.y - closed_form_mean(val.x)) ** 2).mean())
    assert ref["bayes_on_val"] == pytest.approx(on_val, abs=5e-3)
    assert ref["zero_on_val"] == pytest.approx(float((val.y**2).mean()))
    assert exact > 0.8 * ref["zero_on_val"]  # the floor is nowhere near zero


def test_tutorial_model_lands_near_the_floor(tutorial):
    ref = tutorial["reference"]
    assert tutorial["val_mse"] >= ref["bayes_on_val"] - 5e-3  # cannot beat the best possible
    assert tutorial["val_mse"] < 1.1 * ref["bayes_on_val"]
    assert_valid_png(tutorial["files"][-1])


def test_the_tutorials_schedule_is_the_noam_factor_times_its_base_lr():
    lr = sine.lr_function("tutorial", 10_000, 32)
    for s in (0, 10, 3999, 9000):
        by_hand = 1e-3 * min((s + 1) ** -0.5, (s + 1) * 4000**-1.5)  # its LambdaLR, written out
        assert lr(s) == pytest.approx(by_hand)
    assert max(lr(s) for s in range(10_000)) < 0.01 * noam(3999, 32, 4000)
    with pytest.raises(UsageError) as e:
        sine.lr_function("linear", 10, 32)
    assert e.value.code == "lesson.choice" and e.value.fields["option"] == "schedule"
    assert e.value.fields["choices"] == list(sine.SCHEDULES)


def test_data_matches_the_tutorials_recipe():
    rng = np.random.default_rng(1)
    s = make(300, rng)
    np.testing.assert_allclose(s.x[0], np.linspace(s.start[0], s.start[0] + 2 * math.pi, 50))
    noise = s.y - np.sin(s.freq[:, None] * s.x)
    assert abs(noise.std() - 0.01) < 1e-3 and s.freq.min() >= 0.5 and s.freq.max() <= 2.0
    x, t = forecast_windows(s.y)
    assert x.shape == (300, 40, 1) and t.shape == (300, 40, 10)
    np.testing.assert_allclose(t[:, 39].numpy(), s.y[:, 40:].astype(np.float32))
    np.testing.assert_allclose(t[:, 5, 0].numpy(), s.y[:, 6].astype(np.float32))

"""The lessons' charts speak the lesson's language (--lang): every title, axis and legend word is the
catalogue's, and the Chinese ones draw with glyphs (the shipped font), never boxes. Each chart is drawn
from a few made-up numbers: no training."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import glassformer.inspect
from glassformer.lessons import fruit, hello_world, seq2seq, sine, tiny
from glassformer.lessons.common import FitResult, Narrator
from glassformer.lessons.common import save_png as real_save_png
from glassformer.messages import NP_
from glassformer.train.data import OBSERVED, SEQ_LEN
from glassformer.train.data import make as make_waves

LANGS = ["en", "zh"]


@pytest.fixture
def saved(monkeypatch):
    """The Figures the lessons save, in order; saving one with a glyph matplotlib cannot draw fails."""
    figs: list = []

    def keep(fig, path):
        with warnings.catch_warnings(record=True) as caught:  # saving draws every glyph
            warnings.simplefilter("always")
            out = real_save_png(fig, path)
        assert not [w for w in caught if "missing from" in str(w.message)]  # matplotlib: no glyph for it
        figs.append(fig)
        return out

    for lesson in (fruit, hello_world, seq2seq, sine, tiny):
        monkeypatch.setattr(lesson, "save_png", keep)
    monkeypatch.setattr(glassformer.inspect, "attention_grid_png", lambda *a: a[-1])  # not this file's chart
    return figs


def legend(ax) -> list[str]:
    return [s.get_text() for s in ax.get_legend().get_texts()]


def quiet(lang: str) -> Narrator:
    return Narrator(lang, echo=lambda line: None)


@pytest.mark.parametrize("lang", LANGS)
def test_fruit_heatmap_and_position_table(lang, saved, tmp_path):
    nar = quiet(lang)
    fruit.save_heatmap(nar, np.full((3, 3), 1 / 3), tmp_path / "a.png")
    fruit.save_position_table(nar, np.zeros((6, 4)), tmp_path / "p.png")
    heat, table = (fig.axes[0] for fig in saved)
    assert (heat.get_xlabel(), heat.get_ylabel()) == (
        nar.text("key"),
        nar.text("query"),
    )
    assert heat.get_title() == nar.text("softmax(Q·Kᵀ/√{d})", d=2)
    assert table.get_xlabel() == nar.text("feature (even: sin, odd: cos)")
    assert table.get_ylabel() == nar.text("position p")
    assert table.get_title() == nar.text(
        "sinusoidal PE, {positions} positions × {features} features", positions=6, features=4
    )


@pytest.mark.parametrize("lang", LANGS)
def test_hello_world_loss_and_leak(lang, saved, tmp_path):
    nar = quiet(lang)
    fits = {m: FitResult(train=[2.0, 1.0, 0.5]) for m in ("causal", "none")}
    leak = hello_world.LeakResult(5, 3, 1.6, 0.5, {}, {m: [1.6, 1.0, 0.2] for m in ("causal", "none")})
    data = SimpleNamespace(inputs=torch.zeros(1, 3, dtype=torch.long), tokenizer=SimpleNamespace(decode=lambda i: "a"))
    hello_world.save_figures(nar, tmp_path, fits, {}, data, leak)
    loss, random = (fig.axes[0] for fig in saved)
    assert (loss.get_xlabel(), loss.get_ylabel()) == (
        nar.text("epoch"),
        nar.text("training loss (log scale)"),
    )
    assert random.get_xlabel() == nar.text("position t")
    assert random.get_ylabel() == nar.text("held-out loss on random tokens")
    assert nar.text("chance ln {symbols}", symbols=5) in legend(random)


@pytest.mark.parametrize("lang", LANGS)
def test_tiny_loss(lang, saved, tmp_path):
    nar = quiet(lang)
    tiny.save_figures(nar, tmp_path, [3.0, 2.0], None, tiny.CharTokenizer.from_text(tiny.TUTORIAL_000_TEXT))
    (ax,) = saved[0].axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        nar.text(NP_("lesson.common.step", "step")),
        nar.text("training loss of the batch (nats)"),
    )


@pytest.mark.parametrize("lang", LANGS)
def test_seq2seq_loss(lang, saved, tmp_path):
    nar = quiet(lang)
    records = [{"step": s, "train_loss": 2.0 / (s + 1), "val_loss": 2.1 / (s + 1)} for s in range(3)]
    seq2seq.loss_png(nar, records, 0.4567, tmp_path / "loss.png")
    (ax,) = saved[0].axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        nar.text(NP_("lesson.common.step", "step")),
        nar.text("label-smoothed cross-entropy"),
    )
    floor = nar.text("label-smoothing floor {floor}", floor="0.457")
    assert legend(ax) == [nar.text("train loss"), nar.text("val loss"), floor]


@pytest.mark.parametrize("lang", LANGS)
def test_sine_schedules_losses_forecasts_and_the_tutorial_task(lang, saved, tmp_path):
    nar = quiet(lang)
    waves = make_waves(4, np.random.default_rng(0))
    sine.print_schedules(nar, 20, 16, "noam", tmp_path / "lr.png")
    fit = FitResult(train=[1.0, 0.5], val=[1.1, 0.6], best_epoch=1)
    sine.loss_png(nar, fit, {"zero": 0.5, "last value": 0.2}, tmp_path / "loss.png")
    sine.forecast_png(nar, waves, np.zeros((4, SEQ_LEN - OBSERVED)), tmp_path / "forecasts.png")
    sine.tutorial_png(nar, waves, np.zeros(SEQ_LEN), np.random.default_rng(1), tmp_path / "task.png")
    schedules, losses, forecasts, task = saved
    lr = schedules.axes[0]
    assert (lr.get_xlabel(), lr.get_ylabel()) == (
        nar.text("optimizer step"),
        nar.text("learning rate (log scale)"),
    )
    assert nar.text("{name} (this run)", name="noam") in legend(lr)
    ax = losses.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == (nar.text("epoch"), nar.text("MSE (log scale)"))
    assert legend(ax) == [
        nar.text("train MSE (all prefixes)"),
        nar.text("val MSE (forecast from {observed})", observed=OBSERVED),
        nar.text("baseline: zero"),
        nar.text("baseline: last value"),
        nar.text("kept (best val)"),
    ]
    first = forecasts.axes[0]
    assert first.get_title() == nar.text("val #{k}: freq {freq}", k=0, freq=f"{waves.freq[0]:.2f}")
    assert legend(first) == [
        nar.text(k)
        for k in (
            "observed",
            "truth",
            "forecast",
            "last value",
        )
    ]
    assert legend(task.axes[0]) == [
        nar.text("truth (freq {freq})", freq=f"{waves.freq[0]:.2f}"),
        nar.text("model"),
        nar.text("E[y | x] (best possible)"),
    ]


def test_the_chinese_words_are_not_the_english_ones():
    """The zh charts above really are Chinese: a key that fell back to English would pass them."""
    en, zh = quiet("en"), quiet("zh")
    for key in (
        "key",
        "training loss (log scale)",
        "kept (best val)",
        "training loss of the batch (nats)",
    ):
        assert en.text(key) != zh.text(key)

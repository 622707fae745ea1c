"""The lessons' charts speak the lesson's language (--lang): every title, axis and legend word is the
catalogue's, and the Chinese ones draw with glyphs (the shipped font), never boxes. Each chart is drawn
from a few made-up numbers: no training."""

from __future__ import annotations

import re
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from helpers import catalogues, said

import glassformer.inspect
from glassformer.lessons import fruit, hello_world, ladder, post_training, seq2seq, sine, tiny
from glassformer.lessons.common import FitResult, Narrator
from glassformer.lessons.common import save_png as real_save_png
from glassformer.messages import language, speaking, translated
from glassformer.train.data import OBSERVED, SEQ_LEN
from glassformer.train.data import make as make_waves

LANGS = ["en", "zh"]


CJK = re.compile(r"[\u4e00-\u9fff]")


def glyphless(caught: list) -> list:
    """matplotlib's warnings of a character it had no glyph for (drawn as a box): "Glyph 20013 (...) missing..."."""
    return [w for w in caught if str(w.message).startswith("Glyph")]


@pytest.fixture
def saved(monkeypatch):
    """The Figures the lessons save, in order; saving one with a glyph matplotlib cannot draw fails."""
    figs: list = []

    def keep(fig, path):
        with warnings.catch_warnings(record=True) as caught:  # saving draws every glyph
            warnings.simplefilter("always")
            out = real_save_png(fig, path)
        assert not glyphless(caught)  # matplotlib: no glyph for it
        figs.append(fig)
        return out

    for lesson in (fruit, hello_world, ladder, post_training, seq2seq, sine, tiny):
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
    with said() as heard:
        fruit.save_heatmap(nar, np.full((3, 3), 1 / 3), tmp_path / "a.png")
        fruit.save_position_table(nar, np.zeros((6, 4)), tmp_path / "p.png")
    heat, table = (fig.axes[0] for fig in saved)
    assert catalogues([heat.get_xlabel(), heat.get_ylabel(), heat.get_title()], heard, lang) == [{}, {}, {"d": 2}]
    texts = [table.get_xlabel(), table.get_ylabel(), table.get_title()]
    assert catalogues(texts, heard, lang) == [{}, {}, {"positions": 6, "features": 4}]


@pytest.mark.parametrize("lang", LANGS)
def test_hello_world_loss_and_leak(lang, saved, tmp_path):
    nar = quiet(lang)
    with said() as heard:
        hello_world_figures(nar, tmp_path)
    loss, random = (fig.axes[0] for fig in saved)
    texts = [loss.get_xlabel(), loss.get_ylabel(), random.get_xlabel(), random.get_ylabel()]
    assert catalogues(texts, heard, lang) == [{}] * 4
    assert catalogues(legend(random)[:1], heard, lang) == [{"symbols": 5}]  # chance: ln V, then a line per mask


@pytest.mark.parametrize("lang", LANGS)
def test_tiny_loss(lang, saved, tmp_path):
    nar = quiet(lang)
    with said() as heard:
        tiny.save_figures(nar, tmp_path, [3.0, 2.0], None, tiny.CharTokenizer.from_text(tiny.TUTORIAL_000_TEXT))
    (ax,) = saved[0].axes
    assert catalogues([ax.get_xlabel(), ax.get_ylabel()], heard, lang) == [{}, {}]


@pytest.mark.parametrize("lang", LANGS)
def test_seq2seq_loss(lang, saved, tmp_path):
    nar = quiet(lang)
    records = [{"step": s, "train_loss": 2.0 / (s + 1), "val_loss": 2.1 / (s + 1)} for s in range(3)]
    with said() as heard:
        seq2seq.loss_png(nar, records, 0.4567, tmp_path / "loss.png")
    (ax,) = saved[0].axes
    assert catalogues([ax.get_xlabel(), ax.get_ylabel()], heard, lang) == [{}, {}]
    assert catalogues(legend(ax), heard, lang) == [{}, {}, {"floor": "0.457"}]  # train, val, the floor


@pytest.mark.parametrize("lang", LANGS)
def test_ladder_curves_and_losses(lang, saved, tmp_path):
    nar = quiet(lang)
    cfg = ladder.ladder()
    measured = [
        ladder.Measured(r.key, c, 0, 0, 0, 1.0, 1.0, 2.0 + i / 10, [(1, 3.0), (2, 2.5)])
        for i, (r, c) in enumerate(zip(ladder.RUNGS, cfg, strict=True))
    ]
    with said() as heard:
        ladder.save_chart(nar, measured, tmp_path / "ladder.png")
    curves, bars = saved[0].axes
    texts = [curves.get_xlabel(), curves.get_ylabel(), bars.get_ylabel(), saved[0].get_suptitle()]
    assert catalogues(texts, heard, lang) == [{}] * 4
    assert legend(curves) == [r.key for r in ladder.RUNGS]  # one curve per rung, named by its key
    assert [round(p.get_height(), 6) for p in bars.patches] == [m.val_loss for m in measured]


@pytest.mark.parametrize("lang", LANGS)
def test_post_training_accuracy_and_reward(lang, saved, tmp_path):
    nar = quiet(lang)
    accuracy = {"base": 0.0, "sft": 0.5, "lora": 0.4, "dpo": 0.3, "grpo": 0.7}
    curve = [{"step": s, "reward": 0.1 * s, "kl": 0.01 * s} for s in range(1, 4)]
    with said() as heard:
        post_training.accuracy_png(nar, accuracy, tmp_path / "accuracy.png")
        post_training.reward_png(nar, curve, tmp_path / "reward.png")
    bars, rewards = saved
    ax = bars.axes[0]
    stages = [label.get_text() for label in ax.get_xticklabels()]
    assert catalogues([*stages, ax.get_ylabel()], heard, lang) == [{}] * 6  # the five models, the axis
    assert [round(p.get_height(), 6) for p in ax.patches] == [0.0, 50.0, 40.0, 30.0, 70.0]  # percent, in order
    reward, kl = rewards.axes
    assert catalogues([reward.get_xlabel(), reward.get_ylabel(), kl.get_ylabel()], heard, lang) == [{}] * 3
    assert catalogues(legend(reward), heard, lang) == [{}, {}]  # the reward and the KL, on one legend
    assert list(reward.lines[0].get_ydata()) == [r["reward"] for r in curve]


@pytest.mark.parametrize("lang", LANGS)
def test_sine_schedules_losses_forecasts_and_the_tutorial_task(lang, saved, tmp_path):
    nar = quiet(lang)
    waves = make_waves(4, np.random.default_rng(0))
    with said() as heard:
        sine.print_schedules(nar, 20, 16, "noam", tmp_path / "lr.png")
        fit = FitResult(train=[1.0, 0.5], val=[1.1, 0.6], best_epoch=1)
        sine.loss_png(nar, fit, {"zero": 0.5, "last value": 0.2}, tmp_path / "loss.png")
        sine.forecast_png(nar, waves, np.zeros((4, SEQ_LEN - OBSERVED)), tmp_path / "forecasts.png")
        sine.tutorial_png(nar, waves, np.zeros(SEQ_LEN), np.random.default_rng(1), tmp_path / "task.png")
    schedules, losses, forecasts, task = saved
    lr = schedules.axes[0]
    assert catalogues([lr.get_xlabel(), lr.get_ylabel()], heard, lang) == [{}, {}]
    this_run = [text for text in legend(lr) if "noam" in text]
    assert catalogues(this_run, heard, lang) == [{"name": "noam"}]  # the schedule this run uses is marked
    ax = losses.axes[0]
    assert catalogues([ax.get_xlabel(), ax.get_ylabel()], heard, lang) == [{}, {}]
    with speaking(lang):
        assert ax.get_xlabel() == hello_world_epoch(tmp_path)  # one word for an epoch in both lessons
    kinds = catalogues(legend(ax), heard, lang)  # train, val, the two baselines, the kept epoch
    assert kinds == [{}, {"observed": OBSERVED}, {}, {}, {}]
    first = forecasts.axes[0]
    assert catalogues([first.get_title()], heard, lang) == [{"k": 0, "freq": f"{waves.freq[0]:.2f}"}]
    assert catalogues(legend(first), heard, lang) == [{}] * 4  # observed, truth, forecast, last value
    truth, *rest = catalogues(legend(task.axes[0]), heard, lang)
    assert truth == {"freq": f"{waves.freq[0]:.2f}"} and rest == [{}, {}]  # the model, E[y | x]


def hello_world_figures(nar: Narrator, tmp_path) -> None:
    """hello_world's charts drawn from made-up numbers: 3 epochs, a leak probe over 5 symbols."""
    fits = {m: FitResult(train=[2.0, 1.0, 0.5]) for m in ("causal", "none")}
    leak = hello_world.LeakResult(5, 3, 1.6, 0.5, {}, {m: [1.6, 1.0, 0.2] for m in ("causal", "none")})
    data = SimpleNamespace(inputs=torch.zeros(1, 3, dtype=torch.long), tokenizer=SimpleNamespace(decode=lambda i: "a"))
    hello_world.save_figures(nar, tmp_path, fits, {}, data, leak)


def hello_world_epoch(tmp_path) -> str:
    """The x label of hello_world's loss chart, in the current language."""
    figs: list = []
    real = hello_world.save_png
    hello_world.save_png = lambda fig, path: figs.append(fig)
    try:
        hello_world_figures(quiet(language()), tmp_path)
    finally:
        hello_world.save_png = real
    return figs[0].axes[0].get_xlabel()


def test_the_chinese_words_are_not_the_english_ones(saved, tmp_path):
    """The zh charts above really are Chinese: a sentence that fell back to English would pass them."""
    with said() as heard:
        tiny.save_figures(quiet("zh"), tmp_path, [3.0, 2.0], None, tiny.CharTokenizer.from_text(tiny.TUTORIAL_000_TEXT))
    (ax,) = saved[0].axes
    assert len(heard) >= 2
    for message, fields in heard:
        assert translated(message, "en").format(**fields) != translated(message, "zh").format(**fields)
    assert all(CJK.search(text) for text in (ax.get_xlabel(), ax.get_ylabel()))

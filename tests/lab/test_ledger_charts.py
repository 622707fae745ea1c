"""The ledger entries' charts (grokking.png, induction.png, induction_text.png) speak the catalogue's
words, in en and zh: every title, axis label and legend entry is a pictures.lab.<entry>.* sentence."""

from __future__ import annotations

import pytest
from helpers import said
from test_charts import catalogues, keeping  # the shared figure-keeping Context and check

from glassformer.lab import grokking, induction, induction_text
from glassformer.messages import speaking


def grok_out() -> dict:
    curve = [{"step": s, "train_acc": 0.5, "test_acc": 0.1} for s in (0, 100, 200)]
    run = {"curve": curve, "spectrum": [0.5, 0.3, 0.2]}
    return {"p": 7, "fraction": 0.5, "wd": 1.0, "runs": {"decay": [run], "no_decay": [run]}}


def ind_out() -> dict:
    def curve(layers: int) -> list[dict]:
        return [
            {"step": s, "eval_loss": 4.0, "icl": -0.1, "induction": [[0.1, 0.2]] * layers}
            | {"previous_token": [[0.3, 0.1]] * layers}
            for s in (0, 50)
        ]

    return {"L": 16, "V": 16, "early": 2, "late": 16, "runs": {"1": [{"curve": curve(1)}], "2": [{"curve": curve(2)}]}}


def words(fig) -> list[str]:
    out = []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        if ax.get_legend():
            out += [s.get_text() for s in ax.get_legend().get_texts()]
    return [w for w in out if w]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_grokking_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with said() as heard, speaking(lang):
        grokking.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), grok_out())
    ((fig, name),) = drawn
    assert name == "grokking"
    assert catalogues(words(fig), heard, lang) == [
        {"p": 7, "fraction": 50},  # the accuracy panel: title, step axis, accuracy axis
        {},
        {},
        {"wd": 1.0},  # train, test with weight decay, then without
        {"wd": 1.0},
        {"wd": 0},
        {"wd": 0},
        {},  # the spectrum panel: title, frequency axis, energy axis
        {},
        {},
        {"times": "3"},  # the even share's multiple, then decay and no_decay
        {},
        {},
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_induction_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with said() as heard, speaking(lang):
        induction.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), ind_out())
    ((fig, name),) = drawn
    assert name == "induction"
    layers = [{"layers": n} for n in ("1", "2")]  # one legend entry per depth, on the loss and the ICL panels
    assert catalogues(words(fig), heard, lang, distinct=False) == [
        {"L": 16, "V": 16},
        {},
        *layers,
        {"late": 16, "early": 2},
        *layers,
        {},  # the detectors' panel: step, score, the one-layer model's best head, then the two-layer model's
        {},
        {},
        {"layer": 1},
        {"layer": 0},
    ]


def text_out() -> dict:
    curve = [
        {"step": s, "icl": -0.1, "induction": [[0.1, 0.2], [0.3, 0.1]], "previous_token": [[0.5, 0.1], [0.2, 0.1]]}
        for s in (0, 20)
    ]
    runs = {m: [{"curve": curve}] for m in induction_text.MODELS}
    return {
        "L": 16,
        "corpus": "toy",
        "early": 2,
        "late": 16,
        "perfect": {"induction": 0.5, "previous_token": 1.0},
        "runs": runs,
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_induction_text_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with said() as heard, speaking(lang):
        induction_text.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), text_out())
    ((fig, name),) = drawn
    assert name == "induction_text"
    texts = words(fig)
    models = texts[2:4]  # the ICL panel's legend: MODELS' order
    assert catalogues(texts, heard, lang) == [
        {"L": 16, "corpus": "toy"},
        {"late": 16, "early": 2},
        {},
        {},
        {},  # the detectors' panel: step, share of a perfect head, each model's best heads
        {},
        *[{"model": m} for m in models for _ in ("induction", "previous-token")],
    ]

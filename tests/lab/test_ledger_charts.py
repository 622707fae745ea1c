"""The ledger entries' charts (grokking.png, induction.png, induction_text.png) speak the catalogue's
words, in en and zh: every title, axis label and legend entry is a pictures.lab.<entry>.* sentence."""

from __future__ import annotations

import pytest
from test_charts import keeping  # the shared figure-keeping Context

from glassformer.lab import grokking, induction, induction_text
from glassformer.messages import speaking, t


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
    with speaking(lang):
        grokking.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), grok_out())
        want = [
            t("pictures.lab.grokking.accuracy_title", p=7, fraction=50),
            t("pictures.lab.grokking.step_axis"),
            t("pictures.lab.grokking.accuracy_axis"),
            t("pictures.lab.grokking.train", wd=1.0),
            t("pictures.lab.grokking.test", wd=1.0),
            t("pictures.lab.grokking.train", wd=0),
            t("pictures.lab.grokking.test", wd=0),
            t("pictures.lab.grokking.spectrum_title"),
            t("pictures.lab.grokking.frequency_axis"),
            t("pictures.lab.grokking.energy_axis"),
            t("pictures.lab.grokking.even", times="3"),
            t("pictures.lab.grokking.decay"),
            t("pictures.lab.grokking.no_decay"),
        ]
    ((fig, name),) = drawn
    assert name == "grokking" and words(fig) == want


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_induction_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with speaking(lang):
        induction.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), ind_out())
        layers = [t("pictures.lab.induction.layers", layers=n) for n in ("1", "2")]
        want = [
            t("pictures.lab.induction.title", L=16, V=16),
            t("pictures.lab.induction.loss_axis"),
            *layers,
            t("pictures.lab.induction.icl_axis", late=16, early=2),
            *layers,
            t("pictures.lab.induction.step_axis"),
            t("pictures.lab.induction.detector_axis"),
            t("pictures.lab.induction.one_layer_induction"),
            t("pictures.lab.induction.best_induction", layer=1),
            t("pictures.lab.induction.best_previous", layer=0),
        ]
    ((fig, name),) = drawn
    assert name == "induction" and words(fig) == want


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
    with speaking(lang):
        induction_text.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), text_out())
        models = [t("pictures.lab.induction-text.attention"), t("pictures.lab.induction-text.ffn")]  # MODELS' order
        want = [
            t("pictures.lab.induction-text.title", L=16, corpus="toy"),
            t("pictures.lab.induction-text.icl_axis", late=16, early=2),
            *models,
            t("pictures.lab.induction-text.step_axis"),
            t("pictures.lab.induction-text.detector_axis"),
            *[
                w
                for m in models
                for w in (
                    t("pictures.lab.induction-text.induction", model=m),
                    t("pictures.lab.induction-text.previous", model=m),
                )
            ],
        ]
    ((fig, name),) = drawn
    assert name == "induction_text" and words(fig) == want

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
            t("a + b mod {p}, {fraction}% of pairs train (seed 0)", p=7, fraction=50),
            t("step (full batch)"),
            t("accuracy"),
            t("train, wd {wd}", wd=1.0),
            t("test, wd {wd}", wd=1.0),
            t("train, wd {wd}", wd=0),
            t("test, wd {wd}", wd=0),
            t("embedding spectrum after training (seed 0)"),
            t("frequency k"),
            t("share of the embedding's Fourier energy"),
            t("{times}× an even share", times="3"),
            t("decay"),
            t("no_decay"),
        ]
    ((fig, name),) = drawn
    assert name == "grokking" and words(fig) == want


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_induction_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with speaking(lang):
        induction.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), ind_out())
        layers = [t("{layers} layer(s)", layers=n) for n in ("1", "2")]
        want = [
            t("attention-only models on repeated random segments ({L} tokens, vocabulary {V})", L=16, V=16),
            t("loss (nats)"),
            *layers,
            t("ICL score: token {late} − token {early}", late=16, early=2),
            *layers,
            t("training step (seed 0)"),
            t("detector score"),
            t("1 layer: best induction head"),
            t("best induction head, layer {layer}", layer=1),
            t("best previous-token head, layer {layer}", layer=0),
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
        models = [t("2 layers, attention only"), t("2 layers, with FFN")]  # MODELS' order
        want = [
            t("two-layer char models on natural text ({corpus}, {L} characters)", L=16, corpus="toy"),
            t("ICL score: character {late} − character {early}", late=16, early=2),
            *models,
            t("training step (seed 0)"),
            t("share of a perfect head's score"),
            *[
                w
                for m in models
                for w in (
                    t("{model}: best induction head, layer 1", model=m),
                    t("{model}: best previous-token head, layer 0", model=m),
                )
            ],
        ]
    ((fig, name),) = drawn
    assert name == "induction_text" and words(fig) == want

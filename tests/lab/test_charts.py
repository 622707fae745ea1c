"""The lab's charts speak the user's language: their titles, axes and legends are the catalogue's
words, in en and in zh, and the Chinese ones are drawn with glyphs (the shipped font), not boxes."""

from __future__ import annotations

import warnings

import pytest

from glassformer.lab import ffn_width, heads
from glassformer.lab.runner import Context
from glassformer.messages import speaking, t


def heads_results() -> dict:
    def stat(x: float) -> dict:
        return {"mean": x, "spread": 0.01}

    keys = ("val_loss", "entropy", "diagonal_share", "uniform_share")
    return {"heads": {str(h): {k: stat(0.5 + 0.01 * h) for k in keys} for h in (1, 2, 4)}}


def keeping(drawn: list):
    """A Context that keeps each figure it saves and fails on any glyph matplotlib could not draw."""

    class Keeping(Context):
        def figure(self, fig, name):
            drawn.append((fig, name))
            with warnings.catch_warnings(record=True) as caught:  # saving draws every glyph
                warnings.simplefilter("always")
                saved = super().figure(fig, name)
            assert not [w for w in caught if "missing from" in str(w.message)]  # matplotlib: no glyph
            return saved

    return Keeping


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with speaking(lang):
        heads.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), heads_results())
        want = {k: t(f"pictures.lab.heads.{k}") for k in ("entropy", "diagonal_share", "uniform_share")}
        want["val_loss"] = t("pictures.lab.val_loss")
        title, x = t("pictures.lab.heads.loss_title", d_model=64), t("pictures.lab.heads.heads_axis")
    ((fig, name),) = drawn
    left, right = fig.axes[:2]
    assert name == "heads"
    assert left.get_ylabel() == want["val_loss"] and left.get_title() == title
    assert right.get_xlabel() == x
    legend = [s.get_text() for s in right.get_legend().get_texts()]
    assert legend == [want["entropy"], want["diagonal_share"], want["uniform_share"]]
    assert (tmp_path / "heads.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_ffn_width_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    widths = {k: {"params": 1000 * (1 + int(k)), "val_loss": {"mean": 2.0, "spread": 0.1}} for k in ("0", "64")}
    with speaking(lang):
        ffn_width.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), {"widths": widths, "unigram": 3.0, "steps": 7})
        notes = [t("pictures.lab.ffn-width.no_ffn"), t("pictures.lab.ffn-width.d_ff", d_ff="64")]
        words = (t("pictures.lab.ffn-width.params_axis"), t("pictures.lab.val_loss"))
        title, legend = t("pictures.lab.ffn-width.title", d_model=64, steps=7), t("pictures.lab.ffn-width.unigram")
    ((fig, name),) = drawn
    (ax,) = fig.axes
    assert name == "ffn_width" and (ax.get_xlabel(), ax.get_ylabel()) == words and ax.get_title() == title
    assert [a.get_text() for a in ax.texts] == notes
    assert [s.get_text() for s in ax.get_legend().get_texts()] == [legend]

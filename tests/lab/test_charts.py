"""The lab's charts speak the user's language: their titles, axes and legends are the catalogue's
words, in en and in zh, and the Chinese ones are drawn with glyphs (the shipped font), not boxes."""

from __future__ import annotations

import warnings

import pytest

from glassformer.lab import heads
from glassformer.lab.runner import Context
from glassformer.messages import speaking, t


def heads_results() -> dict:
    def stat(x: float) -> dict:
        return {"mean": x, "spread": 0.01}

    keys = ("val_loss", "entropy", "diagonal_share", "uniform_share")
    return {"heads": {str(h): {k: stat(0.5 + 0.01 * h) for k in keys} for h in (1, 2, 4)}}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_chart_words_are_the_catalogues(lang, tmp_path):
    drawn = []

    class Keeping(Context):
        def figure(self, fig, name):
            drawn.append((fig, name))
            with warnings.catch_warnings(record=True) as caught:  # saving draws every glyph
                warnings.simplefilter("always")
                saved = super().figure(fig, name)
            assert not [w for w in caught if "missing from" in str(w.message)]  # matplotlib: no glyph
            return saved

    with speaking(lang):
        heads.plot(Keeping(out=tmp_path, fast=True, seeds=1), heads_results())
        want = {k: t(f"pictures.lab.heads.{k}") for k in ("val_loss", "entropy", "diagonal_share", "uniform_share")}
        title, x = t("pictures.lab.heads.loss_title", d_model=64), t("pictures.lab.heads.heads_axis")
    ((fig, name),) = drawn
    left, right = fig.axes[:2]
    assert name == "heads"
    assert left.get_ylabel() == want["val_loss"] and left.get_title() == title
    assert right.get_xlabel() == x
    legend = [s.get_text() for s in right.get_legend().get_texts()]
    assert legend == [want["entropy"], want["diagonal_share"], want["uniform_share"]]
    assert (tmp_path / "heads.png").read_bytes()[:4] == b"\x89PNG"

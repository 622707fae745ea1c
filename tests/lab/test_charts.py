"""The lab's charts speak the user's language: their titles, axes and legends are the catalogue's
words, in en and in zh, and the Chinese ones are drawn with glyphs (the shipped font), not boxes."""

from __future__ import annotations

import ast
import html
import json
import re
import warnings

import pytest
from helpers import ROOT

from glassformer.lab import (
    attention_steps,
    causal_leak,
    ffn_width,
    heads,
    initialisation,
    layernorm,
    mask_fill,
    order,
    scaling,
)
from glassformer.lab.runner import Context, figure
from glassformer.messages import NP_, has, speaking, t, translated


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
        want = {
            "entropy": t("mean normalised entropy"),
            "diagonal_share": t("share of diagonal heads"),
            "uniform_share": t("share of near-uniform heads"),
        }
        want["val_loss"] = t("validation loss (nats)")
        title, x = t("loss against heads (d_model {d_model})", d_model=64), t("heads")
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
        notes = [t("no FFN"), t("d_ff={d_ff}", d_ff="64")]
        words = (t("parameters"), t("validation loss (nats)"))
        title, legend = (
            t("FFN width at d_model {d_model}, {steps} steps", d_model=64, steps=7),
            t("character frequencies only"),
        )
    ((fig, name),) = drawn
    (ax,) = fig.axes
    assert name == "ffn_width" and (ax.get_xlabel(), ax.get_ylabel()) == words and ax.get_title() == title
    assert [a.get_text() for a in ax.texts] == notes
    assert [s.get_text() for s in ax.get_legend().get_texts()] == [legend]


# ---- every other experiment's chart, redrawn from the numbers its committed run measured -------------
DOCS = ROOT / "docs" / "lab"


def committed(name: str) -> dict:
    """The numbers of docs/lab/<name>/results.json: what `plot` drew the committed PNG from."""
    return json.loads((DOCS / name / "results.json").read_text(encoding="utf-8"))["results"]


def plotted(module, name: str, lang: str, tmp_path):
    """The Figure `module.plot` saves in `lang` (saved, with no glyph missing: see `keeping`)."""
    drawn: list = []
    with speaking(lang):
        module.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), committed(name))
    ((fig, _),) = drawn
    return fig


def words(lang: str, *keys, **fields) -> list[str]:
    with speaking(lang):
        return [t(key, **fields) for key in keys]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_causal_leak_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("causal-leak")
    fig = plotted(causal_leak, "causal-leak", lang, tmp_path)
    left, right = fig.axes[:2]
    axis, loss, whole, prefix, text_loss = words(
        lang,
        "position",
        "held-out loss, random tokens",
        "whole window visible",
        "only tokens 0..t visible",
        "validation loss, char model (nats)",
    )
    assert (left.get_xlabel(), left.get_ylabel(), right.get_ylabel()) == (axis, loss, text_loss)
    assert words(lang, "chance ln {symbols}", symbols=r["random_tokens"]["symbols"])[0] in legend(left)
    assert legend(right) == [whole, prefix]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_initialisation_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(initialisation, "init", lang, tmp_path)
    pre, none = words(lang, "pre-LN", "no LN")
    titles = [ax.get_title() for ax in fig.axes[:3]]
    assert titles == [
        *(words(lang, "{arch}: training loss (mean over seeds)", arch=a)[0] for a in (pre, none)),
        *words(lang, "gradient norm per block at initialisation"),
    ]
    assert [ax.get_xlabel() for ax in fig.axes[:3]] == words(
        lang, NP_("pictures.loss.step_axis", "step"), NP_("pictures.loss.step_axis", "step"), "block"
    )
    runs = [words(lang, "{arch} / {init}", arch=a, init=i)[0] for a in (pre, none) for i in initialisation.INITS]
    assert legend(fig.axes[2]) == runs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_layernorm_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("layernorm")
    fig = plotted(layernorm, "layernorm", lang, tmp_path)
    depths = r["depths"]
    titles = [ax.get_title() for ax in fig.axes[: len(depths) + 1]]
    assert titles == [
        *(words(lang, "depth {depth}: validation loss (× = failed)", depth=d)[0] for d in depths),
        *words(lang, "‖gradient‖ per block at init, depth {depth}", depth=max(depths)),
    ]
    assert fig.axes[0].get_xlabel() == words(lang, "learning rate")[0]
    assert fig.axes[len(depths)].get_xlabel() == words(lang, "block")[0]
    runs = [
        words(lang, "{norm}-LN, warmup {warmup}", norm=n, warmup=w)[0] for n in ("pre", "post") for w in r["warmups"]
    ]
    assert legend(fig.axes[0]) == runs
    assert legend(fig.axes[len(depths)]) == [words(lang, "{norm}-LN", norm=n)[0] for n in ("pre", "post")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_fill_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(mask_fill, "mask-fill", lang, tmp_path)
    nan, hidden, ours = words(
        lang,
        "NaN weights in a fully masked row (fraction)",
        "weight on hidden keys, fully masked row (max over rows)",
        NP_("pictures.lab.mask-fill.ours", "ours"),
    )
    assert [ax.get_title() for ax in fig.axes[:2]] == [nan, hidden]
    ticks = [s.get_text() for s in fig.axes[0].get_xticklabels()]
    assert ticks == [f"{d}\n{f}" for d in mask_fill.DTYPES for f in (*mask_fill.FILLS, ours)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(order, "order", lang, tmp_path)
    left, right = fig.axes[:2]
    cases = [
        "encoder\nno positions",
        "encoder\nlearned positions",
        "causal decoder\nno positions",
    ]  # CASES' order
    assert [s.get_text() for s in left.get_xticklabels()] == words(lang, *cases)
    assert left.get_title() == words(lang, "max |f(x[π]) − f(x)[π]|, float64")[0]
    assert right.get_ylabel() == words(lang, "nats")[0]
    schemes = [words(lang, "causal, position={position}", position=p)[0] for p in order.SCHEMES]
    assert [s.get_text() for s in right.get_xticklabels()] == schemes
    keys = (
        "character frequencies only",
        "bigram table (current character only)",
        "validation loss",
        "loss rise when the prefix is shuffled",
    )  # matplotlib lists the lines, then the bars
    assert legend(right) == words(lang, *keys)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scaling_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("scaling")
    fig = plotted(scaling, "scaling", lang, tmp_path)
    variance, grad, train = fig.axes[:3]
    scaled, unscaled = words(lang, "scaled", "unscaled")
    assert variance.get_title() == words(lang, "variance of the scores")[0]
    assert (
        grad.get_title()
        == words(lang, "median ‖∂L/∂q‖ (dashed: share of rows < {vanished})", vanished=figure(scaling.VANISHED))[0]
    )
    assert legend(variance) == legend(grad) == [scaled, unscaled]
    assert variance.get_xlabel() == grad.get_xlabel() == words(lang, "D (d_head)")[0]
    assert (train.get_title(), train.get_xlabel(), train.get_ylabel()) == tuple(
        words(
            lang,
            "char model, with and without 1/√D",
            NP_("pictures.loss.step_axis", "step"),
            "training loss (mean over seeds)",
        )
    )
    way = {"scaled": scaled, "unscaled": unscaled}
    runs = [words(lang, "D={D} {way}", D=v["D"], way=way[v["way"]])[0] for v in r["training"].values()]
    assert legend(train) == runs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attention_steps_strip_words_are_the_catalogues(lang, tmp_path):
    maps = [[[1.0, float("nan")], [0.5, 0.5]]] * 2  # (heads, T, T): two heads of a 2-token probe
    log = {"heads": [[0, 0], [1, 1]], "records": [{"step": s, "maps": maps} for s in (0, 7)]}
    with speaking(lang):
        fig = attention_steps.strip_figure(log, [0, 1])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            attention_steps.strip_png(log, tmp_path / "strip.png", [0, 1])
    assert not [w for w in caught if "missing from" in str(w.message)]  # every glyph drawn
    top = [ax.get_title() for ax in fig.axes[:2]]
    assert top == [words(lang, "step {step}", step=s)[0] for s in (0, 7)]
    rows = [fig.axes[0].get_ylabel(), fig.axes[2].get_ylabel()]
    assert rows == [words(lang, "layer {layer} · head {head}", layer=h, head=h)[0] for h in (0, 1)]
    assert fig.get_suptitle() == words(lang, "attention weights (rows = query, columns = key; white = masked)")[0]


PAGE_LOG = {  # an attention log of a Chinese probe (a zh-poems run): one head, two recorded steps
    "tokens": list("床前明"),
    "heads": [[1, 0]],
    "records": [{"step": s, "maps": [[[1.0, None, None], [0.5, 0.5, None], [0.2, 0.3, 0.5]]]} for s in (0, 30)],
}


def test_the_attention_steps_page_follows_lang_with_the_catalogues_words(tmp_path):
    """The slider page `train --attention-every` and the lab write: its <html lang>, title, heading,
    note and the words its script shows are the catalogue's in the current language (was English
    whatever --lang), and it carries the shipped font cut to its characters (the tokens' hanzi too)."""
    pages = {}
    for lang in ("en", "zh"):
        with speaking(lang):
            path = attention_steps.slider_html(PAGE_LOG, tmp_path / f"{lang}.html")
        page = pages[lang] = path.read_text(encoding="utf-8")
        title, heading, note, slider = words(
            lang,
            "glassformer attention across training",
            "Attention across training",
            "Move the slider to see one head's map at each recorded step "
            "(rows = query, columns = key, grey = masked). Normalised "
            "entropy 1 = weight spread evenly, 0 = all on one key.",
            NP_("pictures.lab.attention-steps.page.slider", "step"),
        )
        assert re.search(r'<html lang="([^"]+)">', page).group(1) == ("zh-CN" if lang == "zh" else "en")
        assert html.unescape(re.search(r"<title>(.*)</title>", page).group(1)) == title
        assert f"<h2>{html.escape(heading)}</h2>" in page and f'<p class="note">{html.escape(note)}</p>' in page
        assert f"</select> {html.escape(slider)} <input" in page
        data = json.loads(re.search(r"<script>const DATA = (.*);</script>", page).group(1))
        assert data["words"] == {
            "step": words(lang, "step {step}", step="{step}")[0],
            "head": words(lang, "layer {layer} · head {head}", layer="{layer}", head="{head}")[0],
            "entropy": words(lang, "mean normalised entropy {value}", value="{value}")[0],
        }
        assert data["tokens"] == PAGE_LOG["tokens"] and data["records"][1]["maps"][0][2] == [200, 300, 500]
        assert '@font-face { font-family: "Glassformer CJK"; src: url(data:font/otf;base64,' in page
        assert '"Glassformer CJK", sans-serif' in page  # the body's font list names it
    en, zh = (re.search(r"<title>(.*)</title>", pages[lang]).group(1) for lang in ("en", "zh"))
    assert en != zh and re.search(r"[\u4e00-\u9fff]", zh)  # each the catalogue's (above): Chinese under zh


def legend(ax) -> list[str]:
    return [s.get_text() for s in ax.get_legend().get_texts()]


# where the charts' words are said: the functions that draw, and the tables of names drawn on them
DRAWING = {
    "plot",
    "grid_figure",
    "head_figure",
    "masked_note",
    "strip_figure",
    "slider_page",
    "attention_page",
    "tables",
    "_title",
    "__repr__",
    "_repr_html_",
    "loss_figure",
    "save_figures",
}
CHART_TABLES = {"WAYS", "ARCH_WORDS", "CASE_WORDS"}


def chart_words() -> set[str]:
    """Every sentence said where a chart is drawn (src/glassformer: in DRAWING or CHART_TABLES)."""
    found = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            here = inside or (isinstance(child, ast.FunctionDef) and child.name in DRAWING)
            here = here or (
                isinstance(child, ast.Assign) and any(getattr(x, "id", "") in CHART_TABLES for x in child.targets)
            )
            if here and isinstance(child, ast.Constant) and isinstance(child.value, str) and has(child.value):
                found.add(child.value)
            visit(child, here)

    for path in sorted((ROOT / "src" / "glassformer").rglob("*.py")):
        visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_no_figure_is_typed_into_a_chart_word():
    """No number typed where a field belongs, in English or in Chinese (that the two carry the same
    {fields}, and Chinese wherever the English has words: tests/messages/test_catalogue.py)."""
    words = chart_words()
    assert len(words) > 130 and "gradient flow: input side on the left, output side on the right" in words
    for message in sorted(words):
        for lang in ("en", "zh"):
            bare = re.sub(r"\{[^}]*\}", "", translated(message, lang))
            assert not re.search(r"\d\.\d|\d[eE]-?\d|\d{2,}", bare.replace("float64", "")), f"{message!r} ({lang})"


def test_a_chinese_chart_drawn_without_the_fallback_would_miss_glyphs(tmp_path):
    """The no-fallback check can fail: the same Chinese chart saved without use_in_figure has no glyph."""
    with speaking("zh"):
        fig = attention_steps.strip_figure({"heads": [[0, 0]], "records": [{"step": 0, "maps": [[[1.0]]]}]}, [0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(tmp_path / "boxes.png")
    assert [w for w in caught if "missing from" in str(w.message)]

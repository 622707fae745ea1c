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
from glassformer.messages import has, speaking, t, translated


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
            "entropy": t("pictures.lab.heads.entropy"),
            "diagonal_share": t("pictures.lab.heads.diagonal_share"),
            "uniform_share": t("pictures.lab.heads.uniform_share"),
        }
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
        "pictures.lab.causal-leak.position_axis",
        "pictures.lab.causal-leak.random_loss",
        "pictures.lab.causal-leak.whole",
        "pictures.lab.causal-leak.prefix",
        "pictures.lab.causal-leak.text_loss",
    )
    assert (left.get_xlabel(), left.get_ylabel(), right.get_ylabel()) == (axis, loss, text_loss)
    assert words(lang, "pictures.chance", symbols=r["random_tokens"]["symbols"])[0] in legend(left)
    assert legend(right) == [whole, prefix]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_initialisation_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(initialisation, "init", lang, tmp_path)
    pre, none = words(lang, "pictures.lab.init.arch.pre", "pictures.lab.init.arch.none")
    titles = [ax.get_title() for ax in fig.axes[:3]]
    assert titles == [
        *(words(lang, "pictures.lab.init.loss_title", arch=a)[0] for a in (pre, none)),
        *words(lang, "pictures.lab.init.grad_title"),
    ]
    assert [ax.get_xlabel() for ax in fig.axes[:3]] == words(
        lang, "pictures.loss.step_axis", "pictures.loss.step_axis", "pictures.lab.block_axis"
    )
    runs = [words(lang, "pictures.lab.init.run", arch=a, init=i)[0] for a in (pre, none) for i in initialisation.INITS]
    assert legend(fig.axes[2]) == runs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_layernorm_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("layernorm")
    fig = plotted(layernorm, "layernorm", lang, tmp_path)
    depths = r["depths"]
    titles = [ax.get_title() for ax in fig.axes[: len(depths) + 1]]
    assert titles == [
        *(words(lang, "pictures.lab.layernorm.depth_title", depth=d)[0] for d in depths),
        *words(lang, "pictures.lab.layernorm.grad_title", depth=max(depths)),
    ]
    assert fig.axes[0].get_xlabel() == words(lang, "pictures.lab.layernorm.lr_axis")[0]
    assert fig.axes[len(depths)].get_xlabel() == words(lang, "pictures.lab.block_axis")[0]
    runs = [
        words(lang, "pictures.lab.layernorm.run", norm=n, warmup=w)[0] for n in ("pre", "post") for w in r["warmups"]
    ]
    assert legend(fig.axes[0]) == runs
    assert legend(fig.axes[len(depths)]) == [
        words(lang, "pictures.lab.layernorm.norm", norm=n)[0] for n in ("pre", "post")
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_fill_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(mask_fill, "mask-fill", lang, tmp_path)
    nan, hidden, ours = words(
        lang, "pictures.lab.mask-fill.nan_title", "pictures.lab.mask-fill.hidden_title", "pictures.lab.mask-fill.ours"
    )
    assert [ax.get_title() for ax in fig.axes[:2]] == [nan, hidden]
    ticks = [s.get_text() for s in fig.axes[0].get_xticklabels()]
    assert ticks == [f"{d}\n{f}" for d in mask_fill.DTYPES for f in (*mask_fill.FILLS, ours)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_chart_words_are_the_catalogues(lang, tmp_path):
    fig = plotted(order, "order", lang, tmp_path)
    left, right = fig.axes[:2]
    cases = [
        "pictures.lab.order.case.encoder.none",
        "pictures.lab.order.case.encoder.learned",
        "pictures.lab.order.case.gpt.none",
    ]  # CASES' order
    assert [s.get_text() for s in left.get_xticklabels()] == words(lang, *cases)
    assert left.get_title() == words(lang, "pictures.lab.order.gap_title")[0]
    assert right.get_ylabel() == words(lang, "pictures.lab.nats")[0]
    schemes = [words(lang, "pictures.lab.order.scheme", position=p)[0] for p in order.SCHEMES]
    assert [s.get_text() for s in right.get_xticklabels()] == schemes
    keys = (
        "pictures.lab.order.unigram",
        "pictures.lab.order.bigram",
        "pictures.lab.order.val_loss",
        "pictures.lab.order.shuffled",
    )  # matplotlib lists the lines, then the bars
    assert legend(right) == words(lang, *keys)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scaling_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("scaling")
    fig = plotted(scaling, "scaling", lang, tmp_path)
    variance, grad, train = fig.axes[:3]
    scaled, unscaled = words(lang, "pictures.lab.scaling.scaled", "pictures.lab.scaling.unscaled")
    assert variance.get_title() == words(lang, "pictures.lab.scaling.variance_title")[0]
    assert grad.get_title() == words(lang, "pictures.lab.scaling.grad_title", vanished=figure(scaling.VANISHED))[0]
    assert legend(variance) == legend(grad) == [scaled, unscaled]
    assert variance.get_xlabel() == grad.get_xlabel() == words(lang, "pictures.lab.scaling.d_axis")[0]
    assert (train.get_title(), train.get_xlabel(), train.get_ylabel()) == tuple(
        words(lang, "pictures.lab.scaling.train_title", "pictures.loss.step_axis", "pictures.lab.train_loss_mean")
    )
    way = {"scaled": scaled, "unscaled": unscaled}
    runs = [words(lang, "pictures.lab.scaling.run", D=v["D"], way=way[v["way"]])[0] for v in r["training"].values()]
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
    assert top == [words(lang, "pictures.lab.attention-steps.step", step=s)[0] for s in (0, 7)]
    rows = [fig.axes[0].get_ylabel(), fig.axes[2].get_ylabel()]
    assert rows == [words(lang, "pictures.lab.attention-steps.head", layer=h, head=h)[0] for h in (0, 1)]
    assert fig.get_suptitle() == words(lang, "pictures.lab.attention-steps.title")[0]


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
            "pictures.lab.attention-steps.page.title",
            "pictures.lab.attention-steps.page.heading",
            "pictures.lab.attention-steps.page.note",
            "pictures.lab.attention-steps.page.slider",
        )
        assert re.search(r'<html lang="([^"]+)">', page).group(1) == ("zh-CN" if lang == "zh" else "en")
        assert html.unescape(re.search(r"<title>(.*)</title>", page).group(1)) == title
        assert f"<h2>{html.escape(heading)}</h2>" in page and f'<p class="note">{html.escape(note)}</p>' in page
        assert f"</select> {html.escape(slider)} <input" in page
        data = json.loads(re.search(r"<script>const DATA = (.*);</script>", page).group(1))
        assert data["words"] == {
            "step": words(lang, "pictures.lab.attention-steps.step", step="{step}")[0],
            "head": words(lang, "pictures.lab.attention-steps.head", layer="{layer}", head="{head}")[0],
            "entropy": words(lang, "pictures.lab.attention-steps.page.entropy", value="{value}")[0],
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
    assert len(words) > 130 and "pictures.grads.title" in words
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

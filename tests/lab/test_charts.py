"""The lab's charts speak the user's language: their titles, axes and legends are the catalogue's
words, in en and in zh, and the Chinese ones are drawn with glyphs (the shipped font), not boxes."""

from __future__ import annotations

import ast
import html
import json
import re
import warnings

import pytest
from helpers import ROOT, catalogues, said

from glassformer.fonts import FAMILY
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


def glyphless(caught: list) -> list:
    """matplotlib's warnings of a character it had no glyph for (drawn as a box): "Glyph 20013 (...) missing..."."""
    return [w for w in caught if str(w.message).startswith("Glyph")]


def keeping(drawn: list):
    """A Context that keeps each figure it saves and fails on any glyph matplotlib could not draw."""

    class Keeping(Context):
        def figure(self, fig, name):
            drawn.append((fig, name))
            with warnings.catch_warnings(record=True) as caught:  # saving draws every glyph
                warnings.simplefilter("always")
                saved = super().figure(fig, name)
            assert not glyphless(caught)  # matplotlib: no glyph
            return saved

    return Keeping


CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with said() as heard, speaking(lang):
        heads.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), heads_results())
    ((fig, name),) = drawn
    left, right = fig.axes[:2]
    assert name == "heads"
    texts = [left.get_ylabel(), left.get_title(), right.get_xlabel(), *legend(right)]
    assert catalogues(texts, heard, lang) == [{}, {"d_model": 64}, {}, {}, {}, {}]  # 3 kinds of head in the legend
    assert (tmp_path / "heads.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_ffn_width_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    widths = {k: {"params": 1000 * (1 + int(k)), "val_loss": {"mean": 2.0, "spread": 0.1}} for k in ("0", "64")}
    with said() as heard, speaking(lang):
        ffn_width.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), {"widths": widths, "unigram": 3.0, "steps": 7})
    ((fig, name),) = drawn
    (ax,) = fig.axes
    assert name == "ffn_width"
    texts = [ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), *(a.get_text() for a in ax.texts), *legend(ax)]
    fields = catalogues(texts, heard, lang)
    assert fields == [{}, {}, {"d_model": 64, "steps": 7}, {}, {"d_ff": "64"}, {}]  # width 0 is "no FFN"
    with speaking(lang):  # the loss label is the heads chart's: one sentence for one quantity
        assert ax.get_ylabel() == heads_ylabel(tmp_path)


def heads_ylabel(tmp_path) -> str:
    drawn: list = []
    heads.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), heads_results())
    return drawn[0][0].axes[0].get_ylabel()


# ---- every other experiment's chart, redrawn from the numbers its committed run measured -------------
DOCS = ROOT / "docs" / "lab"


def committed(name: str) -> dict:
    """The numbers of docs/lab/<name>/results.json: what `plot` drew the committed PNG from."""
    return json.loads((DOCS / name / "results.json").read_text(encoding="utf-8"))["results"]


def plotted(module, name: str, lang: str, tmp_path):
    """The Figure `module.plot` saves in `lang` (saved, with no glyph missing: see `keeping`), and what
    was said while drawing it (helpers.said)."""
    drawn: list = []
    with said() as heard, speaking(lang):
        module.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), committed(name))
    ((fig, _),) = drawn
    return fig, heard


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_causal_leak_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("causal-leak")
    fig, heard = plotted(causal_leak, "causal-leak", lang, tmp_path)
    left, right = fig.axes[:2]
    assert (
        catalogues([left.get_xlabel(), left.get_ylabel(), right.get_ylabel(), *legend(right)], heard, lang) == [{}] * 5
    )  # whole window / prefix only on the right
    chance = catalogues(legend(left)[:1], heard, lang)  # then one line per mask, named by the mask's option
    assert chance == [{"symbols": r["random_tokens"]["symbols"]}]  # chance: ln V


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_initialisation_chart_words_are_the_catalogues(lang, tmp_path):
    fig, heard = plotted(initialisation, "init", lang, tmp_path)
    with speaking(lang):
        archs = [t(word) for word in initialisation.ARCH_WORDS.values()]
    titles = catalogues([ax.get_title() for ax in fig.axes[:3]], heard, lang)
    assert titles == [{"arch": a} for a in archs] + [{}]  # one loss panel per architecture, then the gradients
    axes = [ax.get_xlabel() for ax in fig.axes[:3]]
    assert axes[0] == axes[1] and catalogues(axes[1:], heard, lang) == [{}, {}]  # step, step, block
    runs = catalogues(legend(fig.axes[2]), heard, lang)
    assert runs == [{"arch": a, "init": i} for a in archs for i in initialisation.INITS]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_layernorm_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("layernorm")
    fig, heard = plotted(layernorm, "layernorm", lang, tmp_path)
    depths = r["depths"]
    titles = catalogues([ax.get_title() for ax in fig.axes[: len(depths) + 1]], heard, lang)
    assert titles == [{"depth": d} for d in depths] + [{"depth": max(depths)}]
    assert catalogues([fig.axes[0].get_xlabel(), fig.axes[len(depths)].get_xlabel()], heard, lang) == [{}, {}]
    runs = catalogues(legend(fig.axes[0]), heard, lang)
    assert runs == [{"norm": n, "warmup": w} for n in ("pre", "post") for w in r["warmups"]]
    assert catalogues(legend(fig.axes[len(depths)]), heard, lang) == [{"norm": n} for n in ("pre", "post")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_fill_chart_words_are_the_catalogues(lang, tmp_path):
    fig, heard = plotted(mask_fill, "mask-fill", lang, tmp_path)
    assert catalogues([ax.get_title() for ax in fig.axes[:2]], heard, lang) == [{}, {}]  # NaN share, hidden weight
    ticks = [s.get_text().split("\n") for s in fig.axes[0].get_xticklabels()]
    assert [d for d, _ in ticks] == [d for d in mask_fill.DTYPES for _ in range(len(mask_fill.FILLS) + 1)]
    fills = {f for _, f in ticks} - set(mask_fill.FILLS)  # each dtype's bars: the naive fills, then ours
    assert [f for _, f in ticks[: len(mask_fill.FILLS)]] == list(mask_fill.FILLS) and len(fills) == 1
    assert catalogues(list(fills), heard, lang) == [{}]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_chart_words_are_the_catalogues(lang, tmp_path):
    fig, heard = plotted(order, "order", lang, tmp_path)
    left, right = fig.axes[:2]
    with speaking(lang):
        cases = [t(order.CASE_WORDS[n]) for n in order.CASES]
    assert [s.get_text() for s in left.get_xticklabels()] == cases
    assert catalogues([*cases, left.get_title(), right.get_ylabel()], heard, lang) == [{}] * 5
    schemes = catalogues([s.get_text() for s in right.get_xticklabels()], heard, lang)
    assert schemes == [{"position": p} for p in order.SCHEMES]
    # matplotlib lists the lines (unigram, bigram), then the bars (validation loss, rise when shuffled)
    assert catalogues(legend(right), heard, lang) == [{}] * 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scaling_chart_words_are_the_catalogues(lang, tmp_path):
    r = committed("scaling")
    fig, heard = plotted(scaling, "scaling", lang, tmp_path)
    variance, grad, train = fig.axes[:3]
    with speaking(lang):
        way = {k: t(w) for k, w in scaling.WAYS.items()}
    assert legend(variance) == legend(grad) == [way["scaled"], way["unscaled"]]
    assert catalogues([variance.get_title(), grad.get_title()], heard, lang) == [
        {},
        {"vanished": figure(scaling.VANISHED)},
    ]
    assert variance.get_xlabel() == grad.get_xlabel()
    texts = [variance.get_xlabel(), train.get_title(), train.get_xlabel(), train.get_ylabel()]
    assert catalogues(texts, heard, lang) == [{}] * 4
    runs = catalogues(legend(train), heard, lang)
    assert runs == [{"D": v["D"], "way": way[v["way"]]} for v in r["training"].values()]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attention_steps_strip_words_are_the_catalogues(lang, tmp_path):
    maps = [[[1.0, float("nan")], [0.5, 0.5]]] * 2  # (heads, T, T): two heads of a 2-token probe
    log = {"heads": [[0, 0], [1, 1]], "records": [{"step": s, "maps": maps} for s in (0, 7)]}
    with said() as heard, speaking(lang):
        fig = attention_steps.strip_figure(log, [0, 1])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            attention_steps.strip_png(log, tmp_path / "strip.png", [0, 1])
    assert not glyphless(caught)  # every glyph drawn
    top = catalogues([ax.get_title() for ax in fig.axes[:2]], heard, lang)
    assert top == [{"step": s} for s in (0, 7)]
    rows = catalogues([fig.axes[0].get_ylabel(), fig.axes[2].get_ylabel()], heard, lang)
    assert rows == [{"layer": h, "head": h} for h in (0, 1)]
    assert catalogues([fig.get_suptitle()], heard, lang) == [{}]


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
        with said() as heard, speaking(lang):
            path = attention_steps.slider_html(PAGE_LOG, tmp_path / f"{lang}.html")
        page = pages[lang] = path.read_text(encoding="utf-8")
        assert re.search(r'lang="([^"]+)"', page).group(1) == ("zh-CN" if lang == "zh" else "en")
        shown = [
            re.search(r"<title>(.*)</title>", page).group(1),
            re.search(r"<h2>(.*)</h2>", page).group(1),
            re.search(r'<p class="note">(.*)</p>', page).group(1),
            re.search(r"</select> (.*) <input", page).group(1),
        ]  # title, heading, note, the slider's label
        assert catalogues([html.unescape(s) for s in shown], heard, lang) == [{}] * 4
        data = json.loads(re.search(r"<script>const DATA = (.*);</script>", page).group(1))
        assert list(data["words"]) == ["step", "head", "entropy"]  # filled in by the page's script:
        assert catalogues(list(data["words"].values()), heard, lang) == [
            {"step": "{step}"},
            {"layer": "{layer}", "head": "{head}"},
            {"value": "{value}"},
        ]
        assert data["tokens"] == PAGE_LOG["tokens"] and data["records"][1]["maps"][0][2] == [200, 300, 500]
        assert "@font-face" in page and "data:font/otf;base64," in page and f'"{FAMILY}"' in page
        body = re.search(r"body \{([^}]*)\}", page).group(1)
        assert f'"{FAMILY}"' in body  # the body's font list names it
    en, zh = (re.search(r"<title>(.*)</title>", pages[lang]).group(1) for lang in ("en", "zh"))
    assert en != zh and CJK.search(zh)  # each the catalogue's (above): Chinese under zh


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


def test_no_figure_is_typed_into_a_chart_word(tmp_path):
    """No number typed where a field belongs, in English or in Chinese (that the two carry the same
    {fields}, and Chinese wherever the English has words: tests/messages/test_catalogue.py)."""
    words = chart_words()
    with said() as heard:  # the scan finds what a chart says: every sentence of the heads chart
        heads.plot(keeping([])(out=tmp_path, fast=True, seeds=1), heads_results())
    assert len(words) > 130 and len(heard) >= 6 and {m for m, _ in heard} <= words
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
    assert glyphless(caught)

"""Every page glassformer writes or serves draws Chinese with the font it ships, on a machine with no
CJK font (issue 44.3), in a real Chromium: attention.html and a causal view's page (offline files:
the font travels inside them, fonts.embedded_css) and the explorer in both languages, its monospace
trace column too; the lab's pages (its index, docs/lab/index.html, and the attention-across-training
page) too. A hanzi drawn with a font that lacks it is the same box as any other hanzi, so each
check draws two different hanzi in the element's own font list: they must differ from each other and
be drawn as the shipped font draws them. The pages' words follow --lang (html lang, the catalogue's
heading)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import torch
from explore_kit import explorer_on, tiny_model
from helpers import ROOT, said
from test_browser import Background, browser, open_page, wait_until  # noqa: F401 (browser: the fixture)

from glassformer.fonts import FAMILY, MONO, SANS
from glassformer.inspect.attention_view import attention_html
from glassformer.inspect.causal_views import Grid, grid_html
from glassformer.lab import attention_steps
from glassformer.lab.report import text, write_index
from glassformer.messages import speaking, translated
from glassformer.text import CharTokenizer

POEM = "春眠不觉晓，处处闻啼鸟。"

DRAWN = """(([text, family]) => {  // the pixels of `text` drawn in the font list `family`
  const c = document.createElement("canvas"); c.width = 120; c.height = 60;
  const g = c.getContext("2d"); g.font = "40px " + family; g.fillText(text, 0, 45);
  return Array.from(g.getImageData(0, 0, 120, 60).data).join(",");
})"""
FONTS_READY = "document.fonts.status === 'loaded' && [...document.fonts].some((f) => f.status === 'loaded')"


@pytest.fixture(scope="module", autouse=True)
def no_cjk_font_on_this_machine():
    if shutil.which("fc-list") is None:
        pytest.skip("no fc-list: cannot tell whether a system CJK font would stand in for the shipped one")
    found = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout.strip()
    if found:
        pytest.skip(f"this machine has a CJK font ({found.splitlines()[0]}): the shipped font is not the only one")


def assert_draws_hanzi(page, selector: str, a: str = "春", b: str = "眠") -> None:
    """The element's own font list draws two different hanzi differently (no box) and as the shipped font."""
    family = page.evaluate(f"getComputedStyle(document.querySelector({selector!r})).fontFamily")
    assert FAMILY in family, (selector, family)
    first, second = page.evaluate(DRAWN, [a, family]), page.evaluate(DRAWN, [b, family])
    assert first != second, selector  # two boxes would be equal
    assert first == page.evaluate(DRAWN, [a, f'"{FAMILY}"']), selector
    # snapshot: a font family's CSS name, the one without hanzi, not a sentence
    assert first != page.evaluate(DRAWN, [a, '"DejaVu Sans"']), selector  # a font without hanzi: the box
    width = page.evaluate(f"document.querySelector({selector!r}).getBoundingClientRect().width")
    assert width > 0, selector


def open_file(browser, path, errors: list | None = None):  # noqa: F811
    page = browser.new_page()
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    wait_until(page, FONTS_READY)
    return page


def two_hanzi(text: str) -> tuple[str, str]:
    """The first two different hanzi of `text` (drawn from a page whose font is cut to its own text)."""
    found = list(dict.fromkeys(c for c in text if "\u4e00" <= c <= "\u9fff"))
    assert len(found) >= 2, text
    return found[0], found[1]


def spoken(heard, lang: str) -> dict[str, dict]:
    """Each sentence said (helpers.said), as a reader of `lang` sees it -> its fields."""
    return {translated(m, lang).format(**f): f for m, f in heard}


def template(heard, lang: str, *names: str) -> str:
    """The sentence said with these fields left for the page's script to fill ({step}), in `lang`."""
    [(message, fields)] = [(m, f) for m, f in heard if f == {n: "{" + n + "}" for n in names}]
    return translated(message, lang).format(**fields)


def html_lang_of(lang: str) -> str:
    return "zh-CN" if lang == "zh" else "en"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attention_html_draws_chinese_with_the_embedded_font_and_speaks_lang(browser, tmp_path, lang):  # noqa: F811
    tok = CharTokenizer.from_text(POEM)
    model = tiny_model("gpt", vocab_size=tok.vocab_size)
    ids = torch.tensor([tok.encode(POEM)])  # (1, T)
    with said() as heard, speaking(lang):
        path = attention_html(model, ids, list(POEM), tmp_path / "attention.html")
    page = open_file(browser, path)
    assert page.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")
    assert spoken(heard, lang)[page.inner_text("h2")] == {}  # the catalogue's heading, in --lang
    assert_draws_hanzi(page, "#q div")  # a token column: 春
    if lang == "zh":  # the page's own words, Chinese under --lang zh
        assert_draws_hanzi(page, "h2", *two_hanzi(page.inner_text("h2")))
    assert "http" not in path.read_text(encoding="utf-8")  # offline: the font is inside, no URL
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_causal_views_page_draws_chinese_with_the_embedded_font(browser, tmp_path, lang):  # noqa: F811
    with speaking(lang):
        grid = Grid(
            "patch",
            ["L0", "L1"],
            list("春眠不觉"),
            [[0.1] * 4] * 2,
        )
        path = grid_html(grid, tmp_path / "patch.html")
    page = open_file(browser, path)
    assert page.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")
    assert_draws_hanzi(page, "thead th:nth-child(2)")
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_explorer_draws_chinese_everywhere_in_both_languages(browser, lang):  # noqa: F811
    ex = explorer_on(POEM + " hello")
    requests, errors = [], []
    with Background(ex) as url:
        page = open_page(browser, f"{url}?lang={lang}", requests, errors)
        page.fill("#text", POEM)
        wait_until(page, "document.querySelector('#tokens .tok .tok-text').textContent === '春'")
        wait_until(page, "document.querySelectorAll('#trace td').length > 3")
        wait_until(page, FONTS_READY)
        for where in ("#lang-zh", "#tokens .tok-text", "#trace td:nth-child(2)"):  # the 中文 button, a token, monospace
            assert_draws_hanzi(page, where)
        stacks = page.evaluate(
            "[getComputedStyle(document.body).fontFamily,"
            " getComputedStyle(document.querySelector('#trace td:nth-child(2)')).fontFamily]"
        )
        page.close()
    assert [s.replace('"', "").replace(" ", "") for s in stacks] == [
        s.replace('"', "").replace(" ", "") for s in (SANS, MONO)
    ]  # the explorer's styles spell glassformer.fonts' two lists
    assert errors == [], errors


DOCS_LAB = ROOT / "docs" / "lab"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lab_index_draws_chinese_with_the_embedded_font_and_opens_in_lang(browser, tmp_path, lang):  # noqa: F811
    """The lab's index (what `glassformer lab report` writes, docs/lab/index.html) from a committed
    ledger entry: it opens in --lang's language, and its Chinese draws with the font inside it, both
    when it opens in Chinese and when an English page is switched to Chinese."""
    (tmp_path / "induction").mkdir()
    shutil.copy(DOCS_LAB / "induction" / "results.json", tmp_path / "induction" / "results.json")
    with said() as heard, speaking(lang):
        _, path = write_index(tmp_path)
    errors: list[str] = []
    page = open_file(browser, path, errors) if lang == "zh" else browser.new_page()
    if lang == "en":  # English shows no hanzi until it is switched (the font loads when first drawn)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        assert page.evaluate("[document.documentElement.lang, document.body.className]") == ["en", "lang-en"]
        assert page.evaluate("getComputedStyle(document.querySelector('h1 .zh')).display") == "none"
        page.select_option("#lang", "zh")
        wait_until(page, FONTS_READY)
    assert page.evaluate("[document.documentElement.lang, document.body.className]") == ["zh-CN", "lang-zh"]
    titles = {text("zh", m, **f) for m, f in heard if not f}  # the index's words, in Chinese
    assert page.inner_text("h1") in titles and re.search("[\u4e00-\u9fff]", page.inner_text("h1"))  # English hidden
    for where in ("h1 .zh", "td:nth-child(3) .zh", "p.note .zh"):  # the title, a ledger claim, a setup
        assert_draws_hanzi(page, where, *two_hanzi(page.inner_text(where)))
    assert errors == [], errors
    page.close()


LOG = {  # an attention log (train/record.AttentionLog's file) of a Chinese probe: one head, two steps
    "tokens": list("春眠不觉"),
    "heads": [[0, 1]],
    "records": [
        {"step": s, "maps": [[[1.0, None, None, None], [0.5, 0.5, None, None], [0.2, 0.3, 0.5, None], [0.25] * 4]]}
        for s in (0, 40)
    ],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attention_steps_page_draws_chinese_tokens_and_speaks_lang(browser, tmp_path, lang):  # noqa: F811
    """The attention-across-training page (`train --attention-every`, the lab's attention-steps) of a
    Chinese run: its tokens draw with the font inside it, its words are the catalogue's in --lang."""
    with said() as heard, speaking(lang):
        path = attention_steps.slider_html(LOG, tmp_path / "attention_steps.html")
    shown = {  # the page's script fills in the catalogue's sentences with the step, layer and head
        "#label": template(heard, lang, "step").format(step=0),
        "#head option": template(heard, lang, "layer", "head").format(layer=0, head=1),
    }
    later = template(heard, lang, "step").format(step=40)
    entropy = template(heard, lang, "value").format(value="")
    errors: list[str] = []
    page = open_file(browser, path, errors)
    assert page.evaluate("document.documentElement.lang") == html_lang_of(lang)
    assert {where: page.inner_text(where) for where in shown} == shown
    assert spoken(heard, lang)[page.inner_text("h2")] == {}  # the catalogue's heading
    assert page.inner_text("#ent").startswith(entropy)
    assert_draws_hanzi(page, "#m th:nth-child(2)")  # the column of the first token: 春
    if lang == "zh":
        assert_draws_hanzi(page, "h2", *two_hanzi(page.inner_text("h2")))
    page.fill("#step", "1")
    page.dispatch_event("#step", "input")
    assert page.inner_text("#label") == later
    assert errors == [], errors
    page.close()

"""The page in a real headless Chromium (the system's, driven by Playwright): type, read the tokens,
switch layer and head, move the temperature, ablate a head, generate three tokens, switch to 中文,
and check that no request left 127.0.0.1. Numbers on the page are compared with the model's.

Needs the `chromium` package (Debian: apt-get install -y chromium) and the `playwright` Python
package (the dev extra); Playwright's own browser download is never used. Without them these
tests are skipped, with the reason, except under CI, where .ci/run installs Chromium and a
missing browser is a failure. GLASSFORMER_EXPLORE_RUN=DIR runs the page on a trained run
instead of the tiny model; GLASSFORMER_SCREENSHOTS=DIR also copies the screenshots there
(that is how docs/explore.md's images are made).
"""

from __future__ import annotations

import copy
import os
import shutil
import time
from pathlib import Path

import pytest
import torch
from explore_kit import make_explorer

from glassformer.explore.server import Background, open_run, page_words
from glassformer.sample import generate_ids

HOW = "apt-get install -y chromium (and pip install playwright, the dev extra) to run the browser tests"


def chromium() -> str:
    path = os.environ.get("GLASSFORMER_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests, but there is no Chromium: {HOW}.")
        pytest.skip(f"no Chromium found: {HOW}")
    return path


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    if os.environ.get("CI") != "true":
        pytest.importorskip("playwright.sync_api", reason=f"playwright is not installed: {HOW}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        args = ["--disable-dev-shm-usage"]  # containers often have a tiny /dev/shm
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        b = p.chromium.launch(executable_path=path, args=args)
        yield b
        b.close()


def open_page(browser, url: str, requests: list, errors: list):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text)
        if m.type == "error"
        and not m.text.startswith("Failed to load resource: the server responded with a status of 4")
        else None,
    )  # a refusal we asked for
    page.set_default_timeout(30_000)  # generous: the machine may be busy
    page.goto(url)
    page.wait_for_selector("#tokens .tok")
    return page


def wait_until(page, expression: str, timeout: float = 30.0) -> None:
    """Poll a JavaScript expression until it is true. (Playwright's wait_for_function compiles its
    predicate with eval, which the page's Content-Security-Policy forbids, as it should.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        page.wait_for_timeout(25)


def shots(tmp_path: Path, page, name: str, selector: str | None = None) -> None:
    target = page.locator(selector) if selector else page
    target.screenshot(path=str(tmp_path / name))
    if os.environ.get("GLASSFORMER_SCREENSHOTS"):
        shutil.copy(tmp_path / name, Path(os.environ["GLASSFORMER_SCREENSHOTS"]) / name)


def top_p(page) -> float:
    return float(page.locator("#bars .bar").first.get_attribute("title").split(": p ")[1].split(" ")[0])


@pytest.mark.slow
def test_the_page_end_to_end(browser, tmp_path):
    run = os.environ.get("GLASSFORMER_EXPLORE_RUN")
    ex = open_run(run) if run else make_explorer("gpt")
    model, tok, prompt = ex.model, ex.tokenizer, "ROMEO: the lazy fox"
    # the server's own model may carry a request's hooks at any moment (its thread runs beside this
    # one): every number below comes from a copy taken before it starts
    model = copy.deepcopy(model)
    requests, errors = [], []
    with Background(ex) as url:
        page = open_page(browser, url, requests, errors)
        # type: the tokens and their ids appear
        page.fill("#text", prompt)
        ids = tok.encode(prompt)[-model.cfg.max_len :]
        wait_until(
            page,
            f"document.querySelectorAll('#tokens .tok').length === {len(ids)} && "
            f"document.querySelector('#tokens .tok .tok-text').textContent === {tok.decode(ids[:1])!r}",
        )
        shown = page.evaluate("[...document.querySelectorAll('#tokens .tok-id')].map(e => +e.textContent)")
        assert shown == ids

        # switch layer and head: the matrix on the page is that head's attention
        layer, head = model.cfg.n_layers - 1, model.cfg.n_heads - 2
        page.select_option("#layer", str(layer))
        page.select_option("#head", str(head))
        page.wait_for_selector(f".thumb.selected[data-layer='{layer}'][data-head='{head}']")
        wait_until(page, f"S.view.layer === {layer} && S.view.head === {head}")
        with torch.no_grad():
            _, cache = model.run_with_cache(torch.tensor([ids]))
        w = cache[f"blocks.{layer}.attn.weights"][0, head]
        row = page.evaluate("S.matrix[3]")
        assert row[:4] == pytest.approx(w[3, :4].tolist(), abs=6e-4) and row[4] is None
        page.hover("#tokens .tok >> nth=2")
        assert "q-on" in page.locator("#tokens .tok >> nth=2").get_attribute("class")
        margin, cell = page.evaluate("[S.geo.margin, S.geo.cell]")
        page.hover("#matrix", position={"x": margin + 2, "y": margin + 3 * cell + 3})  # row 3, column 0
        assert page.text_content("#cell").startswith("query 3")
        page.click("#tokens .tok >> nth=3")
        wait_until(page, "document.querySelectorAll('#vectors .vec').length === 3")

        # temperature: the bars follow at once, with the model's numbers
        before = top_p(page)
        page.locator("#temperature").fill("0.3")
        wait_until(page, f"document.querySelector('#bars .bar').title.indexOf(': p {before} ') < 0")
        with torch.no_grad():
            logits = model(torch.tensor([ids]))[0, -1]
        assert top_p(page) == pytest.approx(float((logits / 0.3).softmax(-1).max()), abs=2e-4) and top_p(page) > before
        shots(tmp_path, page, "explore-attention.png", "#attention-panel")

        # ablate a head: the bars change, the intact model is marked beside them
        page.click("button.ablate[data-layer='0'][data-head='1']")
        page.wait_for_selector("#bars .bar-base")
        other = copy.deepcopy(model)
        D = other.cfg.d_head
        with torch.no_grad():
            other.blocks[0].attn.proj.weight[:, D : 2 * D] = 0
            ablated = other(torch.tensor([ids]))[0, -1]
        assert top_p(page) == pytest.approx(float((ablated / 0.3).softmax(-1).max()), abs=2e-4)
        assert "L0H1" in page.text_content("#ablated")

        # generate three tokens, one click each: the ablated model's tokens, as generate_ids draws them
        for _ in range(3):
            page.click("#step")
            wait_until(page, "!S.generating && !document.querySelector('#step').disabled")
        expected = [
            int(t)
            for t in generate_ids(
                other, torch.tensor([tok.encode(prompt)]), 3, 0.3, generator=torch.Generator().manual_seed(0)
            )
        ]
        assert page.input_value("#text") == prompt + tok.decode(expected)
        assert page.evaluate("S.ids.slice(-3)") == expected
        shots(tmp_path, page, "explore-next.png", "#next-panel")

        # 中文: every label, the model's own declarations included
        page.click("#lang-zh")
        wait_until(page, "/[\\u4e00-\\u9fff]/.test(document.querySelector('#trace th').textContent)")
        assert page.text_content("#next-panel h2") == page_words("zh")["next.title"]
        last = ex.info()["stages"][-1]  # the model's own declaration of its last stage, in Chinese
        assert page.locator("#stage option:checked").text_content() == last["zh"]["stage"] != last["en"]["stage"]
        page.wait_for_timeout(200)
        shots(tmp_path, page, "explore-zh.png")
        page.close()
    assert (tmp_path / "explore-zh.png").stat().st_size > 10_000
    assert errors == []
    outside = [u for u in requests if not u.startswith(url)]
    assert requests and outside == [], outside


@pytest.mark.slow
def test_the_regressor_page(browser, tmp_path):
    requests, errors = [], []
    with Background(make_explorer("regressor")) as url:
        page = open_page(browser, url, requests, errors)
        page.wait_for_selector("#prediction polyline")
        assert page.is_hidden("#next-panel") and page.is_visible("#prediction-panel")
        assert page.locator("#tokens .tok").count() == 16  # one period of a sine wave, 16 steps
        page.fill("#text", "0 1 0 -1")
        wait_until(page, "document.querySelectorAll('#tokens .tok').length === 4")
        page.fill("#text", "0 one")
        wait_until(page, "document.querySelector('#message').textContent.includes(\"'0 one'\")")  # names the text
        page.close()
    assert errors == [] and all(u.startswith(url) for u in requests)


GLYPHS = """(([text, family]) => {  // the pixels of `text` drawn in `family` (after the page's fonts loaded)
  const c = document.createElement("canvas"); c.width = 200; c.height = 60;
  const g = c.getContext("2d"); g.font = "40px " + family; g.fillText(text, 0, 45);
  return Array.from(g.getImageData(0, 0, 200, 60).data).join(",");
})"""


def test_a_chinese_run_opens_in_chinese_with_the_served_font_on_a_machine_without_one(browser, tmp_path):
    """Issue 27, items 1 and 2: on this machine no system font has Chinese (fc-list shows no CJK
    font), so Chinese used to be tofu. `?lang=zh` (what `explore --lang zh` prints) opens the page in
    Chinese, on a Chinese example, and the characters are drawn with the font the explorer serves:
    the page's font draws them pixel for pixel as "Glassformer CJK" does, and unlike a font without
    them (the tofu boxes of a missing glyph)."""
    from explore_kit import explorer_on

    from glassformer.messages import translated

    poem = "春眠不觉晓，处处闻啼鸟。"
    ex = explorer_on(poem)
    requests, errors = [], []
    with Background(ex) as url:
        page = open_page(browser, url + "?lang=zh", requests, errors)
        wait_until(
            page, "[...document.fonts].some((f) => f.family.includes('Glassformer CJK') && f.status === 'loaded')"
        )
        assert page.inner_text("#input-panel h2") == page_words("zh")["input.title"]
        source, fields = ex.source  # the explorer's own name for its model, said in Chinese
        assert fields == {"preset": "p", "kind": "gpt", "seed": 0}
        assert translated(source, "zh").format(**fields) in page.inner_text("#model-line")
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        assert page.input_value("#text") == poem  # a Chinese model opens on Chinese
        served = page.evaluate(GLYPHS, ["春眠", '"Glassformer CJK"'])
        # snapshot: a font family's CSS name, the one without hanzi, not a sentence
        assert served != page.evaluate(GLYPHS, ["春眠", '"DejaVu Sans"'])  # no CJK glyphs there: boxes
        for where in ("#tokens .tok-text", "#lang-zh", "#text", "#input-panel h2"):  # buttons and boxes too
            family = page.evaluate(f"getComputedStyle(document.querySelector({where!r})).fontFamily")
            assert page.evaluate(GLYPHS, ["春眠", family]) == served, where
        # item 10: the residual chart's turned axis labels lie inside the chart, none cut off
        wait_until(page, "document.querySelectorAll('#norms text').length > 3")
        outside = page.evaluate("""(() => {
          const box = document.getElementById("norms").getBoundingClientRect();
          return [...document.querySelectorAll("#norms text")].map((e) => [e.textContent, e.getBoundingClientRect()])
            .filter(([, r]) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
                               || r.bottom > box.bottom + 0.5).map(([name]) => name);
        })()""")
        assert outside == []
        shots(tmp_path, page, "explore_zh.png")
    assert not errors, errors
    assert all(r.startswith(url) for r in requests), requests

"""The repeats panel and the sampling knobs in a real headless Chromium (issue 49): look at the planted
induction model's loop and read `glassformer repeats`' own tables on the page (the induction head
named), move the knobs and watch the next-token bars become logits_processors' distribution, have a
penalty <= 0 and a prompt longer than the context refused (HTTP 422 with a code), and switch to 中文.
Skipped as test_browser.py is."""

from __future__ import annotations

import pytest
import torch
from test_browser import browser, open_page, wait_until  # noqa: F401  (browser: the shared fixture)

from glassformer.causal.ground_truth import planted_induction_model
from glassformer.explore import Explorer
from glassformer.explore.repeats import repeats_view
from glassformer.explore.server import Background, page_words
from glassformer.logits_processors import Knobs
from glassformer.messages import speaking
from glassformer.sample import next_probs
from glassformer.text.tokenizers import CharTokenizer

LETTERS = "abcdefghijklmnop"  # the planted model's 16 tokens
PROMPT, CONTROL = "abcab", "hkdmp"


def table(page, which: str) -> list[list]:
    return page.evaluate(
        f"[...document.querySelectorAll('#repeats-{which} tr')].slice(1).map(tr => "
        "[tr.dataset.row, ...[...tr.querySelectorAll('td')].map(td => +td.title)])"
    )


def bar_probs(page) -> dict:
    return page.evaluate("Object.fromEntries([...document.querySelectorAll('#bars .bar')].map(b => "
                         "[+b.dataset.id, +b.title.split(': p ')[1].split(' ')[0]]))")  # fmt: skip


@pytest.mark.slow
def test_the_repeats_panel_and_the_knobs(browser):  # noqa: F811
    model, tok = planted_induction_model(), CharTokenizer(LETTERS)
    heads, lens = repeats_view(model, tok, PROMPT, control=CONTROL)  # before the server shares the model
    with speaking("zh"):
        zh_heads, _ = repeats_view(model, tok, PROMPT, control=CONTROL)
    logits = model(torch.tensor([tok.encode(PROMPT)]))[0, -1][None].detach()  # (1, V)
    ex = Explorer(planted_induction_model(), tok, "planted", example=PROMPT)
    requests, errors, answers = [], [], []
    with Background(ex) as url:
        page = open_page(browser, url, requests, errors)
        page.on("response", lambda r: answers.append((r.url.split("?")[0].rsplit("/", 1)[-1], r.status)))
        wait_until(page, "!document.querySelector('#repeats-panel').hidden")

        # the microscope's tables, as the verb computes them: the induction head named, its Δp
        page.fill("#repeats-prompt", PROMPT)
        page.fill("#repeats-control", CONTROL)
        page.click("#repeats-look")
        wait_until(page, "R.data && document.querySelectorAll('#repeats-heads tr').length > 1")
        for which, grid in (("heads", heads), ("lens", lens)):
            shown = table(page, which)
            assert [row[0] for row in shown] == grid.rows
            assert [row[1:] for row in shown] == [pytest.approx(v, abs=1e-6) for v in grid.values]
        named = page.evaluate("[...document.querySelectorAll('#repeats-heads tr.named')].map(tr => tr.dataset.row)")
        assert named == ["L1H2"]
        notes = page.evaluate("[...document.querySelectorAll('#repeats-heads-notes p')].map(p => p.textContent)")
        assert notes == heads.notes and page.locator("#repeats-heads-title").text_content() == heads.title

        # the knobs: the bars are the penalised, filtered distribution generate_ids draws from
        page.fill("#knob-repetition_penalty", "1.6")
        page.fill("#knob-min_p", "0.05")
        knobs = Knobs(repetition_penalty=1.6, min_p=0.05)
        ids = torch.tensor([tok.encode(PROMPT)])
        want = next_probs(knobs.penalize(logits, ids), 1.0, None, None, knobs)[0]
        first = "+document.querySelector('#bars .bar').title.split(': p ')[1].split(' ')[0]"
        wait_until(page, f"document.querySelector('#bars .bar') && Math.abs({first} - {float(want.max())}) < 2e-4")
        for i, p in bar_probs(page).items():
            assert p == pytest.approx(float(want[int(i)]), abs=2e-4)

        # a penalty <= 0: refused with 422 and its code, said on the page
        page.fill("#knob-repetition_penalty", "0")
        wait_until(page, "document.querySelector('#message').className === 'error'")
        assert ("analyze", 422) in answers  # the bars come with analyze, which reads the knobs too
        page.fill("#knob-repetition_penalty", "1")
        wait_until(page, "document.querySelector('#message').className === ''")

        # a prompt longer than the context leaves room for: 422, the tables gone, one line said
        page.fill("#repeats-prompt", "abcdefghij")
        page.click("#repeats-look")
        wait_until(page, "R.data === null && document.querySelector('#repeats-error').textContent.length > 0")
        assert ("repeats", 422) in answers
        rows = page.evaluate("document.querySelectorAll('#repeats-heads tr').length")
        assert rows == 0

        # 中文: the panel's own words from the catalogue, the tables' words from the verb in Chinese
        page.fill("#repeats-prompt", PROMPT)
        page.click("#repeats-look")
        wait_until(page, "R.data !== null")
        page.click("#lang-zh")
        words = page_words("zh")
        title = words["repeats.title"]
        wait_until(page, f"R.lang === 'zh' && document.querySelector('#repeats-panel h2').textContent === {title!r}")
        assert page.locator("#repeats-heads-title").text_content() == zh_heads.title
        label = page.locator("label:has(#knob-repetition_penalty) span").text_content()
        assert label == words["knobs.repetition_penalty"]
        assert not errors, errors
        assert all(r.startswith(url) for r in requests)

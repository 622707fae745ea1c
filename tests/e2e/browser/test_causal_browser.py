"""The causal panel in a real headless Chromium: type a corrupted text, read the two patching grids
(equal to the library's), click a cell and watch the next-token bars move to the patched run's
numbers, read how much each head matters under its thumbnail, refuse texts of different lengths,
and switch to 中文 (the panel's words come from the catalogue). Skipped as test_browser.py is."""

from __future__ import annotations

import copy

import pytest
import torch
from explore_kit import decisive, make_explorer
from test_browser import browser, open_page, wait_until  # noqa: F401  (browser: the shared fixture)

from glassformer.causal import activation_patching, logit_diff
from glassformer.explore.server import Background, page_words
from glassformer.inspect.causal_views import head_ablation

TEXT, CORRUPT = "the quick", "the quack"


def bar_probs(page) -> dict:
    return page.evaluate("Object.fromEntries([...document.querySelectorAll('#bars .bar')].map(b => "
                         "[+b.dataset.id, +b.title.split(': p ')[1].split(' ')[0]]))")  # fmt: skip


@pytest.mark.slow
def test_the_causal_panel(browser):  # noqa: F811
    ex = decisive(make_explorer("gpt"))  # a corruption that moves the answer by more than the gap floor
    # the server's model carries a request's hooks while its thread answers (beside this one): every
    # expected number below comes from a copy taken before the server starts (issue 50)
    model, tok = copy.deepcopy(ex.model), ex.tokenizer
    clean, corrupt = torch.tensor([tok.encode(TEXT)]), torch.tensor([tok.encode(CORRUPT)])
    requests, errors = [], []
    with Background(ex) as url, torch.no_grad():
        page = open_page(browser, url, requests, errors)
        page.fill("#text", TEXT)
        # no corrupted text yet: each thumbnail says how much zeroing its head moves the answer
        a = int(model(clean)[0, -1].argmax())
        base, ablated = head_ablation(model, clean, lambda z: z[:, -1].log_softmax(-1)[:, a])
        wait_until(
            page,
            "document.querySelectorAll('#heads .matters').length === 8 && C.data && !C.data.positions"
            " && C.data.tokens.length === 9",
        )
        shown = page.evaluate(
            "[...document.querySelectorAll('#heads .thumb')].map(c => "
            "[+c.dataset.layer, +c.dataset.head, +c.querySelector('.matters').dataset.value])"
        )
        for layer, h, v in shown:
            assert v == pytest.approx(float(ablated[layer, h] - base), abs=2e-4)

        page.fill("#corrupt", CORRUPT)
        wait_until(page, "document.querySelectorAll('#patch-positions .pcell').length === 18")
        other = model(corrupt)[0, -1].clone()
        other[a] = -float("inf")
        w = int(other.argmax())
        grid = activation_patching(model, clean, corrupt, logit_diff(a, w), "resid_post", by=("T",)).normalised()
        cells = page.evaluate("[...document.querySelectorAll('#patch-positions .pcell')].map(c => +c.title)")
        assert cells == pytest.approx(grid.flatten().tolist(), abs=2e-4)
        heads = activation_patching(model, clean, corrupt, logit_diff(a, w), "attn.z", by=("H",)).normalised()
        cells = page.evaluate("[...document.querySelectorAll('#patch-heads .pcell')].map(c => +c.title)")
        assert cells == pytest.approx(heads.flatten().tolist(), abs=2e-4)
        wait_until(page, "document.querySelector('#heads .matters') && "
                         "document.querySelector('#heads .matters').textContent.startsWith('patch')")  # fmt: skip
        under = page.evaluate("[...document.querySelectorAll('#heads .matters')].map(m => +m.dataset.value)")
        assert under == pytest.approx(heads.flatten().tolist(), abs=2e-4)

        # click: the last layer's stream at the last position is the whole answer: the bars become the
        # text's own, the grey marks stay on the corrupted run
        page.click("#patch-positions .pcell[data-layer='1'][data-index='8']")
        wait_until(page, "C.patched && C.patched.layer === 1 && C.patched.index === 8")
        p_clean = model(clean)[0, -1].softmax(-1)
        for i, p in bar_probs(page).items():
            assert p == pytest.approx(float(p_clean[int(i)]), abs=2e-4)
        assert "on" in page.locator("#patch-positions .pcell[data-layer='1'][data-index='8']").get_attribute("class")
        # the grey marks are the unpatched corrupted run, and the note under the bars says so (issue 44)
        words = page_words("en")
        p_corrupt = model(corrupt)[0, -1].softmax(-1)
        bases = page.evaluate("[...document.querySelectorAll('#bars .bar')].map(b => [+b.dataset.id, "
                              "+b.title.split(' · ').pop().split(' ').pop()])")  # fmt: skip
        for i, p in bases:
            assert p == pytest.approx(float(p_corrupt[int(i)]), abs=2e-4)
        assert page.locator("#bars-note").text_content().endswith(words["next.base_corrupted"])
        assert page.locator("#causal-status").text_content().endswith(words["causal.legend"])
        # a head: the bars are the corrupted run with that head's output from the text's run
        page.click("#patch-heads .pcell[data-layer='0'][data-index='2']")
        wait_until(page, "C.patched && C.patched.kind === 'head'")
        name = "blocks.0.attn.z"
        _, cache = model.run_with_cache(clean, names=[name])

        def patch(t, name):
            t = t.clone()
            t[:, 2] = cache[name][:, 2]
            return t

        p_head = model.run_with_hooks(corrupt, hooks={name: patch})[0, -1].softmax(-1)
        for i, p in bar_probs(page).items():
            assert p == pytest.approx(float(p_head[int(i)]), abs=2e-4)
        assert page.evaluate("document.querySelectorAll('#bars .bar-base').length") > 0

        # different lengths: refused in one line, the grids gone
        page.fill("#corrupt", "the qu")
        wait_until(page, "document.querySelector('#causal-error').textContent.length > 0")
        assert page.evaluate("document.querySelectorAll('.pcell').length") == 0

        # 中文: the panel's words from the catalogue
        page.fill("#corrupt", CORRUPT)
        page.click("#lang-zh")
        title = page_words("zh")["causal.title"]  # the server's own words for the page, in Chinese
        wait_until(page, f"document.querySelector('#causal-panel h2').textContent.includes({title!r}) && "
                         "/[\\u4e00-\\u9fff]/.test(document.querySelector('#causal-status').textContent)")  # fmt: skip
        assert not errors, errors
        assert all(r.startswith(url) for r in requests)

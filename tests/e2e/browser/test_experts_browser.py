"""The routing panel in a real headless Chromium: type a text (Chinese too), read each layer's token ×
expert table and each expert's share (equal to inspect/experts.py's routing_view on a copy of the
model), switch to 中文 (the panel's words from the catalogue), and see the panel stay hidden for a
model without experts. Skipped as test_browser.py is."""

from __future__ import annotations

import copy

import pytest
import torch
from explore_kit import make_explorer
from test_browser import browser, open_page, wait_until  # noqa: F401  (browser: the shared fixture)

from glassformer.explore.server import Background, page_words
from glassformer.inspect.experts import routing_view

TEXT = "the cat 你好"


@pytest.mark.slow
def test_the_routing_panel(browser):  # noqa: F811
    ex = make_explorer("gpt", ffn="moe", n_experts=4, moe_top_k=2)
    model, tok = copy.deepcopy(ex.model), ex.tokenizer  # the server's model may carry a request's hooks
    want = routing_view(model, torch.tensor([tok.encode(TEXT)]), tok)
    T = len(want.tokens)
    requests, errors = [], []
    with Background(ex) as url:
        page = open_page(browser, url, requests, errors)
        page.fill("#text", TEXT)
        wait_until(page, f"X.data && X.data.tokens.length === {T} && "
                         f"document.querySelectorAll('#experts-layers td.ecell').length === {2 * 4 * T}")  # fmt: skip
        assert page.evaluate("document.querySelector('#experts-panel').hidden") is False
        for layer, routed in enumerate(want.layers):
            cells = page.evaluate(
                f"[...document.querySelectorAll('#experts-layers td.ecell[data-layer=\"{layer}\"]')]"
                ".map(c => [+c.dataset.expert, +c.dataset.token, +c.title])"
            )
            for e, i, v in cells:
                assert v == pytest.approx(float(routed.weights[i, e]), abs=1e-4)
            shares = page.evaluate(
                f"[...document.querySelectorAll('#experts-layers td.eload[data-layer=\"{layer}\"]')].map(c => +c.title)"
            )
            assert shares == pytest.approx(routed.share.tolist(), abs=1e-4)
        heads = page.evaluate("[...document.querySelectorAll('#experts-layers th')].map(h => h.textContent)")
        assert "你" in heads and "好" in heads  # the text's own tokens label the columns

        page.click("#lang-zh")
        title = page_words("zh")["experts.title"]
        heading = "document.querySelector('#experts-layers h3').textContent"
        wait_until(page, f"document.querySelector('#experts-panel h2').textContent === {title!r} && "
                         f"/[\\u4e00-\\u9fff]/.test({heading})")  # fmt: skip
        assert not errors, errors
        assert all(r.startswith(url) for r in requests)

    dense = make_explorer("gpt")
    with Background(dense) as url:
        page = open_page(browser, url, [], errors)
        wait_until(page, "S.info !== null && S.data !== null")
        assert page.evaluate("document.querySelector('#experts-panel').hidden") is True
        assert page.evaluate("document.getElementById('experts-layers').getElementsByTagName('td').length") == 0
    assert not errors, errors

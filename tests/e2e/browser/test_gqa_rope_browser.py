"""Grouped-query attention and RoPE in a real headless Chromium: the thumbnails sit in one labelled
box per key-value head, and the RoPE panel draws the served rotation of the chosen head. Skipped as
test_browser.py is."""

from __future__ import annotations

import pytest
from explore_kit import make_explorer
from test_browser import browser, open_page, wait_until  # noqa: F401  (browser: the shared fixture)

from glassformer.explore.server import Background


@pytest.mark.slow
def test_kv_groups_and_the_rope_panel(browser):  # noqa: F811
    ex = make_explorer("gpt", n_kv_heads=2, position="rope")  # 2 layers, 4 query heads over 2 kv heads
    requests, errors = [], []
    with Background(ex) as url:
        page = open_page(browser, url, requests, errors)
        page.fill("#text", "hello world")
        wait_until(page, "document.querySelectorAll('#heads .kv-group').length === 4")
        groups = page.evaluate(
            "[...document.querySelectorAll('#heads .kv-group')].map(g => "
            "[+g.dataset.kv, [...g.querySelectorAll('.thumb')].map(c => +c.dataset.head)])"
        )
        assert groups == [[0, [0, 1]], [1, [2, 3]]] * 2  # every layer: kv head j over query heads 2j, 2j+1
        assert page.is_visible("#rope-panel")
        wait_until(page, "document.querySelectorAll('#rope-table tr').length === 9")  # header + 8 positions
        wait_until(page, "document.querySelectorAll('#rope-plot .rope-arrow').length === 24")  # 8 × (q, q', k')
        page.select_option("#head", "3")
        wait_until(page, "S.rope && S.rope.head === 3 && S.rope.kv_head === 1")
        assert not errors, errors
        page.close()  # before its server stops: a late request would fail to connect
    # a plain GPT: no groups, no RoPE panel
    with Background(make_explorer("gpt")) as url:
        page = open_page(browser, url, requests, errors)
        wait_until(page, "document.querySelectorAll('#heads .thumb').length === 8")
        assert page.locator("#heads .kv-group").count() == 0 and not page.is_visible("#rope-panel")
        assert not errors, errors
        page.close()
    assert all(r.startswith("http://127.0.0.1") or r.startswith("data:") for r in requests), requests

"""The chat tab and the diff view in a real headless Chromium, in English and in Chinese, on a tiny base
run and an SFT run of it: a turn shows `sample`'s answer after the run's template, the rendered
conversation's tokens are encode_chat's, clicking an answer token opens the conversation up to it in
the panels, an empty message is refused in the page's language; the diff view's cells are post/diff.py's
figures, on the run's data and on the typed text. Skipped as test_browser.py is."""

from __future__ import annotations

import json
import re

import pytest
from helpers import arithmetic_base
from test_browser import browser, open_page, wait_until  # noqa: F401  (browser: the shared fixture)

from glassformer.cli import main
from glassformer.explore.server import Background, open_run, page_words
from glassformer.post import diff
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN, encode_chat
from glassformer.post.data import BUILTIN
from glassformer.sample import sample
from glassformer.train.run import load_model

TINY = ["--max_steps=4", "--eval_interval=4", "--eval_iters=1", "--batch_size=4", "--threads=1"]
CJK = re.compile("[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("post-browser")
    base = arithmetic_base(tmp, steps=4, n_sums=200)
    chat = tmp / "chat"
    assert main(["sft", str(base), "--data", BUILTIN, "--out", str(chat), "--no-progress", *TINY]) == 0
    return base, chat


def only_local(requests: list, url: str) -> None:
    assert requests and all(r.startswith(url) for r in requests), requests


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chat_tab(browser, runs, lang):  # noqa: F811
    _, chat = runs
    model, tokenizer, _ = load_model(chat)  # the test's own copy: the server's carries requests' hooks
    template = CHAT_FORMATS["chatml"].template()
    user = {"role": "user", "content": "12+30="}
    prompt = template.render([user], add_generation_prompt=True)
    answer = sample(model, tokenizer, prompt, 6, temperature=0.0, stop=END_OF_TURN["chatml"])[0]
    words = page_words(lang)
    requests, errors = [], []
    with Background(open_run(chat)) as url:
        page = open_page(browser, f"{url}?lang={lang}", requests, errors)
        wait_until(page, f"LANG === {lang!r} && !document.getElementById('chat-panel').hidden")
        assert page.text_content("#chat-panel>h2") == words["chat.title"]
        page.evaluate("document.getElementById('temperature').value = 0")  # greedy, as `answer` above
        page.fill("#chat-max", "6")
        page.fill("#chat-input", user["content"])
        # what the log shows while the model writes: each piece redraws it (renderChat), the answer so far
        page.evaluate("window.seen = []; { const draw = renderChat; "
                      "renderChat = function () { draw(); if (CH.writing) seen.push(CH.writing); }; }")  # fmt: skip
        page.click("#chat-send")
        wait_until(page, "CH.last !== null && !CH.busy")
        seen = page.evaluate("seen")
        assert seen and seen[-1] == answer and all(answer.startswith(part) for part in seen)
        history = [user, {"role": "assistant", "content": answer}]
        shown = page.evaluate(
            "[...document.querySelectorAll('#chat-log .chat-msg')].map(m => "
            "[m.querySelector('.chat-who').textContent, m.querySelector('.chat-said').textContent])"
        )
        assert shown == [[words["chat.user"], user["content"]], [words["chat.assistant"], answer]]
        encoded = encode_chat(tokenizer, template, history)
        ids = page.evaluate("[...document.querySelectorAll('#chat-tokens .tok-id')].map(e => +e.textContent)")
        said = page.evaluate(
            "[...document.querySelectorAll('#chat-tokens .tok')].map(e => e.classList.contains('said'))"
        )
        assert ids == encoded.ids and said == [bool(m) for m in encoded.assistant_mask]
        # an answer token clicked: every panel reads the conversation up to it
        first = said.index(True)
        page.click(f"#chat-tokens .tok[data-i='{first}']")
        wait_until(
            page, f"S.data && JSON.stringify(S.data.ids) === '{json.dumps(encoded.ids[:first], separators=(',', ':'))}'"
        )
        assert page.input_value("#text") == encoded.text[: len(tokenizer.decode(encoded.ids[:first]))]
        assert page.evaluate("S.data.ids") == encoded.ids[:first]
        assert page.evaluate("document.querySelectorAll('#tokens>.tok').length") == first
        # "open all": the whole rendered conversation, its control tokens included
        page.click("#chat-open")
        wait_until(page, f"S.data && JSON.stringify(S.data.ids) === '{json.dumps(encoded.ids, separators=(',', ':'))}'")
        assert page.input_value("#text") == encoded.text
        # an empty message: the server's refusal, in the page's language; the conversation stays
        page.fill("#chat-input", "  ")
        page.click("#chat-send")
        wait_until(page, "document.getElementById('chat-error').textContent !== '' && !CH.busy")
        refusal = page.text_content("#chat-error")
        assert (CJK.search(refusal) is not None) == (lang == "zh")
        assert page.locator("#chat-log>.chat-msg").count() == 2
        assert not errors, errors
        only_local(requests, url)
        page.close()


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_diff_view(browser, runs, lang):  # noqa: F811
    base, chat = runs
    pair = diff.open_pair(base, chat)
    requests, errors = [], []
    with Background(open_run(base, against=chat)) as url:
        page = open_page(browser, f"{url}?lang={lang}", requests, errors)
        wait_until(page, "DF.data !== null && document.querySelectorAll('#diff-views .diff-view').length > 0")
        expected = {k: g for k, g in diff.views(pair, chat, diff.prompts_of_run(pair)).items() if g is not None}
        cells = page.evaluate(
            "Object.fromEntries([...document.querySelectorAll('#diff-views .diff-view')].map(v => [v.dataset.stem, "
            "[...v.querySelectorAll('tr')].slice(1).map(r => "
            "[...r.querySelectorAll('td')].map(c => +c.dataset.value))]))"
        )
        assert list(cells) == list(expected)
        for stem, grid in expected.items():
            for row, want in zip(cells[stem], grid.values, strict=True):
                assert row == pytest.approx(want, abs=1e-6), stem
        titles = page.evaluate("[...document.querySelectorAll('#diff-views h3')].map(h => h.textContent)")
        assert all((CJK.search(title) is not None) == (lang == "zh") for title in titles)
        assert page.text_content("#diff-title") == page_words(lang)["diff.title"].format(base=base, tuned=chat)
        # on the typed text: the tokens view follows it
        page.fill("#text", "7+5=")
        page.click("#diff-text")
        wait_until(page, "DF.data && DF.data.prompts === 'text'")
        mine = diff.views(pair, chat, [pair.tokenizer.encode("7+5=")])["diff_tokens"]
        tokens = page.evaluate(
            "[...document.querySelectorAll(\"#diff-views .diff-view[data-stem='diff_tokens'] tr\")].slice(1)"
            ".map(r => [...r.querySelectorAll('td')].map(c => +c.dataset.value))"
        )
        for row, want in zip(tokens, mine.values, strict=True):
            assert row == pytest.approx(want, abs=1e-6)
        assert not errors, errors
        only_local(requests, url)
        page.close()

"""The explorer's chat tab (conversation.py) and diff view (diffview.py) through the app, on a tiny base
run and an SFT run of it: each answer is `sample`'s after post/chat.py's rendering of the history, the
conversation comes back rendered and encoded as encode_chat does (each answer token's text offset opens
exactly the ids before it), every diff figure is post/diff.py's own for the same prompts, and the
refusals carry their codes: an empty message, a run with no chat template, no --against, runs that do
not line up."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace

import pytest
from explore_kit import client_for, make_explorer, post
from helpers import arithmetic_base, said

from glassformer.cli import main
from glassformer.errors import UsageError
from glassformer.explore.server import open_run
from glassformer.post import data as post_data
from glassformer.post import diff
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN, encode_chat
from glassformer.post.data import BUILTIN
from glassformer.sample import sample
from glassformer.train.checkpoint import MODEL_FILE, save_weights
from glassformer.train.run import load_model

TINY = ["--max_steps=4", "--eval_interval=4", "--eval_iters=1", "--batch_size=4", "--threads=1"]
CJK = re.compile("[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explore-post")
    base = arithmetic_base(tmp, steps=4, n_sums=200)
    chat = tmp / "chat"
    assert main(["sft", str(base), "--data", BUILTIN, "--out", str(chat), "--no-progress", *TINY]) == 0
    return base, chat


@pytest.fixture(scope="module")
def client(runs):
    base, chat = runs
    return client_for(open_run(chat))


def answer_of(run, messages, n, knobs=None):
    """The library's answer: `sample` greedy on the run's template of `messages`, to the end of turn."""
    model, tokenizer, _ = load_model(run)
    prompt = CHAT_FORMATS["chatml"].template().render(messages, add_generation_prompt=True)
    return sample(model, tokenizer, prompt, n, temperature=0.0, stop=END_OF_TURN["chatml"], knobs=knobs)[0]


def refusal(r, status: int, key: str, code: str) -> dict:
    body = r.json()
    assert (r.status_code, body["key"], body["code"]) == (status, key, code), body
    return body


def test_a_turn_is_samples_answer_after_the_template_and_the_history_is_kept(runs, client):
    _, chat = runs
    first = post(client, "chat", {"message": "12+30=", "max_new_tokens": 6, "temperature": 0})
    user = {"role": "user", "content": "12+30="}
    assert first["format"] == "chatml" and first["dropped"] == 0
    assert first["answer"] == answer_of(chat, [user], 6) and first["answer"].strip()
    second = post(
        client, "chat", {"message": "7+5=", "session": first["session"], "max_new_tokens": 6, "temperature": 0}
    )
    history = [user, {"role": "assistant", "content": first["answer"]}, {"role": "user", "content": "7+5="}]
    assert second["session"] == first["session"]
    assert second["answer"] == answer_of(chat, history, 6)
    assert second["history"] == [*history, {"role": "assistant", "content": second["answer"]}]
    # the conversation as post/chat.py renders and encodes it: the text the panels open
    _, tokenizer, _ = load_model(chat)
    encoded = encode_chat(tokenizer, CHAT_FORMATS["chatml"].template(), second["history"])
    assert second["text"] == encoded.text == CHAT_FORMATS["chatml"].template().render(second["history"])
    assert [tok["id"] for tok in second["tokens"]] == encoded.ids
    assert [tok["assistant"] for tok in second["tokens"]] == [bool(m) for m in encoded.assistant_mask]
    said_ids = [i for i, tok in enumerate(second["tokens"]) if tok["assistant"]]
    assert said_ids
    for i in said_ids:  # the text before an answer token is exactly the ids before it
        assert tokenizer.encode(second["text"][: second["tokens"][i]["start"]]) == encoded.ids[:i]
    # a new session (no key) starts from nothing
    again = post(client, "chat", {"message": "7+5=", "max_new_tokens": 6, "temperature": 0})
    assert again["session"] != first["session"] and again["history"][0] == {"role": "user", "content": "7+5="}


def streamed(client, body: dict, lang: str = "en") -> list[dict]:
    r = client.post(f"/api/chat/stream?lang={lang}", json=body)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson"), r.text
    return [json.loads(line) for line in r.text.splitlines()]


def test_the_stream_sends_the_answer_piece_by_piece_then_the_turn(runs, client):
    _, chat = runs
    events = streamed(client, {"message": "12+30=", "max_new_tokens": 6, "temperature": 0})
    *pieces, last = events
    answer = answer_of(chat, [{"role": "user", "content": "12+30="}], 6)
    assert pieces and all(set(e) == {"piece"} and e["piece"] for e in pieces)
    assert "".join(e["piece"] for e in pieces) == last["done"]["answer"] == answer
    follow = streamed(client, {"message": "7+5=", "session": last["done"]["session"], "max_new_tokens": 6})
    assert follow[-1]["done"]["history"][:2] == last["done"]["history"]  # the same session, its history kept
    r = client.post("/api/chat/stream?lang=zh", json={"message": " "})  # refused before any piece: JSON 422
    body = refusal(r, 422, "explore.chat.empty", "empty")
    assert CJK.search(body["error"])
    r = client.post("/api/chat/stream", json={"message": "hi", "max_new_tokens": 999})
    assert refusal(r, 400, "explore.field.between", "bad_request")["field"] == "max_new_tokens"


def test_the_opened_text_is_what_the_panels_read(client):
    turn = post(client, "chat", {"message": "3+4=", "max_new_tokens": 4, "temperature": 0})
    analyzed = post(client, "analyze", {"text": turn["text"]})
    assert analyzed["ids"] == [tok["id"] for tok in turn["tokens"]]  # the template's control tokens included


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chat_refusals_carry_their_codes(runs, client, lang):
    base, _ = runs
    for message in ("", "   "):
        r = client.post(f"/api/chat?lang={lang}", json={"message": message})
        refusal(r, 422, "explore.chat.empty", "empty")
    r = client_for(open_run(base)).post(f"/api/chat?lang={lang}", json={"message": "hi"})
    body = refusal(r, 422, "talk.not_chat", "needs_sft")
    assert body["run"] == str(base) and (CJK.search(body["error"]) is not None) == (lang == "zh")
    r = client_for(make_explorer("gpt")).post("/api/chat", json={"message": "hi"})  # a model with no run at all
    refusal(r, 422, "talk.not_chat", "needs_sft")
    turn = post(client, "chat", {"message": "1+1=", "max_new_tokens": 4, "temperature": 0})
    r = client.post(f"/api/chat?lang={lang}", json={"message": "1" * 1000, "session": turn["session"]})
    assert refusal(r, 422, "talk.too_long", "too_long")["max_new_tokens"] == 32  # the request's default
    again = post(client, "chat", {"message": "2+2=", "session": turn["session"], "max_new_tokens": 4})
    assert again["history"][:2] == turn["history"]  # the refused message left the history as it was


def test_a_chat_run_opens_on_its_first_example_as_its_template_renders_it(runs, tmp_path):
    _, chat = runs
    first = post_data.load("sft", BUILTIN)[0][0]
    assert open_run(chat).example == CHAT_FORMATS["chatml"].template().render(first)
    moved = tmp_path / "moved"
    shutil.copytree(chat, moved, ignore=shutil.ignore_patterns("*.lock"))
    config = json.loads((moved / "config.json").read_text())
    config["post"]["data"] = str(tmp_path / "gone.jsonl")  # its data file is no longer there
    (moved / "config.json").write_text(json.dumps(config))
    assert open_run(moved).example is None  # the page starts empty, as for any run without an example


def test_a_config_that_names_a_template_its_tokenizer_lacks_is_refused(runs):
    base, _ = runs
    ex = open_run(base)
    ex.config = {**ex.config, "post": {"format": "chatml"}}  # hand-edited: the tokenizer has no <|im_end|>
    r = client_for(ex).post("/api/chat", json={"message": "hi"})
    body = refusal(r, 422, "explore.chat.no_specials", "needs_sft")
    assert body["tokens"] == " ".join(CHAT_FORMATS["chatml"].specials)


def same_views(got: dict, expected: dict) -> None:
    """The page's views are diff.views' own: the same stems in order, labels, notes and figures."""
    shown = {v["stem"]: v for v in got["views"]}
    assert list(shown) == [stem for stem, g in expected.items() if g is not None]
    for stem, grid in expected.items():
        if grid is None:
            continue
        view = shown[stem]
        assert (view["title"], view["rows"], view["columns"], view["notes"]) == (
            grid.title,
            grid.rows,
            grid.columns,
            grid.notes,
        )
        for row, want in zip(view["values"], grid.values, strict=True):
            assert row == pytest.approx(want, abs=1e-6)


def test_the_diff_view_is_diff_pys_figures(runs):
    base, chat = runs
    client = client_for(open_run(base, against=chat))
    assert client.get("/api/model").json()["against"] is True
    pair = diff.open_pair(base, chat)
    got = post(client, "diff", {})  # the tuned run's own data
    assert (got["grown"], got["prompts"]) == (2, "data")
    same_views(got, diff.views(pair, chat, diff.prompts_of_run(pair)))
    assert {"diff_attention", "diff_effect", "diff_heads", "diff_tokens"} <= {v["stem"] for v in got["views"]}
    got = post(client, "diff", {"prompt": "12+30="})  # the page's text
    assert got["prompts"] == "text"
    same_views(got, diff.views(pair, chat, [pair.tokenizer.encode("12+30=")]))
    zh = post(client, "diff", {"prompt": "12+30=", "lang": "zh"})
    assert all(CJK.search(v["title"]) for v in zh["views"])
    assert [v["values"] for v in zh["views"]] == [v["values"] for v in got["views"]]


def test_diff_refusals(runs, tmp_path, monkeypatch):
    base, chat = runs

    def never(*args, **kwargs):  # a refusal that came too late would serve forever: fail instead
        raise AssertionError("served")

    monkeypatch.setattr("glassformer.explore.server.serve", never)
    r = client_for(open_run(chat)).post("/api/diff", json={})
    refusal(r, 422, "explore.diff.none", "no_against")
    assert client_for(open_run(chat)).get("/api/model").json()["against"] is False
    wider = tmp_path / "wider"
    shutil.copytree(base, wider, ignore=shutil.ignore_patterns("*.lock"))
    config = json.loads((wider / "config.json").read_text())
    config["model"]["n_layers"] = 3
    (wider / "config.json").write_text(json.dumps(config))
    from glassformer.models import build_model

    model, _, _ = load_model(base)
    save_weights(wider / MODEL_FILE, build_model(replace(model.cfg, n_layers=3)), 0)
    with pytest.raises(UsageError) as e:
        open_run(base, against=wider)
    assert e.value.code == "diff.shapes" and e.value.fields["fields"] == "n_layers"
    with said() as heard:  # the command refuses before serving anything: one coded line, exit 2
        assert main(["explore", str(base), "--against", str(wider), "--port", "0"]) == 2
    assert heard.of("diff.shapes")[0]["fields"] == "n_layers"
    with said() as heard:
        assert main(["explore", "--against", str(chat), "--port", "0"]) == 2
    assert heard.of("explore.against_needs_run")[0]["tuned"] == str(chat)


def test_a_turn_follows_the_pages_repetition_knobs(runs, client):
    """The chat tab's answer is drawn with the knobs beside the sampling fields (a turn once unpacked the
    sampling shape without them and failed on every message)."""
    from glassformer.logits_processors import Knobs

    _, chat = runs
    user = [{"role": "user", "content": "11+11="}]
    body = {"message": "11+11=", "max_new_tokens": 6, "temperature": 0, "repetition_penalty": 50.0}
    got = post(client, "chat", body)
    assert got["answer"] == answer_of(chat, user, 6, Knobs(repetition_penalty=50.0))
    bad = client.post("/api/chat", json={**body, "repetition_penalty": 0.0})
    assert bad.status_code == 422 and bad.json()["code"] == "bad_knob"

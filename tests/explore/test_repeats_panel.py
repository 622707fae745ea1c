"""The explorer's repeats panel and sampling knobs (issue 49): /api/repeats answers `glassformer
repeats`' own tables, in the page's language; the knobs reach next and generate through
logits_processors.Knobs, in generate_ids' order; bad knobs and prompts are refused with 422 and a code."""

from __future__ import annotations

import re

import pytest
import torch
from explore_kit import client_for, make_explorer, tokenizer

from glassformer.causal.ground_truth import planted_induction_model
from glassformer.explore import Explorer
from glassformer.explore.repeats import repeats_view
from glassformer.inspect.repetition import MIN_SPAN
from glassformer.logits_processors import Knobs
from glassformer.sample import generate_ids, next_probs
from glassformer.text.tokenizers import CharTokenizer

pytestmark = pytest.mark.usefixtures("one_thread")

LETTERS = "abcdefghijklmnop"  # the planted model's 16 tokens
KNOBS = {"repetition_penalty": 1.8, "presence_penalty": 0.4, "frequency_penalty": 0.3, "no_repeat_ngram": 3,
         "min_p": 0.02, "typical_p": 0.95}  # fmt: skip


def post(client, endpoint: str, body: dict, status: int = 200, lang: str = "en") -> dict:
    r = client.post(f"/api/{endpoint}?lang={lang}", json=body)
    assert r.status_code == status, r.text
    return r.json()


@pytest.fixture(scope="module")
def planted():
    return client_for(Explorer(planted_induction_model(), CharTokenizer(LETTERS), "planted"))


@pytest.fixture(scope="module")
def gpt():
    ex = make_explorer("gpt")
    return ex, client_for(ex)


def test_the_panel_answers_the_verb_s_own_tables(planted):
    r = post(planted, "repeats", {"text": "abcab", "control": "hkdmp"})
    heads, lens = repeats_view(planted_induction_model(), CharTokenizer(LETTERS), "abcab", control="hkdmp")
    assert r["heads"]["extra"]["named"] == [[1, 2]] == heads.extra["named"]
    assert (r["heads"]["rows"], r["heads"]["values"]) == (heads.rows, heads.values)
    assert r["heads"]["extra"]["loop_p_ablated"] == pytest.approx(heads.extra["loop_p_ablated"], abs=1e-12)
    assert r["heads"]["extra"]["control"] == heads.extra["control"]
    assert (r["lens"]["rows"], r["lens"]["values"]) == (lens.rows, lens.values)
    assert r["heads"]["notes"] == heads.notes and r["heads"]["title"] == heads.title


def test_the_panel_speaks_the_page_s_language(planted):
    en = post(planted, "repeats", {"text": "abcab", "lang": "en"})
    zh = post(planted, "repeats", {"text": "abcab", "lang": "zh"})
    assert zh["heads"]["values"] == en["heads"]["values"]
    for part in ("heads", "lens"):
        assert zh[part]["title"] != en[part]["title"] and re.search("[\u4e00-\u9fff]", zh[part]["title"])
        assert len(zh[part]["notes"]) == len(en[part]["notes"])


@pytest.mark.parametrize(
    ("body", "key", "fields"),
    [
        (
            {"text": "abcdefghij"},
            "repeats.too_long",
            {"flag": "--prompt", "n": 10, "max_len": 16, "most": 16 - MIN_SPAN},
        ),
        ({"text": "ab", "control": "abcdefghijk"}, "repeats.too_long", {"flag": "--control", "n": 11}),
        ({"text": ""}, "cview.empty", {"flag": "--prompt"}),
    ],
)
def test_a_prompt_the_view_refuses_is_422_with_its_code(planted, body, key, fields):
    r = post(planted, "repeats", body, 422)
    assert (r["code"], r["key"]) == ("bad_prompt", key)
    assert {k: r[k] for k in fields} == fields


def test_the_bars_are_the_knobs_distribution_in_generate_ids_order(gpt):
    ex, client = gpt
    text = "the the the quick"
    r = post(client, "next", {"text": text, "temperature": 0.8, **KNOBS})
    ids = torch.tensor([tokenizer().encode(text)])  # (1, T)
    knobs = Knobs(**KNOBS)
    logits = ex.model(ids[:, -16:])[0, -1][None]  # (1, V): the model sees its last max_len, the penalties read all
    probs = next_probs(knobs.penalize(logits, ids), 0.8, None, None, knobs)[0]  # (V,)
    shown = {b["id"]: b["p"] for b in r["rows"]}
    assert shown == pytest.approx({i: float(probs[i]) for i in shown}, abs=6e-5)
    assert r["kept"] == int((probs > 0).sum()) < r["vocab"]  # min-p, typical and the n-gram ban cut something
    plain = post(client, "next", {"text": text, "temperature": 0.8})
    assert [b["p"] for b in plain["rows"]] != [b["p"] for b in r["rows"]]  # the knobs changed the bars


def test_clicks_write_what_generate_ids_writes_with_the_same_knobs(gpt):
    ex, client = gpt
    ids = tokenizer().encode("the quick")
    got, session = [], None
    for n in (1, 3, 2):
        r = post(client, "generate", {"ids": ids + got, "n": n, "session": session, "seed": 4, **KNOBS})
        got += [t["id"] for t in r["tokens"]]
        session = r["session"]
    g = torch.Generator().manual_seed(4)
    want = generate_ids(ex.model, torch.tensor([ids]), 6, 1.0, generator=g, knobs=Knobs(**KNOBS))
    assert got == [int(i) for i in want]
    # the ban holds across clicks: no 3-gram of the whole text twice
    text = ids + got
    grams = [tuple(text[i : i + 3]) for i in range(len(text) - 2)]
    assert len(grams) == len(set(grams))


@pytest.mark.parametrize(
    ("knob", "value", "key"),
    [
        ("repetition_penalty", 0.0, "sample.repetition_penalty"),
        ("repetition_penalty", -1.2, "sample.repetition_penalty"),
        ("min_p", 1.5, "sample.min_p"),
        ("typical_p", 0.0, "sample.typical_p"),
    ],
)
@pytest.mark.parametrize("endpoint", ["next", "generate", "analyze"])
def test_a_knob_out_of_range_is_422_with_the_knob_s_code(gpt, knob, value, key, endpoint):
    _, client = gpt
    body = {"ids": [1, 2, 3], knob: value} if endpoint == "generate" else {"text": "the", knob: value}
    r = post(client, endpoint, body, 422)
    assert (r["code"], r["key"], r["value"]) == ("bad_knob", key, value)

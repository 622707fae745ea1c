"""The routing panel's endpoint (explore/experts.py, POST /api/experts): the token × expert maps, the
loads, MaxVio and entropy of the typed text are inspect/experts.py's routing_view on the same model
(the numbers `glassformer experts` writes); /api/model says how many experts the page should expect;
a model without experts is refused with 422, its page code and the view's key, in either language."""

from __future__ import annotations

import copy
import re

import pytest
import torch
from explore_kit import client_for, make_explorer, post

from glassformer.inspect.experts import routing_view

MOE = dict(ffn="moe", n_experts=4, moe_top_k=2)
TEXT = "the cat 你好"


@pytest.fixture(scope="module")
def moe():
    return make_explorer("gpt", **MOE)


def test_the_panel_shows_the_library_routing_of_the_text(moe):
    model, tok = copy.deepcopy(moe.model), moe.tokenizer
    r = post(client_for(moe), "experts", {"text": TEXT})
    want = routing_view(model, torch.tensor([tok.encode(TEXT)]), tok)
    assert r["tokens"] == moe.labels(tok.encode(TEXT)) and (r["experts"], r["top_k"]) == (4, 2)
    assert r["most"] == 2.0 and [layer["name"] for layer in r["layers"]] == ["blocks.0.ffn", "blocks.1.ffn"]
    for got, layer in zip(r["layers"], want.layers, strict=True):
        assert got["map"] == [[round(float(v), 4) for v in row] for row in layer.weights.tolist()]
        assert got["load"] == layer.load.tolist() and sum(got["load"]) == 2 * len(r["tokens"])
        assert got["max_violation"] == round(layer.max_violation, 4) and got["entropy"] == round(layer.entropy, 4)
        assert got["share"] == [round(float(v), 4) for v in layer.share.tolist()]


def test_ids_after_generation_are_read_as_the_other_panels_read_them(moe):
    ids = moe.tokenizer.encode("cats")
    by_ids = post(client_for(moe), "experts", {"ids": ids})
    assert by_ids == post(client_for(moe), "experts", {"text": "cats"})


def test_the_model_line_says_how_many_experts(moe, gpt):
    assert client_for(moe).get("/api/model").json()["experts"] == 4
    assert client_for(gpt).get("/api/model").json()["experts"] == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_model_without_experts_is_refused_with_422_and_a_code(gpt, lang):
    r = client_for(gpt).post(f"/api/experts?lang={lang}", json={"text": "the"})
    body = r.json()
    assert r.status_code == 422 and body["code"] == "no_experts" and body["key"] == "experts.none"
    assert body["ffn"] == "mlp" and bool(re.search("[\u4e00-\u9fff]", body["error"])) == (lang == "zh")


def test_an_unknown_field_and_an_empty_text_are_the_requests_fault(moe):
    c = client_for(moe)
    assert post(c, "experts", {"text": "the", "layer": 1}, status=400)["key"] == "explore.field.unknown"
    assert post(c, "experts", {"text": ""}, status=422)["code"] == "empty"

"""The causal panel's answers (explore/explorer.py, its end) without a browser: degenerate inputs are
refused with HTTP 400 and the views' own keys, never answered with NaN; a reply states its gap; a
patched cell says its grey marks are the corrupted run's."""

from __future__ import annotations

import json
import math

import pytest
import torch
from explore_kit import client_for, decisive, make_explorer, post

from glassformer.explore.explorer import _answer_and_wrong
from glassformer.inspect.causal_views import gap_floor


def strict(r) -> dict:
    """The answer parsed as JSON proper: NaN and Infinity are not JSON."""

    def refuse(constant):
        raise AssertionError(f"{constant} in a reply: {r.text[:200]}")

    return json.loads(r.content.decode("utf-8"), parse_constant=refuse)


@pytest.fixture(scope="module")
def sharp():
    return decisive(make_explorer("gpt"))


@pytest.mark.parametrize("endpoint", ["patching", "patch_cell"])
def test_the_same_text_twice_is_a_400_not_nan(client, endpoint):
    r = client.post(f"/api/{endpoint}", json={"text": "the quick", "corrupt": "the quick"})
    answer = strict(r)
    assert r.status_code == 400 and answer["key"] == "cview.same_prompts" and answer["code"] == "degenerate"


@pytest.mark.parametrize("endpoint", ["patching", "patch_cell"])
def test_a_gap_too_small_to_normalise_by_is_a_400_with_its_figures(gpt, client, endpoint):
    """The random model's logits lie close together: a one-letter corruption moves the answer's lead
    by ~0.03, under the 0.1 floor; the refusal carries both runs' figures, finite."""
    r = client.post(f"/api/{endpoint}", json={"text": "the quick", "corrupt": "the quack"})
    answer = strict(r)
    assert r.status_code == 400 and answer["key"] == "cview.gap.small"
    tok = gpt.tokenizer
    clean, corrupt = torch.tensor([tok.encode("the quick")]), torch.tensor([tok.encode("the quack")])
    a, w = _answer_and_wrong(gpt, clean, corrupt)
    logits_c, logits_x = gpt.model(clean)[0, -1], gpt.model(corrupt)[0, -1]
    assert answer["clean"] == pytest.approx(float(logits_c[a] - logits_c[w]), abs=1e-5)
    assert answer["corrupt"] == pytest.approx(float(logits_x[a] - logits_x[w]), abs=1e-5)
    assert answer["floor"] == gap_floor(answer["clean"], answer["corrupt"]) > answer["gap"] > 0


def test_a_reply_states_its_gap_and_a_patched_cell_its_grey_marks(sharp):
    c = client_for(sharp)
    r = post(c, "patching", {"text": "the quick", "corrupt": "the quack"})
    assert r["gap"] == pytest.approx(r["clean"] - r["corrupt"], abs=2e-4) and r["gap"] > 0
    assert all(math.isfinite(v) for row in r["positions"]["values"] + r["heads"]["values"] for v in row)
    # the wrong token: the corrupted run's likeliest token other than the answer
    tok = sharp.tokenizer
    other = sharp.model(torch.tensor([tok.encode("the quack")]))[0, -1].clone()  # (V,)
    other[r["answer"]["id"]] = -float("inf")
    assert r["wrong"]["id"] == int(other.argmax()) != r["answer"]["id"]
    cell = post(c, "patch_cell", {"text": "the quick", "corrupt": "the quack", "kind": "head", "layer": 0, "index": 1})
    assert cell["base"] == "corrupted" and all("p_base" in row for row in cell["rows"])
    plain = post(c, "next", {"text": "the quack", "ablate": [[0, 1]]})
    assert "base" not in plain  # a zeroed head's grey marks are the intact model's


def test_a_patched_cell_without_a_corrupted_text_is_a_422_that_says_it_is_missing(client):
    """A patch copies from the clean run into the corrupted one: without a corrupted text there is
    nothing to patch into, and the page is told so (its code, its status), not answered with a 500."""
    r = client.post(
        "/api/patch_cell", json={"text": "the quick", "corrupt": "", "kind": "head", "layer": 0, "index": 0}
    )
    answer = strict(r)
    assert r.status_code == 422 and answer["key"] == "explore.causal.no_corrupt" and answer["code"] == "empty"
    assert isinstance(answer["error"], str) and answer["error"]

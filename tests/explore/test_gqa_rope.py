"""The explorer on the modern decoder: query heads grouped under the key-value head they share
(grouped-query attention), and the RoPE view (the rotation of q and k, read from the model's own
rotary module and hook points)."""

from __future__ import annotations

import pytest
import torch
from explore_kit import client_for, make_explorer, post


@pytest.fixture(scope="module")
def gqa():
    return make_explorer("gpt", n_kv_heads=2, position="rope")  # H = 4 query heads, H_kv = 2: g = 2


@pytest.fixture(scope="module")
def plain():
    return make_explorer("gpt")  # H = H_kv = 4, learned positions


def test_info_names_the_key_value_heads(gqa, plain):
    assert (gqa.info()["kv_heads"], gqa.info()["groups"]) == (2, 2)
    assert (plain.info()["kv_heads"], plain.info()["groups"]) == (4, 1)
    assert (gqa.info()["rope"], plain.info()["rope"]) == (True, False)


def test_attention_groups_query_heads_under_their_kv_head(gqa):
    a = post(client_for(gqa), "attention", {"text": "hello", "layer": 1, "head": 3, "grid": True})
    assert (a["head"], a["kv_head"], a["groups"]) == (3, 1, 2)
    assert a["grid"]["groups"] == [2, 2]
    assert a["grid"]["kv_head"] == [[0, 0, 1, 1], [0, 0, 1, 1]]


def test_a_plain_gpt_has_one_query_head_per_kv_head(plain):
    a = post(client_for(plain), "analyze", {"text": "hello", "head": 2})["attention"]
    assert (a["kv_head"], a["groups"]) == (2, 1)
    assert a["grid"]["groups"] == [1, 1]
    assert a["grid"]["kv_head"] == [[0, 1, 2, 3], [0, 1, 2, 3]]


# ---------------------------------------------------------------------------------------- RoPE


def turned(pairs: torch.Tensor, angles: torch.Tensor, scale: float) -> torch.Tensor:
    """(P, D/2, 2) points turned by (P, D/2) angles, written out as 2 × 2 rotations (the test's own)."""
    x, y = pairs[..., 0], pairs[..., 1]  # 2 × (P, D/2)
    c, s = angles.cos(), angles.sin()  # 2 × (P, D/2)
    return scale * torch.stack((x * c - y * s, x * s + y * c), dim=-1)  # (P, D/2, 2)


@pytest.mark.parametrize(
    "changes",
    [
        dict(n_kv_heads=2, position="rope", qk_norm=True),  # half-split pairs, QK-norm before the turn
        dict(position="rotary"),  # RoFormer's neighbour pairs, every head its own kv head
    ],
    ids=["rope-gqa-qknorm", "rotary"],
)
def test_rope_view_serves_the_modules_own_rotation(changes):
    ex = make_explorer("gpt", **changes)
    model, positions = ex.model, [0, 2, 5]
    r = post(client_for(ex), "rope", {"text": "hello world", "layer": 1, "head": 3, "positions": positions})
    g = 2 if changes.get("n_kv_heads") == 2 else 1
    assert (r["layer"], r["head"], r["kv_head"], r["positions"]) == (1, 3, 3 // g, positions)
    attn = model.blocks[1].attn
    rotary = attn.positions
    entering = attn.qk_norm if changes.get("qk_norm") else attn
    ids = torch.tensor([ex.tokenizer.encode("hello world")])  # (1, T)
    _, cache = model.run_with_cache(ids)
    for which, h in (("q", 3), ("k", 3 // g)):
        before = cache[getattr(entering, f"hook_{which}").name][0, h]  # (T, D) what enters the rotary module
        after = cache[getattr(rotary, f"hook_{which}").name][0, h]  # (T, D) what it made
        assert torch.allclose(rotary(before[None, None])[0, 0], after, atol=1e-6)  # the hooks bracket the turn
        served_before = torch.tensor(r[which]["before"])  # (P, D/2, 2)
        served_after = torch.tensor(r[which]["after"])  # (P, D/2, 2)
        assert torch.allclose(served_before, rotary.pairs(before[positions]), atol=1e-4)
        assert torch.allclose(served_after, rotary.pairs(after[positions]), atol=1e-4)
        # the served angles turn the served "before" into the served "after"
        angles = torch.tensor(r["angles"], dtype=torch.float64)  # (P, D/2)
        assert torch.allclose(turned(served_before.double(), angles, r["scale"]), served_after.double(), atol=2e-3)
    theta = torch.tensor(r["theta"], dtype=torch.float64)  # (D/2,)
    assert torch.allclose(
        torch.tensor(r["angles"], dtype=torch.float64), torch.tensor(positions)[:, None] * theta, atol=1e-4
    )
    D = model.cfg.d_head
    expected = (
        [[i, i + D // 2] for i in range(D // 2)]
        if changes["position"] == "rope"
        else [[2 * i, 2 * i + 1] for i in range(D // 2)]
    )
    assert r["features"] == expected
    assert r["tokens"] == ex.labels([ids[0, p].item() for p in positions])


def test_rope_view_defaults_to_the_first_positions(gqa):
    r = post(client_for(gqa), "rope", {"text": "hello world"})
    assert r["positions"] == list(range(8)) and len(r["q"]["before"]) == 8 and len(r["angles"]) == 8


@pytest.mark.parametrize(
    "body, key, fields",
    [
        ({"text": "hello", "head": 4}, "explore.range.heads", {"field": "head", "value": 4, "size": 4}),
        ({"text": "hello", "layer": 2}, "explore.range.layers", {"field": "layer", "value": 2, "size": 2}),
        ({"text": "hello", "positions": [0, 5]}, "explore.range.tokens", {"field": "positions", "value": 5, "size": 5}),
    ],
)
def test_rope_view_refuses_what_is_out_of_range(gqa, body, key, fields):
    r = client_for(gqa).post("/api/rope", json=body)
    assert r.status_code == 422 and r.json()["key"] == key and r.json()["code"] == "out_of_range"
    assert {k: r.json()[k] for k in fields} == fields


def test_rope_view_refuses_a_model_without_rotary_positions(plain):
    assert plain.info()["rope"] is False
    r = client_for(plain).post("/api/rope", json={"text": "hello"})
    assert r.status_code == 422, r.text
    assert (r.json()["key"], r.json()["code"], r.json()["position"]) == ("explore.rope.none", "no_rope", "learned")


def test_vectors_show_k_and_v_of_the_heads_kv_head(gqa):
    r = post(client_for(gqa), "vectors", {"text": "hello", "layer": 1, "head": 3, "token": 2})
    assert [v["name"] for v in r["vectors"]] == ["blocks.1.attn.q", "blocks.1.attn.k", "blocks.1.attn.v"]
    assert r["kv_head"] == 1
    _, cache = gqa.model.run_with_cache(torch.tensor([gqa.tokenizer.encode("hello")]))
    for v, h in zip(r["vectors"], (3, 1, 1), strict=True):
        assert v["values"] == pytest.approx(cache[v["name"]][0, h, 2].tolist(), abs=1e-3)

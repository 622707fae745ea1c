"""The explorer on the modern decoder: query heads grouped under the key-value head they share
(grouped-query attention), and the RoPE view (the rotation of q and k, read from the model's own
rotary module and hook points)."""

from __future__ import annotations

import pytest
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

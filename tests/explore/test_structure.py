"""The explorer finds what it shows in the hook declarations: a new matrix stage appears by itself,
and requests are answered one at a time on a real server under concurrent load."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from explore_kit import client_for, make_explorer, post, tiny_model, tokenizer

from glassformer.explore import Explorer
from glassformer.explore.serve import Background
from glassformer.explore.structure import find_structure
from glassformer.nn.hooks import HookPoint


def test_structure_of_each_kind():
    for kind in ("gpt", "encoder", "regressor"):
        s = find_structure(tiny_model(kind))
        assert s.stages == ["scores", "weights"]
        assert [lay.module for lay in s.layers] == ["blocks.0.attn", "blocks.1.attn"]
        assert s.layers[1].z == "blocks.1.attn.z" and s.layers[0].vectors[0] == "blocks.0.attn.q"
        assert s.stream[0] == "resid_pre" and len(s.stream) == 5
    fused = tiny_model("gpt", attention="fused")
    assert find_structure(fused).stages == []  # the fused path forms no matrix: nothing to find ...
    assert Explorer(fused, tokenizer()).structure.stages == ["scores", "weights"]  # ... so the explorer switches


def test_a_newly_declared_matrix_stage_shows_up_with_no_edit():
    model = tiny_model("gpt")
    for block in model.blocks:
        attn = block.attn
        attn.hook_pattern = HookPoint(
            "pattern", "B H T_q T_k", "weights squared (a toy stage)", "权重的平方（示例阶段）", "示例"
        )
        attn.hook_weights.fns.append(lambda t, name, a=attn: (a.hook_pattern(t * t), None)[1])
    model.name_hook_points()
    ex = Explorer(model, tokenizer(), "toy")
    c = client_for(ex)
    # in firing order: the toy fires from inside the weights hook, before the weights are cached
    assert [s["stage"] for s in c.get("/api/model").json()["stages"]] == ["scores", "pattern", "weights"]
    w = post(c, "attention", {"text": "the fox", "stage": "weights", "head": 1})["matrix"]
    p = post(c, "attention", {"text": "the fox", "stage": "pattern", "head": 1, "grid": True})
    for row_p, row_w in zip(p["matrix"], w, strict=False):
        for a, b in zip(row_p, row_w, strict=False):
            assert (a is None) == (b is None) and (a is None or abs(a - b * b) <= 2e-3)
    assert p["matrix"][0][1] is None  # masked where the layer's scores are -inf


def test_concurrent_requests_on_a_real_server_get_their_own_answers():
    ex = make_explorer("gpt")
    bodies = [
        {"text": text, "ablate": ablate, "layer": i % 2, "head": i % 4}
        for i, (text, ablate) in enumerate(
            [("the fox", []), ("lazy dog", [[0, 1]]), ("你好", [[1, 2], [0, 0]]), ("over the", [[1, 3]])] * 3
        )
    ]
    alone = [ex.handle("analyze", dict(b)) for b in bodies]

    with Background(ex) as url:

        def ask(body):
            req = urllib.request.Request(
                url + "api/analyze", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())

        with ThreadPoolExecutor(6) as pool:
            together = list(pool.map(ask, bodies))
        info = json.loads(urllib.request.urlopen(url + "api/model", timeout=10).read())
    assert info["kind"] == "gpt"
    for a, b in zip(alone, together, strict=False):
        assert a["next"] == b["next"] and a["attention"]["matrix"] == b["attention"]["matrix"]
        assert a["ablated"] == b["ablated"] and a["tokens"] == b["tokens"]
    assert not any(h.fns for h in ex.model.hook_points().values())  # every hook detached afterwards

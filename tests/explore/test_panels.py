"""What the panels show (panels.py), found in the hook declarations: the structure of each kind,
and a new matrix stage that appears by itself."""

from __future__ import annotations

from explore_kit import client_for, post, tiny_model, tokenizer

from glassformer.explore import Explorer
from glassformer.explore.panels import find_structure
from glassformer.inspect.words import add_words
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
    add_words(
        {"stage.pattern": "pattern", "means.pattern": "weights squared (a toy stage)"},
        {"stage.pattern": "示例", "means.pattern": "权重的平方（示例阶段）"},
    )
    for block in model.blocks:
        attn = block.attn
        attn.hook_pattern = HookPoint("pattern", "B H T_q T_k", "pattern")
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

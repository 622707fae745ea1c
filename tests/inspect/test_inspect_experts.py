"""The routing view (inspect/experts.py) against a routing computed here by hand on a tiny random
mixture of experts: the token × expert map of each layer, each expert's load over the text or a
corpus, its MaxVio and the routing entropy; both routing rules; the grids, their PNG (Chinese
tokens and words drawn by the shipped font), offline HTML and JSON; a model without experts refused."""

from __future__ import annotations

import json
import math
import re
import warnings

import pytest
import torch
from helpers import keyed

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect.experts import load_grid, map_grid, router_points, routing_view, windows, write_routing
from glassformer.inspect.trace import token_labels
from glassformer.messages import speaking
from glassformer.models import build_model
from glassformer.text import CharTokenizer

pytestmark = pytest.mark.usefixtures("one_thread")

SMALL = dict(d_model=16, n_heads=4, d_ff=24, n_layers=2, max_len=8, bias=False, dropout=0.0)
MOE = dict(ffn="moe", n_experts=4, moe_top_k=2, norm_type="rms")
TEXT = "the cat 猫 你好世界"
CJK = re.compile(r"[\u4e00-\u9fff]")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def moe_model(vocab: int = 13, seed: int = 0, **changes):
    torch.manual_seed(seed)
    return build_model(ModelConfig(vocab_size=vocab, **{**SMALL, **MOE, **changes})).double().eval()


def by_hand(model, ids: torch.Tensor, layer: int):
    """(map (T, E), load (E,), entropy per token (T,)) of one layer, routed here: the mixture's
    input x (the ln2 hook), ℓ = x·W_rᵀ, the rule's scores, the top K, the weights renormalised."""
    router = model.blocks[layer].ffn.router
    _, cache = model.run_with_cache(ids.reshape(1, -1), names=[f"blocks.{layer}.ln2"])
    x = cache[f"blocks.{layer}.ln2"][0]  # (T, C)
    logits = x @ router.weight.detach().T  # (T, E)
    scores = logits.softmax(-1) if router.routing.rule == "softmax" else logits.sigmoid()  # (T, E)
    T, E = scores.shape
    K = router.routing.top_k
    table = torch.zeros(T, E, dtype=torch.float64)
    load = torch.zeros(E, dtype=torch.long)
    bits = []
    for t in range(T):
        order = sorted(range(E), key=lambda e: -float(scores[t, e]))[:K]
        total = sum(float(scores[t, e]) for e in order)
        for e in order:
            table[t, e] = float(scores[t, e]) / total
            load[e] += 1
        p = [float(s) / float(scores[t].sum()) for s in scores[t]]
        bits.append(-sum(q * math.log2(q) for q in p if q > 0))
    return table, load, bits


@pytest.mark.parametrize("rule", ["softmax", "sigmoid"])
def test_the_map_load_maxvio_and_entropy_equal_a_routing_by_hand(rule):
    model = moe_model(moe_rule=rule)
    ids = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    view = routing_view(model, ids)
    assert (view.n_experts, view.top_k, [la.layer for la in view.layers]) == (4, 2, ["blocks.0.ffn", "blocks.1.ffn"])
    assert view.tokens == [str(i) for i in range(8)]  # without a tokenizer, a token's label is its position
    for layer, got in enumerate(view.layers):
        table, load, bits = by_hand(model, ids, layer)
        assert torch.allclose(got.weights, table, rtol=0, atol=1e-12)
        assert got.load.tolist() == load.tolist() and got.tokens == 8
        assert got.entropy == pytest.approx(sum(bits) / 8, abs=1e-12)
        mean = sum(load.tolist()) / 4
        assert got.max_violation == pytest.approx((max(load.tolist()) - mean) / mean, abs=1e-6)
        assert got.share.tolist() == pytest.approx([n / 16 for n in load.tolist()], abs=1e-12)
    assert view.most_entropy == 2.0


def test_the_load_over_a_corpus_sums_every_window_routed_by_hand():
    model = moe_model()
    corpus = [(7 * i + 3) % 13 for i in range(2 * 8 + 5)]  # two windows of max_len and a remainder of 5
    assert [tuple(b.shape) for b in windows(corpus, 8)] == [(2, 8), (1, 5)]
    view = routing_view(model, torch.tensor([1, 2, 3]), corpus=corpus)
    for layer, got in enumerate(view.layers):
        parts = [by_hand(model, torch.tensor(corpus[a : a + 8]), layer) for a in (0, 8, 16)]
        assert got.load.tolist() == sum(p[1] for p in parts).tolist() and got.tokens == len(corpus)
        assert got.entropy == pytest.approx(sum(sum(p[2]) for p in parts) / len(corpus), abs=1e-12)
        assert torch.allclose(got.weights, by_hand(model, torch.tensor([1, 2, 3]), layer)[0], rtol=0, atol=1e-12)


def test_the_grids_carry_the_tokens_the_numbers_and_the_balance_figures():
    tok = CharTokenizer.from_text(TEXT)
    model = moe_model(tok.vocab_size)
    ids = torch.tensor(tok.encode("猫 the"))
    view = routing_view(model, ids, tok)
    grid = map_grid(view, 1)
    assert grid.rows == token_labels(ids, tok) and grid.rows[0] == "猫"
    assert len(grid.rows) == 5 and grid.columns == ["E0", "E1", "E2", "E3"]
    assert grid.values == [[round(float(v), 6) for v in row] for row in view.layers[1].weights.tolist()]
    assert all(sum(1 for v in row if v) == 2 for row in grid.values)  # K = 2 experts a token
    load = load_grid(view, "x")
    assert load.rows == ["blocks.0.ffn", "blocks.1.ffn"]
    assert load.extra["load"] == [la.load.tolist() for la in view.layers]
    assert load.extra["max_violation"] == [la.max_violation for la in view.layers]
    assert load.extra["entropy"] == [la.entropy for la in view.layers]
    assert all(sum(row) == pytest.approx(1.0, abs=1e-5) for row in load.values)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_png_html_and_json_in_both_languages_with_chinese_tokens(tmp_path, lang):
    tok = CharTokenizer.from_text(TEXT)
    model = moe_model(tok.vocab_size)
    view = routing_view(model, torch.tensor(tok.encode("你好世界")), tok)
    with speaking(lang), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        files = write_routing(view, "corpus", tmp_path)
        title = load_grid(view, "corpus").title
    assert not [w for w in caught if "Glyph" in str(w.message)]  # the shipped font drew every 汉字
    assert [f.name for f in files] == [
        f"experts_{stem}.{ext}" for stem in ("load", "L0", "L1") for ext in ("png", "html", "json")
    ]
    for png in files[::3]:
        assert png.read_bytes()[:8] == PNG_SIGNATURE and png.stat().st_size > 5_000
    page = (tmp_path / "experts_L0.html").read_text(encoding="utf-8")
    assert all(f"<th>{c}</th>" in page for c in "你好世界")
    assert re.search(r"https?://", page) is None and "<script" not in page  # offline: nothing loaded
    data = json.loads((tmp_path / "experts_load.json").read_text(encoding="utf-8"))
    assert data["extra"]["load"] == [la.load.tolist() for la in view.layers] and data["title"] == title
    assert bool(CJK.search(title)) == (lang == "zh")


def test_a_model_without_experts_is_refused_naming_its_ffn():
    dense = moe_model(ffn="swiglu", n_experts=0, moe_top_k=0)
    assert keyed(UsageError, router_points, dense) == ("experts.none", {"ffn": "swiglu"})
    assert keyed(UsageError, routing_view, dense, torch.tensor([1, 2]))[0] == "experts.none"


def test_the_view_shows_the_models_own_choice_with_its_selection_bias():
    """The sigmoid rule chooses by s + b but weighs by s: a router that recomputed the choice from the
    scores alone would miss the bias. With expert 3's bias far above the rest, every token takes it."""
    model = moe_model(moe_rule="sigmoid")
    with torch.no_grad():
        for block in model.blocks:
            block.ffn.router.selection_bias.copy_(torch.tensor([0.0, 0.0, 0.0, 10.0]))
    ids = torch.tensor([3, 1, 4, 1, 5])
    view = routing_view(model, ids)
    for layer, got in enumerate(view.layers):
        assert got.load[3] == 5 and got.max_violation == pytest.approx(1.0)  # 5 of 10 slots: (5 - 2.5) / 2.5
        assert bool((got.weights[:, 3] > 0).all())
        assert not torch.allclose(got.weights, by_hand(model, ids, layer)[0])  # the choice without b differs

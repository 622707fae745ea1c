"""The causal tools reach one expert (causal/experts.py, logit_attribution(experts=True)): zeroing an
expert's hook point is the model with that expert's down-projection zeroed; patching it is the
corrupted run with that one output copied from the clean run; the direct logit attribution splits
every mixture-of-experts layer into its experts (and shared experts), each part the expert's
weighted output through the frozen final RMSNorm and the head, and the parts still sum to the logit
difference."""

from __future__ import annotations

import copy

import pytest
import torch
from helpers import keyed

from glassformer.causal import (
    ablate_expert,
    activation_patching,
    expert_ablation,
    logit_attribution,
    logit_diff,
    patch_expert,
)
from glassformer.config import ModelConfig
from glassformer.errors import Unsupported, UsageError
from glassformer.models import build_model

pytestmark = pytest.mark.usefixtures("one_thread")

SMALL = dict(vocab_size=13, d_model=16, n_heads=4, d_ff=24, n_layers=2, max_len=12, bias=False, dropout=0.0)
MOE = dict(ffn="moe", n_experts=4, moe_top_k=2, norm_type="rms", position="rope")
IDS = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])
OTHER = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 7]])


def moe_model(seed: int = 0, **changes):
    torch.manual_seed(seed)
    return build_model(ModelConfig(**{**SMALL, **MOE, **changes})).double().eval()


def chosen(model, ids, layer: int) -> torch.Tensor:
    """(T, K) the experts layer `layer` chose for each token."""
    _, cache = model.run_with_cache(ids, names=[f"blocks.{layer}.ffn.router.experts"])
    return cache[f"blocks.{layer}.ffn.router.experts"][0]


def test_every_expert_has_its_own_hook_point():
    model = moe_model()
    names = [n for n in model.hook_names() if ".ffn.expert." in n]
    assert names == [f"blocks.{layer}.ffn.expert.{e}" for layer in range(2) for e in range(4)]
    assert [model.hook_points()[n].fields["e"] for n in names] == [0, 1, 2, 3] * 2


@pytest.mark.parametrize("layer", [0, 1])
def test_ablating_an_expert_equals_zeroing_its_down_projection(layer):
    model = moe_model()
    used = chosen(model, IDS, layer).unique().tolist()
    with torch.no_grad():
        plain = model(IDS)  # (1, T, V)
        for e in range(4):
            twin = copy.deepcopy(model)
            twin.blocks[layer].ffn.experts[e].down.weight.zero_()
            ablated = ablate_expert(model, IDS, layer, e)  # (1, T, V)
            assert torch.allclose(ablated, twin(IDS), rtol=0, atol=1e-12)
            assert (ablated - plain).abs().max() > 1e-6 if e in used else torch.equal(ablated, plain)
    assert used  # some expert of the layer was chosen, so the test compares something that moved


def test_the_ablation_grid_is_each_expert_zeroed_alone():
    model = moe_model()
    x = torch.cat([IDS, OTHER])  # (2, T)

    def metric(logits):
        return logits[:, -1].log_softmax(-1)[:, 6]  # (N,)

    base, grid = expert_ablation(model, x, metric)
    with torch.no_grad():
        assert grid.shape == (2, 4) and base == pytest.approx(float(metric(model(x)).mean()), abs=1e-12)
    for layer in range(2):
        for e in range(4):
            one = float(metric(ablate_expert(model, x, layer, e)).mean())
            assert float(grid[layer, e]) == pytest.approx(one, abs=1e-12)


def test_patching_an_expert_copies_its_clean_output_into_the_corrupted_run():
    model = moe_model()
    metric = logit_diff(6, 7)
    name = "blocks.1.ffn.expert.2"
    _, clean_cache = model.run_with_cache(IDS, names=[name])
    with torch.no_grad():
        by_hand = model.run_with_hooks(OTHER, hooks={name: lambda t, _n: clean_cache[name]})  # (1, T, V)
    grid = patch_expert(model, IDS, OTHER, metric, 1, 2)
    assert grid.axes == ("layer",) and grid.names == [name]
    assert float(grid.values[0]) == pytest.approx(float(metric(by_hand)), abs=1e-12)
    with torch.no_grad():
        assert grid.clean == pytest.approx(float(metric(model(IDS))), abs=1e-12)
        assert grid.corrupt == pytest.approx(float(metric(model(OTHER))), abs=1e-12)
    # the same point by its short name: one row per layer, expert 2 of each
    every = activation_patching(model, IDS, OTHER, metric, "ffn.expert.2", by=())
    assert every.names == ["blocks.0.ffn.expert.2", name] and float(every.values[1]) == float(grid.values[0])


@pytest.mark.parametrize("layer, expert, fields", [(2, 0, {"layer": 2, "layers": [0, 1]}), (0, 4, {"expert": 4})])
def test_an_expert_that_is_not_there_is_refused_naming_the_ones_that_are(layer, expert, fields):
    code, got = keyed(UsageError, ablate_expert, moe_model(), IDS, layer, expert)
    assert code == "causal.no_expert" and fields.items() <= got.items() and got["experts"] == [4]


def test_a_dense_model_has_no_expert_to_ablate():
    dense = moe_model(ffn="swiglu", n_experts=0, moe_top_k=0)
    assert keyed(UsageError, expert_ablation, dense, IDS, lambda z: z[:, -1, 0])[0] == "causal.no_expert"
    with pytest.raises(Unsupported) as e:
        logit_attribution(dense, IDS, 6, 7, experts=True)
    assert e.value.code == "causal.no_hook" and e.value.fields["name"] == "blocks.<i>.ffn.expert.0"


def expert_output_by_hand(model, ids, layer: int, e: int, pos: int) -> torch.Tensor:
    """(C,) expert e's weighted output at `pos`: the router's softmax, top-K and renormalised weights
    computed here from the FFN's input, then w · FFN_e(x)."""
    moe = model.blocks[layer].ffn
    _, cache = model.run_with_cache(ids, names=[f"blocks.{layer}.ln2"])
    x = cache[f"blocks.{layer}.ln2"][0, pos]  # (C,) what the mixture reads
    probs = (moe.router.weight @ x).softmax(-1)  # (E,)
    top = probs.topk(moe.router.routing.top_k)
    if e not in top.indices.tolist():
        return torch.zeros_like(x)
    w = probs[e] / top.values.sum()
    with torch.no_grad():
        return w * moe.experts[e](x[None, None])[0, 0]  # (C,)


@pytest.mark.parametrize("shared", [0, 1])
def test_the_attribution_per_expert_is_each_experts_output_through_the_frozen_rmsnorm(shared):
    model = moe_model(moe_shared=shared)
    answer, wrong = 6, 7
    la = logit_attribution(model, IDS, answer, wrong, experts=True)
    whole = logit_attribution(model, IDS, answer, wrong)
    # the parts and the bias sum to the model's own logit difference, as without the split
    assert sum(la.parts.values()) + la.bias == pytest.approx(la.logit_diff, abs=1e-10)
    assert la.logit_diff == whole.logit_diff and la.scale == whole.scale
    # each layer's experts (and shared experts) sum to its whole FFN's part
    for layer in range(2):
        split = [v for k, v in la.parts.items() if k.startswith(f"blocks.{layer}.ffn.")]
        assert len(split) == 4 + shared and sum(split) == pytest.approx(whole.parts[f"blocks.{layer}.ffn"], abs=1e-12)
        assert f"blocks.{layer}.ffn" not in la.parts and (f"blocks.{layer}.ffn.shared" in la.parts) == bool(shared)
    # one expert by hand: its output through the final RMSNorm's frozen σ and gain, onto W_U[a] − W_U[w]
    _, cache = model.run_with_cache(IDS, names=["blocks.1.resid_post"])
    final = cache["blocks.1.resid_post"][0, -1]  # (C,)
    sigma = (final.pow(2).mean() + model.ln_final.eps).sqrt()
    direction = ((model.head.weight[answer] - model.head.weight[wrong]) * model.ln_final.weight).detach()  # (C,)
    grid = la.expert_grid()
    assert grid.shape == (2, 4)
    for layer in range(2):
        for e in range(4):
            want = float(direction @ expert_output_by_hand(model, IDS, layer, e, 7) / sigma)
            assert la.parts[f"blocks.{layer}.ffn.expert.{e}"] == pytest.approx(want, abs=1e-12)
            assert float(grid[layer, e]) == la.parts[f"blocks.{layer}.ffn.expert.{e}"]
    assert sum(1 for v in grid.flatten().tolist() if v == 0.0) == 2 * (4 - 2)  # K = 2 of 4 chosen at the position


def test_an_attribution_without_the_split_has_no_expert_grid():
    with pytest.raises(Unsupported) as e:
        logit_attribution(moe_model(), IDS, 6, 7).expert_grid()
    assert e.value.code == "causal.no_expert_parts"

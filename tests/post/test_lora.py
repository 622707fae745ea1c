"""post/lora.py against peft's LoraModel (get_peft_model) on the same weights: forward, gradients,
dropout on the branch's input, merge_and_unload (float64); merge and unmerge exact; only A and B train."""

from __future__ import annotations

import copy
import math
import re

import pytest
import torch
import torch.nn as nn

peft = pytest.importorskip("peft")

from glassformer.config import ModelConfig  # noqa: E402
from glassformer.errors import UsageError  # noqa: E402
from glassformer.models import build_model  # noqa: E402
from glassformer.post.lora import (  # noqa: E402
    LoRALinear,
    apply_lora,
    lora_layers,
    merge_and_unload,
    merge_lora,
    unmerge_lora,
)

PATTERN = r"blocks\.\d+\.(q|v)"


class Tiny(nn.Module):
    """Two blocks with named projections, enough for name patterns to choose among."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.ModuleDict({"q": nn.Linear(6, 6), "k": nn.Linear(6, 6, bias=False), "v": nn.Linear(6, 4)})
            for _ in range(2)
        )
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        values = []
        for b in self.blocks:
            x = torch.tanh(b["q"](x) + b["k"](x))  # (N, 6)
            values.append(b["v"](x))  # (N, 4)
        return self.out(torch.tanh(values[0]) * values[1])  # (N, 3)


def twins(r=2, alpha=5.0, dropout=0.0, model=None, pattern=PATTERN):
    """Ours and peft's on one base model, with the same random (non-zero) A and B."""
    torch.manual_seed(0)
    base = (model or Tiny()).double()
    ours, theirs = copy.deepcopy(base), copy.deepcopy(base)
    names = apply_lora(ours, pattern, r=r, alpha=alpha, dropout=dropout)
    config = peft.LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules=pattern)
    theirs = peft.get_peft_model(theirs, config)
    for name, layer in lora_layers(ours).items():
        with torch.no_grad():
            layer.A.normal_()
            layer.B.normal_()
        peer = theirs.base_model.model.get_submodule(name)
        peer.lora_A["default"].weight.data.copy_(layer.A.data)
        peer.lora_B["default"].weight.data.copy_(layer.B.data)
    return ours, theirs, names


def test_forward_and_gradients_equal_peft():
    ours, theirs, names = twins()
    assert names == ["blocks.0.q", "blocks.0.v", "blocks.1.q", "blocks.1.v"]
    x = torch.randn(5, 6, dtype=torch.float64)
    w = torch.randn(5, 3, dtype=torch.float64)
    y_ours, y_theirs = ours(x), theirs(x)
    assert torch.allclose(y_ours, y_theirs, atol=1e-10, rtol=0)
    (y_ours * w).sum().backward()
    (y_theirs * w).sum().backward()
    for name, layer in lora_layers(ours).items():
        peer = theirs.base_model.model.get_submodule(name)
        assert torch.allclose(layer.A.grad, peer.lora_A["default"].weight.grad, atol=1e-10, rtol=0)
        assert torch.allclose(layer.B.grad, peer.lora_B["default"].weight.grad, atol=1e-10, rtol=0)


def test_dropout_acts_on_the_branch_input_as_peft_s_does():
    ours, theirs, _ = twins(dropout=0.5)
    x = torch.randn(7, 6, dtype=torch.float64)
    torch.manual_seed(3)
    y_ours = ours.train()(x)
    torch.manual_seed(3)
    y_theirs = theirs.train()(x)
    assert torch.allclose(y_ours, y_theirs, atol=1e-10, rtol=0)
    assert not torch.allclose(y_ours, ours.eval()(x))  # dropout did act
    assert torch.allclose(ours.eval()(x), theirs.eval()(x), atol=1e-10, rtol=0)


def test_merge_and_unload_equals_peft_s():
    ours, theirs, names = twins()
    x = torch.randn(5, 6, dtype=torch.float64)
    before = ours(x)
    merged_ours = merge_and_unload(ours)
    merged_theirs = theirs.merge_and_unload()
    assert not lora_layers(merged_ours) and type(merged_ours.get_submodule(names[0])) is nn.Linear
    for (n1, p1), (n2, p2) in zip(merged_ours.named_parameters(), merged_theirs.named_parameters(), strict=True):
        assert n1 == n2 and torch.allclose(p1, p2, atol=1e-12, rtol=0)
    assert torch.allclose(merged_ours(x), before, atol=1e-12, rtol=0)


def test_merge_then_unmerge_is_exact_and_the_merged_forward_equals_the_branch():
    ours, _, _ = twins(alpha=3.0, r=3)
    x = torch.randn(9, 6, dtype=torch.float64)
    weights = {n: p.detach().clone() for n, p in ours.named_parameters()}
    unmerged = ours(x)
    merge_lora(ours)
    assert all(layer.merged for layer in lora_layers(ours).values())
    assert (ours(x) - unmerged).abs().max().item() <= 1e-12
    assert not torch.equal(ours.blocks[0]["q"].base.weight, weights["blocks.0.q.base.weight"])
    unmerge_lora(ours)
    assert all(torch.equal(p, weights[n]) for n, p in ours.named_parameters())  # bit for bit


def test_at_initialisation_the_model_is_unchanged_and_only_a_and_b_train():
    torch.manual_seed(0)
    model = Tiny().double()
    x = torch.randn(4, 6, dtype=torch.float64)
    before = model(x)
    apply_lora(model, PATTERN, r=2, alpha=4)
    assert torch.equal(model(x), before)  # B = 0
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    assert trainable == [f"blocks.{i}.{p}.{w}" for i in (0, 1) for p in ("q", "v") for w in ("A", "B")]
    layer = model.blocks[0]["q"]
    assert torch.all(layer.B == 0) and layer.A.shape == (2, 6) and layer.B.shape == (6, 2)
    assert layer.A.abs().max().item() <= 1 / math.sqrt(6)  # kaiming_uniform(a=√5): U(±1/√fan_in)
    assert layer.scaling == 2.0


def test_lora_on_a_glassformer_gpt_equals_peft():
    model = build_model(ModelConfig(vocab_size=11, n_layers=2, d_model=8, n_heads=2, d_ff=16, dropout=0.0))
    linears = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    pattern = "|".join(re.escape(n) for n in linears[:2])  # the first block's first two projections
    ours, theirs, names = twins(r=4, alpha=8, model=model, pattern=pattern)
    assert names == linears[:2]
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    assert torch.allclose(ours(ids), theirs(ids), atol=1e-10, rtol=0)


def test_cached_decoding_reads_the_lora_branch():
    """Decoding goes through the model's one forward, so a LoRA layer counts with the KV cache too:
    the cached tokens equal the uncached ones, and differ from the base model's once B is not zero."""
    from glassformer.sample import generate_ids

    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=11, n_layers=2, d_model=8, n_heads=2, d_ff=16, dropout=0.0))
    base = copy.deepcopy(model)
    apply_lora(model, r"blocks\.\d+\..*", r=2, alpha=4.0)
    with torch.no_grad():
        for layer in lora_layers(model).values():
            layer.B.normal_(0, 2.0)  # a trained-looking branch: the model no longer equals its base
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]])

    def tokens(m, use_cache):
        return torch.stack(list(generate_ids(m, ids, 12, temperature=0.0, use_cache=use_cache)), dim=1)

    cached, uncached = tokens(model, True), tokens(model, False)
    assert torch.equal(cached, uncached)
    assert not torch.equal(cached, tokens(base, True))


@pytest.mark.parametrize(
    ("kwargs", "key", "fields"),
    [
        ({"r": 0}, "lora.rank", {"r": 0, "most": 4}),
        ({"r": 5}, "lora.rank", {"r": 5, "d_out": 4, "d_in": 6, "most": 4}),
        ({"alpha": 0}, "lora.alpha", {"alpha": 0}),
        ({"dropout": 1.0}, "lora.dropout", {"p": 1.0}),
    ],
)
def test_bad_settings_are_named(kwargs, key, fields):
    with pytest.raises(UsageError) as e:
        LoRALinear(nn.Linear(6, 4), **{"r": 2, "alpha": 1.0, **kwargs})
    assert e.value.key == key
    assert {k: e.value.fields[k] for k in fields} == fields


def test_a_pattern_that_matches_nothing_lists_the_linear_layers_and_changes_nothing():
    model = Tiny()
    with pytest.raises(UsageError) as e:
        apply_lora(model, r"blocks\.\d+\.z", r=1, alpha=1)
    assert e.value.code == "lora.no_match" and "blocks.0.k" in e.value.fields["names"]
    assert all(p.requires_grad for p in model.parameters()) and not lora_layers(model)


def test_merging_twice_or_unmerging_unmerged_is_refused():
    layer = LoRALinear(nn.Linear(6, 4), r=2, alpha=1.0, name="x")
    with pytest.raises(UsageError) as e:
        layer.unmerge()
    assert e.value.code == "lora.not_merged" and e.value.fields["name"] == "x"
    layer.merge()
    with pytest.raises(UsageError) as e:
        layer.merge()
    assert e.value.code == "lora.merged"


def test_a_rank_too_large_for_one_layer_leaves_the_model_untouched():
    model = Tiny()
    with pytest.raises(UsageError) as e:
        apply_lora(model, PATTERN, r=5, alpha=1)  # q is 6 × 6, v is 4 × 6: v refuses r=5
    assert e.value.code == "lora.rank" and e.value.fields["name"] == "blocks.0.v"
    assert all(p.requires_grad for p in model.parameters()) and not lora_layers(model)

"""Observing never changes the arithmetic: a listener that only reads, at any hook point of any
kind, leaves every output bit for bit as it was; a replaced per-head result makes the attention's
output from the shares it was given, Σ_h seen_h + b, never from a correction added to `out`."""

from __future__ import annotations

import pytest
import torch
from test_hook_ids import KINDS

from glassformer.models import build_model


def _run(model, x, hooks=None):
    with torch.no_grad():
        if hooks is None:
            return model(*x) if isinstance(x, tuple) else model(x)
        return model.run_with_hooks(*(x if isinstance(x, tuple) else (x,)), hooks=hooks)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_listener_that_only_reads_leaves_every_output_bit_for_bit_equal(kind):
    torch.manual_seed(0)
    model = build_model(KINDS[kind]).double().eval()
    x = model.example_input(2, 5)
    x = tuple(t for t in x) if isinstance(x, tuple) else (x.double() if x.is_floating_point() else x)
    plain = _run(model, x)
    seen: list[str] = []
    for name in model.hook_names():  # one point at a time ...
        out = _run(model, x, {name: lambda t, n: seen.append(n)})
        assert torch.equal(out, plain), name
    assert seen  # the listeners ran (the fused path may skip a few; none here)
    everywhere = {n: (lambda t, n: None) for n in model.hook_names()}  # ... and every point at once
    assert torch.equal(_run(model, x, everywhere), plain)


def test_a_replaced_result_makes_the_output_from_the_shares_it_was_given():
    torch.manual_seed(0)
    model = build_model(KINDS["gpt"]).double().eval()
    x = model.example_input(2, 5)
    kept = {}

    def double(t, name):
        kept["shares"] = 2 * t  # (B, T, H, C)
        return kept["shares"]

    def store(t, name):
        kept["out"] = t

    _run(model, x, {"blocks.0.attn.result": double, "blocks.0.attn.out": store})
    assert torch.equal(kept["out"], kept["shares"].sum(2) + model.blocks[0].attn.proj.bias)

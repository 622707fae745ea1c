"""Every axis label in the trace table names the size it labels.

The models are built with sizes that are all different (B=2, T=5, C=24, H=3, D=8, F=40, V=11,
d_in=3, d_out=2, max_len 16), so a label on the wrong axis — "B T H D" for a (B, H, T, D) tensor,
"B T C" for the FFN's (B, T, F) hidden layer — gives a size that disagrees with the letter.
A KV-cached step makes T_q (1 new token) differ from T_k (every token so far), so swapped query
and key labels disagree too. Bug guarded: a wrong axis label on a row of the trace table.
"""

from __future__ import annotations

import re

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.inspect import trace
from glassformer.models import build_model

SIZES = dict(B=2, T=5, C=24, H=3, D=8, F=40, V=11, d_in=3, d_out=2)
BASE = dict(d_model=24, n_heads=3, d_ff=40, n_layers=2, max_len=16, dropout=0.0)
MODELS = {
    "gpt": ModelConfig(vocab_size=11, **BASE),
    "gpt-rotary-heads": ModelConfig(vocab_size=11, position="rotary", mha_style="heads", **BASE),
    "gpt-alibi-post": ModelConfig(vocab_size=11, position="alibi", norm="post", **BASE),
    "encoder": ModelConfig(kind="encoder", vocab_size=11, causal=False, **BASE),
    "regressor": ModelConfig(kind="regressor", d_in=3, d_out=2, position="sinusoidal", **BASE),
}


def example(model) -> torch.Tensor:
    if model.inputs == "numbers":
        return torch.randn(SIZES["B"], SIZES["T"], SIZES["d_in"])  # (B, T, d_in)
    return torch.randint(0, SIZES["V"], (SIZES["B"], SIZES["T"]))  # (B, T)


@pytest.mark.parametrize("name", list(MODELS))
def test_every_trace_row_labels_each_axis_with_its_own_size(name):
    model = build_model(MODELS[name])
    rows = trace(model, example(model)).rows
    sizes = {**SIZES, "T_q": SIZES["T"], "T_k": SIZES["T"]}
    checked = 0
    for row in rows:
        if row.shape is None or row.dims == "() scalar":
            continue
        labels = re.fullmatch(r"\((.*)\)", row.dims).group(1).split(", ")
        assert all("=" in label for label in labels), f"{row.name}: no letters in {row.dims}"
        assert len(labels) == len(row.shape), f"{row.name}: {row.dims} for shape {row.shape}"
        for label in labels:
            letter, size = label.split("=")
            assert int(size) == sizes[letter], f"{row.name}: {letter}={size} but {letter} is {sizes[letter]}"
        checked += 1
    assert checked >= len(model.hook_points())  # every hook point's row, and the input rows


@pytest.mark.parametrize("position", ["learned", "alibi", "rotary"])
def test_query_and_key_axes_in_a_cached_step(position):
    """One new token against 5 cached ones: T_q = 1, T_k = 6, and T (the new tokens) = 1."""
    model = build_model(ModelConfig(vocab_size=11, position=position, **BASE)).eval()
    cache = model.new_cache(SIZES["B"])
    with torch.no_grad():
        model(torch.randint(0, 11, (SIZES["B"], 5)), cache=cache)  # prefill 5 tokens
        _, acts = model.run_with_cache(torch.randint(0, 11, (SIZES["B"], 1)), cache=cache)
    sizes = {**SIZES, "T": 1, "T_q": 1, "T_k": 6}
    points = model.hook_points()
    assert any("T_k" in points[n].axes for n in acts)
    for hook, t in acts.items():
        want = tuple(sizes[a] for a in points[hook].axes.split())
        assert tuple(t.shape) == want, f"{hook}: declared {points[hook].axes} = {want}, tensor {tuple(t.shape)}"

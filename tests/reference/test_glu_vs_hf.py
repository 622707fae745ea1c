"""The gated feed-forward (nn/glu.py) against transformers' LlamaMLP (SwiGLU, and GeGLU with
hidden_act="gelu"), Shazeer's formula written out, the NumPy twin and finite differences."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from helpers import ATOL, assert_matches, copy_linear, keyed, numpy_fn, randomize_
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.errors import UsageError
from glassformer.inspect.params import derived_parts
from glassformer.nn.glu import GatedFeedForward
from glassformer.numpy_ref.glu import gated_feed_forward

transformers = pytest.importorskip("transformers")
from transformers.models.llama.modeling_llama import LlamaMLP  # noqa: E402

C, FF = 12, 20


def ported(hf, variant: str, bias: bool) -> GatedFeedForward:
    """Ours with transformers' gate_proj / up_proj / down_proj copied in: the weight map, in one place."""
    ours = GatedFeedForward(C, FF, variant, bias).to(hf.gate_proj.weight.dtype)
    for mine, theirs in ((ours.gate, hf.gate_proj), (ours.up, hf.up_proj), (ours.down, hf.down_proj)):
        copy_linear(mine, theirs.weight, theirs.bias)
    return ours


@pytest.mark.parametrize("bias", [False, True], ids=["no-bias", "mlp_bias"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_swiglu_equals_llama_mlp(dtype, bias):
    cfg = transformers.LlamaConfig(
        hidden_size=C, num_attention_heads=2, intermediate_size=FF, hidden_act="silu", mlp_bias=bias
    )
    hf = randomize_(LlamaMLP(cfg)).to(dtype)
    x = torch.randn(2, 5, C, dtype=dtype)
    assert_matches(ported(hf, "swiglu", bias), hf, x, atol=ATOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_geglu_equals_llama_mlp_gated_by_the_exact_gelu(dtype):
    """transformers' LlamaMLP is act(gate_proj x) * up_proj x for any act; "gelu" is the exact GELU.
    (GemmaMLP is no reference for the paper's GeGLU: GemmaConfig turns hidden_act="gelu" into the
    tanh approximation.)"""
    cfg = transformers.LlamaConfig(hidden_size=C, num_attention_heads=2, intermediate_size=FF, hidden_act="gelu")
    hf = randomize_(LlamaMLP(cfg)).to(dtype)
    x = torch.randn(2, 5, C, dtype=dtype)
    assert_matches(ported(hf, "geglu", False), hf, x, atol=ATOL[dtype])


@pytest.mark.parametrize("variant, act", [("swiglu", lambda z: z * torch.sigmoid(z)), ("geglu", F.gelu)])
def test_glu_is_shazeers_formula(variant, act):
    """FFN(x) = (act(x W) ⊗ x V) W₂, Shazeer 2020 eq. 5-6, with the weights as plain matrices."""
    ours = randomize_(GatedFeedForward(C, FF, variant)).double()
    W, V, W2 = ours.gate.weight.T, ours.up.weight.T, ours.down.weight.T  # (C, F), (C, F), (F, C)
    x = torch.randn(3, 4, C, dtype=torch.float64)
    assert_matches(ours, lambda x: (act(x @ W) * (x @ V)) @ W2, x, atol=1e-10)


@pytest.mark.parametrize("variant", ["swiglu", "geglu"])
@pytest.mark.parametrize("bias", [False, True])
def test_glu_equals_the_numpy_twin(variant, bias):
    ours = randomize_(GatedFeedForward(C, FF, variant, bias)).double()
    params = ref.state_to_numpy(ours.state_dict())
    x = torch.randn(2, 5, C, dtype=torch.float64)
    assert_matches(ours, numpy_fn(lambda x: gated_feed_forward(x, params, variant)), x, atol=1e-10, grad=False)


@pytest.mark.parametrize("variant", ["swiglu", "geglu"])
def test_gradcheck(variant):
    ours = randomize_(GatedFeedForward(5, 7, variant, bias=True)).double()
    assert gradcheck(ours, (torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True),))


def test_the_hooks_show_gate_up_and_their_product():
    ours = randomize_(GatedFeedForward(C, FF)).double()
    seen = {}
    for name in ("gate", "up", "hidden", "out"):
        getattr(ours, f"hook_{name}").fns.append(lambda t, _, name=name: seen.__setitem__(name, t))
    x = torch.randn(2, 3, C, dtype=torch.float64)
    out = ours(x)
    assert torch.equal(seen["gate"], F.silu(ours.gate(x))) and torch.equal(seen["up"], ours.up(x))
    assert torch.equal(seen["hidden"], seen["gate"] * seen["up"]) and torch.equal(seen["out"], out)
    assert [h.axes for h in (ours.hook_gate, ours.hook_up, ours.hook_hidden, ours.hook_out)] == ["B T F"] * 3 + [
        "B T C"
    ]


@pytest.mark.parametrize("bias", [False, True])
def test_the_derived_formulas_add_up_to_the_real_count(bias):
    ours = GatedFeedForward(C, FF, bias=bias)
    parts = derived_parts(ours, {"C": C, "F": FF})  # the params view's formulas, from the three Linears
    plus = (" + F", " + F", " + C") if bias else ("", "", "")
    assert [(p, f.formula, f.note) for p, f in parts] == [
        ("gate", "C·F" + plus[0], "C -> F"),
        ("up", "C·F" + plus[1], "C -> F"),
        ("down", "F·C" + plus[2], "F -> C"),
    ]
    assert sum(f.value() for _, f in parts) == sum(p.numel() for p in ours.parameters())
    assert sum(f.value() for _, f in parts) == 3 * C * FF + (2 * FF + C if bias else 0)


def test_an_unknown_variant_is_refused_with_the_choices():
    assert keyed(UsageError, GatedFeedForward, C, FF, "reglu") == (
        "glu.variant",
        {"variant": "reglu", "names": ["swiglu", "geglu"]},
    )

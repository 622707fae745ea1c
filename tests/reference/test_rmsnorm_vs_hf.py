"""RMSNorm (nn/rmsnorm.py) against transformers' LlamaRMSNorm and Qwen3RMSNorm, PyTorch's own
rms_norm, the NumPy twin and finite differences.

Weights copied, random gains. float64 compares with transformers' float32 cast pointed at float64
(hf_float64.py); float32 and bfloat16 compare with transformers untouched.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from helpers import ATOL, assert_close, assert_matches, numpy_fn, randomize_
from hf_float64 import in_float64
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.inspect.params import derived_parts
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.numpy_ref.rmsnorm import rms_norm

transformers = pytest.importorskip("transformers")
from transformers.models.llama.modeling_llama import LlamaRMSNorm  # noqa: E402
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm  # noqa: E402

C, EPS = 12, 1e-5


def pair(reference_cls, dtype, eps=EPS):
    """Ours and transformers' norm with the same random gain, in dtype."""
    hf = randomize_(reference_cls(C, eps=eps)).to(dtype)
    ours = RMSNorm(C, eps=eps).to(dtype)
    with torch.no_grad():
        ours.weight.copy_(hf.weight)
    return ours, hf


@pytest.mark.parametrize("reference_cls", [LlamaRMSNorm, Qwen3RMSNorm], ids=["llama", "qwen3"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_rmsnorm_equals_transformers_forward_and_backward(reference_cls, dtype):
    ours, hf = pair(reference_cls, dtype)
    x = 3 * torch.randn(2, 5, C, dtype=dtype) + 0.5  # an offset: RMSNorm keeps it, LayerNorm would not
    reference = in_float64(hf) if dtype == torch.float64 else hf
    assert_matches(ours, reference, x, atol=ATOL[dtype])


def test_eps_sits_inside_the_root_where_it_matters():
    """Tiny vectors: x/√(mean x² + ε) and x/(√mean x² + ε) differ a lot; transformers has the first."""
    ours, hf = pair(LlamaRMSNorm, torch.float64, eps=1e-2)
    x = 1e-2 * torch.randn(3, C, dtype=torch.float64)
    assert_matches(ours, in_float64(hf), x, atol=1e-10)
    outside = x / (x.pow(2).mean(-1, keepdim=True).sqrt() + 1e-2) * ours.weight
    assert (ours(x) - outside).abs().max() > 1e-2


def test_transformers_computes_in_float32_even_for_float64():
    """Why hf_float64.py exists: untouched, transformers' float64 RMSNorm carries float32's error."""
    ours, hf = pair(LlamaRMSNorm, torch.float64)
    x = torch.randn(4, 7, C, dtype=torch.float64)
    gap = (ours(x) - hf(x)).abs().max().item()
    assert 1e-10 < gap < 1e-5


def test_bfloat16_is_normalised_in_float32_then_scaled_as_llama_does():
    ours, hf = pair(LlamaRMSNorm, torch.bfloat16)
    x = torch.randn(2, 6, C).to(torch.bfloat16)
    assert_close("bf16", ours(x), hf(x), 0.0)  # the same casts in the same order: the same bits
    naive = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * ours.weight  # statistics in bf16
    assert not torch.equal(ours(x), naive)


def test_rmsnorm_equals_torch_rms_norm():
    ours = randomize_(RMSNorm(C, eps=EPS)).double()
    x = torch.randn(3, 4, C, dtype=torch.float64)
    assert_matches(ours, lambda x: F.rms_norm(x, (C,), ours.weight, eps=EPS), x, atol=1e-10)


def test_rmsnorm_equals_the_numpy_twin():
    ours = randomize_(RMSNorm(C, eps=EPS)).double()
    params = ref.state_to_numpy(ours.state_dict())
    x = torch.randn(2, 5, C, dtype=torch.float64)
    assert_matches(ours, numpy_fn(lambda x: rms_norm(x, params, EPS)), x, atol=1e-10, grad=False)


def test_gradcheck_wrt_input_and_gain():
    ours = randomize_(RMSNorm(5, eps=EPS)).double()
    x = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    g = ours.weight.detach().clone().requires_grad_(True)
    assert gradcheck(lambda x, g: torch.func.functional_call(ours, {"weight": g}, (x,)), (x, g))


def test_the_scale_hook_sees_the_root_mean_square_and_can_replace_it():
    ours = randomize_(RMSNorm(C, eps=EPS)).double()
    x = torch.randn(2, 5, C, dtype=torch.float64)
    seen = []
    ours.hook_scale.fns.append(lambda t, name: seen.append(t))
    out = ours(x)
    assert_close("scale", seen[0], (x.pow(2).mean(-1) + EPS).sqrt(), 1e-12)
    assert (ours.hook_scale.axes, ours.hook_scale.stage) == ("B T", "rms_norm")
    ours.hook_scale.fns[:] = [lambda t, name: 2 * t]  # twice the scale: half the output
    assert_close("halved", ours(x), out / 2, 1e-12)


def test_the_params_view_counts_the_gain_in_the_input_s_last_letter():
    """The formula is derived from the module (inspect/params.py), the letter from its axes: D for a
    head's norm even where C has the same size."""
    stream, head = RMSNorm(C), RMSNorm(4, axes="B H T D")
    derived = [(p, f.formula, f.value(), f.note) for p, f in derived_parts(stream, {"C": C})]
    from glassformer.inspect.params import FORMULA_WORDS

    assert derived == [("", "C", C, FORMULA_WORDS["RMSNorm"])] and C == sum(p.numel() for p in stream.parameters())
    assert [(f.formula, f.value()) for _, f in derived_parts(head, {"C": 4, "D": 4})] == [("D", 4)]
    assert head.hook_scale.axes == "B H T"


def test_the_modern_pieces_numpy_twins_never_import_torch():
    twins = ", ".join(f"glassformer.numpy_ref.{m}" for m in ("rmsnorm", "glu", "rope_scaling", "attention_variants"))
    code = f"import sys, {twins}; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0

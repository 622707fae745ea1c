"""transformers at float64 precision, for the reference tests of the modern decoder's pieces.

transformers computes some steps in float32 whatever the model's dtype: the RMSNorms cast their input
`.to(torch.float32)`, eager attention's softmax takes `dtype=torch.float32`, and the RoPE frequencies
and angles are made with `dtype=torch.float` (and "dynamic" RoPE multiplies an integer tensor by a
Python float, which gives the default dtype, float32; Mixtral's router and DeepSeek's rotary
embedding call the method `.float()`). For bfloat16 models that is an upcast; for a float64
model it is a downcast that leaves about 1e-7 of error, so a float64 comparison at 1e-10 needs those
casts pointed at float64. Inside `transformers_in_float64()` the modules below see a `torch` whose
float32 (and float) is float64, `Tensor.float()` gives float64, and float64 is the default dtype;
everything else is torch itself.
Nothing of transformers' code is copied or changed: the same lines run, at the precision the test
asks for. The float32 tests run transformers untouched.
"""

from __future__ import annotations

import contextlib
import importlib
from unittest import mock

import torch

MODULES = (
    "transformers.modeling_rope_utils",
    "transformers.models.llama.modeling_llama",
    "transformers.models.qwen3.modeling_qwen3",
    "transformers.models.mistral.modeling_mistral",
    "transformers.models.mixtral.modeling_mixtral",
    "transformers.models.qwen3_moe.modeling_qwen3_moe",
    "transformers.models.deepseek_v3.modeling_deepseek_v3",
)


class _TorchInFloat64:
    """torch, except that float32 and float name float64."""

    float32 = torch.float64
    float = torch.float64

    def __getattr__(self, name: str):
        return getattr(torch, name)


def _to_float64(self: torch.Tensor, memory_format=torch.preserve_format) -> torch.Tensor:
    return self.to(torch.float64, memory_format=memory_format)


@contextlib.contextmanager
def transformers_in_float64():
    before = torch.get_default_dtype()
    with contextlib.ExitStack() as stack:
        for name in MODULES:
            stack.enter_context(mock.patch.object(importlib.import_module(name), "torch", _TorchInFloat64()))
        stack.enter_context(mock.patch.object(torch.Tensor, "float", _to_float64))
        torch.set_default_dtype(torch.float64)
        try:
            yield
        finally:
            torch.set_default_dtype(before)


def in_float64(fn):
    """fn, run inside transformers_in_float64() (a reference for assert_matches)."""

    def wrapped(*args, **kwargs):
        with transformers_in_float64():
            return fn(*args, **kwargs)

    return wrapped

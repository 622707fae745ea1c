"""RMSNorm: divide each vector by its root mean square, then scale each feature by a learned gain.

    RMSNorm(x) = x / √(mean(x²) + ε) ⊙ g          mean over the last axis; g (C,), starts at 1

    Zhang & Sennrich 2019, "Root Mean Square Layer Normalization", eq. 4: ā_i = a_i / RMS(a) · g_i,
    RMS(a) = √(1/n Σ a_i²).

Against LayerNorm (GPT-2's norm, nn.LayerNorm): no mean is subtracted, so a vector keeps its offset,
and there is no shift β; only the gain is learned (C numbers, not 2C). The paper's equation has no ε;
implementations put it inside the root, x · rsqrt(mean(x²) + ε) (T5, Llama, Qwen3, Mistral), as here.

Precision. transformers' LlamaRMSNorm and Qwen3RMSNorm cast the input to float32, normalise, cast back
to the input's dtype and only then multiply by g (Gemma multiplies before casting back). For bfloat16
and float16 that is an upcast, which we copy: the statistics of a narrow input are computed in float32.
For float64 it is a downcast, which we do not copy: a float64 input is normalised in float64 (the
reference tests point transformers' cast at float64 to compare at that precision).

One module serves the residual stream (axes "B T C", the block's norms and the final one) and each
head's queries and keys (axes "B H T D", QK-norm in nn/attention_variants.py); `axes` names the
input's letters, so the hook point on the scale says which tensor it divides.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from glassformer.nn.hooks import HookPoint

NARROW = (torch.float16, torch.bfloat16)  # dtypes whose statistics are computed in float32


class RMSNorm(nn.Module):
    """(..., C) -> (..., C): x / √(mean(x²) + ε) ⊙ g over the last axis."""

    def __init__(self, d: int, eps: float = 1e-6, axes: str = "B T C") -> None:
        super().__init__()
        self.eps, self.axes = eps, axes
        self.weight = nn.Parameter(torch.ones(d))  # (C,) the gain g: 1 at the start, the identity scale
        self.hook_scale = HookPoint("rms_norm", axes.rsplit(" ", 1)[0], "rms_norm.scale")  # one number a vector

    def forward(self, x: Tensor) -> Tensor:
        wide = x.float() if x.dtype in NARROW else x  # (..., C): bf16/fp16 normalised in float32
        rms = self.hook_scale((wide.pow(2).mean(-1) + self.eps).sqrt())  # (...,) √(mean(x²) + ε)
        # times 1/rms, not / rms: the same number to an ulp, and the product's backward is a third
        # cheaper than the quotient's (bench/modern.py's training step)
        normed = wide * rms.reciprocal().unsqueeze(-1)  # (..., C) every vector now has RMS ≈ 1
        if wide is not x:
            normed = normed.to(x.dtype)  # (..., C) back to the input's dtype
        return normed * self.weight  # (..., C) then the gain

    def extra_repr(self) -> str:
        return f"{self.weight.numel()}, eps={self.eps:g}"

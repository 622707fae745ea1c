"""The gated feed-forward: one hidden path opens or closes the other, unit by unit.

    FFN_GLU(x) = W_down · ( act(W_gate x) ⊙ W_up x )      W_gate, W_up: C -> F, W_down: F -> C
    SwiGLU: act = SiLU (Swish₁), SiLU(z) = z · σ(z)        GeGLU: act = GELU, GELU(z) = z · Φ(z)

    Shazeer 2020, "GLU Variants Improve Transformer", eq. 5-6 (FFN_SwiGLU, FFN_GEGLU, without biases);
    the gate is Dauphin et al. 2017's gated linear unit, with the sigmoid swapped for SiLU or GELU.

Against GPT-2's FeedForward (models/gpt.py, W₂ · GELU(W₁ x + b₁) + b₂): three matrices instead of two,
and the activation is applied to one path only and then multiplies the other element-wise. For equal
parameters the paper shrinks the hidden width by 2/3 (3·C·F = 2·C·F' when F = 2F'/3); Llama's F is
about 8C/3 for that reason. Llama, Qwen3 and Mistral use SwiGLU without biases (Llama's `mlp_bias`
turns them on, so `bias` is kept). GeGLU here is the paper's, with the exact (erf) GELU; Gemma's
checkpoints use the tanh approximation (transformers' `gelu_pytorch_tanh`), a third choice we do not
offer yet.

transformers' names for the three matrices are gate_proj, up_proj, down_proj (LlamaMLP); ours are
gate, up, down, the same order and layout.
"""

from __future__ import annotations

from typing import Callable

import torch.nn.functional as F
from torch import Tensor, nn

from glassformer.errors import UsageError
from glassformer.nn.hooks import HookPoint

GATES: dict[str, Callable[[Tensor], Tensor]] = {
    "swiglu": F.silu,  # z · σ(z)
    "geglu": F.gelu,  # z · Φ(z), the exact (erf) form
}


class GatedFeedForward(nn.Module):
    """(B, T, C) -> two (B, T, F) paths, one gated by the other -> (B, T, C).

    `axes`: the letters before the last axis, as the hook points declare them ("B T" for the stream;
    an expert of nn/moe.py reads only the N_e tokens routed to it, "N_e")."""

    def __init__(self, d_model: int, d_ff: int, variant: str = "swiglu", bias: bool = False, axes: str = "B T") -> None:
        super().__init__()
        if variant not in GATES:
            raise UsageError(
                "glu.variant",
                "gate={variant!r} is not one of {names}: a gated feed-forward is SwiGLU or GeGLU.",
                variant=variant,
                names=list(GATES),
            )
        self.variant, self.act, self.bias = variant, GATES[variant], bias
        self.gate = nn.Linear(d_model, d_ff, bias=bias)  # W_gate: the path the activation opens or closes
        self.up = nn.Linear(d_model, d_ff, bias=bias)  # W_up: the path that carries the values
        self.down = nn.Linear(d_ff, d_model, bias=bias)  # W_down: back to the residual width
        self.hook_gate = HookPoint("ffn_hidden", f"{axes} F", "glu.gate")
        self.hook_up = HookPoint("ffn_hidden", f"{axes} F", "glu.up")
        self.hook_hidden = HookPoint("ffn_hidden", f"{axes} F", "glu.hidden")
        self.hook_out = HookPoint("ffn_out", f"{axes} C", "ffn_out")

    def forward(self, x: Tensor) -> Tensor:
        gate = self.hook_gate(self.act(self.gate(x)))  # (B, T, F) act(x·W_gate)
        up = self.hook_up(self.up(x))  # (B, T, F) x·W_up
        hidden = self.hook_hidden(gate * up)  # (B, T, F) element-wise: the gate scales each unit
        return self.hook_out(self.down(hidden))  # (B, T, C)

    def extra_repr(self) -> str:
        return f"variant={self.variant!r}"

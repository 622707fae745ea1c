"""Initialisation schemes.

torch   PyTorch's defaults (Kaiming-uniform Linear, N(0, 1) Embedding); nothing to do.
xavier  Xavier/Glorot-uniform on every matrix, zero biases — the second tutorial's choice.
        U(-a, a), a = √(6 / (fan_in + fan_out))                    (Glorot & Bengio 2010)
gpt2    N(0, 0.02) for Linear and Embedding weights, zero biases, and the projections that
        write into the residual stream (attn.proj, cross.proj, ffn.fc2) scaled by 1/√(2·n_layers) so the
        stream's variance does not grow with depth.                 (Radford et al. 2019, §2.3)
"""

from __future__ import annotations

import math

from torch import nn

from glassformer.errors import UsageError

RESIDUAL_PROJECTIONS = ("attn.proj.weight", "cross.proj.weight", "ffn.fc2.weight")


def init_weights(model: nn.Module, scheme: str, n_layers: int) -> None:
    if scheme == "torch":
        return
    if scheme == "xavier":
        for name, p in model.named_parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
            elif name.endswith("bias") and "ln" not in name:
                nn.init.zeros_(p)
        return
    if scheme == "gpt2":
        for module in model.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        for name, p in model.named_parameters():
            if name.endswith(RESIDUAL_PROJECTIONS):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layers))
        return
    raise UsageError("error.init.scheme", scheme=scheme, names=["torch", "xavier", "gpt2"])

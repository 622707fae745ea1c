"""The position-wise feed-forward network: the same two-layer MLP applied to every token.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂          W₁: C -> F, W₂: F -> C      (Vaswani et al. §3.3)

act is ReLU (the paper), GELU (BERT), or GELU with the tanh approximation (GPT-2).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.nn.formula import ParamFormula, linear_formula
from glassformer.nn.hooks import HookPoint

ACTIVATION_FNS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


class FeedForward(nn.Module):
    """(B, T, C) -> (B, T, F) -> (B, T, C)."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        if activation not in ACTIVATION_FNS:
            raise ValueError(f"activation={activation!r} is not one of {list(ACTIVATION_FNS)}.")
        self.fc1 = nn.Linear(d_model, d_ff, bias=bias)
        self.fc2 = nn.Linear(d_ff, d_model, bias=bias)
        self.act, self.bias = ACTIVATION_FNS[activation], bias
        self.hook_hidden = HookPoint(
            "FFN hidden",
            "B T F",
            "after the first Linear and the activation",
            "第一个线性层和激活函数之后",
            "前馈隐藏层",
        )

    def param_formulas(self) -> list[ParamFormula]:
        C, F = self.fc1.in_features, self.fc1.out_features
        return [
            linear_formula("fc1", "C", "F", self.bias, "C -> F", C=C, F=F),
            linear_formula("fc2", "F", "C", self.bias, "F -> C", C=C, F=F),
        ]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.hook_hidden(self.act(self.fc1(x)))  # (B, T, F)
        return self.fc2(hidden)  # (B, T, C)

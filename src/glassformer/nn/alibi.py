"""ALiBi: attention with linear biases. Nothing is added to the stream; far keys are penalised.

    Press, Smith & Lewis 2022, "Train Short, Test Long: Attention with Linear Biases Enables Input
    Length Extrapolation", §3

Head h adds to the score of query i and key j a penalty that grows linearly with their distance:

    scores[h, i, j] = q_i · k_j / √D  -  m_h · |i - j|

m_h is a fixed slope per head, a geometric sequence (§3, footnote and the authors' code). For H a
power of two,

    m_h = (2^(-8/H))^h = 2^(-8h/H),  h = 1 .. H        H = 8: 1/2, 1/4, ..., 1/256

so heads with a large slope look at near tokens and heads with a small one far back. For other H
the paper takes the slopes of P = the largest power of two below H, then every other slope of
2P (its 1st, 3rd, 5th, ...) until there are H: H = 6 gives P = 4's 1/4, 1/16, 1/64, 1/256,
then 8's 1/2, 1/8.

Causal models see only j <= i, where |i - j| = i - j is the paper's bias exactly. For keys after
the query (j > i, which only a bidirectional Encoder sees) we use the same |i - j|, as the paper's
suggestion for encoders does: distance in either direction costs the same. The one-sided formula,
-m·(i - j), would turn positive for j > i and *reward* the farthest future keys.

Nothing depends on a table of positions, so any length works; a causal model keeps generating
past max_len (see nn/kv_cache.py). No parameters: the slopes are fixed, kept as a buffer.
"""

from __future__ import annotations

import torch

from glassformer.nn.formula import ParamFormula, counted
from glassformer.nn.hooks import hook
from glassformer.nn.position import AttentionPositions, PositionScheme, register_position_scheme


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """(H,) float64 slopes m_h, as the paper chooses them for any number of heads."""
    P = 1 << (n_heads.bit_length() - 1)  # the largest power of two <= H
    own = [2.0 ** (-8 * h / P) for h in range(1, P + 1)]  # P's geometric sequence
    between = [2.0 ** (-8 * h / (2 * P)) for h in range(1, 2 * P + 1, 2)]  # 2P's odd-numbered slopes
    return torch.tensor(own + between[: n_heads - P], dtype=torch.float64)  # (H,)


class ALiBi(AttentionPositions):
    """The score bias -m_h·|i - j|, (H, T_q, T_k), for queries at offset.. and keys at 0..T_k-1."""

    def __init__(self, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.register_buffer("slopes", alibi_slopes(n_heads).to(torch.get_default_dtype()), persistent=False)  # (H,)
        self.hook_bias = hook("alibi", "H T_q T_k", "alibi")

    def param_formulas(self) -> list[ParamFormula]:
        return [counted("", "0", note="alibi")]

    def _apply(self, fn, recurse=True):
        # .double(), .to(device): recompute the slopes from float64 instead of casting a rounded copy
        out = super()._apply(fn, recurse)
        self.slopes = alibi_slopes(self.n_heads).to(self.slopes.dtype).to(self.slopes.device)  # (H,)
        return out

    def forward(self, T_q: int, T_k: int, offset: int = 0) -> torch.Tensor:
        i = torch.arange(offset, offset + T_q, device=self.slopes.device)  # (T_q,) query positions
        j = torch.arange(T_k, device=self.slopes.device)  # (T_k,) key positions
        penalty = -(i[:, None] - j[None, :]).abs()  # (T_q, T_k) -|i - j|, integers (so 0 is +0)
        return self.slopes[:, None, None] * penalty.to(self.slopes.dtype)  # (H, T_q, T_k)

    def score_bias(self, T_q: int, T_k: int, offset: int) -> torch.Tensor:
        return self.hook_bias(self(T_q, T_k, offset))  # (H, T_q, T_k)

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}"


register_position_scheme(
    PositionScheme(
        "alibi",
        attention=lambda cfg: ALiBi(cfg.n_heads),
    )
)

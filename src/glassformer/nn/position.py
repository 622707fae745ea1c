"""Position schemes: attention itself is blind to order, so something must say where tokens sit.

One extension point, three touch points. A scheme may
  1. add a vector to the residual stream at each position   (learned, sinusoidal)   `stream`
  2. rotate queries and keys inside attention                 (rotary: nn/rotary.py)  `attention`
  3. add a bias to the attention scores                       (alibi: nn/alibi.py)    `attention`
or touch nothing at all ("none", NoPE). Every touch point receives the absolute position of the
first token it sees (`offset`), so with a KV cache, token t is still treated as sitting at t.

A scheme is registered once, by name, in the file that defines it:

    register_position_scheme(PositionScheme("learned", "a trained (max_len, C) table", ...,
                                            stream=lambda cfg: LearnedPositions(cfg.max_len, cfg.d_model)))

and `ModelConfig.position` names it. The model asks `position_scheme(cfg.position)` for its parts:
`stream(cfg)` builds the module added to the stream (forward(T, offset) -> (T, C)); `attention(cfg)`
builds one `AttentionPositions` per attention layer. `table=True` says the scheme knows positions
0..max_len-1 only, so the sampler crops to the last max_len tokens; the others read any length.
docs/positions.md explains every scheme and shows, file by file, how to add one.

Learned:     P is an (max_len, C) table trained like any weight (GPT-2).
Sinusoidal:  P[p, 2i]   = sin(p / 10000^(2i/C))
             P[p, 2i+1] = cos(p / 10000^(2i/C))            (Vaswani et al. 2017, §3.5)
  For every frequency, (P[p, 2i], P[p, 2i+1]) is a point on a circle at angle p·ω_i, so
  P[p+k] is P[p] rotated by k·ω_i in each pair, and P[p]·P[p+k] = Σ cos(k·ω_i) depends on k only.
Both tables refuse T > max_len with a message saying what to do.
None (NoPE):  nothing. A causal model can still infer order, since token t sees exactly t+1 tokens
  (Haviv et al. 2022, "Transformer Language Models without Positional Encodings Still Learn
  Positional Information"; Kazemnejad et al. 2023 compare it with the others); a bidirectional
  one cannot: permuting its input permutes its output (tests/unit/test_positions.py).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.messages import t
from glassformer.nn.formula import ParamFormula


@dataclass(frozen=True)
class PositionScheme:
    name: str
    about: str  # one line, English
    zh: str  # the same line, 中文
    stream: Callable[[ModelConfig], nn.Module] | None = None  # touch point 1
    attention: Callable[[ModelConfig], "AttentionPositions"] | None = None  # touch points 2 and 3
    table: bool = False  # True: it knows positions 0..max_len-1 only (a table), so T <= max_len


POSITION_SCHEMES: dict[str, PositionScheme] = {}


def register_position_scheme(scheme: PositionScheme) -> PositionScheme:
    POSITION_SCHEMES[scheme.name] = scheme
    return scheme


def position_scheme(name: str) -> PositionScheme:
    """The registered scheme called `name`, or an error naming the nearest one."""
    if name not in POSITION_SCHEMES:
        near = difflib.get_close_matches(name, POSITION_SCHEMES, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.position.unknown", name=name, names=sorted(POSITION_SCHEMES), hint=hint)
    return POSITION_SCHEMES[name]


class AttentionPositions(nn.Module):
    """The in-attention part of a scheme. Subclasses override one or both touch points.

    Do the work in `forward` and call `self(...)` from the touch point (nn/rotary.py, nn/alibi.py):
    views that order modules by first use (inspect/flow.py) then see the scheme where it acts.
    """

    def rotate(self, q: torch.Tensor, k: torch.Tensor, offset: int) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, D) of tokens at positions offset..offset+T-1 -> rotated q, k."""
        return q, k

    def score_bias(self, T_q: int, T_k: int, offset: int) -> torch.Tensor | None:
        """(H, T_q, T_k) added to Q·Kᵀ/√D; queries sit at offset.., keys at 0..T_k-1. None: no bias."""
        return None


def check_length(T: int, max_len: int) -> None:
    if T > max_len:
        raise UsageError("error.position.too_long", T=T, max_len=max_len)


def sinusoidal_table(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The (max_len, C) sinusoidal table of the paper, computed in float64 then cast."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),)
    omega = torch.exp(-math.log(10000.0) * two_i / d_model)  # (ceil(C/2),) = 1 / 10000^(2i/C)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(pos * omega)  # even features
    table[:, 1::2] = torch.cos(pos * omega[: d_model // 2])  # odd features (C may be odd)
    return table.to(dtype)  # (L, C)


class LearnedPositions(nn.Module):
    """A trained (max_len, C) table, indexed by position."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.table = nn.Embedding(max_len, d_model)

    def param_formulas(self) -> list[ParamFormula]:
        L, C = self.table.weight.shape
        return [ParamFormula("", "L·C", {"L": L, "C": C}, "one C-vector per position", zh="每个位置一个 C 维向量")]

    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        check_length(offset + T, self.max_len)
        pos = torch.arange(offset, offset + T, device=self.table.weight.device)  # (T,)
        return self.table(pos)  # (T, C)


class SinusoidalPositions(nn.Module):
    """The fixed table above, kept as a non-persistent buffer (recomputed, never checkpointed)."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", sinusoidal_table(max_len, d_model), persistent=False)

    def param_formulas(self) -> list[ParamFormula]:
        return [
            ParamFormula(
                "",
                "0",
                {},
                "fixed sin/cos table: a buffer, not a parameter",
                zh="固定的 sin/cos 表：是缓冲区，不是参数",
            )
        ]

    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        check_length(offset + T, self.max_len)
        return self.table[offset : offset + T]  # (T, C)

    def _apply(self, fn, recurse=True):
        # keep the table exact: converting the module to float64 recomputes it in float64
        out = super()._apply(fn, recurse)
        if self.table.dtype != torch.float32:
            self.table = sinusoidal_table(self.max_len, self.table.size(1), self.table.dtype).to(self.table.device)
        return out


register_position_scheme(
    PositionScheme(
        "learned",
        "a trained (max_len, C) table added to the stream (GPT-2)",
        "一张训练出来的 (max_len, C) 表，加到残差流上（GPT-2）",
        stream=lambda cfg: LearnedPositions(cfg.max_len, cfg.d_model),
        table=True,
    )
)
register_position_scheme(
    PositionScheme(
        "sinusoidal",
        "fixed sin/cos waves added to the stream (Vaswani et al. 2017)",
        "固定的正弦/余弦波，加到残差流上（Vaswani 等 2017）",
        stream=lambda cfg: SinusoidalPositions(cfg.max_len, cfg.d_model),
        table=True,
    )
)
register_position_scheme(
    PositionScheme(
        "none",
        "no position information (NoPE): only a causal mask can tell order",
        "不提供位置信息（NoPE）：只有因果掩码能透露顺序",
    )
)

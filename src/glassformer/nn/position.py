"""Position schemes: attention itself is blind to order, so something must say where tokens sit.

One extension point, three touch points. A scheme may
  1. add a vector to the residual stream at each position   (learned, sinusoidal)   `stream`
  2. rotate queries and keys inside attention                 (rotary, below)         `attention`
  3. add a bias to the attention scores                       (alibi, below)          `attention`
or touch nothing at all ("none", NoPE). Every touch point receives the absolute position of the
first token it sees (`offset`), so with a KV cache, token t is still treated as sitting at t.

A scheme is registered once, by name, in the file that defines it:

    register_position_scheme(PositionScheme("sinusoidal", stream=lambda cfg: SinusoidalPositions(cfg.max_len,
                                            cfg.d_model), table=True))

with its one-line description in the glossary (`position.learned` in messages/glossary.py),
or given as `about=` and `zh=` by a scheme registered outside the package.

and `ModelConfig.position` names it. The model asks `position_scheme(cfg.position)` for its parts:
`stream(cfg)` builds the module added to the stream (forward(T, offset) -> (T, C)); `attention(cfg)`
builds one `AttentionPositions` per attention layer. `table=True` says the scheme knows positions
0..max_len-1 only, so the sampler crops to the last max_len tokens; the others read any length.
docs/positions.md explains every scheme and shows, file by file, how to add one.

GPT-2's learned table lives with the token embedding it is added to (models/gpt.py, which registers
"learned"). The others live here, each under its own heading with its equation and source:
sinusoidal (`SinusoidalPositions`), rotary (RoPE, `RotaryPositions`) and alibi (`ALiBi`).
None (NoPE):  nothing. A causal model can still infer order, since token t sees exactly t+1 tokens
  (Haviv et al. 2022, "Transformer Language Models without Positional Encodings Still Learn
  Positional Information"; Kazemnejad et al. 2023 compare it with the others); a bidirectional
  one cannot: permuting its input permutes its output (tests/nn/test_positions.py).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor, nn

from glassformer.config import ModelConfig
from glassformer.errors import Clause, UsageError
from glassformer.nn.hooks import HookPoint


@dataclass(frozen=True)
class PositionScheme:
    name: str
    about: str = ""  # one line, English, for a scheme registered outside the package; "": the glossary's
    zh: str = ""  # the same line, in Chinese (the built-in schemes' lines are `position.<name>` there)
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
        hint = Clause(" Did you mean {near!r}?", near=near[0]) if near else ""
        raise UsageError(
            "position.unknown",
            "position={name!r} is not one of {names}.{hint}",
            name=name,
            names=sorted(POSITION_SCHEMES),
            hint=hint,
        )
    return POSITION_SCHEMES[name]


class AttentionPositions(nn.Module):
    """The in-attention part of a scheme. Subclasses override one or both touch points.

    Do the work in `forward` and call `self(...)` from the touch point (RotaryPositions, ALiBi below):
    views that order modules by first use (inspect/params.py) then see the scheme where it acts.
    """

    def rotate(self, q: torch.Tensor, k: torch.Tensor, offset: int) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, D) of tokens at positions offset..offset+T-1 -> rotated q, k."""
        return q, k

    def score_bias(self, T_q: int, T_k: int, offset: int) -> torch.Tensor | None:
        """(H, T_q, T_k) added to Q·Kᵀ/√D; queries sit at offset.., keys at 0..T_k-1. None: no bias."""
        return None


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Sinusoidal positions (Vaswani §3.5): a fixed table added to the stream.
#     P[p, 2i] = sin(p·ω_i),  P[p, 2i+1] = cos(p·ω_i),  ω_i = 1 / 10000^(2i/C)
# Each (sin, cos) pair is a point on a circle at angle p·ω_i, so P[p+k] is P[p] turned by k·ω_i in
# every pair, and P[p]·P[p+k] = Σ cos(k·ω_i) depends on the distance k only.
# ────────────────────────────────────────────────────────────────────────────────────────────────


def too_long(T: int, max_len: int) -> UsageError:
    """The error of a table scheme (this one, GPT-2's learned table) asked for more rows than it has."""
    return UsageError(
        "position.too_long",
        "sequence length T={T} exceeds max_len {max_len}: the model "
        "has positions for at most {max_len} tokens. Crop the input "
        "to its last {max_len} tokens (the sampler does this), or "
        "build the model with a larger max_len.",
        T=T,
        max_len=max_len,
    )


def check_length(T: int, max_len: int) -> None:
    if T > max_len:
        raise too_long(T, max_len)


def sinusoidal_table(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """P above, computed in float64 then cast."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),)
    omega = torch.exp(-math.log(10000.0) * two_i / d_model)  # (ceil(C/2),) = 1 / 10000^(2i/C)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(pos * omega)  # even features
    table[:, 1::2] = torch.cos(pos * omega[: d_model // 2])  # odd features (C may be odd)
    return table.to(dtype)  # (L, C)


class SinusoidalPositions(nn.Module):
    """The same rows of the fixed table, a non-persistent buffer (recomputed, never checkpointed)."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", sinusoidal_table(max_len, d_model), persistent=False)

    def forward(self, T: int, offset: int = 0) -> Tensor:
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
        "sinusoidal",
        stream=lambda cfg: SinusoidalPositions(cfg.max_len, cfg.d_model),
        table=True,
    )
)
register_position_scheme(
    PositionScheme(
        "none",
    )
)

# ────────────────────────────────────────────────────────────────────────────────────────────────
# rotary
#
# Rotary position embedding (RoPE): a token's position turns its query and key.
#
#     Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding", §3.2 (eq. 14-16)
#
# Split each head's D features into D/2 pairs (x_2i, x_2i+1) and read every pair as a point in the
# plane. The token at position p turns pair i by the angle p·θ_i:
#
#     θ_i = base^(-2i/D),   i = 0 .. D/2-1,   base = 10000 (the paper's, as in sinusoidal positions)
#
#     ⎡x'_2i  ⎤   ⎡cos pθ_i  -sin pθ_i⎤ ⎡x_2i  ⎤
#     ⎣x'_2i+1⎦ = ⎣sin pθ_i   cos pθ_i⎦ ⎣x_2i+1⎦          written R(p) x
#
# Queries and keys are turned, values are not. Rotations compose, R(m)ᵀ R(n) = R(n - m), so the score
# of a query at m and a key at n is
#
#     (R(m) q) · (R(n) k) = q · R(n - m) k                depends on the distance n - m only
#
# tests/reference/test_rotary.py checks this for random positions, and against q·R(n-m)·k
# written out with explicit 2×2 blocks. The pairing is the paper's: neighbours (0,1), (2,3), ...
# (GPT-NeoX and LLaMA's code pairs feature i with i + D/2 instead: the same model with the rows of
# W_q and W_k permuted.)
#
# No table limits the positions: the angle of any position is computed. The cos/sin of the
# positions seen so far are kept (a non-persistent buffer: recomputed, never checkpointed), made in
# float64 and then cast, so position 100 000 is as exact as position 3, and grown by doubling when a
# longer sequence comes (sampling past max_len, see nn/kv_cache.py). No parameters.
#
# `base` is an argument of the module, not a config field: "rotary" is base 10000; another base is
# one more registration, e.g. `attention=lambda cfg: RotaryPositions(cfg.d_head, cfg.max_len, 500_000.0)`.
# ────────────────────────────────────────────────────────────────────────────────────────────────


def rotary_angles(n_positions: int, d_head: int, base: float = 10000.0) -> torch.Tensor:
    """(n, D/2) float64: the angle p·θ_i of pair i at position p, θ_i = base^(-2i/D)."""
    p = torch.arange(n_positions, dtype=torch.float64)[:, None]  # (n, 1) positions
    two_i = torch.arange(0, d_head, 2, dtype=torch.float64)  # (D/2,) first feature of each pair
    theta = base ** (-two_i / d_head)  # (D/2,) turning speed of each pair, 1 down to ~1/base
    return p * theta  # (n, D/2)


class RotaryPositions(AttentionPositions):
    """Turns q and k (B, H, T, D) pair by pair by their positions' angles. 0 parameters."""

    def __init__(self, d_head: int, max_len: int, base: float = 10000.0) -> None:
        super().__init__()
        self.d_head, self.base = d_head, base
        if d_head % 2:
            raise UsageError(
                "rotary.odd_head",
                "position='rotary' turns pairs of features, so d_head must "
                "be even; got d_head={d_head}. Choose d_model and n_heads so "
                "that d_model // n_heads is even.",
                d_head=d_head,
            )
        # cos and sin of every angle for positions 0..max_len-1 up front; more when asked for
        self.register_buffer("cos", torch.empty(0), persistent=False)  # (n, D/2)
        self.register_buffer("sin", torch.empty(0), persistent=False)  # (n, D/2)
        self._fill(max_len, torch.get_default_dtype(), None)
        self.hook_q = HookPoint("rotary", "B H T D", "rotary.q")
        self.hook_k = HookPoint("rotary", "B H T D", "rotary.k")

    def _fill(self, n: int, dtype: torch.dtype, device) -> None:
        # the tables outlive the call that grows them: even when sampling runs under inference_mode
        # (sample.py) they must stay ordinary tensors, or the next training step fails
        with torch.inference_mode(False):
            angles = rotary_angles(n, self.d_head, self.base)  # (n, D/2) float64
            self.cos = angles.cos().to(dtype).to(device)  # (n, D/2), cast on the CPU, then moved
            self.sin = angles.sin().to(dtype).to(device)  # (n, D/2)

    def _apply(self, fn, recurse=True):
        # .double(), .to(device): recompute the tables from float64 instead of casting a rounded copy
        out = super()._apply(fn, recurse)
        self._fill(self.cos.size(0), self.cos.dtype, self.cos.device)
        return out

    def angles(self, offset: int, T: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and sin (T, D/2) of positions offset..offset+T-1, growing the tables if needed."""
        end = offset + T
        if end > self.cos.size(0):
            self._fill(max(end, 2 * self.cos.size(0)), self.cos.dtype, self.cos.device)
        return self.cos[offset:end], self.sin[offset:end]  # 2 × (T, D/2)

    def pairs(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., D) -> (..., D/2, 2): pair i, the point (x_2i, x_2i+1) this module turns."""
        return x.unflatten(-1, (-1, 2))  # (..., D/2, 2): pair i = features 2i, 2i+1

    def pair_angles(self, offset: int, T: int) -> torch.Tensor:
        """(T, D/2) float64: the angle p·θ_i pair i of position p (offset..offset+T-1) is turned by."""
        return rotary_angles(offset + T, self.d_head, self.base)[offset:]  # (T, D/2)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x (B, H, T, D) of tokens at positions offset..offset+T-1 -> x turned, (B, H, T, D)."""
        cos, sin = self.angles(offset, x.size(-2))  # 2 × (T, D/2)
        pairs = self.pairs(x)  # (B, H, T, D/2, 2): pair i = features 2i, 2i+1
        a, b = pairs[..., 0], pairs[..., 1]  # 2 × (B, H, T, D/2)
        turned = torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1)  # (B, H, T, D/2, 2)
        return turned.flatten(-2)  # (B, H, T, D)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, offset: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.hook_q(self(q, offset)), self.hook_k(self(k, offset))  # 2 × (B, H, T, D)

    def extra_repr(self) -> str:
        return f"d_head={self.d_head}, base={self.base:g}"


register_position_scheme(
    PositionScheme(
        "rotary",
        attention=lambda cfg: RotaryPositions(cfg.d_head, cfg.max_len),
    )
)

# ────────────────────────────────────────────────────────────────────────────────────────────────
# alibi
#
# ALiBi: attention with linear biases. Nothing is added to the stream; far keys are penalised.
#
#     Press, Smith & Lewis 2022, "Train Short, Test Long: Attention with Linear Biases Enables Input
#     Length Extrapolation", §3
#
# Head h adds to the score of query i and key j a penalty that grows linearly with their distance:
#
#     scores[h, i, j] = q_i · k_j / √D  -  m_h · |i - j|
#
# m_h is a fixed slope per head, a geometric sequence (§3, footnote and the authors' code). For H a
# power of two,
#
#     m_h = (2^(-8/H))^h = 2^(-8h/H),  h = 1 .. H        H = 8: 1/2, 1/4, ..., 1/256
#
# so heads with a large slope look at near tokens and heads with a small one far back. For other H
# the paper takes the slopes of P = the largest power of two below H, then every other slope of
# 2P (its 1st, 3rd, 5th, ...) until there are H: H = 6 gives P = 4's 1/4, 1/16, 1/64, 1/256,
# then 8's 1/2, 1/8.
#
# Causal models see only j <= i, where |i - j| = i - j is the paper's bias exactly. For keys after
# the query (j > i, which only a bidirectional Encoder sees) we use the same |i - j|, as the paper's
# suggestion for encoders does: distance in either direction costs the same. The one-sided formula,
# -m·(i - j), would turn positive for j > i and *reward* the farthest future keys.
#
# Nothing depends on a table of positions, so any length works; a causal model keeps generating
# past max_len (see nn/kv_cache.py). No parameters: the slopes are fixed, kept as a buffer.
# ────────────────────────────────────────────────────────────────────────────────────────────────


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
        self.hook_bias = HookPoint("alibi", "H T_q T_k", "alibi")

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


__all__ = [
    "POSITION_SCHEMES",
    "ALiBi",
    "AttentionPositions",
    "PositionScheme",
    "RotaryPositions",
    "alibi_slopes",
    "SinusoidalPositions",
    "check_length",
    "position_scheme",
    "register_position_scheme",
    "rotary_angles",
    "sinusoidal_table",
    "too_long",
]

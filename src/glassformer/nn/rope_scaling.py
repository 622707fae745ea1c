"""RoPE as Llama, Qwen3 and Mistral write it: a configurable base, the scalings that stretch it past
the training context, and the half-split rotation.

Frequencies. Pair i of a head's D features turns by the angle p·θ_i at position p (Su et al. 2021,
RoFormer, eq. 15):

    θ_i = base^(-2i/D),   i = 0 .. D/2-1        base 10000 (RoFormer, Llama 2), 500 000 (Llama 3),
                                                1 000 000 (Qwen3) — a configuration, not code

Scalings. A model trained on L tokens has seen angles p·θ_i for p < L only. Each scaling changes the
θ_i (and YaRN also the size of q and k) so that positions up to s·L look like positions it has seen
(L = `original_max_len`, s = `factor`):

  linear   θ'_i = θ_i / s                          Position Interpolation: Chen et al. 2023, "Extending
                                                   Context Window of Large Language Models via
                                                   Positional Interpolation", eq. 2 (p -> p/s)
  dynamic  base' = base · (s·l/L - (s - 1))^(D/(D-2)),  l = max(current length, L)
                                                   NTK-aware scaling, b' = b·α^(D/(D-2)) (bloc97, 2023;
                                                   Peng et al. 2023, "YaRN", §3.1, eq. 13), its α grown
                                                   with the length as transformers' "dynamic" does
                                                   (emozilla, 2023); at l <= L it is plain RoPE
  yarn     θ'_i = (1 - γ_i)·θ_i/s + γ_i·θ_i,  and q, k each × m = 0.1·ln s + 1
                                                   Peng et al. 2023, "YaRN: Efficient Context Window
                                                   Extension of Large Language Models", eq. 18-21
  llama3   λ_i = 2π/θ_i;  θ'_i = θ_i if λ_i < L/h,  θ_i/s if λ_i > L/l,  else
           (1 - κ)·θ_i/s + κ·θ_i with κ = (L/λ_i - l)/(h - l)   (l, h: low/high_freq_factor)
                                                   Meta's Llama 3.1 code (no paper gives it)

Where transformers differs from the YaRN paper, we follow transformers (the reference every test
compares with, and what checkpoints were tuned with): the paper ramps γ linearly in r_i = L/λ_i
(γ = 0 below r = β_slow, 1 above r = β_fast); transformers (and the YaRN authors' code) finds the
two dimension indices where r crosses those bounds, rounds them outwards (floor, ceil; `truncate`),
and ramps linearly in the index i between them. The paper's dynamic scaling takes s = l/L;
transformers' "dynamic" uses α = s·l/L - (s - 1) with the configured s. `attention_factor` (YaRN's m)
multiplies cos and sin, so every score q·k is multiplied by m², the paper's 1/t.

Rotation, half-split. Llama's code (and transformers', and so every checkpoint of these families)
pairs feature j with feature j + D/2, not with its neighbour as RoFormer and nn/position.py's
RotaryPositions do: with a = x[:D/2], b = x[D/2:],

    rotate(x) = (a·cos - b·sin,  b·cos + a·sin)         = x·cos + rotate_half(x)·sin in transformers

The two pairings are the same model with the features of q and k permuted (tests check it).

Every angle is computed in float64 and then cast, so position 100 000 is as exact as position 3
(transformers computes θ_i and p·θ_i in float32 whatever the model's dtype).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor

from glassformer.errors import UsageError
from glassformer.nn.hooks import HookPoint
from glassformer.nn.position import AttentionPositions, PositionScheme, register_position_scheme


@dataclass(frozen=True)
class RopeScaling:
    """How RoPE is stretched past the training context; kind "none" is plain RoPE. The names are
    transformers' `rope_parameters` keys where they exist (`original_max_len` is its
    original_max_position_embeddings, or max_position_embeddings for "dynamic")."""

    kind: str = "none"  # "none" | "linear" | "dynamic" | "yarn" | "llama3"
    factor: float = 1.0  # s: the context to reach, in multiples of the original one
    original_max_len: int = 0  # L: the context the model was trained on (every kind but "none", "linear")
    low_freq_factor: float = 1.0  # llama3: wavelengths above L/low are divided by s (Meta's value)
    high_freq_factor: float = 4.0  # llama3: wavelengths below L/high are kept (Meta's value)
    beta_fast: float = 32.0  # yarn: dimensions turning more than this many times in L are kept (paper's β)
    beta_slow: float = 1.0  # yarn: dimensions turning less than this many times in L are divided by s (α)
    attention_factor: float | None = None  # yarn: m; None: the paper's 0.1·ln s + 1
    truncate: bool = True  # yarn: round the ramp's bounds outwards to whole dimensions, as transformers


def inverse_frequencies(d_head: int, base: float) -> Tensor:
    """(D/2,) float64: θ_i = base^(-2i/D), the turning speed of pair i."""
    if d_head % 2:
        raise UsageError(
            "rotary.odd_head",
            "position='rotary' turns pairs of features, so d_head must "
            "be even; got d_head={d_head}. Choose d_model and n_heads so "
            "that d_model // n_heads is even.",
            d_head=d_head,
        )
    two_i = torch.arange(0, d_head, 2, dtype=torch.float64)  # (D/2,) 2i
    return base ** (-two_i / d_head)  # (D/2,) 1 down to ~1/base


def _none(d_head: int, base: float, s: RopeScaling, seq_len: int | None) -> tuple[Tensor, float]:
    return inverse_frequencies(d_head, base), 1.0  # (D/2,)


def _linear(d_head: int, base: float, s: RopeScaling, seq_len: int | None) -> tuple[Tensor, float]:
    return inverse_frequencies(d_head, base) / s.factor, 1.0  # (D/2,) position p reads as p/s


def _dynamic(d_head: int, base: float, s: RopeScaling, seq_len: int | None) -> tuple[Tensor, float]:
    length = max(seq_len or 0, s.original_max_len)  # l: at most L changes nothing
    alpha = s.factor * length / s.original_max_len - (s.factor - 1)  # 1 at l = L, growing with l
    return inverse_frequencies(d_head, base * alpha ** (d_head / (d_head - 2))), 1.0  # (D/2,)


def yarn_ramp(d_head: int, base: float, s: RopeScaling) -> Tensor:
    """(D/2,) γ_i: 0 where pair i is interpolated (θ_i/s), 1 where it is kept (θ_i), a linear ramp
    in i between the pairs that turn beta_slow and beta_fast times over L (transformers' form)."""

    def index_turning(n_turns: float) -> float:  # i at which L·θ_i/(2π) = n_turns
        return d_head * math.log(s.original_max_len / (n_turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = index_turning(s.beta_fast), index_turning(s.beta_slow)
    if s.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d_head - 1)
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    i = torch.arange(d_head // 2, dtype=torch.float64)  # (D/2,)
    return 1 - ((i - low) / (high - low)).clamp(0, 1)  # (D/2,) 1 for fast pairs, 0 for slow ones


def _yarn(d_head: int, base: float, s: RopeScaling, seq_len: int | None) -> tuple[Tensor, float]:
    theta = inverse_frequencies(d_head, base)  # (D/2,)
    gamma = yarn_ramp(d_head, base, s)  # (D/2,)
    m = (
        s.attention_factor
        if s.attention_factor is not None
        else (0.1 * math.log(s.factor) + 1 if s.factor > 1 else 1.0)
    )
    return (1 - gamma) * theta / s.factor + gamma * theta, m  # (D/2,)


def _llama3(d_head: int, base: float, s: RopeScaling, seq_len: int | None) -> tuple[Tensor, float]:
    theta = inverse_frequencies(d_head, base)  # (D/2,)
    wavelength = 2 * math.pi / theta  # (D/2,) tokens per full turn
    L, low, high = s.original_max_len, s.low_freq_factor, s.high_freq_factor
    kappa = ((L / wavelength - low) / (high - low)).clamp(0, 1)  # (D/2,) 1: keep, 0: divide by s
    kappa = torch.where(wavelength < L / high, 1.0, torch.where(wavelength > L / low, 0.0, kappa))  # (D/2,)
    return (1 - kappa) * theta / s.factor + kappa * theta, 1.0  # (D/2,)


PLAIN = RopeScaling()  # no scaling: RoFormer's angles with the given base

SCALINGS: dict[str, Callable[[int, float, RopeScaling, int | None], tuple[Tensor, float]]] = {
    "none": _none,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
}


def rope_parameters(
    d_head: int, base: float = 10000.0, scaling: RopeScaling = PLAIN, seq_len: int | None = None
) -> tuple[Tensor, float]:
    """(θ' (D/2,) float64, attention factor m): transformers' ROPE_INIT_FUNCTIONS[kind] for every kind
    here. `seq_len`: the length being read, which only "dynamic" uses."""
    if scaling.kind not in SCALINGS:
        raise UsageError(
            "rope.scaling", "RoPE scaling {kind!r} is not one of {names}.", kind=scaling.kind, names=list(SCALINGS)
        )
    if scaling.kind != "none" and scaling.factor < 1:
        raise UsageError(
            "rope.factor",
            "RoPE scaling {kind!r} needs factor >= 1 (how many times the original context to reach); got {factor}.",
            kind=scaling.kind,
            factor=scaling.factor,
        )
    if scaling.kind in ("dynamic", "yarn", "llama3") and scaling.original_max_len <= 0:
        raise UsageError(
            "rope.original_len",
            "RoPE scaling {kind!r} needs original_max_len, the context "
            "length the model was trained on, as a positive whole "
            "number; got {got}.",
            kind=scaling.kind,
            got=scaling.original_max_len,
        )
    return SCALINGS[scaling.kind](d_head, base, scaling, seq_len)


def rope_angles(inv_freq: Tensor, offset: int, T: int) -> Tensor:
    """(T, D/2) float64: the angle p·θ_i of pair i at positions p = offset..offset+T-1."""
    p = torch.arange(offset, offset + T, dtype=torch.float64, device=inv_freq.device)  # (T,)
    return p[:, None] * inv_freq.double()[None, :]  # (T, D/2) p·θ_i


def rope_cos_sin(inv_freq: Tensor, offset: int, T: int, attention_factor: float = 1.0) -> tuple[Tensor, Tensor]:
    """cos and sin (T, D/2) float64 of positions offset..offset+T-1, each × the attention factor."""
    angles = rope_angles(inv_freq, offset, T)  # (T, D/2) p·θ_i
    return angles.cos() * attention_factor, angles.sin() * attention_factor  # 2 × (T, D/2)


def rotate_half_split(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """x (..., T, D) turned pair by pair, pair i = features i and i + D/2; cos, sin (T, D/2)."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # 2 × (T, D/2)
    a, b = x.chunk(2, dim=-1)  # 2 × (..., T, D/2): first half, second half
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)  # (..., T, D)


class ScaledRotary(AttentionPositions):
    """Turns q and k (B, H, T, D) by their positions, half-split, with a base and a scaling. 0 parameters.

    The frequencies are fixed at build time except for "dynamic", which recomputes them from the
    length being read (offset + T), as a fresh transformers module does. Each call makes the cos and
    sin of its own positions, so nothing limits the length."""

    def __init__(self, d_head: int, base: float = 10000.0, scaling: RopeScaling = PLAIN, kv: str = "H") -> None:
        super().__init__()
        self.d_head, self.base, self.scaling = d_head, base, scaling
        inv_freq, self.attention_factor = rope_parameters(d_head, base, scaling)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # (D/2,) float64, never cast
        self.hook_q = HookPoint("rotary", "B H T D", "rotary.q")
        self.hook_k = HookPoint("rotary", f"B {kv} T D", "rotary.k")  # kv: "H_kv" under grouped-query attention

    def _apply(self, fn, recurse=True):
        # .float(), .to(device): the frequencies stay float64 (the angles are made in float64 anyway)
        out = super()._apply(fn, recurse)
        self.inv_freq = self.inv_freq.to(torch.float64)  # (D/2,)
        return out

    def frequencies(self, length: int) -> tuple[Tensor, float]:
        """(θ'_i (D/2,) float64, attention factor m) for a sequence of `length` positions (only
        "dynamic" depends on it)."""
        if self.scaling.kind == "dynamic":
            inv_freq, m = rope_parameters(self.d_head, self.base, self.scaling, length)  # (D/2,)
            return inv_freq.to(self.inv_freq.device), m  # (D/2,)
        return self.inv_freq, self.attention_factor  # (D/2,)

    def pairs(self, x: Tensor) -> Tensor:
        """x (..., D) -> (..., D/2, 2): pair i, the point (x_i, x_i+D/2) this module turns."""
        return torch.stack(x.chunk(2, dim=-1), dim=-1)  # (..., D/2, 2): first half, second half

    def pair_angles(self, offset: int, T: int) -> Tensor:
        """(T, D/2) float64: the angle p·θ'_i pair i of position p (offset..offset+T-1) is turned by."""
        return rope_angles(self.frequencies(offset + T)[0], offset, T)  # (T, D/2)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """x (B, H, T, D) of tokens at positions offset..offset+T-1 -> x turned, (B, H, T, D)."""
        T = x.size(-2)
        inv_freq, m = self.frequencies(offset + T)  # (D/2,)
        cos, sin = rope_cos_sin(inv_freq, offset, T, m)  # 2 × (T, D/2)
        return rotate_half_split(x, cos, sin)  # (B, H, T, D)

    def rotate(self, q: Tensor, k: Tensor, offset: int) -> tuple[Tensor, Tensor]:
        return self.hook_q(self(q, offset)), self.hook_k(self(k, offset))  # 2 × (B, H, T, D)

    def extra_repr(self) -> str:
        return f"d_head={self.d_head}, base={self.base:g}, scaling={self.scaling.kind!r}"


def scaled_rotary(cfg) -> ScaledRotary:
    """The "rope" scheme's part in one attention layer, from a ModelConfig's rope_* fields."""
    scaling = RopeScaling(cfg.rope_scaling, cfg.rope_factor, cfg.rope_original_max_len)
    return ScaledRotary(cfg.d_head, cfg.rope_base, scaling, "H_kv" if cfg.kv_heads < cfg.n_heads else "H")


# "rope": the half-split rotation with a base and a scaling, as checkpoints of Llama, Qwen3 and Mistral
# need; "rotary" (nn/position.py) keeps RoFormer's neighbour pairing and base 10000
register_position_scheme(PositionScheme("rope", attention=scaled_rotary))

"""Rotary position embedding (RoPE): a token's position turns its query and key.

    Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding", §3.2 (eq. 14-16)

Split each head's D features into D/2 pairs (x_2i, x_2i+1) and read every pair as a point in the
plane. The token at position p turns pair i by the angle p·θ_i:

    θ_i = base^(-2i/D),   i = 0 .. D/2-1,   base = 10000 (the paper's, as in sinusoidal positions)

    ⎡x'_2i  ⎤   ⎡cos pθ_i  -sin pθ_i⎤ ⎡x_2i  ⎤
    ⎣x'_2i+1⎦ = ⎣sin pθ_i   cos pθ_i⎦ ⎣x_2i+1⎦          written R(p) x

Queries and keys are turned, values are not. Rotations compose, R(m)ᵀ R(n) = R(n - m), so the score
of a query at m and a key at n is

    (R(m) q) · (R(n) k) = q · R(n - m) k                depends on the distance n - m only

tests/reference/test_rotary.py checks this for random positions, and against q·R(n-m)·k
written out with explicit 2×2 blocks. The pairing is the paper's: neighbours (0,1), (2,3), ...
(GPT-NeoX and LLaMA's code pairs feature i with i + D/2 instead: the same model with the rows of
W_q and W_k permuted.)

No table limits the positions: the angle of any position is computed. The cos/sin of the
positions seen so far are kept (a non-persistent buffer: recomputed, never checkpointed), made in
float64 and then cast, so position 100 000 is as exact as position 3, and grown by doubling when a
longer sequence comes (sampling past max_len, see nn/kv_cache.py). No parameters.

`base` is an argument of the module, not a config field: "rotary" is base 10000; another base is
one more registration, e.g. `attention=lambda cfg: RotaryPositions(cfg.d_head, cfg.max_len, 500_000.0)`.
"""

from __future__ import annotations

import torch

from glassformer.errors import UsageError
from glassformer.nn.formula import ParamFormula, counted
from glassformer.nn.hooks import hook
from glassformer.nn.position import AttentionPositions, PositionScheme, register_position_scheme


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
            raise UsageError("error.rotary.odd_head", d_head=d_head)
        # cos and sin of every angle for positions 0..max_len-1 up front; more when asked for
        self.register_buffer("cos", torch.empty(0), persistent=False)  # (n, D/2)
        self.register_buffer("sin", torch.empty(0), persistent=False)  # (n, D/2)
        self._fill(max_len, torch.get_default_dtype(), None)
        self.hook_q = hook("rotary", "B H T D", "rotary.q")
        self.hook_k = hook("rotary", "B H T D", "rotary.k")

    def param_formulas(self) -> list[ParamFormula]:
        return [counted("", "0", note="rotary")]

    def _fill(self, n: int, dtype: torch.dtype, device) -> None:
        # the tables outlive the call that grows them: even when sampling runs under inference_mode
        # (models/decode.py) they must stay ordinary tensors, or the next training step fails
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

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x (B, H, T, D) of tokens at positions offset..offset+T-1 -> x turned, (B, H, T, D)."""
        cos, sin = self.angles(offset, x.size(-2))  # 2 × (T, D/2)
        pairs = x.unflatten(-1, (-1, 2))  # (B, H, T, D/2, 2): pair i = features 2i, 2i+1
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

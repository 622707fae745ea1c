"""Lesson 1, part 2 — the multi-head reshapes, with every shape read from glassformer itself.

d_model = 8 split into 2 heads of d_k = 4. One Linear makes the queries of *all* heads at
once; a view cuts the 8 features into (2 heads × 4), a transpose puts the head axis in front so
each head attends on its own, and the reverse transpose + reshape puts the heads side by side
again. The walkthrough repeats each step of MultiHeadAttention by hand and checks it against
the library's own hook points (blocks' names: attn.q, attn.scores, attn.z, attn.out).
"""

from __future__ import annotations

import torch

from glassformer.lessons.common import Narrator, fmt
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.hooks import HookedModel

D_MODEL, N_HEADS, T = 8, 2, 3


class OneAttention(HookedModel):
    """The smallest model with named hook points around one MultiHeadAttention."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.name_hook_points()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x)  # (B, T, C)


def run(nar: Narrator, seed: int = 0) -> dict:
    """Print the walkthrough; return {step: shape} and whether each hand step matched the library."""
    nar.title("fruit.title.heads", d_model=D_MODEL, heads=N_HEADS, d_k=D_MODEL // N_HEADS)
    torch.manual_seed(seed)
    model = OneAttention(D_MODEL, N_HEADS).eval()
    attn = model.attn
    x = torch.randn(1, T, D_MODEL)  # (B, T, C): one sentence of three 8-wide words
    with torch.no_grad():
        _, cache = model.run_with_cache(x)
        B, H, D = 1, attn.n_heads, attn.d_head
        # 1) one projection for all heads (the fused layout makes q, k, v side by side)
        qkv = attn.qkv(x)  # (B, T, 3C)
        q_proj = qkv.split(D_MODEL, dim=-1)[0]  # (B, T, C)
        # 2) cut the features into heads, 3) move the head axis in front of the sequence axis
        q_view = q_proj.view(B, T, H, D)  # (B, T, H, D)
        q_heads = q_view.transpose(1, 2)  # (B, H, T, D)
        # 4) scores and weights per head (read from the library's hook points)
        scores, weights, z = cache["attn.scores"], cache["attn.weights"], cache["attn.z"]
        # 5) merge: heads back beside each other, then the output projection
        z_t = z.transpose(1, 2)  # (B, T, H, D)
        merged = z_t.reshape(B, T, H * D)  # (B, T, C)
        out = attn.proj(merged)  # (B, T, C)
    shapes = {
        "input x": x.shape,
        "x·W_Q (one Linear for all heads)": q_proj.shape,
        f"view(B, T, {H}, {D})": q_view.shape,
        "transpose(1, 2)": q_heads.shape,
        "scores Q·Kᵀ/√d_k": scores.shape,
        "softmax weights": weights.shape,
        "weights·V (z)": z.shape,
        "z.transpose(1, 2)": z_t.shape,
        f"reshape(B, T, {H}·{D})": merged.shape,
        "output projection": out.shape,
    }
    nar.why("fruit.why.heads")
    width = max(map(len, shapes))
    for name, shape in shapes.items():
        nar.show(f"  {name:<{width}}  {tuple(shape)}")
    checks = {
        "transpose(1, 2) == cache['attn.q']": torch.equal(q_heads, cache["attn.q"]),
        "split_qkv(x)[0] == cache['attn.q']": torch.equal(attn.split_qkv(x)[0], cache["attn.q"]),
        "proj(merged) == cache['attn.out']": torch.allclose(out, cache["attn.out"], atol=1e-6),
    }
    for name, ok in checks.items():
        nar.show(f"  {name}: {ok}")
    nar.say("fruit.say.heads_rows", heads=H, T=T, sums=fmt(weights.sum(-1).flatten(), 6))
    return {"shapes": {k: tuple(v) for k, v in shapes.items()}, "checks": checks}

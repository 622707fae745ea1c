"""The causal tools, reaching one expert: zero it, or patch it from another run, in one layer.

A mixture of experts (nn/moe.py) declares, for each expert e of layer l, the hook point
blocks.<l>.ffn.expert.<e> (B T C): w_e · FFN_e(x) at the tokens routed to e, 0 elsewhere; the layer
adds these up (plus its shared experts). So

    ablating expert e   that point set to 0: the layer as if e's down-projection were zero (the
                        router still picks e, its share of the output is gone)
    patching expert e   that point copied from the clean run into the corrupted one: activation
                        patching (causal/patching.py) with the point as its grid of one

Both go through the hook point and nothing else; direct logit attribution per expert is
logit_attribution(..., experts=True) (causal/logit_attribution.py), the final norm treated as there.
"""

from __future__ import annotations

import re

import torch

from glassformer.causal.patching import MAX_BYTES, Metric, PatchGrid, activation_patching, patch_rows
from glassformer.errors import UsageError

POINT = "blocks.{layer}.ffn.expert.{expert}"


def expert_grid(model) -> dict[int, int]:
    """{layer: number of experts} of every layer with experts, read from the hook names."""
    found: dict[int, int] = {}
    for name in model.hook_names():
        m = re.fullmatch(r"blocks\.(\d+)\.ffn\.expert\.(\d+)", name)
        if m:
            found[int(m[1])] = max(found.get(int(m[1]), 0), int(m[2]) + 1)
    return found


def expert_point(model, layer: int, expert: int) -> str:
    """The hook point of `expert` in `layer`, refused in one line when there is none."""
    grid = expert_grid(model)
    if layer not in grid or not 0 <= expert < grid[layer]:
        raise UsageError(
            "causal.no_expert",
            "There is no expert {expert} in layer {layer}: the layers with experts are {layers}, "
            "with {experts} experts each; give a layer and an expert among them.",
            layer=layer,
            expert=expert,
            layers=sorted(grid),
            experts=sorted(set(grid.values())),
        )
    return POINT.format(layer=layer, expert=expert)


def _zero(t: torch.Tensor, _name: str) -> torch.Tensor:
    return torch.zeros_like(t)  # (B, T, C)


def ablate_expert(model, x: torch.Tensor, layer: int, expert: int) -> torch.Tensor:
    """The logits (B, T, V) with expert `expert` of `layer` zeroed (its weighted output, every token)."""
    with torch.no_grad():
        return model.run_with_hooks(x, hooks={expert_point(model, layer, expert): _zero})  # (B, T, V)


def expert_ablation(model, x: torch.Tensor, metric: Metric) -> tuple[float, torch.Tensor]:
    """metric(logits) (N, T, V) -> (N,), averaged over x's B rows: unablated, and (L, E) with each
    expert zeroed in turn — one batched forward per layer, a row per expert (patch_rows writes zeros
    into that row's copy of the expert's output)."""
    grid = expert_grid(model)
    if not grid:
        expert_point(model, 0, 0)  # refused: no experts
    x = x.reshape(-1, x.shape[-1])  # (B, T)
    B = x.shape[0]
    L, E = max(grid) + 1, max(grid.values())
    out = torch.full((L, E), float("nan"), dtype=torch.float64)  # (L, E): NaN where a layer has no expert
    with torch.no_grad():
        base = float(metric(model(x)).mean())
        for layer, n in sorted(grid.items()):
            hooks = {}
            for e in range(n):

                def hook(t: torch.Tensor, name: str, e=e) -> torch.Tensor:
                    zeros = torch.zeros_like(t[:B])  # (B, T, C)
                    return patch_rows(t, zeros, ["B", "T", "C"], (), [e], [()])  # (n·B, T, C) row e zeroed

                hooks[POINT.format(layer=layer, expert=e)] = hook
            logits = model.run_with_hooks(x.repeat(n, 1), hooks=hooks)  # (n·B, T, V)
            out[layer, :n] = metric(logits).view(n, B).mean(1).double()  # (n,)
    return base, out


def patch_expert(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    metric: Metric,
    layer: int,
    expert: int,
    max_bytes: int = MAX_BYTES,
) -> PatchGrid:
    """The corrupted run with expert `expert` of `layer` taken from the clean run: activation
    patching's grid of one cell (values (1,)), clean and corrupt unpatched beside it."""
    point = expert_point(model, layer, expert)
    return activation_patching(model, clean, corrupt, metric, point, by=(), max_bytes=max_bytes)

"""Attribution patching: the first-order (gradient) estimate of every cell of a patching grid from
one forward and one backward on the corrupted input:

    effect(cell) ≈ Σ_cell ∂m/∂a · (a_clean − a_corrupt)      (summed over the axes not in `by`)

It is exact where the metric is linear in the activation (a model made linear: see the tests), an
approximation elsewhere; `agreement` says how far to trust it against the exact grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from glassformer.causal.patching import Metric, PatchGrid, prepare
from glassformer.errors import UsageError
from glassformer.messages import t


def attribution_patching(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    metric: Metric,
    point: str = "resid_post",
    by: tuple[str, ...] = ("T",),
) -> PatchGrid:
    """The estimated grid, same axes and normalisation as activation_patching's."""
    clean, corrupt, by, names, decl = prepare(model, clean, corrupt, point, by)
    with torch.no_grad():
        clean_logits, cache = model.run_with_cache(clean, names=names)  # (B, T, V)
        m_clean = metric(clean_logits).mean().item()
    acts: dict[str, torch.Tensor] = {}

    def keep(t: torch.Tensor, name: str) -> torch.Tensor:
        # a fresh tensor the forward goes on from (attn.result feeds attn.out only when replaced);
        # with frozen weights the first point becomes the leaf the others hang from
        t = t.view_as(t) if t.requires_grad else t.detach().requires_grad_(True)
        acts[name] = t
        return t

    with torch.enable_grad():
        logits = model.run_with_hooks(corrupt, hooks={n: keep for n in names})  # (B, T, V)
        m = metric(logits).mean()
        grads = torch.autograd.grad(m, [acts[n] for n in names])  # L × (B, ...)
    rows = []
    for n, g in zip(names, grads, strict=True):
        axes = decl[n]
        effect = g * (cache[n] - acts[n].detach())  # (B, ...)
        keep_dims = [axes.index(a) for a in by]
        summed = effect.sum(dim=[d for d in range(effect.dim()) if d not in keep_dims])  # (*by), in declared order
        order = sorted(keep_dims)
        rows.append(summed.permute([order.index(d) for d in keep_dims]) if by else summed)  # (*by)
    m_corrupt = m.item()
    values = torch.stack(rows) + m_corrupt  # (L, *sizes): the estimated metric with each cell patched
    return PatchGrid(values.detach(), ("layer", *by), names, m_clean, m_corrupt)


@dataclass
class Agreement:
    """How an attribution grid ranks the cells against the exact grid."""

    spearman: float  # rank correlation of the two grids' effects, every cell
    top_k: int
    overlap: int  # cells in both top-k sets (by |effect|)
    missed: list[tuple[int, ...]]  # exact top-k cells the attribution's top-k lacks, largest first
    cells: int = 0  # cells in the grid

    def words(self) -> str:
        """The report in one line, in the process's language."""
        return t("causal.agreement", cells=self.cells, rho=self.spearman, k=self.top_k, overlap=self.overlap,
                 missed=self.missed)  # fmt: skip


RESOLUTION_DIGITS = 6  # effects equal to 1e-6 of the clean − corrupt gap are ties


def ranks(x: torch.Tensor) -> torch.Tensor:
    """(N,) -> (N,) ranks 0..N−1, ties given their average rank."""
    order = x.argsort()  # (N,)
    r = torch.empty_like(x, dtype=torch.float64)  # (N,)
    r[order] = torch.arange(len(x), dtype=torch.float64)
    for v in x.unique():
        same = x == v  # (N,)
        r[same] = r[same].mean()
    return r


def spearman(a: torch.Tensor, b: torch.Tensor) -> float:
    ra, rb = ranks(a.flatten()), ranks(b.flatten())  # (N,), (N,)
    ra, rb = ra - ra.mean(), rb - rb.mean()  # (N,), (N,)
    return float((ra * rb).sum() / (ra.norm() * rb.norm()))


def agreement(exact: PatchGrid, approx: PatchGrid, top_k: int = 5) -> Agreement:
    """Spearman ρ and top-k overlap of the normalised effects, and what attribution misses.

    The effects are compared to 1e-6 of the clean − corrupt gap (RESOLUTION_DIGITS): cells with no effect come out
    of exact patching as 0 or as rounding noise (~1e-13 in float64, depending on the batch a cell
    ran in), and ranking that noise would reorder cells that are tied."""
    e = exact.normalised().double().round(decimals=RESOLUTION_DIGITS)  # (L, *sizes)
    a = approx.normalised().double().round(decimals=RESOLUTION_DIGITS)  # (L, *sizes)
    n = e.numel()
    if not 1 <= top_k <= n:
        raise UsageError("error.causal.top_k", n=n, k=top_k)
    top_e = e.flatten().abs().topk(top_k).indices.tolist()
    top_a = set(a.flatten().abs().topk(top_k).indices.tolist())
    missed = [tuple(int(i) for i in torch.unravel_index(torch.tensor(c), e.shape)) for c in top_e if c not in top_a]
    return Agreement(spearman(e, a), top_k, top_k - len(missed), missed, n)

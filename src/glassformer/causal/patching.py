"""Activation patching, batched: run the corrupted input, copy one cell of one activation from the
clean run into it, and measure how much of the clean answer comes back.

A grid is one hook point per layer (`point="resid_post"` means blocks.0.resid_post, blocks.1...;
a full name such as "resid_pre" is a grid of one) and the axes to patch by, letters of the point's
own declaration: by=("T",) patches one position, by=("H", "T") one head at one position,
by=("H",) one head at every position, by=() the whole activation. The result's axes are
("layer", *by), named from the declaration.

Batched: every cell is one row of a batch. The corrupted input is replicated along the batch axis
and each row's hook copies its own cell, so a grid of N cells costs ceil(N / rows) forwards, where
`rows` is what `max_bytes` allows (the activations of one forward, measured, times the rows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from glassformer.causal.metrics import Metric
from glassformer.errors import UsageError

MAX_BYTES = 256 * 2**20  # default memory bound for the activations of one batched forward


@dataclass
class PatchGrid:
    """values[layer, *cells]: the metric with that cell patched; clean and corrupt: unpatched runs."""

    values: torch.Tensor  # (L, *sizes of by)
    axes: tuple[str, ...]  # ("layer", *by)
    names: list[str]  # the hook point of each layer
    clean: float
    corrupt: float

    def normalised(self) -> torch.Tensor:
        """(values − corrupt) / (clean − corrupt): clean = 1, corrupted = 0."""
        return (self.values - self.corrupt) / (self.clean - self.corrupt)  # (L, *sizes)


def grid_points(model, point: str) -> list[str]:
    """The hook names of a grid: `point` itself, or blocks.<i>.<point> for every block, in order."""
    names = model.hook_names()
    if point in names:
        return [point]
    found = [n for n in names if re.fullmatch(rf"blocks\.\d+\.{re.escape(point)}", n)]
    if not found:
        raise UsageError("error.causal.no_point", point=point, example=names[0] if names else "")
    return found


def point_axes(model, name: str, by: tuple[str, ...]) -> list[str]:
    """The declared axes of `name`, checked: a batch axis first, and every letter of `by` among them."""
    axes = model.hook_points()[name].axes.split()
    if not axes or axes[0] != "B":
        raise UsageError("error.causal.no_batch_axis", name=name, axes=" ".join(axes))
    bad = [a for a in by if a not in axes[1:]]
    if bad or len(set(by)) != len(by):
        raise UsageError("error.causal.bad_axis", name=name, by=list(by), axes=" ".join(axes), choices=axes[1:])
    return axes


def cells_of(shape: tuple[int, ...], axes: list[str], by: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every index over the `by` axes, in row-major order."""
    sizes = [shape[axes.index(a)] for a in by]
    return (
        [
            tuple(int(i) for i in idx)
            for idx in torch.cartesian_prod(*[torch.arange(s) for s in sizes]).view(-1, len(sizes))
        ]
        if sizes
        else [()]
    )


def patch_rows(
    act: torch.Tensor, clean: torch.Tensor, axes: list[str], by: tuple[str, ...], rows: list[int], cells: list[tuple]
) -> torch.Tensor:
    """A copy of `act` (R·B, ...) in which row r of the replicated batch takes clean's values at its cell.

    clean (B, ...) is the clean run's activation; row r covers batch entries r·B .. r·B+B−1."""
    out = act.clone()  # (R·B, ...)
    if not rows:
        return out
    view = out.view(-1, *clean.shape)  # (R, B, ...): a view, so writing it writes `out`
    dims = [axes.index(a) for a in by]  # positions of the by axes in the declaration (B is 0)
    moved = view.movedim([d + 1 for d in dims], list(range(1, len(dims) + 1)))  # (R, *by, B, rest)
    source = clean.movedim(dims, list(range(len(dims))))  # (*by, B, rest)
    r = torch.tensor(rows, device=act.device)  # (N,)
    idx = [torch.tensor([c[i] for c in cells], device=act.device) for i in range(len(dims))]  # len(by) × (N,)
    moved[(r, *idx)] = source[tuple(idx)] if dims else source.expand(len(rows), *source.shape)  # (N, B, rest)
    return out


def row_bytes(cache) -> int:
    """Bytes of every activation of one forward of the input (the cost of one more batch row)."""
    return sum(t.numel() * t.element_size() for t in cache.values())


def prepare(model, clean: torch.Tensor, corrupt: torch.Tensor, point: str, by) -> tuple:
    """What every grid starts from: both prompts as (B, T) of one shape, the grid's axes, the hook
    points of `point` (one per layer) and each point's declared axes."""
    clean, corrupt = clean.reshape(-1, clean.shape[-1]), corrupt.reshape(-1, corrupt.shape[-1])  # (B, T)
    if clean.shape != corrupt.shape:
        raise UsageError("error.causal.lengths", clean=tuple(clean.shape), corrupt=tuple(corrupt.shape))
    by = tuple(by)
    names = grid_points(model, point)
    return clean, corrupt, by, names, {n: point_axes(model, n, by) for n in names}


def activation_patching(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    metric: Metric,
    point: str = "resid_post",
    by: tuple[str, ...] = ("T",),
    max_bytes: int = MAX_BYTES,
) -> PatchGrid:
    """The exact patching grid of `point` by `by` (see the module docstring); inputs (B, T) or (T,)."""
    clean, corrupt, by, names, decl = prepare(model, clean, corrupt, point, by)
    with torch.no_grad():
        clean_logits, cache = model.run_with_cache(clean)  # (B, T, V)
        corrupt_logits = model(corrupt)  # (B, T, V)
        m_clean = metric(clean_logits).mean().item()
        m_corrupt = metric(corrupt_logits).mean().item()
        per_row = row_bytes(cache)
        if max_bytes < per_row:
            raise UsageError("error.causal.budget", max_bytes=max_bytes, row=per_row)
        jobs = [(n, c) for n in names for c in cells_of(tuple(cache[n].shape), decl[n], by)]  # every cell
        R = max(1, min(len(jobs), max_bytes // per_row))  # rows of one batched forward
        values = []
        for start in range(0, len(jobs), R):
            chunk = jobs[start : start + R]
            hooks = {}
            for n in names:
                rows = [i for i, (m, _) in enumerate(chunk) if m == n]
                cells = [c for m, c in chunk if m == n]
                if rows:
                    hooks[n] = _patcher(cache[n], decl[n], by, rows, cells)
            batch = corrupt.repeat(len(chunk), 1)  # (R·B, T)
            logits = model.run_with_hooks(batch, hooks=hooks)  # (R·B, T, V)
            values.append(metric(logits).view(len(chunk), -1).mean(1))  # (R,)
    sizes = [cache[names[0]].shape[decl[names[0]].index(a)] for a in by]
    grid = torch.cat(values).view(len(names), *sizes)  # (L, *sizes)
    return PatchGrid(grid, ("layer", *by), names, m_clean, m_corrupt)


def _patcher(clean_act, axes, by, rows, cells):
    def hook(t: torch.Tensor, name: str) -> torch.Tensor:
        return patch_rows(t, clean_act, axes, by, rows, cells)  # (R·B, ...)

    return hook

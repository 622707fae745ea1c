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
A cell inside block i needs only blocks i.. (the ones before it are the corrupted run's): its
forward starts there, from the stream the corrupted run fed block i (start_layers, and the model's
run_from); the cells of each start block are batched together.

What is measured is a metric: logits (N, T, V) -> one number per row (N,), read at one position
(the last by default); every causal method reads one of these:

    logit_diff(answer, wrong)   logit[answer] − logit[wrong]   (linear in the logits)
    token_prob(token)           softmax probability of `token`
    token_loss(token)           −log p(token)

Patching normalises a metric m as (m − m_corrupt) / (m_clean − m_corrupt): clean = 1, corrupted = 0;
above 1 a patch overshoots the clean run, below 0 it moves the metric further than the corruption did.
With no gap (m_clean = m_corrupt) there is nothing to normalise by and `normalised` refuses; how
small a gap is still worth reading depends on the metric (the views' rule: inspect/causal_views.py).

Attribution patching (after activation patching): the first-order (gradient) estimate of every cell of a patching
grid from one forward and one backward on the corrupted input:

    effect(cell) ≈ Σ_cell ∂m/∂a · (a_clean − a_corrupt)      (summed over the axes not in `by`)

It is exact where the metric is linear in the activation (a model made linear: see the tests), an
approximation elsewhere; `agreement` says how far to trust it against the exact grid.

Path patching (at the very end): the effect of one sender head on the answer only through the
queries, keys or values of chosen receiver heads (Wang et al. 2022); its steps are told there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import torch

from glassformer.errors import UsageError
from glassformer.messages import t

Metric = Callable[[torch.Tensor], torch.Tensor]  # logits (N, T, V) -> (N,)


def distinct(answer: int, wrong: int) -> None:
    """A logit difference needs two different tokens: answer − answer is 0 whatever the model does."""
    if answer == wrong:
        raise UsageError(
            "causal.same_tokens",
            "The answer and the wrong token are the same token "
            "({token}): their logit difference is 0 whatever the model "
            "does; give two different tokens.",
            token=answer,
        )


def logit_diff(answer: int, wrong: int, pos: int = -1) -> Metric:
    distinct(answer, wrong)

    def metric(logits: torch.Tensor) -> torch.Tensor:
        last = logits[:, pos]  # (N, V)
        return last[:, answer] - last[:, wrong]  # (N,)

    return metric


def token_prob(token: int, pos: int = -1) -> Metric:
    def metric(logits: torch.Tensor) -> torch.Tensor:
        return logits[:, pos].softmax(-1)[:, token]  # (N,)

    return metric


def token_loss(token: int, pos: int = -1) -> Metric:
    def metric(logits: torch.Tensor) -> torch.Tensor:
        return -logits[:, pos].log_softmax(-1)[:, token]  # (N,)

    return metric


MAX_BYTES = 256 * 2**20  # default memory bound for the activations of one batched forward


@dataclass
class PatchGrid:
    """values[layer, *cells]: the metric with that cell patched; clean and corrupt: unpatched runs."""

    values: torch.Tensor  # (L, *sizes of by)
    axes: tuple[str, ...]  # ("layer", *by)
    names: list[str]  # the hook point of each layer
    clean: float
    corrupt: float

    @property
    def gap(self) -> float:
        """clean − corrupt: what the normalisation divides by."""
        return self.clean - self.corrupt

    def normalised(self) -> torch.Tensor:
        """(values − corrupt) / (clean − corrupt): clean = 1, corrupted = 0; refused without a gap."""
        if not math.isfinite(self.gap) or self.gap == 0:
            raise UsageError(
                "causal.no_gap",
                "The clean and the corrupted run give the same metric "
                "({clean} and {corrupt}): there is no gap to normalise by; "
                "corrupt a detail the metric depends on.",
                clean=self.clean,
                corrupt=self.corrupt,
            )
        return (self.values - self.corrupt) / self.gap  # (L, *sizes)


def grid_points(model, point: str) -> list[str]:
    """The hook names of a grid: `point` itself, or blocks.<i>.<point> for every block, in order."""
    names = model.hook_names()
    if point in names:
        return [point]
    found = [n for n in names if re.fullmatch(rf"blocks\.\d+\.{re.escape(point)}", n)]
    if not found:
        raise UsageError(
            "causal.no_point",
            "No hook point named {point!r} or blocks.<i>.{point} in this "
            "model; model.hook_names() lists them (e.g. {example!r}).",
            point=point,
            example=names[0] if names else "",
        )
    return found


def point_axes(model, name: str, by: tuple[str, ...]) -> list[str]:
    """The declared axes of `name`, checked: a batch axis first, and every letter of `by` among them."""
    axes = model.hook_points()[name].axes.split()
    if not axes or axes[0] != "B":
        raise UsageError(
            "causal.no_batch_axis",
            "Hook point {name!r} has axes {axes!r}, without a batch axis "
            "B: each row of a batched patch needs its own copy; patch a "
            "point with B (e.g. resid_pre) instead.",
            name=name,
            axes=" ".join(axes),
        )
    bad = [a for a in by if a not in axes[1:]]
    if bad or len(set(by)) != len(by):
        raise UsageError(
            "causal.bad_axis",
            "Cannot patch {name!r} by {by}: its axes are {axes!r}; choose from {choices}.",
            name=name,
            by=list(by),
            axes=" ".join(axes),
            choices=axes[1:],
        )
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
        raise UsageError(
            "causal.lengths",
            "The clean and corrupted inputs must have the same shape, "
            "got {clean} and {corrupt}; make the prompts the same number "
            "of tokens.",
            clean=tuple(clean.shape),
            corrupt=tuple(corrupt.shape),
        )
    by = tuple(by)
    names = grid_points(model, point)
    return clean, corrupt, by, names, {n: point_axes(model, n, by) for n in names}


def start_layers(model, names: list[str]) -> dict[str, int | None]:
    """The block each point's patched runs may start at, or None for the full forward.

    Everything before the block that holds the patched point is the corrupted run's, so a run may
    start at that block from the stream the corrupted run fed it: block i for a point inside block i
    (blocks.<i>.…), when the model's forward is the one defined beside its run_from (forward =
    embed, position, run_from(0, …): models/gpt.py) and it is not training (dropout would draw anew).
    Any other point (embed, resid_pre, ...) or model — one whose class overrides forward, which may
    do anything before block i — runs in full."""
    owner = next((c for c in type(model).__mro__ if "run_from" in vars(c)), None)
    fast = owner is not None and "forward" in vars(owner) and type(model).forward is owner.forward
    fast = fast and not model.training
    found = {n: re.match(r"blocks\.(\d+)\.", n) for n in names}
    return {n: int(m.group(1)) if fast and m else None for n, m in found.items()}


def block_inputs(model, inputs: torch.Tensor, layers: set[int]) -> tuple[torch.Tensor, dict[int, torch.Tensor]]:
    """model(inputs) and the stream each block in `layers` read in that forward (B, T, C)."""
    seen: dict[int, torch.Tensor] = {}
    handles = [
        model.blocks[i].register_forward_pre_hook(lambda _m, args, i=i: seen.__setitem__(i, args[0].detach()))
        for i in layers
    ]
    try:
        return model(inputs), seen  # (B, T, V), L' × (B, T, C)
    finally:
        for h in handles:
            h.remove()


def activation_patching(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    metric: Metric,
    point: str = "resid_post",
    by: tuple[str, ...] = ("T",),
    max_bytes: int = MAX_BYTES,
) -> PatchGrid:
    """The exact patching grid of `point` by `by` (see the module docstring); inputs (B, T) or (T,).
    A cell inside block i runs from block i on (start_layers): the same numbers, less work."""
    clean, corrupt, by, names, decl = prepare(model, clean, corrupt, point, by)
    starts = start_layers(model, names)
    with torch.no_grad():
        clean_logits, cache = model.run_with_cache(clean)  # (B, T, V)
        corrupt_logits, streams = block_inputs(model, corrupt, {s for s in starts.values() if s is not None})
        m_clean = metric(clean_logits).mean().item()
        m_corrupt = metric(corrupt_logits).mean().item()
        per_row = row_bytes(cache)
        if max_bytes < per_row:
            raise UsageError(
                "causal.budget",
                "max_bytes={max_bytes} is below one patched row ({row} bytes); give at least {row}.",
                max_bytes=max_bytes,
                row=per_row,
            )
        jobs = [(n, c) for n in names for c in cells_of(tuple(cache[n].shape), decl[n], by)]  # every cell
        R = max(1, min(len(jobs), max_bytes // per_row))  # rows of one batched forward
        groups: dict[int | None, list[int]] = {}  # start block -> the indices of its cells in `jobs`
        for j, (n, _) in enumerate(jobs):
            groups.setdefault(starts[n], []).append(j)
        values = torch.empty(len(jobs), dtype=clean_logits.dtype, device=clean_logits.device)  # (N,)
        for start, group in groups.items():
            for first in range(0, len(group), R):
                index = group[first : first + R]
                chunk = [jobs[j] for j in index]
                hooks = {}
                for n in names:
                    rows = [i for i, (m, _) in enumerate(chunk) if m == n]
                    cells = [c for m, c in chunk if m == n]
                    if rows:
                        hooks[n] = _patcher(cache[n], decl[n], by, rows, cells)
                batch = corrupt.repeat(len(chunk), 1)  # (R·B, T)
                with model.hooks_attached(hooks):
                    if start is None:
                        logits = model(batch)  # (R·B, T, V)
                    else:
                        x = streams[start].repeat(len(chunk), 1, 1)  # (R·B, T, C)
                        logits = model.run_from(start, x, model.attention_mask(batch))  # (R·B, T, V)
                values[index] = metric(logits).view(len(chunk), -1).mean(1).to(values.dtype)  # (R,)
    sizes = [cache[names[0]].shape[decl[names[0]].index(a)] for a in by]
    grid = values.view(len(names), *sizes)  # (L, *sizes)
    return PatchGrid(grid, ("layer", *by), names, m_clean, m_corrupt)


def _patcher(clean_act, axes, by, rows, cells):
    def hook(t: torch.Tensor, name: str) -> torch.Tensor:
        return patch_rows(t, clean_act, axes, by, rows, cells)  # (R·B, ...)

    return hook


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Attribution patching: the grid estimated from one forward and one backward
# ────────────────────────────────────────────────────────────────────────────────────────────────


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
        return t(
            "attribution vs exact patching on {cells} cells: Spearman ρ "
            "= {rho:.3f}, top-{k} overlap {overlap}/{k}; missed: {missed}",
            cells=self.cells,
            rho=self.spearman,
            k=self.top_k,
            overlap=self.overlap,
            missed=self.missed,
        )


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
        raise UsageError(
            "causal.top_k", "top_k must be between 1 and the {n} cells of the grid, got {k}.", n=n, k=top_k
        )
    top_e = e.flatten().abs().topk(top_k).indices.tolist()
    top_a = set(a.flatten().abs().topk(top_k).indices.tolist())
    missed = [tuple(int(i) for i in torch.unravel_index(torch.tensor(c), e.shape)) for c in top_e if c not in top_a]
    return Agreement(spearman(e, a), top_k, top_k - len(missed), missed, n)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Path patching (Wang et al. 2022, "Interpretability in the Wild", §3 and appendix B): the effect
# of one sender head on the answer *only through* the queries, keys or values of chosen receiver heads.
#
# For every sender head s, in the direction activation_patching uses (the corrupted run, the clean
# value patched in; normalised so clean = 1, corrupted = 0):
#
#     1. run the corrupted input with s's result (attn.result) taken from the clean run and every
#        other head's result frozen at its corrupted value (the FFNs are recomputed, as Wang et al.
#        do, so sender → FFN → receiver counts; `freeze_ffn=True` freezes ffn.out too, leaving only
#        the direct path); keep each receiver's q, k or v (attn.q / attn.k / attn.v) from that run;
#     2. run the corrupted input with only the receivers' q, k or v replaced by those kept values
#        (everything else recomputed) and read the metric.
#
# Wang et al.'s own direction is the mirror image (their base run is the original prompt and the
# sender comes from the corrupted one): swap `clean` and `corrupt` to get it.
#
# Batched over senders: each sender is one row of a batch in both runs, so a grid of N senders costs
# 2·ceil(N / rows) forwards, `rows` chosen by the memory bound as in activation_patching.
# ────────────────────────────────────────────────────────────────────────────────────────────────

VIA = ("q", "k", "v")


def path_patching(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    metric: Metric,
    receivers: list[tuple[int, int]],
    via: str | tuple[str, ...] = "q",
    freeze_ffn: bool = False,
    max_bytes: int = MAX_BYTES,
) -> PatchGrid:
    """(L_s, H) grid: the metric with sender (layer, head) patched on its paths into `receivers`
    [(layer, head), ...] through their `via` inputs ("q", "k", "v" or several); L_s is the top
    receiver's layer (a sender must sit below a receiver to reach it)."""
    via = (via,) if isinstance(via, str) else tuple(via)
    clean, corrupt, _, names, _ = prepare(model, clean, corrupt, "attn.result", ())
    if not via or any(v not in VIA for v in via):
        raise UsageError(
            "causal.bad_via",
            "Path patching goes into a receiver through {choices}; got {via}.",
            via=list(via),
            choices=list(VIA),
        )
    ffn = grid_points(model, "ffn.out") if freeze_ffn else []
    with torch.no_grad():
        clean_logits, cc = model.run_with_cache(clean)  # (B, T, V)
        corrupt_logits, cx = model.run_with_cache(corrupt)  # (B, T, V)
        H = cx[names[0]].shape[2]  # attn.result is (B, T, H, C)
        top = max((layer for layer, _ in receivers), default=0)
        if top < 1 or any(not 1 <= r < len(names) or not 0 <= h < H for r, h in receivers):
            raise UsageError(
                "causal.bad_receiver",
                "Receivers are (layer, head) pairs with 1 <= layer < "
                "{layers} (a sender must sit below) and 0 <= head < {heads}; "
                "got {receivers}.",
                receivers=list(receivers),
                layers=len(names),
                heads=H,
            )
        inputs = [f"blocks.{layer}.attn.{v}" for layer in sorted({r for r, _ in receivers}) for v in via]
        m_clean, m_corrupt = metric(clean_logits).mean().item(), metric(corrupt_logits).mean().item()
        per_row = row_bytes(cx)
        if max_bytes < per_row:
            raise UsageError(
                "causal.budget",
                "max_bytes={max_bytes} is below one patched row ({row} bytes); give at least {row}.",
                max_bytes=max_bytes,
                row=per_row,
            )
        senders = [(layer, h) for layer in range(top) for h in range(H)]
        R = max(1, min(len(senders), max_bytes // per_row))
        values = []
        for start in range(0, len(senders), R):
            chunk = senders[start : start + R]
            batch = corrupt.repeat(len(chunk), 1)  # (R·B, T)
            # run 1: the sender patched, every other head (and, if asked, every FFN) frozen
            kept: dict[str, torch.Tensor] = {}
            hooks = {names[layer]: _frozen(cx[names[layer]], cc[names[layer]], chunk, layer) for layer in range(top)}
            hooks.update({n: _frozen(cx[n], cc[n], [], -1) for n in ffn[:top]})
            hooks.update({n: _keep(kept) for n in inputs})
            model.run_with_hooks(batch, hooks=hooks)
            # run 2: only the receivers' inputs changed
            patch = {n: _receive(kept[n], [h for r, h in receivers if r == int(n.split(".")[1])]) for n in inputs}
            logits = model.run_with_hooks(batch, hooks=patch)  # (R·B, T, V)
            values.append(metric(logits).view(len(chunk), -1).mean(1))  # (R,)
    grid = torch.cat(values).view(top, H)  # (L_s, H)
    return PatchGrid(grid, ("layer", "H"), names[:top], m_clean, m_corrupt)


def _frozen(corrupt_act: torch.Tensor, clean_act: torch.Tensor, chunk: list[tuple[int, int]], layer: int):
    """A hook giving every row the corrupted activation (B, ...), except the rows whose sender sits
    in `layer`: those get the sender head's clean result (axes B T H C)."""

    def hook(t: torch.Tensor, _name: str) -> torch.Tensor:
        out = corrupt_act.repeat(t.shape[0] // corrupt_act.shape[0], *[1] * (corrupt_act.dim() - 1))  # (R·B, ...)
        view = out.view(-1, *corrupt_act.shape)  # (R, B, ...)
        for row, (sl, sh) in enumerate(chunk):
            if sl == layer:
                view[row, :, :, sh] = clean_act[:, :, sh]  # (B, T, C)
        return out  # (R·B, ...)

    return hook


def _keep(kept: dict[str, torch.Tensor]):
    def hook(t: torch.Tensor, name: str) -> None:
        kept[name] = t.detach()  # (R·B, H, T, D)

    return hook


def _receive(values: torch.Tensor, heads: list[int]):
    """Replace the receiver heads' slice of q, k or v (R·B, H, T, D) by the kept values."""

    def hook(t: torch.Tensor, _name: str) -> torch.Tensor:
        out = t.clone()  # (R·B, H, T, D)
        out[:, heads] = values[:, heads]
        return out

    return hook

"""Path patching (Wang et al. 2022, "Interpretability in the Wild", §3 and appendix B): the effect
of one sender head on the answer *only through* the queries, keys or values of chosen receiver heads.

For every sender head s, in the direction activation_patching uses (the corrupted run, the clean
value patched in; normalised so clean = 1, corrupted = 0):

    1. run the corrupted input with s's result (attn.result) taken from the clean run and every
       other head's result frozen at its corrupted value (the FFNs are recomputed, as Wang et al.
       do, so sender → FFN → receiver counts; `freeze_ffn=True` freezes ffn.out too, leaving only
       the direct path); keep each receiver's q, k or v (attn.q / attn.k / attn.v) from that run;
    2. run the corrupted input with only the receivers' q, k or v replaced by those kept values
       (everything else recomputed) and read the metric.

Wang et al.'s own direction is the mirror image (their base run is the original prompt and the
sender comes from the corrupted one): swap `clean` and `corrupt` to get it.

Batched over senders: each sender is one row of a batch in both runs, so a grid of N senders costs
2·ceil(N / rows) forwards, `rows` chosen by the memory bound as in activation_patching.
"""

from __future__ import annotations

import torch

from glassformer.causal.patching import MAX_BYTES, Metric, PatchGrid, grid_points, prepare, row_bytes
from glassformer.errors import UsageError

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
        raise UsageError("error.causal.bad_via", via=list(via), choices=list(VIA))
    ffn = grid_points(model, "ffn.out") if freeze_ffn else []
    with torch.no_grad():
        clean_logits, cc = model.run_with_cache(clean)  # (B, T, V)
        corrupt_logits, cx = model.run_with_cache(corrupt)  # (B, T, V)
        H = cx[names[0]].shape[2]  # attn.result is (B, T, H, C)
        top = max((layer for layer, _ in receivers), default=0)
        if top < 1 or any(not 1 <= r < len(names) or not 0 <= h < H for r, h in receivers):
            raise UsageError("error.causal.bad_receiver", receivers=list(receivers), layers=len(names), heads=H)
        inputs = [f"blocks.{layer}.attn.{v}" for layer in sorted({r for r, _ in receivers}) for v in via]
        m_clean, m_corrupt = metric(clean_logits).mean().item(), metric(corrupt_logits).mean().item()
        per_row = row_bytes(cx)
        if max_bytes < per_row:
            raise UsageError("error.causal.budget", max_bytes=max_bytes, row=per_row)
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

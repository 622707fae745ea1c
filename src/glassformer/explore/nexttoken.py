"""The next-token distribution as the page's bars, shaped exactly as sampling shapes it.

    p_i = softmax(filter(z / τ))        τ = 0: all mass on the argmax (greedy)

The shaping is not written here: `next_probs` and `draw` are `glassformer.sample`'s own (re-exported
below), the very functions `generate_ids` calls, so the bars show the distribution a generation
step draws from, and a seeded step here draws the same token as `generate_ids`.
"""

from __future__ import annotations

import torch

from glassformer.sample import draw, next_probs

__all__ = ["N_BARS", "bars", "draw", "next_probs"]

N_BARS = 20  # bars the panel draws


def bars(logits: torch.Tensor, probs: torch.Tensor, labels, base: torch.Tensor | None = None, n: int = N_BARS) -> dict:
    """The panel's data for one position: the n tokens with the highest logits (the order no
    temperature or filter changes), each with its shaped probability `p`, the model's own
    `p_model` (τ = 1, nothing cut) and, when heads are ablated, `p_base` of the intact model.

    logits, probs, base: (V,). labels(ids) -> the tokens' texts.
    """
    order = logits.topk(min(n, logits.numel())).indices  # (n,)
    p, own = probs[order].tolist(), logits.softmax(dim=-1)[order].tolist()
    ids = order.tolist()
    rows = [
        {"id": i, "text": text, "p": round(a, 4), "p_model": round(b, 4), "kept": a > 0}
        for i, text, a, b in zip(ids, labels(ids), p, own, strict=False)
    ]
    if base is not None:
        for row, b in zip(rows, base[order].tolist(), strict=False):
            row["p_base"] = round(b, 4)
    return {"rows": rows, "kept": int((probs > 0).sum()), "vocab": logits.numel()}

"""The next-token distribution as the page's bars, shaped exactly as sampling shapes it.

    p_i = softmax(filter(z / τ))        τ = 0: all mass on the argmax (greedy)

The steps and their order are those of `glassformer.sample.generate_ids` (temperature, then
top-k, then top-p, then softmax), with its own filters, so the bars show the very distribution a
generation step draws from, and a seeded step here draws the same token as `generate_ids`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.sample import top_k_filter, top_p_filter

N_BARS = 20  # bars the panel draws


def next_probs(logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float | None) -> torch.Tensor:
    """(B, V) last-position logits -> (B, V) the probabilities a sampling step uses."""
    if temperature == 0:
        best = logits.argmax(dim=-1, keepdim=True)  # (B, 1)
        return torch.zeros_like(logits).scatter(-1, best, 1.0)  # (B, V) one-hot: greedy
    logits = logits / temperature  # (B, V)
    if top_k is not None:
        logits = top_k_filter(logits, top_k)  # (B, V)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)  # (B, V)
    return F.softmax(logits, dim=-1)  # (B, V), filtered tokens exactly 0


def draw(
    logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float | None, generator: torch.Generator
) -> torch.Tensor:
    """(B, V) -> (B, 1) next ids, as generate_ids picks them (argmax at τ = 0, else one draw)."""
    if temperature == 0:
        return logits.argmax(dim=-1, keepdim=True)  # (B, 1)
    probs = next_probs(logits, temperature, top_k, top_p)  # (B, V)
    return torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)


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

"""The next token, for the page: the distribution it is drawn from, as bars, and step-by-step
generation, one token per click, the keys and values kept between clicks.

    p_i = softmax(filter(z / τ))        τ = 0: all mass on the argmax (greedy)

Neither the shaping nor the drawing is written here: `next_probs` and `draw` are `glassformer.sample`'s
own (re-exported), the very functions `generate_ids` calls, so the bars show the distribution a
generation step draws from, and a seeded step here draws the same token as `generate_ids`.

A click asks for n more tokens after the ids the page holds. The first click (or one whose ids or
ablated heads differ from what a session has seen) prefills a KV cache with the context; every
later click feeds only the newest token. What the model is given at each step is not decided
here: `glassformer.sample.next_logits` decides it, for `generate_ids` and for the page alike
(prefill what the model may see; then one token a step; with a position table, reset and prefill
the last max_len again once the cache is full; without one, keep every token and let the cache
grow), and `draw` picks the token. So a click writes exactly what `generate_ids` writes, past
max_len too (tests/explore/test_generate.py, for every registered position scheme).

A model without a cache (an encoder sees the future, so its past changes) recomputes every step.
Sessions are few and bounded (least recently used dropped first); the Explorer's lock guards them.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass

import torch

from glassformer.sample import draw, next_logits, next_probs, open_cache

__all__ = ["MAX_SESSIONS", "N_BARS", "Generations", "Session", "bars", "draw", "next_probs", "step"]

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


MAX_SESSIONS = 16  # each holds a KV cache: baby's is 4 layers × 2 × 64 × 128 floats, 256 KiB


@dataclass
class Session:
    ids: list[int]  # every id so far (may exceed max_len; sample.visible says what the model sees)
    ablate: frozenset  # the heads zeroed while this cache was filled
    cache: object | None  # a KVCache, or None for a model without one
    logits: torch.Tensor  # (1, V) the last position's logits: what the next token is drawn from
    generator: torch.Generator


class Generations:
    """Open sessions by id, bounded, oldest dropped first."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self.sessions: OrderedDict[str, Session] = OrderedDict()

    def resume(self, key: str | None, ids: list[int], ablate: frozenset) -> tuple[str, Session] | None:
        """The session `key` if it stands exactly where the page says it does, else None."""
        s = self.sessions.get(key) if key else None
        if s is None or s.ids != ids or s.ablate != ablate:
            return None
        self.sessions.move_to_end(key)
        return key, s

    def start(self, model, ids: list[int], ablate: frozenset, hooks: dict, seed: int) -> tuple[str, Session]:
        cache = open_cache(model, 1)
        generator = torch.Generator().manual_seed(seed)
        session = Session(list(ids), ablate, cache, torch.empty(0), generator)
        session.logits = _forward(model, session, hooks)  # an empty cache: the prefill
        key = secrets.token_hex(8)
        self.sessions[key] = session
        while len(self.sessions) > self.limit:
            self.sessions.popitem(last=False)
        return key, session


def _forward(model, s: Session, hooks: dict) -> torch.Tensor:
    """The next token's logits (1, V) after the session's ids, the ablation hooks attached."""

    def run(context: torch.Tensor, cache) -> torch.Tensor:
        kwargs = {"cache": cache} if cache is not None else {}
        return model.run_with_hooks(context, hooks=hooks, **kwargs)  # (1, T, V)

    return next_logits(model, torch.tensor([s.ids]), s.cache, run)  # (1, V)


def step(model, s: Session, hooks: dict, temperature: float, top_k: int | None, top_p: float | None) -> int:
    """Draw one token from the session's logits, append it, and compute the logits after it."""
    next_id = draw(s.logits, temperature, top_k, top_p, s.generator)  # (1, 1)
    s.ids.append(int(next_id))
    s.logits = _forward(model, s, hooks)  # (1, V)
    return s.ids[-1]

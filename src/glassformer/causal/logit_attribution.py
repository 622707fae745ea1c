"""Direct logit attribution: which components write the answer into the residual stream.

In a pre-norm (or norm-free) model the final stream is a sum of parts, each read from a hook point:

    x = embed + pos_embed + Σ_l attn_l + Σ_l ffn_l        attn_l = blocks.l.attn.out,
                                                          ffn_l = blocks.l.resid_post − blocks.l.resid_mid

The logit difference reads x through the final LayerNorm and the head. The norm is made linear by
freezing its scale from the clean run: σ = sqrt(var(x) + eps) of the whole stream at that position,
so each part c contributes  (W_U[answer] − W_U[wrong]) · γ ⊙ (c − mean(c)) / σ, and the parts sum
to the logit difference minus the constant `bias` = (W_U[a] − W_U[w]) · β + (b_U[a] − b_U[w]).

The head and the norm's γ, β are weights, which no hook shows: `readout` is the one place that
reads them, from the model's `head` and `ln_final` (the ends every Transformer kind has).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from glassformer.errors import Unsupported


@dataclass
class LogitAttribution:
    parts: dict[str, float]  # component -> its share of the logit difference, in stream order
    bias: float  # the norm's β and the head's bias, projected: not any component's
    logit_diff: float  # the model's own, at that position
    scale: float  # σ of the final norm, frozen from this run (1.0 without a final norm)


def readout(model) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None, torch.Tensor | None, float]:
    """W_U (V, C), b_U (V,) or None, γ (C,), β (C,) or None (None, None without a final norm), eps."""
    head, norm = model.head, model.ln_final
    if not isinstance(norm, torch.nn.LayerNorm):
        return head.weight, head.bias, None, None, 0.0
    return head.weight, head.bias, norm.weight, norm.bias, norm.eps


def logit_attribution(model, ids: torch.Tensor, answer: int, wrong: int, pos: int = -1) -> LogitAttribution:
    """Decompose the logit difference answer − wrong at `pos` of one prompt ids (T,) or (1, T)."""
    if model.cfg.norm == "post":
        raise Unsupported("error.causal.norm_post", norm=model.cfg.norm)
    ids = ids.reshape(1, -1)  # (1, T)
    with torch.no_grad():
        logits, cache = model.run_with_cache(ids)  # (1, T, V)
    names = model.hook_names()
    parts: dict[str, torch.Tensor] = {"embed": cache["embed"][0, pos]}  # (C,)
    if "pos_embed" in cache:
        parts["pos_embed"] = cache["pos_embed"][pos]  # (C,)
    layers = sorted({int(n.split(".")[1]) for n in names if n.startswith("blocks.")})
    for i in layers:
        parts[f"blocks.{i}.attn"] = cache[f"blocks.{i}.attn.out"][0, pos]  # (C,)
        mid, post = cache[f"blocks.{i}.resid_mid"][0, pos], cache[f"blocks.{i}.resid_post"][0, pos]  # 2 × (C,)
        parts[f"blocks.{i}.ffn"] = post - mid  # (C,)
    W, b, gamma, beta, eps = readout(model)
    direction = W[answer] - W[wrong]  # (C,)
    bias = b[answer] - b[wrong] if b is not None else torch.zeros((), dtype=W.dtype)  # ()
    x = cache[f"blocks.{layers[-1]}.resid_post"][0, pos]  # (C,): the stream the final norm reads
    if gamma is not None:
        scale = (x.var(unbiased=False) + eps).sqrt()  # (): frozen from this run

        def read(c: torch.Tensor) -> torch.Tensor:
            return (direction * gamma) @ (c - c.mean()) / scale  # ()

        if beta is not None:
            bias = bias + direction @ beta  # ()
    else:
        scale = torch.ones((), dtype=W.dtype)  # ()

        def read(c: torch.Tensor) -> torch.Tensor:
            return direction @ c  # ()

    with torch.no_grad():
        shares = {name: read(c).item() for name, c in parts.items()}
        diff = (logits[0, pos, answer] - logits[0, pos, wrong]).item()
    return LogitAttribution(shares, float(bias.detach()), diff, float(scale))

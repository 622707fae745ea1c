"""The NumPy twin of nn/moe.py, float64: the router and the experts one token at a time, the losses
as sums over tokens.

    scores s = softmax(x W_rᵀ) or σ(x W_rᵀ); choice: the K largest of s + b (within the kept groups);
    weights w = s_chosen / Σ s_chosen × ρ;  y = Σ_k w_k FFN_k(x) + FFN_shared(x)
    L_aux = E Σ_i f_i P_i (Switch eq. 4-6, top-K);  L_z = mean (log Σ e^ℓ)² (ST-MoE eq. 5)

The torch version routes whole tensors and runs each expert on its tokens; here each token is routed
by sorting its scores, and each of its experts is run on it alone. `routing` is anything with
nn/moe.py's Routing fields.
"""

from __future__ import annotations

import numpy as np

from glassformer.numpy_ref.forward import scope
from glassformer.numpy_ref.glu import gated_feed_forward

GROUP_TOP = 2
TINY = 1e-20


def softmax_row(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())  # (E,)
    return e / e.sum()  # (E,)


def route_token(x: np.ndarray, params: dict[str, np.ndarray], routing) -> tuple[np.ndarray, list[int], np.ndarray]:
    """x (C,) -> (logits (E,), the K chosen experts best first, their weights (K,)), with one Router's
    weights ("weight", and "selection_bias" for the sigmoid rule)."""
    logits = params["weight"] @ x  # (E,)
    scores = softmax_row(logits) if routing.rule == "softmax" else 1.0 / (1.0 + np.exp(-logits))  # (E,)
    choice = scores + params.get("selection_bias", 0.0)  # (E,)
    E = len(scores)
    size = E // routing.n_group
    if routing.n_group > 1:
        groups = [sorted(choice[g * size : (g + 1) * size], reverse=True) for g in range(routing.n_group)]
        group_score = [sum(g[:GROUP_TOP]) for g in groups]
        kept = sorted(range(routing.n_group), key=lambda g: -group_score[g])[: routing.topk_group]
        choice = np.array([c if i // size in kept else -np.inf for i, c in enumerate(choice)])  # (E,)
    chosen = sorted(range(E), key=lambda i: -choice[i])[: routing.top_k]
    weights = scores[chosen]  # (K,)
    if routing.normalize:
        weights = weights / (weights.sum() + TINY)  # (K,)
    return logits, chosen, weights * routing.scale


def mixture_of_experts(x: np.ndarray, params: dict[str, np.ndarray], routing, variant: str = "swiglu") -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with one MixtureOfExperts' weights ("router.", "experts.<e>.", "shared.")."""
    out = np.zeros_like(x)  # (B, T, C)
    router, shared = scope(params, "router."), scope(params, "shared.")
    for b in range(x.shape[0]):
        for t in range(x.shape[1]):
            _, chosen, weights = route_token(x[b, t], router, routing)
            for e, w in zip(chosen, weights, strict=True):
                out[b, t] += w * gated_feed_forward(x[b, t], scope(params, f"experts.{e}."), variant)  # (C,)
            if shared:
                out[b, t] += gated_feed_forward(x[b, t], shared, variant)  # (C,)
    return out


def load_balancing_loss(layers: list[np.ndarray], top_k: int) -> float:
    """E · Σ_i f_i · P_i over the rows (tokens) of every layer's logits (N, E)."""
    rows = [row for layer in layers for row in layer.reshape(-1, layer.shape[-1])]
    E = len(rows[0])
    f, P = np.zeros(E), np.zeros(E)
    for row in rows:
        p = softmax_row(row)  # (E,)
        for i in np.argsort(-p, kind="stable")[:top_k]:
            f[i] += 1 / len(rows)
        P += p / len(rows)
    return float(E * (f * P).sum())


def router_z_loss(layers: list[np.ndarray]) -> float:
    """mean over rows of (log Σ_i e^ℓ_i)², the log-sum-exp written with its largest term taken out."""
    rows = [row for layer in layers for row in layer.reshape(-1, layer.shape[-1])]
    return float(np.mean([(row.max() + np.log(np.exp(row - row.max()).sum())) ** 2 for row in rows]))

"""The routing of a mixture-of-experts model, seen: which experts each token of a text went to and
with what weight (a token × expert map per layer), how many token slots each expert took over the
text or over a corpus (its load), how even that load is (MaxVio) and how sure the router was
(its entropy). `glassformer experts RUN` writes them as PNG, offline HTML and JSON; the explorer's
routing panel shows the same numbers (explore/experts.py).

Everything is read from the model's own hook points, found by their declarations (nn/moe.py's
Router: the chosen experts `router.experts` (B T K), their weights `router.weights` (B T K) and
the scores `router.softmax` / `router.sigmoid` (B T E)): nothing here routes a token a second time.

    map[t, e]  = w_k when e is token t's k-th choice, else 0     a row sums to ρ (to less without
                                                                   normalize: Qwen3-MoE's norm_topk_prob off)
    load[e]    = how many tokens chose e                          nn/moe.py's expert_load; Σ_e load = K·N
    MaxVio     = (max_e load_e − mean_e load_e) / mean_e load_e   nn/moe.py's max_violation: 0 when even,
                                                                   E − 1 when one expert takes every slot
    entropy    = mean over tokens of −Σ_e p_e log₂ p_e,           p = s / Σ_e s, the scores made a
                                                                   distribution (softmax: already one);
                                                                   0 bits: sure of one expert, log₂ E: none preferred
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch

from glassformer.errors import UsageError
from glassformer.inspect.causal_views import Grid, write_all
from glassformer.messages import t
from glassformer.nn.moe import expert_load, max_violation

CHUNK = 32  # rows of a corpus read in one forward
SCORES = ("router.softmax", "router.sigmoid")  # the scores' meaning ids, one per routing rule


@dataclass(frozen=True)
class RouterPoints:
    """One expert layer's router, by its hook points' names."""

    layer: str  # the mixture's module, e.g. blocks.0.ffn
    experts: str  # (B, T, K) the chosen experts
    weights: str  # (B, T, K) their weights
    scores: str  # (B, T, E) the scores the choice read


def router_points(model) -> list[RouterPoints]:
    """Every expert layer's router points, in forward order; a model without experts is refused."""
    found: dict[str, dict[str, str]] = {}
    for name, point in model.hook_points().items() if hasattr(model, "hook_points") else ():
        if point.stage == "router":
            found.setdefault(name.rpartition(".")[0], {})[point.means] = name
    routers = [
        RouterPoints(parent.rpartition(".")[0], p["router.experts"], p["router.weights"], p[s])
        for parent, p in found.items()
        for s in SCORES
        if s in p and "router.experts" in p and "router.weights" in p
    ]
    if not routers:
        cfg = getattr(model, "cfg", None)
        raise UsageError(
            "experts.none",
            "This model (ffn={ffn!r}) has no mixture-of-experts layer, so "
            "there is no routing to show; give a run trained with experts "
            "(--ffn=moe --n_experts=4 --moe_top_k=2, say).",
            ffn=getattr(cfg, "ffn", "?"),
        )
    return routers


@dataclass
class LayerRouting:
    """One expert layer: the text's map, and the load and entropy over everything read."""

    layer: str  # blocks.<i>.ffn
    weights: torch.Tensor  # (T, E) the first sequence's map: the weight each token gave each expert
    load: torch.Tensor  # (E,) token slots each expert took over every token read
    entropy: float  # bits: the mean over every token read of the router's entropy
    tokens: int  # tokens read

    @property
    def share(self) -> torch.Tensor:
        """(E,) each expert's share of the slots (sums to 1; 1/E each when even)."""
        return self.load.double() / self.load.sum()  # (E,)

    @property
    def max_violation(self) -> float:
        return float(max_violation(self.load))


@dataclass
class RoutingView:
    tokens: list[str]  # the text's tokens, as labelled (inspect/trace.py: token_labels)
    layers: list[LayerRouting]
    n_experts: int  # E
    top_k: int  # K

    @property
    def most_entropy(self) -> float:
        """log₂ E: the entropy of a router with no preference."""
        return math.log2(self.n_experts)


def windows(ids: list[int], size: int) -> list[torch.Tensor]:
    """A corpus's ids as batches of rows `size` long, CHUNK rows a batch, the remainder its own row."""
    full = len(ids) // size * size
    rows = torch.tensor(ids[:full], dtype=torch.long).view(-1, size)  # (N, size)
    batches = list(rows.split(CHUNK)) if full else []
    if full < len(ids):
        batches.append(torch.tensor([ids[full:]]))  # (1, rest)
    return batches


def _read(model, batches: list[torch.Tensor], points: list[RouterPoints]):
    """(first sequence's (T, E) map, (E,) load, entropy summed over tokens, tokens) per layer."""
    names = [n for p in points for n in (p.experts, p.weights, p.scores)]
    found: list[list] = [[None, None, 0.0, 0] for _ in points]
    with torch.no_grad():
        for batch in batches:
            _, cache = model.run_with_cache(batch, names=names)
            for i, p in enumerate(points):
                chosen, weights, scores = cache[p.experts], cache[p.weights], cache[p.scores]  # (B,T,K) ×2, (B,T,E)
                E = scores.shape[-1]
                if found[i][0] is None:
                    row = torch.zeros(chosen.shape[1], E, dtype=torch.float64)  # (T, E)
                    found[i][0] = row.scatter_add_(-1, chosen[0], weights[0].double())  # (T, E)
                load = expert_load(chosen, E)  # (E,)
                found[i][1] = load if found[i][1] is None else found[i][1] + load  # (E,)
                probs = scores.double() / scores.double().sum(-1, keepdim=True)  # (B, T, E)
                bits = -torch.special.xlogy(probs, probs).sum(-1) / math.log(2)  # (B, T)
                found[i][2] += float(bits.sum())
                found[i][3] += bits.numel()
    return found


def routing_view(model, ids: torch.Tensor, tokenizer=None, corpus: list[int] | None = None) -> RoutingView:
    """The text's ids (T,) or (1, T): its map per layer; the load and entropy over the text, or over
    `corpus` (ids, read in windows of the model's max_len) when given."""
    from glassformer.inspect.trace import token_labels

    points = router_points(model)
    ids = ids.reshape(1, -1)  # (1, T)
    text = _read(model, [ids], points)
    over = text if corpus is None else _read(model, windows(corpus, model.cfg.max_len), points)
    E = text[0][1].numel()
    K = int(text[0][1].sum()) // ids.shape[1]
    layers = [
        LayerRouting(p.layer, mine[0], all_[1], all_[2] / all_[3], all_[3])
        for p, mine, all_ in zip(points, text, over, strict=True)
    ]
    return RoutingView(token_labels(ids, tokenizer), layers, E, K)


# ------------------------------------------------------------------ the grids every view draws
def columns(view: RoutingView) -> list[str]:
    return [f"E{e}" for e in range(view.n_experts)]


def map_grid(view: RoutingView, index: int) -> Grid:
    """Layer `index`'s token × expert map: one row per token of the text, one column per expert."""
    layer = view.layers[index]
    return Grid(
        t("{layer}: the weight each token gives each expert (0: not chosen)", layer=layer.layer),
        list(view.tokens),
        columns(view),
        [[round(float(v), 6) for v in row] for row in layer.weights.tolist()],
        [t("each token goes to {k} of the {n} experts; a row holds their weights.", k=view.top_k, n=view.n_experts)],
        {"layer": layer.layer, "top_k": view.top_k, "n_experts": view.n_experts},
    )


def load_grid(view: RoutingView, over: str) -> Grid:
    """Each expert's share of the token slots, one row per layer; the notes give each layer's MaxVio
    and routing entropy. `over`: what was read (the text, a corpus), as shown."""
    notes = [
        t(
            "{layer}: {tokens} tokens, MaxVio {maxvio:.3f} (0: even, {worst}: one expert takes all), "
            "routing entropy {entropy:.3f} bits (at most {most:.3f})",
            layer=layer.layer,
            tokens=layer.tokens,
            maxvio=layer.max_violation,
            worst=view.n_experts - 1,
            entropy=layer.entropy,
            most=view.most_entropy,
        )
        for layer in view.layers
    ]
    notes.append(t("an even load gives each expert {even:.3f} of the slots.", even=1 / view.n_experts))
    return Grid(
        t("each expert's share of the token slots over {over}", over=over),
        [layer.layer for layer in view.layers],
        columns(view),
        [[round(float(v), 6) for v in layer.share.tolist()] for layer in view.layers],
        notes,
        {
            "load": [layer.load.tolist() for layer in view.layers],
            "max_violation": [layer.max_violation for layer in view.layers],
            "entropy": [layer.entropy for layer in view.layers],
            "tokens": [layer.tokens for layer in view.layers],
            "most_entropy": view.most_entropy,
            "top_k": view.top_k,
        },
    )


def write_routing(view: RoutingView, over: str, out: Path) -> list[Path]:
    """PNG, HTML and JSON of the load (experts_load.*) and of each layer's map (experts_L<i>.*)."""
    files = write_all(load_grid(view, over), out, "experts_load")
    for i in range(len(view.layers)):
        files += write_all(map_grid(view, i), out, f"experts_L{i}")
    return files

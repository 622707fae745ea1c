"""The explorer's routing panel (its page: static/experts.js): for the typed text, each expert layer's
token × expert map (the weight each token gave each expert, 0 where it was not chosen), each
expert's share of the token slots, the layer's MaxVio and routing entropy. The numbers are
inspect/experts.py's routing_view, the very function `glassformer experts` calls, so the page and
the command line agree; a model without experts is refused with HTTP 422 and the view's own key
(experts.none), the page code "no_experts".
"""

from __future__ import annotations

from glassformer.errors import UsageError
from glassformer.explore.requests import RequestError
from glassformer.messages import N_

# the panel's words, by their names on the page (explore/server.py adds them to PAGE_WORDS)
EXPERT_WORDS = {
    "experts.title": N_("Routing: which experts each token goes to"),
    "experts.help": N_(
        "A mixture of experts sends each token to a few of its experts. One table per layer: a "
        "cell is the weight the token (column) gives the expert (row), 0 where the expert was not "
        "chosen; the last column is each expert's share of the token slots of this text."
    ),
    "experts.layer": N_(
        "{layer}: MaxVio {maxvio} (0: an even load, {worst}: one expert takes every slot), routing "
        "entropy {entropy} bits (at most {most})"
    ),
    "experts.load": N_("share"),
    "experts.expert": N_("expert {e}"),
}
DIGITS = 4


def experts(ex, req: dict) -> dict:
    """The panel's numbers for the request's text (or ids)."""
    from glassformer.inspect.experts import router_points, routing_view

    try:
        router_points(ex.model)
    except UsageError as e:  # the request's fault only in that it asked this model: 422, the view's key
        raise RequestError(e.code, e.message, 422, "no_experts", **e.fields) from None
    if not ex.reads_tokens:
        raise RequestError(
            "explore.experts.tokens",
            "the routing panel reads a model that reads tokens; this one ({kind}) reads numbers.",
            422,
            "no_tokens",
            kind=ex.model.kind,
        )
    x, _, notes = ex._input(req)  # (1, T)
    view = routing_view(ex.model, x)
    return {
        "tokens": ex.labels(x[0].tolist()),
        "notes": notes,
        "experts": view.n_experts,
        "top_k": view.top_k,
        "most": round(view.most_entropy, DIGITS),
        "layers": [
            {
                "name": layer.layer,
                "map": [[round(float(v), DIGITS) for v in row] for row in layer.weights.tolist()],  # (T, E)
                "load": layer.load.tolist(),
                "share": [round(float(v), DIGITS) for v in layer.share.tolist()],
                "max_violation": round(layer.max_violation, DIGITS),
                "entropy": round(layer.entropy, DIGITS),
            }
            for layer in view.layers
        ],
    }

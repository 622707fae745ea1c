"""The explorer's diff view: `glassformer explore BASE --against TUNED` shows BASE in every panel and,
in one more, what tuning changed inside it, the views `glassformer diff BASE TUNED` prints (post/diff.py's
``views``, computed there and only there): each layer's and parameter's relative weight change, each
head's share of the attention projections, a LoRA run's own low-rank update, how far each head's
attention and causal effect moved on the prompts, and the next tokens whose probability moved most.

    diff   {prompt?, lang} -> {base, tuned, grown, views: [{stem, title, rows, columns, values, notes}]}

The prompts are the page's text when it sends one, else the tuned run's own first examples. Runs that do
not line up (another kind, other shapes, another vocabulary) are refused when the explorer starts, with
diff.py's own codes (diff.kind, diff.shapes, diff.vocab), before anything is served.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from glassformer.errors import UsageError
from glassformer.explore.requests import RequestError
from glassformer.messages import N_, speaking
from glassformer.post import diff as post_diff

# the view's words (server.PAGE_WORDS takes them in)
WORDS = {
    "diff.title": N_("What tuning changed: {base} → {tuned}"),
    "diff.help": N_(
        "The panels above show the base run. Here: how far each "
        "layer, parameter and head moved from it, as `glassformer "
        "diff` prints them; how each head's attention and causal "
        "effect moved, and which next tokens moved most, on the "
        "prompts. Darker = moved more; hover a cell for its value."
    ),
    "diff.on_text": N_("compare on my text"),
    "diff.on_data": N_("compare on the run's own data"),
    "diff.prompts_text": N_("Prompts: your text."),
    "diff.prompts_data": N_("Prompts: the tuned run's own first examples."),
}


@dataclass
class Against:
    """The tuned run the explorer compares its base with: the pair, lined up by diff.open_pair."""

    pair: post_diff.Pair
    base: str
    tuned: str


def open_against(base: str | Path, tuned: str | Path) -> Against:
    """BASE and TUNED lined up (diff.open_pair refuses runs that do not line up, naming what differs)."""
    return Against(post_diff.open_pair(base, tuned), str(base), str(tuned))


def diff(ex, req: dict) -> dict:
    against: Against | None = ex.against
    if against is None:
        raise RequestError(
            "explore.diff.none",
            "this explorer compares nothing: start it as `glassformer "
            "explore BASE --against TUNED` to see what tuning changed.",
            422,
            "no_against",
        )
    texts = [req["prompt"]] if req["prompt"] else None
    with speaking(req["lang"]):  # the grids' titles, columns and notes, in the page's language
        try:
            prompts = post_diff.prompt_ids(against.pair, texts)
        except UsageError as e:  # no data of its own to take prompts from; an empty prompt
            raise RequestError(e.code, e.message, 422, "no_prompt", **e.fields) from None
        views = post_diff.views(against.pair, against.tuned, prompts)
    return {
        "base": against.base,
        "tuned": against.tuned,
        "grown": against.pair.grown,
        "prompts": "text" if texts else "data",
        "views": [
            {
                "stem": stem,
                "title": g.title,
                "rows": g.rows,
                "columns": g.columns,
                "notes": g.notes,
                "values": [[round(v, 6) for v in row] for row in g.values],
            }  # fmt: skip
            for stem, g in views.items()
            if g is not None
        ],
    }

"""The explorer's causal panel: what the model's answer depends on, not only where heads look.

    patching    the clean text and a corrupted one of the same length: the patching grids over
                layers × positions (resid_post) and over layers × heads (attn.z, every position),
                normalised clean = 1, corrupted = 0, for the logit difference between the clean
                run's top next token (the answer) and the corrupted run's (the wrong one); without
                a corrupted text, each head's zero-ablation effect on the answer's log-probability
    patch_cell  the corrupted run with one cell of one of those grids copied from the clean run:
                its next-token bars, the unpatched corrupted run as their grey marks

Both read the model only through inspect/causal_views.py, the same functions `glassformer patch`
calls, so the page and the command line show the same numbers.
"""

from __future__ import annotations

import torch

from glassformer.explore.generation import bars, next_probs
from glassformer.explore.render import encode
from glassformer.explore.requests import RequestError, check_range
from glassformer.inspect import causal_views as views

KINDS = {"position": ("resid_post", ("T",)), "head": ("attn.z", ("H",))}


def _prompts(ex, req: dict) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(1, T) clean and, if typed, (1, T) corrupted ids; different lengths are refused."""
    ex._needs_tokens("next")
    max_len = ex.model.cfg.max_len
    clean = encode(ex, {"text": req["text"]})[-max_len:]
    if not clean:
        raise RequestError("error.explore.empty", 422, "empty")
    if not req["corrupt"]:
        return torch.tensor([clean]), None
    corrupt = encode(ex, {"text": req["corrupt"]})[-max_len:]
    if len(corrupt) != len(clean):
        raise RequestError("error.explore.causal.lengths", 422, "lengths", clean=len(clean), corrupt=len(corrupt))
    return torch.tensor([clean]), torch.tensor([corrupt])  # (1, T), (1, T)


def _answer_and_wrong(ex, clean: torch.Tensor, corrupt: torch.Tensor) -> tuple[int, int]:
    a = int(ex.model(clean)[0, -1].argmax())
    other = ex.model(corrupt)[0, -1].clone()  # (V,)
    other[a] = -float("inf")  # the corrupted run's likeliest token other than the answer
    return a, int(other.argmax())


def patching(ex, req: dict) -> dict:
    clean, corrupt = _prompts(ex, req)
    tokens = ex.labels(clean[0].tolist())
    if corrupt is None:
        a = int(ex.model(clean)[0, -1].argmax())
        base, ablated = views.head_ablation(ex.model, clean, lambda z: z[:, -1].log_softmax(-1)[:, a])
        return {"tokens": tokens, "answer": {"id": a, "text": ex.labels([a])[0]},
                "ablation": [[round(float(v - base), 4) for v in row] for row in ablated]}  # fmt: skip
    a, w = _answer_and_wrong(ex, clean, corrupt)
    grids = {by: views.patch_view(ex.model, ex.tokenizer, clean, corrupt, a, w, by) for by in KINDS}
    first = grids["position"]
    return {
        "tokens": tokens,
        "answer": {"id": a, "text": ex.labels([a])[0]},
        "wrong": {"id": w, "text": ex.labels([w])[0]},
        "clean": round(first.extra["clean"], 4),
        "corrupt": round(first.extra["corrupt"], 4),
        "positions": {"rows": first.rows, "values": [[round(v, 4) for v in r] for r in first.values]},
        "heads": {"rows": grids["head"].rows, "values": [[round(v, 4) for v in r] for r in grids["head"].values]},
    }


def patch_cell(ex, req: dict) -> dict:
    clean, corrupt = _prompts(ex, req)
    if corrupt is None:
        raise RequestError("error.explore.causal.no_corrupt", 422, "empty")
    point, by = KINDS[req["kind"]]
    layer = check_range("layer", req["layer"], ex.model.cfg.n_layers, "layers")
    size = clean.shape[1] if req["kind"] == "position" else ex.model.cfg.n_heads
    index = check_range("index", req["index"], size, "tokens" if req["kind"] == "position" else "heads")
    name = f"blocks.{layer}.{point}"
    _, cache = ex.model.run_with_cache(clean, names=[name])
    axes = ex.model.hook_points()[name].axes.split()

    def hook(t: torch.Tensor, name: str) -> torch.Tensor:
        return views._patch_rows(t, cache[name], axes, by, [0], [(index,)])

    logits = ex.model.run_with_hooks(corrupt, hooks={name: hook})[0, -1]  # (V,)
    base = ex.model(corrupt)[0, -1]  # (V,)
    shape = ex._shape(req)
    out = bars(logits, next_probs(logits[None], *shape)[0], ex.labels, next_probs(base[None], *shape)[0])
    a, w = _answer_and_wrong(ex, clean, corrupt)
    return {**out, "kind": req["kind"], "layer": layer, "index": index,
            "logit_diff": round(float(logits[a] - logits[w]), 4)}  # fmt: skip

"""Tensors -> the JSON the page draws: rounded, and only what a panel shows.

Attention thumbnails travel as bytes (one per cell, base64): 0..254 is the value on the panel's
colour scale, 255 a masked cell. For a stage whose values all lie in [0, 1] (softmax weights) the
scale is absolute, so a faint head looks faint; otherwise (scores) each head is stretched between
its own smallest and largest allowed value, which the response says (`scale`).
"""

from __future__ import annotations

import base64
import math

import torch

from glassformer.explore.requests import RequestError, shown
from glassformer.explore.structure import stream_norms, token_lens
from glassformer.messages import LANGS, language

MASKED = 255
EXAMPLE_NUMBERS = "0 0.5 1 0.5"  # how a regressor's input is typed


def rounded(t: torch.Tensor, digits: int = 4) -> list:
    """A tensor as nested lists of rounded floats (-inf, a masked cell, as None)."""
    t = torch.where(torch.isneginf(t), torch.nan, t)
    return (
        [[_num(v, digits) for v in row] for row in t.tolist()]
        if t.dim() == 2
        else [_num(v, digits) for v in t.tolist()]
    )


def _num(v: float, digits: int):
    return None if v != v else round(v, digits)  # NaN (was -inf): None


# ---------------------------------------------------------------------- inputs
def encode(ex, req: dict) -> list[int]:
    """Token ids from exactly one of 'text' and 'ids'."""
    text, ids = req.get("text"), req.get("ids")
    if (text is None) == (ids is None):
        raise RequestError("error.explore.text_or_ids")
    if ids is not None:
        V = ex.model.cfg.vocab_size
        bad = [i for i in ids if not 0 <= i < V]
        if bad:
            raise RequestError(
                "error.explore.ids_outside", 422, "out_of_range", field="ids", ids=shown(bad[:10]), last=V - 1
            )
        return list(ids)
    if ex.tokenizer is None:
        raise RequestError("error.explore.no_tokenizer", 422)
    try:
        return ex.tokenizer.encode(text)
    except ValueError:
        unknown = _unknown(ex.tokenizer, text)
        raise RequestError(
            "error.explore.unknown_chars",
            422,
            "unknown_chars",
            n=len(unknown),
            vocab=ex.tokenizer.vocab_size,
            shown=", ".join(map(repr, unknown[:20])),
            chars=unknown[:20],
        ) from None


def _unknown(tokenizer, text: str) -> list[str]:
    out = []
    for c in dict.fromkeys(text):
        try:
            tokenizer.encode(c)
        except ValueError:
            out.append(c)
    return out


def numbers(ex, req: dict) -> list[float]:
    """A regressor's input: numbers typed as text ("0 0.5, 1"), d_in per step."""
    if req.get("ids") is not None or req.get("text") is None:
        raise RequestError("error.explore.numbers.send_text", 422, example=EXAMPLE_NUMBERS)
    try:
        values = [float(v) for v in req["text"].replace(",", " ").split()]
    except ValueError:
        raise RequestError(
            "error.explore.numbers.not_numbers",
            422,
            "not_numbers",
            text=repr(req["text"][:40]),
            example=EXAMPLE_NUMBERS,
        ) from None
    if any(v != v or abs(v) == float("inf") for v in values):
        raise RequestError("error.explore.numbers.finite", 422, "not_numbers")
    d_in = ex.model.cfg.d_in
    if len(values) % d_in:
        raise RequestError("error.explore.numbers.per_step", 422, "not_numbers", d_in=d_in)
    return values


def tokens(ex, x: torch.Tensor) -> list[dict]:
    if ex.reads_tokens:
        ids = x[0].tolist()
        return [{"id": i, "text": t} for i, t in zip(ids, ex.labels(ids), strict=False)]
    return [{"id": None, "text": ", ".join(f"{v:.3g}" for v in step)} for step in x[0].tolist()]


def appended_text(ex, before: list[int], after: list[int]) -> str:
    """The text the new tokens add to the page's text (a word tokenizer adds its spaces too)."""
    if ex.tokenizer is None:
        return ""
    return ex.tokenizer.decode(after)[len(ex.tokenizer.decode(before)) :]


# ---------------------------------------------------------------------- panels
def trace_table(t) -> dict:
    keep = (0, 1, 2, 3, 5)  # stage, name, shape, dims, means (the example numbers stay out)
    cells = [[r.stage, r.name, list(r.shape) if r.shape is not None else None, r.dims, r.about] for r in t.rows]
    return {"columns": [t.COLUMNS[i] for i in keep], "rows": cells, "legend": t.legend()}


def attention(structure, cache: dict, layer: int, head: int, stage: str, grid: bool) -> dict:
    """One head's (T, T) matrix at one stage, masked cells None; with grid, every head's thumbnail."""

    def masked(lay) -> torch.Tensor:  # (H, T, T) True where any of the layer's stages is -inf
        return torch.stack([torch.isneginf(cache[n]) for n in lay.matrices.values()]).any(dim=0)

    lay = structure.layers[layer]
    m = cache[lay.matrices[stage]][head].masked_fill(masked(lay)[head], float("-inf"))  # (T, T)
    answer = {"layer": layer, "head": head, "stage": stage, "matrix": rounded(m, 3)}
    if grid:
        maps = torch.stack([cache[lay.matrices[stage]] for lay in structure.layers])  # (L, H, T, T)
        hidden = torch.stack([masked(lay) for lay in structure.layers])  # (L, H, T, T)
        answer["grid"] = _thumbnails(maps, hidden, stage)
    return answer


def _thumbnails(maps: torch.Tensor, hidden: torch.Tensor, stage: str) -> dict:
    finite = maps.masked_fill(hidden, 0.0)  # (L, H, T, T)
    absolute = bool(((finite >= 0) & (finite <= 1)).all())
    if absolute:
        scaled = finite  # (L, H, T, T) already in [0, 1]
    else:
        lo = maps.masked_fill(hidden, float("inf")).amin(dim=(-2, -1), keepdim=True)  # (L, H, 1, 1)
        hi = maps.masked_fill(hidden, float("-inf")).amax(dim=(-2, -1), keepdim=True)  # (L, H, 1, 1)
        scaled = (finite - lo) / (hi - lo).clamp_min(1e-12)  # (L, H, T, T) in [0, 1]
    q = (scaled.clamp(0, 1) * (MASKED - 1)).round().to(torch.uint8).masked_fill(hidden, MASKED)
    L, H, T, _ = maps.shape
    return {
        "stage": stage,
        "layers": L,
        "heads": H,
        "T": T,
        "scale": "absolute" if absolute else "per_head",
        "data": base64.b64encode(q.numpy().tobytes()).decode("ascii"),
    }


def stream(ex, cache: dict) -> dict:
    """The stream's norm at every point and position, and the logit lens."""
    points = ex.structure.stream
    h = torch.stack([cache[n] for n in points])  # (P, T, C)
    out = ex.readout(h)  # (P, T, V) or (P, T, d_out)
    answer = {"stream": {"points": points, "norms": rounded(stream_norms(h), 2)}}
    if ex.reads_tokens:
        probs, ids = token_lens(out)  # (P, T, k) each
        seen = sorted(set(ids.flatten().tolist()))
        names = dict(zip(seen, ex.labels(seen), strict=False))
        answer["lens"] = {
            "points": points,
            "cells": [
                [
                    [[names[i], i, round(p, 3)] for i, p in zip(row_i, row_p, strict=False)]
                    for row_i, row_p in zip(ids_p, probs_p, strict=False)
                ]
                for ids_p, probs_p in zip(ids.tolist(), probs.tolist(), strict=False)
            ],
        }
    else:
        answer["lens"] = {"points": points, "values": rounded(out[..., 0], 3)}
    return answer


def prediction(x: torch.Tensor, out: torch.Tensor, base: torch.Tensor | None) -> dict:
    """A regressor's inputs and outputs (first number of each step); the intact model's when ablated."""
    return {
        "inputs": rounded(x[0, :, 0], 4),
        "values": rounded(out[:, 0], 4),
        "base": rounded(base[:, 0], 4) if base is not None else None,
    }


EXAMPLES = (
    "ROMEO:\nBut soft, what light",
    "to be or not to be",
    "hello world",
    "床前明月光，疑是地上霜。",
    "春眠不觉晓，处处闻啼鸟。",
    "你好，世界",
)


def example(ex) -> str:
    """A first input the page can show: the run's own training text (kept in its config.json),
    else a sentence the vocabulary spells exactly (no <unk>; English first, then Chinese), or a
    sine wave; else nothing (the page then asks the reader to type)."""
    if not ex.reads_tokens:
        return " ".join(f"{math.sin(2 * math.pi * t / 16):.2f}" for t in range(16))
    for text in ((ex.example,) if ex.example else ()) + EXAMPLES:
        try:
            if ex.tokenizer is not None and ex.tokenizer.decode(ex.tokenizer.encode(text)).split() == text.split():
                return text
        except ValueError:
            continue
    return ""


def info(ex) -> dict:
    """What the page needs once: the model, its declared stages and stream points, the limits."""
    m, s = ex.model, ex.structure
    cfg = m.cfg
    first = s.layers[0] if s.layers else None
    return {
        "source": ex.source_text(language()),
        "sources": {lang: ex.source_text(lang) for lang in LANGS},  # the header, in each language
        "kind": m.kind,
        "inputs": m.inputs,
        "samples": bool(m.samples) and ex.reads_tokens,
        "kv_cache": hasattr(m, "new_cache"),
        "params": sum(p.numel() for p in m.parameters()),
        "config": {
            k: getattr(cfg, k)
            for k in (
                "n_layers",
                "n_heads",
                "d_model",
                "d_ff",
                "max_len",
                "vocab_size",
                "norm",
                "position",
                "causal",
                "d_in",
                "d_out",
            )
        },
        "layers": len(s.layers),
        "heads": cfg.n_heads,
        "d_head": cfg.d_head,
        "stages": [{"stage": st, **s.describe[first.matrices[st]]} for st in s.stages] if first else [],
        "vectors": [s.describe[n] for n in first.vectors] if first else [],
        "stream": [{"name": n, **s.describe[n]} for n in s.stream],
        "tokenizer": getattr(ex.tokenizer, "kind", None),
        "example": example(ex),
        "limits": vars(ex.limits),
    }

"""What the page's panels show: found in the model's own hook declarations (nn/hooks.py), never by
name, and drawn from tensors turned into rounded JSON, only what a panel shows.

    attention stages   every stage declared on axes "B H T_q T_k" (today: "scores", "weights"),
                       one hook per attention layer, layers in the order they fire
    per layer          the same attention module's (B H T D) hooks: those before its first matrix
                       stage are the vectors made per token (q, k, v; under grouped-query attention
                       k and v are (B H_kv T D), read at the query head's key-value head); the first after its last
                       matrix stage is the heads' outputs z, where a head is ablated
    stream points      hooks declared on "B T C" with stage "+ position" (the stream entering block 0)
                       or "residual" (after each half of each block): the logit lens reads these

A new kind of attention matrix (say, a stage "pattern" declared on the same axes) shows up in the
page with no edit here. Hooks fire in a fixed order, so `firing_order` runs the model once on its
example input to learn it; the build order of `hook_points()` is not the data flow.

The stream points are read by the logit lens: what the residual stream would predict if the model
stopped at each layer.

    lens_p(t) = head(final_norm(h_p(t)))        h_p = the stream at point p (the stream points above)

The model's last stream point, after its final norm and head, IS its output (for a pre-norm
stack); the earlier points ask the same head what they "mean so far" (nostalgebraist 2020,
"interpreting GPT: the logit lens"). The stream's size ‖h_p(t)‖₂ is shown beside it: in a
pre-norm stack it grows block by block, which is why the final norm exists.

Tensors -> JSON (the second half of this file): the request's input read as ids or numbers, and
each panel's answer. Attention thumbnails travel as bytes (one per cell, base64): 0..254 is the
value on the panel's colour scale, 255 a masked cell. For a stage whose values all lie in [0, 1]
(softmax weights) the scale is absolute, so a faint head looks faint; otherwise (scores) each head
is stretched between its own smallest and largest allowed value, which the response says
(`scale`). The next-token bars show the N_BARS tokens with the highest logits, each with the
probability a generation step draws it with (shaped by `glassformer.sample.next_probs`, explorer.py).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn

from glassformer.errors import Unsupported
from glassformer.explore.requests import RequestError, shown
from glassformer.inspect import words
from glassformer.inspect.attention_maps import query_groups
from glassformer.messages import LANGS, language

MATRIX_AXES = "B H T_q T_k"  # an attention matrix: one (T_q, T_k) map per head
HEAD_AXES = "B H T D"  # one D-wide vector per head and token
KV_AXES = "B H_kv T D"  # the same per key-value head (grouped-query attention: fewer than the query heads)
STREAM_AXES = "B T C"
STREAM_STAGES = ("position", "residual")  # the residual stream: where it starts, after each half


@dataclass
class AttentionLayer:
    module: str  # the attention module's path, e.g. "blocks.0.attn"
    matrices: dict[str, str] = field(default_factory=dict)  # stage -> hook name
    vectors: list[str] = field(default_factory=list)  # per-token (B H T D) hooks before the matrices
    z: str | None = None  # the heads' outputs, where ablation zeroes a head
    groups: int = 1  # g: query heads that share one key-value head (grouped-query attention); 1: each its own

    def kv_head(self, head: int) -> int:
        """The key-value head query head `head` reads: ⌊head / g⌋."""
        return head // self.groups


@dataclass
class Structure:
    stages: list[str]  # attention matrix stages, in firing order
    layers: list[AttentionLayer]
    stream: list[str]  # stream hook names, in firing order
    describe: dict[str, dict[str, dict[str, str]]]  # hook name -> lang -> declaration


def firing_order(model) -> list[str]:
    """Hook names in the order one forward pass fires them (on the kind's own example input)."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            _, cache = model.run_with_cache(model.example_input(1, 2))
    finally:
        model.train(was_training)
    return list(cache)


def _parent(name: str) -> str:
    return name.rpartition(".")[0]


def find_structure(model) -> Structure:
    """Read the declarations: attention stages and layers, the stream points, every description."""
    points = model.hook_points()
    order = firing_order(model)
    stages: list[str] = []
    layers: dict[str, AttentionLayer] = {}
    for name in order:
        hook = points[name]
        if hook.axes == MATRIX_AXES:
            if hook.stage not in stages:
                stages.append(hook.stage)
            layers.setdefault(_parent(name), AttentionLayer(_parent(name))).matrices[hook.stage] = name
    for layer in layers.values():
        inside = [n for n in order if _parent(n) == layer.module]
        first = min(inside.index(n) for n in layer.matrices.values())
        last = max(inside.index(n) for n in layer.matrices.values())
        layer.vectors = [n for n in inside[:first] if points[n].axes in (HEAD_AXES, KV_AXES)]
        after = [n for n in inside[last + 1 :] if points[n].axes == HEAD_AXES]
        layer.z = after[0] if after else None
        layer.groups = query_groups(model, next(iter(layer.matrices.values())))
    stream = [n for n in order if points[n].axes == STREAM_AXES and points[n].stage in STREAM_STAGES]
    describe = {n: {lang: words.describe(points[n], lang) for lang in ("en", "zh")} for n in order}
    return Structure(stages, list(layers.values()), stream, describe)


def rotary_of(model, layer: AttentionLayer):
    """The rotary module that turns this layer's q and k (its `pair_angles` and `pairs` say how), or None."""
    positions = getattr(model.get_submodule(layer.module), "positions", None)
    return positions if hasattr(positions, "pair_angles") else None


def rotation_points(model, layer: AttentionLayer) -> dict[str, tuple[str, str]]:
    """The hook points of q and k just before and just after the rotation, {"q": (before, after),
    "k": (...)}: after, the rotary module's own; before, what enters it: the QK-norm's output when
    the layer has one (it normalises before the rotation), else the projection's (nn/attention.py)."""
    attn, rotary = model.get_submodule(layer.module), rotary_of(model, layer)
    qk_norm = getattr(attn, "qk_norm", None)
    entering = qk_norm if qk_norm is not None else attn
    return {
        "q": (entering.hook_q.name, rotary.hook_q.name),
        "k": (entering.hook_k.name, rotary.hook_k.name),
    }


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The logit lens: the stream points read through the model's own final norm and head
# ────────────────────────────────────────────────────────────────────────────────────────────────


def readout(model) -> Callable[[torch.Tensor], torch.Tensor]:
    """(…, C) stream -> what the model outputs from it: its final norm (an identity when it has
    none), then its head, the model's own top-level Linear from C to its outputs."""
    C, n_out = model.cfg.d_model, model.n_outputs
    heads = [m for m in model.children() if isinstance(m, nn.Linear) and m.in_features == C and m.out_features == n_out]
    if not heads:
        raise Unsupported(
            "explore.no_readout",
            "{model} has no Linear layer from d_model={d_model} to its "
            "{n_out} outputs among its top-level modules: the logit lens "
            "needs one.",
            model=type(model).__name__,
            d_model=C,
            n_out=n_out,
        )
    head, final_norm = heads[-1], model.ln_final
    return lambda h: head(final_norm(h))


def stream_norms(stream: torch.Tensor) -> torch.Tensor:
    """(P, T, C) stream at P points -> (P, T) Euclidean length of each token's vector."""
    return stream.norm(dim=-1)  # (P, T)


def token_lens(out: torch.Tensor, k: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """(P, T, V) lens logits -> the k most likely tokens at each point and position:
    probabilities (P, T, k) and ids (P, T, k)."""
    probs = out.softmax(dim=-1)  # (P, T, V)
    top = probs.topk(min(k, probs.size(-1)), dim=-1)
    return top.values, top.indices  # (P, T, k), (P, T, k)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Tensors -> the JSON the page draws: rounded, and only what a panel shows
# ────────────────────────────────────────────────────────────────────────────────────────────────

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
        raise RequestError("explore.text_or_ids", "send exactly one of 'text' (what was typed) and 'ids' (token ids).")
    if ids is not None:
        V = ex.model.cfg.vocab_size
        bad = [i for i in ids if not 0 <= i < V]
        if bad:
            raise RequestError(
                "explore.ids_outside",
                "token ids {ids} are outside the vocabulary (0 to {last}).",
                422,
                "out_of_range",
                field="ids",
                ids=shown(bad[:10]),
                last=V - 1,
            )
        return list(ids)
    if ex.tokenizer is None:
        raise RequestError("explore.no_tokenizer", "this model has no tokenizer: send 'ids' instead of 'text'.", 422)
    try:
        return ex.tokenizer.encode(text)
    except ValueError:
        unknown = _unknown(ex.tokenizer, text)
        raise RequestError(
            "explore.unknown_chars",
            "{n} character(s) are not in this model's vocabulary of "
            "{vocab} (learned from its training text): {shown}. Type "
            "text made of characters it knows.",
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
        raise RequestError(
            "explore.numbers.send_text",
            "this model reads numbers: send 'text' with numbers like \"{example}\".",
            422,
            example=EXAMPLE_NUMBERS,
        )
    try:
        values = [float(v) for v in req["text"].replace(",", " ").split()]
    except ValueError:
        raise RequestError(
            "explore.numbers.not_numbers",
            'this model reads numbers: {text} is not a list of numbers (write them like "{example}").',
            422,
            "not_numbers",
            text=repr(req["text"][:40]),
            example=EXAMPLE_NUMBERS,
        ) from None
    if any(v != v or abs(v) == float("inf") for v in values):
        raise RequestError("explore.numbers.finite", "numbers must be finite (no nan or inf).", 422, "not_numbers")
    d_in = ex.model.cfg.d_in
    if len(values) % d_in:
        raise RequestError(
            "explore.numbers.per_step",
            "this model reads {d_in} numbers per step: give a multiple of {d_in}.",
            422,
            "not_numbers",
            d_in=d_in,
        )
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
def rope(rotary, cache: dict, points: dict, head: int, kv_head: int, positions: list[int], T: int) -> dict:
    """The RoPE view of one query head and its key-value head at some positions: each pair's angle
    p·θ_i and the pairs of q and k before and after the turn, all as the rotary module pairs and
    turns them (its own `pair_angles` and `pairs`: no second copy of the rotation here)."""
    D = rotary.d_head
    angles = rotary.pair_angles(0, T)[positions]  # (P, D/2) p·θ_i

    def pairs(name: str, h: int) -> list:
        return [rounded(p, 4) for p in rotary.pairs(cache[name][h, positions])]  # P × (D/2, 2)

    return {
        "positions": positions,
        "features": rotary.pairs(torch.arange(D)).tolist(),  # (D/2, 2): the features of pair i
        "theta": [float(v) for v in rotary.pair_angles(1, 1)[0]],  # (D/2,) θ_i: the angle of position 1
        "angles": rounded(angles, 4),
        "scale": float(getattr(rotary, "attention_factor", 1.0)),  # YaRN's m multiplies the turned pair
        **{
            which: {"before": pairs(before, h), "after": pairs(after, h)}
            for (which, (before, after)), h in zip(points.items(), (head, kv_head), strict=True)
        },
    }


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
    answer = {
        "layer": layer,
        "head": head,
        "kv_head": lay.kv_head(head),
        "groups": lay.groups,
        "stage": stage,
        "matrix": rounded(m, 3),
    }
    if grid:
        maps = torch.stack([cache[lay.matrices[stage]] for lay in structure.layers])  # (L, H, T, T)
        hidden = torch.stack([masked(lay) for lay in structure.layers])  # (L, H, T, T)
        answer["grid"] = _thumbnails(maps, hidden, stage)
        # grouped-query attention: each layer's g and the key-value head of each of its query heads
        answer["grid"]["groups"] = [lay.groups for lay in structure.layers]
        answer["grid"]["kv_head"] = [[lay.kv_head(h) for h in range(maps.size(1))] for lay in structure.layers]
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


EXAMPLES = (
    "ROMEO:\nBut soft, what light",
    "to be or not to be",
    "hello world",
    "床前明月光，疑是地上霜。",
    "春眠不觉晓，处处闻啼鸟。",
    "你好，世界",
)


def example(ex) -> str:
    """A first input the page can show: text the model's vocabulary reads (readable_text), or a
    sine wave; else nothing (the page then asks the reader to type)."""
    if not ex.reads_tokens:
        return " ".join(f"{math.sin(2 * math.pi * t / 16):.2f}" for t in range(16))
    return readable_text(ex.tokenizer, ex.example)


def readable_text(tokenizer, own: str | None = None) -> str:
    """The run's own training text (`own`, kept in its config.json), else a sentence the vocabulary
    spells exactly (no <unk>; English first, then Chinese); else "". Also the default prompt of
    `glassformer trace | attention | grads --run RUN` (cli/inspect.py)."""
    for text in ((own,) if own else ()) + EXAMPLES:
        try:
            if tokenizer is not None and tokenizer.decode(tokenizer.encode(text)).split() == text.split():
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
        "kv_cache": getattr(m, "new_cache", None) is not None,
        "experts": getattr(cfg, "n_experts", 0),  # routed experts per layer (ffn="moe"); 0: the routing panel hides
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
        "kv_heads": cfg.n_heads // first.groups if first else cfg.n_heads,  # key-value heads (GQA: fewer)
        "groups": first.groups if first else 1,  # g: query heads per key-value head
        "d_head": cfg.d_head,
        "rope": bool(s.layers) and rotary_of(m, s.layers[0]) is not None,  # the RoPE view has something to show
        "stages": [{"stage": st, **s.describe[first.matrices[st]]} for st in s.stages] if first else [],
        "vectors": [s.describe[n] for n in first.vectors] if first else [],
        "stream": [{"name": n, **s.describe[n]} for n in s.stream],
        "tokenizer": getattr(ex.tokenizer, "kind", None),
        "example": example(ex),
        "limits": vars(ex.limits),
    }

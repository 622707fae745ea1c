"""What the explorer shows, found in the model's own hook declarations (nn/hooks.py), never by name.

    attention stages   every stage declared on axes "B H T_q T_k" (today: "scores", "weights"),
                       one hook per attention layer, layers in the order they fire
    per layer          the same attention module's (B H T D) hooks: those before its first matrix
                       stage are the vectors made per token (q, k, v); the first after its last
                       matrix stage is the heads' outputs z, where a head is ablated
    stream points      hooks declared on "B T C" with stage "+ position" (the stream entering block 0)
                       or "residual" (after each half of each block): the logit lens reads these

A new kind of attention matrix (say, a stage "pattern" declared on the same axes) shows up in the
page with no edit here. Hooks fire in a fixed order, so `firing_order` runs the model once on its
example input to learn it; the build order of `hook_points()` is not the data flow.

The stream points are read by the logit lens (at the end): what the residual stream would predict
if the model stopped at each layer.

    lens_p(t) = head(final_norm(h_p(t)))        h_p = the stream at point p (the stream points above)

The model's last stream point, after its final norm and head, IS its output (for a pre-norm
stack); the earlier points ask the same head what they "mean so far" (nostalgebraist 2020,
"interpreting GPT: the logit lens"). The stream's size ‖h_p(t)‖₂ is shown beside it: in a
pre-norm stack it grows block by block, which is why the final norm exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn

from glassformer.errors import Unsupported

MATRIX_AXES = "B H T_q T_k"  # an attention matrix: one (T_q, T_k) map per head
HEAD_AXES = "B H T D"  # one D-wide vector per head and token
STREAM_AXES = "B T C"
STREAM_STAGES = ("+ position", "residual")  # the residual stream: where it starts, after each half


@dataclass
class AttentionLayer:
    module: str  # the attention module's path, e.g. "blocks.0.attn"
    matrices: dict[str, str] = field(default_factory=dict)  # stage -> hook name
    vectors: list[str] = field(default_factory=list)  # per-token (B H T D) hooks before the matrices
    z: str | None = None  # the heads' outputs, where ablation zeroes a head


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
        layer.vectors = [n for n in inside[:first] if points[n].axes == HEAD_AXES]
        after = [n for n in inside[last + 1 :] if points[n].axes == HEAD_AXES]
        layer.z = after[0] if after else None
    stream = [n for n in order if points[n].axes == STREAM_AXES and points[n].stage in STREAM_STAGES]
    describe = {n: {lang: points[n].describe(lang) for lang in ("en", "zh")} for n in order}
    return Structure(stages, list(layers.values()), stream, describe)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The logit lens: the stream points read through the model's own final norm and head
# ────────────────────────────────────────────────────────────────────────────────────────────────


def readout(model) -> Callable[[torch.Tensor], torch.Tensor]:
    """(…, C) stream -> what the model outputs from it: its final norm (an identity when it has
    none), then its head, the model's own top-level Linear from C to its outputs."""
    C, n_out = model.cfg.d_model, model.n_outputs
    heads = [m for m in model.children() if isinstance(m, nn.Linear) and m.in_features == C and m.out_features == n_out]
    if not heads:
        raise Unsupported("error.explore.no_readout", model=type(model).__name__, d_model=C, n_out=n_out)
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

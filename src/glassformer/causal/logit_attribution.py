"""Direct logit attribution: which components write the answer into the residual stream.

In a pre-norm (or norm-free) model the final stream is a sum of parts, each read from a hook point:

    x = embed + pos_embed + Σ_l attn_l + Σ_l ffn_l        attn_l = blocks.l.attn.out, ffn_l = blocks.l.ffn.out
    attn_l = Σ_h result_lh + b_O,l                        result_lh = blocks.l.attn.result[..., h, :]

With `heads=True` each attention layer is split into its heads and its out-projection bias
(read as attn.out − Σ_h result, so from the hooks alone; kept only when the config has biases).
With `experts=True` each mixture-of-experts layer (nn/moe.py) is split into its experts, each
expert's weighted output (blocks.l.ffn.expert.e, 0 at the tokens not routed to it), and its shared
experts (read as ffn.out − ffn.routed; kept only when the config has some):

    ffn_l = Σ_e expert_le + shared_l                      expert_le = blocks.l.ffn.expert.e

The logit difference reads x through the final LayerNorm and the head. The norm is made linear by
freezing its scale from the clean run: σ = sqrt(var(x) + eps) of the whole stream at that position,
so each part c contributes  (W_U[answer] − W_U[wrong]) · γ ⊙ (c − mean(c)) / σ, and the parts sum
to the logit difference minus the constant `bias` = (W_U[a] − W_U[w]) · β + (b_U[a] − b_U[w]).
(TransformerLens's `apply_ln_to_stack` does the same centring and division by the cached scale but
leaves γ to be folded into W_U: its numbers equal these on a model processed with fold_ln=True.)
A final RMSNorm (Llama, Qwen3) neither centres nor shifts: σ = sqrt(mean(x²) + eps), each part
contributes (W_U[answer] − W_U[wrong]) · g ⊙ c / σ, and only the head's bias is left over.

The head and the norm's γ, β are weights, which no hook shows: `readout` is the one place that
reads them, from the model's `head` and `ln_final` (the ends every Transformer kind has).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from glassformer.causal.patching import distinct
from glassformer.errors import Unsupported
from glassformer.messages import t
from glassformer.nn.rmsnorm import RMSNorm


@dataclass
class LogitAttribution:
    parts: dict[str, float]  # component -> its contribution to the logit difference, in stream order
    bias: float  # the norm's β and the head's bias, projected: not any component's
    logit_diff: float  # the model's own, at that position
    scale: float  # σ of the final norm, frozen from this run (1.0 without a final norm)

    def expert_grid(self) -> torch.Tensor:
        """(L, E) the experts' contributions, from parts named blocks.<l>.ffn.expert.<e>
        (logit_attribution(experts=True)); 0 where a layer has no such expert."""
        grid = _grid(self.parts, r"blocks\.(\d+)\.ffn\.expert\.(\d+)")
        if grid is None:
            raise Unsupported(
                "causal.no_expert_parts",
                "This attribution has no per-expert parts; call logit_attribution(..., experts=True).",
            )
        return grid  # (L, E)

    def head_grid(self) -> torch.Tensor:
        """(L, H) the heads' contributions, from parts named blocks.<l>.attn.<h> (logit_attribution(heads=True))."""
        grid = _grid(self.parts, r"blocks\.(\d+)\.attn\.(\d+)")
        if grid is None:
            raise Unsupported(
                "causal.no_head_parts",
                "This attribution has no per-head parts; call logit_attribution(..., heads=True).",
            )
        return grid  # (L, H)


def _grid(parts: dict[str, float], pattern: str) -> torch.Tensor | None:
    """(L, N) the parts whose names match `pattern` (layer, index), 0 where none; None when none does."""
    cells = [(int(m[1]), int(m[2]), v) for k, v in parts.items() if (m := re.fullmatch(pattern, k))]
    if not cells:
        return None
    grid = torch.zeros(max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1, dtype=torch.float64)  # (L, N)
    for layer, index, v in cells:
        grid[layer, index] = v
    return grid


@dataclass
class Readout:
    """The weights between the final stream and the logits: W_U (V, C), b_U (V,) or None; the final
    norm's γ (C,) and β (C,) or None (gamma None: no final norm), its eps, and whether it centres
    (LayerNorm subtracts the mean; RMSNorm does not)."""

    W: torch.Tensor
    b: torch.Tensor | None
    gamma: torch.Tensor | None
    beta: torch.Tensor | None
    eps: float
    centres: bool


def readout(model) -> Readout:
    """The model's head and final norm (LayerNorm, RMSNorm, or none), as the attribution reads them."""
    head, norm = model.head, model.ln_final
    if isinstance(norm, RMSNorm):
        return Readout(head.weight, head.bias, norm.weight, None, norm.eps, centres=False)
    if not isinstance(norm, torch.nn.LayerNorm):
        return Readout(head.weight, head.bias, None, None, 0.0, centres=False)
    return Readout(head.weight, head.bias, norm.weight, norm.bias, norm.eps, centres=True)


def stream_parts(model, cache, pos: int, heads: bool, experts: bool = False) -> dict[str, torch.Tensor]:
    """The parts of the final stream at `pos` of the first sequence, each (C,), in stream order."""
    names = model.hook_names()
    for needed in ["attn.result" if heads else "attn.out", *(["ffn.expert.0"] if experts else [])]:
        if not any(n.endswith(needed) for n in names):
            raise Unsupported(
                "causal.no_hook",
                "This model has no hook point {name!r}, which {method} needs; {fix}",
                name=f"blocks.<i>.{needed}",
                method=t("direct logit attribution"),
                fix="",
            )
    parts: dict[str, torch.Tensor] = {"embed": cache["embed"][0, pos]}  # (C,)
    if "pos_embed" in cache:
        parts["pos_embed"] = cache["pos_embed"][pos]  # (C,)
    layers = sorted({int(n.split(".")[1]) for n in names if n.startswith("blocks.")})
    for i in layers:
        out = cache[f"blocks.{i}.attn.out"][0, pos]  # (C,)
        if heads:
            result = cache[f"blocks.{i}.attn.result"][0, pos]  # (H, C)
            parts.update({f"blocks.{i}.attn.{h}": result[h] for h in range(result.shape[0])})  # H × (C,)
            if model.cfg.bias:
                parts[f"blocks.{i}.attn.bias"] = out - result.sum(0)  # (C,): b_O, as the hooks show it
        else:
            parts[f"blocks.{i}.attn"] = out  # (C,)
        if f"blocks.{i}.ffn.out" not in cache:  # ffn="none": an attention-only block adds nothing more
            continue
        ffn = cache[f"blocks.{i}.ffn.out"][0, pos]  # (C,)
        routed = [n for n in names if re.fullmatch(rf"blocks\.{i}\.ffn\.expert\.\d+", n)]
        if experts and routed:
            parts.update({n: cache[n][0, pos] for n in routed})  # E × (C,): each expert's weighted output
            if model.cfg.moe_shared:
                parts[f"blocks.{i}.ffn.shared"] = ffn - cache[f"blocks.{i}.ffn.routed"][0, pos]  # (C,)
        else:
            parts[f"blocks.{i}.ffn"] = ffn  # (C,)
    return parts


def logit_attribution(
    model, ids: torch.Tensor, answer: int, wrong: int, pos: int = -1, heads: bool = False, experts: bool = False
) -> LogitAttribution:
    """Decompose the logit difference answer − wrong at `pos` of one prompt ids (T,) or (1, T);
    `heads=True` splits every attention layer into its heads (and its bias), `experts=True` every
    mixture-of-experts layer into its experts (and its shared experts)."""
    if model.cfg.norm == "post":
        raise Unsupported(
            "causal.norm_post",
            "Direct logit attribution needs the residual stream to be a "
            "sum of its parts up to the final norm; norm={norm!r} "
            "normalises the stream inside every block. Use a pre-norm or "
            "no-norm model.",
            norm=model.cfg.norm,
        )
    distinct(answer, wrong)
    ids = ids.reshape(1, -1)  # (1, T)
    with torch.no_grad():
        logits, cache = model.run_with_cache(ids)  # (1, T, V)
    parts = stream_parts(model, cache, pos, heads, experts)
    ends = readout(model)
    W, b, gamma, beta, eps = ends.W, ends.b, ends.gamma, ends.beta, ends.eps
    direction = W[answer] - W[wrong]  # (C,)
    bias = b[answer] - b[wrong] if b is not None else torch.zeros((), dtype=W.dtype)  # ()
    last = max(int(n.split(".")[1]) for n in cache if n.startswith("blocks."))
    x = cache[f"blocks.{last}.resid_post"][0, pos]  # (C,): the stream the final norm reads
    stack = torch.stack(list(parts.values()))  # (P, C)
    with torch.no_grad():
        if gamma is not None and ends.centres:  # LayerNorm
            scale = (x.var(unbiased=False) + eps).sqrt()  # (): frozen from this run
            contributions = (stack - stack.mean(-1, keepdim=True)) / scale @ (direction * gamma)  # (P,)
            if beta is not None:
                bias = bias + direction @ beta  # ()
        elif gamma is not None:  # RMSNorm: no centring, no β
            scale = (x.pow(2).mean() + eps).sqrt()  # (): frozen from this run
            contributions = stack / scale @ (direction * gamma)  # (P,)
        else:
            scale = torch.ones((), dtype=W.dtype)  # ()
            contributions = stack @ direction  # (P,)
        diff = (logits[0, pos, answer] - logits[0, pos, wrong]).item()
    return LogitAttribution(
        dict(zip(parts, contributions.tolist(), strict=True)), float(bias.detach()), diff, float(scale)
    )

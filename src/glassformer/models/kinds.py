"""Model kinds: one registry, one `build_model`.

A model kind is a class that assembles the parts of glassformer.nn into a whole model. It registers
itself under a name; a config names its kind (`ModelConfig.kind`), and `build_model(cfg)` is the one
way every caller — training, the CLI, lessons, inspection, benchmarks — turns a config into a model.
A run directory records the kind in its config.json, so a saved run is rebuilt as what it was.

Each kind also says, as class attributes, what the rest of glassformer needs to know about it:
    inputs   "tokens" (a (B, T) id tensor, with a tokenizer), "numbers" ((B, T, d_in) floats) or
             "token pairs" (source (B, S) and target (B, T) ids, one tokenizer: model(src, tgt_in))
    loss     the name of its training loss in nn/loss.py LOSSES ("next_token", "label_smoothed", "mse")
    samples  True when it writes text token by token (glassformer sample applies)

A model is built with the weights its config's `init` names (init_weights, at the end; the Transformer
base of models/gpt.py calls it once a kind's parts exist):

    torch   PyTorch's defaults (Kaiming-uniform Linear, N(0, 1) Embedding); nothing to do.
    xavier  Xavier/Glorot-uniform on every matrix, zero biases — the second tutorial's choice.
            U(-a, a), a = √(6 / (fan_in + fan_out))                    (Glorot & Bengio 2010)
    gpt2    N(0, 0.02) for Linear and Embedding weights, zero biases, and the projections that
            write into the residual stream (attn.proj, cross.proj, ffn.fc2) scaled by 1/√(2·n_layers)
            so the stream's variance does not grow with depth.          (Radford et al. 2019, §2.3)
"""

from __future__ import annotations

import difflib
import math

from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.messages import t

MODEL_KINDS: dict[str, type[nn.Module]] = {}


def register_model_kind(name: str):
    """Class decorator: `@register_model_kind("gpt")` makes build_model(kind="gpt") build this class."""

    def register(cls: type[nn.Module]) -> type[nn.Module]:
        cls.kind = name  # type: ignore[attr-defined]  # every kind has one; nn.Module does not say so
        MODEL_KINDS[name] = cls
        return cls

    return register


def model_class(kind: str) -> type[nn.Module]:
    if kind not in MODEL_KINDS:
        near = difflib.get_close_matches(kind, MODEL_KINDS, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.model.kind", kind=kind, kinds=sorted(MODEL_KINDS), hint=hint)
    return MODEL_KINDS[kind]


def build_model(cfg: ModelConfig) -> nn.Module:
    """The model `cfg.kind` names, built from `cfg` (weights initialised from torch's global RNG:
    call torch.manual_seed first for a reproducible model)."""
    return model_class(cfg.kind)(cfg)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The weights a model starts from
# ────────────────────────────────────────────────────────────────────────────────────────────────

RESIDUAL_PROJECTIONS = ("attn.proj.weight", "cross.proj.weight", "ffn.fc2.weight")


def init_weights(model: nn.Module, scheme: str, n_layers: int) -> None:
    if scheme == "torch":
        return
    if scheme == "xavier":
        for name, p in model.named_parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
            elif name.endswith("bias") and "ln" not in name:
                nn.init.zeros_(p)
        return
    if scheme == "gpt2":
        for module in model.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        for name, p in model.named_parameters():
            if name.endswith(RESIDUAL_PROJECTIONS):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layers))
        return
    raise UsageError("error.init.scheme", scheme=scheme, names=["torch", "xavier", "gpt2"])

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
"""

from __future__ import annotations

import difflib

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

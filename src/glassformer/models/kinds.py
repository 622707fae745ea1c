"""Model kinds: one registry, one `build_model`; the weights a model starts from; and what a config
would allocate, known before anything is allocated (the footprint, at the end).

A model kind is a class that assembles the parts of glassformer.nn into a whole model. It registers
itself under a name; a config names its kind (`ModelConfig.kind`), and `build_model(cfg)` is the one
way every caller — training, the CLI, lessons, inspection, benchmarks — turns a config into a model.
A run directory records the kind in its config.json, so a saved run is rebuilt as what it was.

Each kind also says, as class attributes, what the rest of glassformer needs to know about it:
    inputs   "tokens" (a (B, T) id tensor, with a tokenizer), "numbers" ((B, T, d_in) floats) or
             "token pairs" (source (B, S) and target (B, T) ids, one tokenizer: model(src, tgt_in))
    loss     the name of its training loss in nn/loss.py LOSSES ("next_token", "label_smoothed", "mse")
    samples  True when it writes text token by token (glassformer sample applies)

A model is built with the weights its config's `init` names (init_weights, below; the Transformer
base of models/gpt.py calls it once a kind's parts exist):

    torch   PyTorch's defaults (Kaiming-uniform Linear, N(0, 1) Embedding); nothing to do.
    xavier  Xavier/Glorot-uniform on every matrix, zero biases — the second tutorial's choice.
            U(-a, a), a = √(6 / (fan_in + fan_out))                    (Glorot & Bengio 2010)
    gpt2    N(0, 0.02) for Linear and Embedding weights, zero biases, and the projections that
            write into the residual stream (attn.proj, cross.proj, ffn.fc2) scaled by 1/√(2·n_layers)
            so the stream's variance does not grow with depth.          (Radford et al. 2019, §2.3)

The footprint: what a config would make us allocate, known before anything is allocated.

A config is a handful of numbers, and a few of them multiply: `max_len=10**9` with sinusoidal
positions is a (10**9, d_model) table, `d_model=10**6` a million-squared matrix in every block. A
typo on the command line or a damaged config.json must be refused with a sentence, not met by the
kernel's out-of-memory killer or an allocator's traceback. So the model is first built on PyTorch's
"meta" device, where tensors have shapes and dtypes but no storage: that costs nothing whatever
the sizes, and every kind and position scheme is measured by the code that builds it (no second
formula to keep in step).

    footprint(cfg)           (parameter bytes, buffer bytes, parameter count) of the model cfg makes
    meta_model(cfg)          the model itself, on the meta device (its shapes, for a weights file)
    check_fits(cfg, train)   refuse a model (and, training, its batch) that cannot fit in memory

A model of 10**9 layers would take forever to build even on the meta device, so the footprint
builds one and two layers and extrapolates: every kind's blocks are alike, so the cost is linear
in n_layers. The training estimate adds the gradients and AdamW's two moments (3 × the parameters)
and a rough count of the activations one step keeps for backward; it only refuses what is clearly
beyond the machine (more than its whole memory), so a run that fits is never refused by it.
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import replace

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import Clause, UsageError

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
        hint = Clause(" Did you mean {near!r}?", near=near[0]) if near else ""
        raise UsageError(
            "model.kind",
            "kind={kind!r} is not a model kind; choose one of {kinds}.{hint}",
            kind=kind,
            kinds=sorted(MODEL_KINDS),
            hint=hint,
        )
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
    raise UsageError(
        "init.scheme", "init={scheme!r} is not one of {names}.", scheme=scheme, names=["torch", "xavier", "gpt2"]
    )


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The footprint: what a config would allocate, measured on the meta device
# ────────────────────────────────────────────────────────────────────────────────────────────────

GIB = 1 << 30
FLOAT_BYTES = 4  # float32: what every model is built in


def meta_model(cfg: ModelConfig) -> nn.Module:
    """cfg's model on the meta device: shapes without storage (raises what build_model raises)."""
    with torch.device("meta"):
        return build_model(cfg)


def _measure(cfg: ModelConfig) -> tuple[int, int, int]:
    model = meta_model(cfg)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    return params, buffers, sum(p.numel() for p in model.parameters())


def footprint(cfg: ModelConfig) -> tuple[int, int, int]:
    """(parameter bytes, buffer bytes, parameters) of cfg's model, allocating nothing; sizes beyond
    what a tensor can have at all count as infinitely large."""
    try:
        if cfg.n_layers <= 2:
            return _measure(cfg)
        one, two = _measure(replace(cfg, n_layers=1)), _measure(replace(cfg, n_layers=2))
    except (RuntimeError, OverflowError, MemoryError, TypeError):  # a size no tensor can have (beyond int64)
        return _INFINITE
    extra = cfg.n_layers - 1
    return tuple(a + extra * (b - a) for a, b in zip(one, two, strict=True))  # type: ignore[return-value]


_INFINITE = (1 << 80, 0, 1 << 80)


def machine_memory() -> int | None:
    """Bytes of memory this machine has (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def activation_bytes(cfg: ModelConfig, batch_size: int, seq_len: int) -> int:
    """A rough count of what one training step keeps for backward: per layer, a few (B, T, C) and
    (B, T, d_ff) tensors and the (B, H, T, T) attention weights; and the (B, T, V) logits."""
    B, T = batch_size, seq_len
    per_layer = B * T * (12 * cfg.d_model + 2 * cfg.d_ff) + 2 * B * cfg.n_heads * T * T
    return FLOAT_BYTES * (cfg.n_layers * per_layer + 3 * B * T * max(cfg.vocab_size, cfg.d_out, 1))


def check_fits(cfg: ModelConfig, train=None, memory: int | None = None) -> None:
    """Refuse (UsageError) a model whose weights and buffers — and, given a TrainConfig `train`, its
    gradients, optimizer moments and one step's activations — need more than the machine's memory."""
    memory = machine_memory() if memory is None else memory
    if memory is None:
        return
    params, buffers, count = footprint(cfg)
    need = params + buffers
    if train is not None:
        need += 3 * params + activation_bytes(cfg, train.batch_size, train.seq_len)
    if need > memory:
        raise (
            UsageError(
                "model.too_big_train",
                "training this model needs about {need:.3g} GiB of memory "
                "({params:,} parameters, their gradients and AdamW moments, "
                "one step's activations, {buffers:.3g} GiB of tables), more "
                "than this machine's {memory:.3g} GiB. Make it smaller "
                "(--d_model, --n_layers, --d_ff, --max_len, --vocab_size) or "
                "the batch (--batch_size, --seq_len).",
                need=need / GIB,
                memory=memory / GIB,
                params=count,
                buffers=buffers / GIB,
            )
            if train is not None
            else UsageError(
                "model.too_big",
                "this model needs about {need:.3g} GiB of memory ({params:,} "
                "parameters, {buffers:.3g} GiB of tables such as position "
                "encodings), more than this machine's {memory:.3g} GiB. Make "
                "it smaller (--d_model, --n_layers, --d_ff, --max_len, "
                "--vocab_size).",
                need=need / GIB,
                memory=memory / GIB,
                params=count,
                buffers=buffers / GIB,
            )
        )

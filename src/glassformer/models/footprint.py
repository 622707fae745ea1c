"""What a config would make us allocate, known before anything is allocated.

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

import os
from dataclasses import replace

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.kinds import build_model

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
        raise UsageError(
            "error.model.too_big_train" if train is not None else "error.model.too_big",
            need=need / GIB,
            memory=memory / GIB,
            params=count,
            buffers=buffers / GIB,
        )

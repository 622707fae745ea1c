"""The numbers of one optimizer step: the learning rate it uses, AdamW with two parameter groups, and
global-norm gradient clipping.

Learning-rate schedules are plain functions of the step, so any of them can be printed:

    constant   lr
    cosine     linear warmup 0 -> lr over `warmup` steps, then cosine decay to `min_lr` at its
               horizon, and `min_lr` after it (nanoGPT's get_lr; Loshchilov & Hutter 2017 without
               restarts). The horizon is `decay_steps`, or `max_steps` when that is 0; resuming with
               a larger max_steps keeps the horizon the run was started with (train/run.py), so a
               longer run never raises the learning rate again unless asked (--stretch-schedule).
    noam       d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)        (Vaswani et al. 2017, eq. 3)
               This is already a learning rate (it peaks at (d_model·warmup)^-0.5); multiplying it by
               a base lr, as a LambdaLR with base lr 1e-3 does, shrinks it a thousandfold.

AdamW. Weight decay pulls every weight toward 0 a little each step (AdamW applies it decoupled from the
gradient: θ ← θ - lr·λ·θ, Loshchilov & Hutter 2019). That is a useful prior for the matrices that mix
features (Linear weights), but not for:

- biases and LayerNorm gains/shifts: they set offsets and scales; pulling a gain toward 0 shrinks
  the whole normalised signal, which nobody wants;
- embeddings (token and learned position tables): a row is only touched when its token occurs, so
  decay would mostly shrink the vectors of rare tokens (nanoGPT also leaves them undecayed in
  spirit: it decides by ndim; we decide by module type first, so embeddings are explicit).

So the rule, decided per parameter: no decay if the module that owns it is an nn.Embedding or an
nn.LayerNorm, or if the parameter has fewer than 2 dimensions (biases); decay otherwise. A weight
shared by two modules (tied embedding and head) is not decayed if either owner says no.

Clipping: with g the concatenation of every gradient, ‖g‖ = √(Σ_p ‖g_p‖²); if ‖g‖ > max_norm
every gradient is scaled by max_norm / ‖g‖ (Pascanu et al. 2013). We compute the per-parameter norms
ourselves because the loop keeps them: when a loss turns NaN they name the parameter whose gradient
was largest — at no extra cost, since the global norm is built from them anyway.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn

# ---- AdamW with decay on matrices only; global-norm clipping -------------------------------------
NO_DECAY_MODULES = (nn.Embedding, nn.LayerNorm)


def split_decay(model: nn.Module) -> tuple[list[str], list[str]]:
    """Names of the parameters that get weight decay, and of those that do not (see module doc)."""
    no_decay_ids = set()
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if isinstance(module, NO_DECAY_MODULES) or p.dim() < 2:
                no_decay_ids.add(id(p))
    decay: list[str] = []
    no_decay: list[str] = []
    for name, p in model.named_parameters():  # shared parameters appear once, under their first name
        if p.requires_grad:
            (no_decay if id(p) in no_decay_ids else decay).append(name)
    return decay, no_decay


def build_optimizer(model: nn.Module, cfg) -> torch.optim.AdamW:
    """AdamW over two groups: weight_decay=cfg.weight_decay for matrices, 0 for the rest."""
    decay, no_decay = split_decay(model)
    params = dict(model.named_parameters())
    groups = [
        {"params": [params[n] for n in decay], "weight_decay": cfg.weight_decay},
        {"params": [params[n] for n in no_decay], "weight_decay": 0.0},
    ]
    # the fused kernel updates every parameter in one pass (one launch on a GPU). On this project's
    # CPU it made a whole `baby` training step faster too (docs/performance.md, bench/levers.py);
    # it rounds a little differently from the for-each kernel (parameters within ~1e-7 after 50
    # steps), well inside the golden loss's tolerance, which did not move.
    fused = torch.device(cfg.device).type in ("cpu", "cuda")
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(cfg.beta1, cfg.beta2), fused=fused)


def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """Every group follows the schedule (the groups differ only in weight decay)."""
    for group in optimizer.param_groups:
        group["lr"] = lr


def grad_norms(params: Sequence[torch.Tensor]) -> torch.Tensor:
    """‖g_p‖ for each parameter, as one (P,) tensor on the parameters' device (no host sync).

    A parameter without a gradient (unused in this step) counts as norm 0.
    """
    norms = [p.grad.detach().norm() if p.grad is not None else p.new_zeros(()) for p in params]
    return torch.stack(norms)  # (P,)


def clip_global_norm(params: Sequence[torch.Tensor], norms: torch.Tensor, max_norm: float) -> torch.Tensor:
    """Scale all gradients so their global norm is at most max_norm; return the norm before clipping.

    norms are grad_norms(params). max_norm <= 0 only measures.
    """
    total = torch.linalg.vector_norm(norms)  # () = √(Σ ‖g_p‖²)
    if max_norm > 0:
        torch.nn.utils.clip_grads_with_norm_([p for p in params if p.grad is not None], max_norm, total)
    return total


# ---- learning-rate schedules ---------------------------------------------------------------------
def constant(step: int, lr: float) -> float:
    return lr


def cosine(step: int, lr: float, min_lr: float, warmup: int, max_steps: int) -> float:
    """Warmup then cosine; `step` counts from 0."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step >= max_steps:
        return min_lr
    progress = (step - warmup) / max(1, max_steps - warmup)  # 0 -> 1
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr - min_lr)


def noam(step: int, d_model: int, warmup: int) -> float:
    """The paper's schedule; `step` counts from 0 here (the formula's step is step + 1)."""
    s = step + 1
    return d_model**-0.5 * min(s**-0.5, s * warmup**-1.5)


def horizon(train_cfg) -> int:
    """The step the cosine decay ends at: decay_steps, or max_steps when that is 0 (or absent)."""
    return getattr(train_cfg, "decay_steps", 0) or train_cfg.max_steps


def lr_at(step: int, train_cfg) -> float:
    """The learning rate a TrainConfig asks for at `step`."""
    if train_cfg.lr_schedule == "cosine":
        return cosine(step, train_cfg.lr, train_cfg.min_lr, train_cfg.warmup_steps, horizon(train_cfg))
    return constant(step, train_cfg.lr)

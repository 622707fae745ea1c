"""The training loop: one trainer for every model kind, every lesson and every run.

It knows nothing about GPT. It takes a model, a TrainConfig, a batch source (data.py) and a loss
(next-token cross-entropy by default, mean squared error for a regressor: the model kind names it),
and repeats one optimizer step:

    lr = schedule_lr(step)                                    below (or the caller's function)
    repeat grad_accum times:  x, y = batch;  loss = loss_fn(model(x), y) / grad_accum;  backward
                              (x may be a tuple of tensors, passed as model(*x): a seq2seq
                              model reads (src, tgt_in)); or, given batch_loss, loss =
                              batch_loss(model, batch): a loss that is a function of a batch and
                              the model(s) (post-training's; a reference model is a frozen copy
                              the loss holds); plus, for a model that has one, model.extra_loss()
                              after the forward (a mixture of experts' balance losses: models/gpt.py),
                              logged apart as "extra_loss" (None, the dense models': nothing added)
    ‖g_p‖ per parameter  ─►  clip to global norm grad_clip      below
    optimizer step (AdamW, decay on matrices only, unless the caller brings its own); zero the grads
    a model with experts: balance_experts(model, load, γ), the step's load of each expert (the chosen
                              experts of its forwards, layer_loads) moving each sigmoid-rule
                              router's selection bias, a buffer (DeepSeek-V3: nn/moe.py); the
                              load's balance logged as "expert_max_violation" (nn/moe.py)

Around the step, small collaborators do the rest: the run directory's files — metrics,
checkpoints, best weights, the loss plot — and the progress display (record.py); and, in this
file, below the Trainer, the numbers of the step and the guards of a long run: NaN diagnosis,
Ctrl-C, the torch.compile fallback, and early stopping, one callback among whatever the caller
adds (a lesson's epoch table, the run's samples).

    Trainer, TrainResult               the loop
    build_optimizer, clip_global_norm  AdamW with two parameter groups; global-norm clipping
    schedule_lr, cosine, noam          the learning-rate schedules, plain functions of the step
    PendingSteps, NonFiniteLoss        when a loss turns NaN or inf: where, and which gradient
    stop_signals_as_flag               Ctrl-C or SIGTERM finishes the step, then stops cleanly
    compile_or_eager                   opt-in torch.compile that falls back to eager
    EarlyStopping                      stop when validation stops improving, keep the best weights

Host syncs (.item(), .tolist()) happen only every log_interval steps and at evaluations: the step
itself only queues work, so on a GPU the CPU runs ahead. Losses and gradient norms wait on the
device in `pending` until then — which is also where a NaN is caught, before any checkpoint is
written from poisoned weights.

Several processes (torchrun): the trainer is told its World (distributed.py) and asks it at five
places — the model wrapped for gradient averaging, no_sync on micro-batches before the last, the
logged loss averaged over ranks, evaluation on rank 0 shared with all, each rank's dropout seed —
and rank 0 alone writes the run's files. With one process (the default) each answer is the plain
one and nothing changes.

Determinism: torch.manual_seed (called before the model is built) fixes init and dropout (the
global RNG state right after init is kept and restored when fit() starts, so other work in between
cannot shift it); one torch.Generator seeded with cfg.seed draws every training batch; evaluations
draw their own batches (data.py). All streams are saved in train_state.pt, so a resumed run
continues bit-for-bit (on CPU) as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import copy
import math
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, cast

import torch
from torch import nn

from glassformer.devices import resolve_dtype
from glassformer.messages import N_, t
from glassformer.nn.loss import LOSSES
from glassformer.nn.moe import MixtureOfExperts, balance_experts, layer_loads, max_violation
from glassformer.train.checkpoint import global_rng_state, set_global_rng_state
from glassformer.train.distributed import SINGLE
from glassformer.train.record import Progress, RunFiles, StepTimer, eval_line


# ---- the trainer ---------------------------------------------------------------------------------
@dataclass
class TrainResult:
    status: str  # "done" | "stopped" (a callback asked) | "interrupted" | "nonfinite"
    step: int  # optimizer steps completed
    train_loss: float | None  # at the last evaluation
    val_loss: float | None
    best_val: float | None
    message: str = ""
    signal: int = 0  # the signal that interrupted the run (SIGINT: Ctrl-C, SIGTERM: kill, a scheduler)


Callback = Callable[[str, "Trainer"], None]  # called with ("step" | "eval" | "end", trainer)
LossFn = Callable[..., torch.Tensor]  # (output, target) -> scalar loss
BatchLoss = Callable[[Callable[..., Any], Any], torch.Tensor]  # (model, batch) -> scalar loss


class Trainer:
    """Trains `model` on `batches`. Usage: Trainer(model, cfg, batches, run_dir).fit(); call
    .resume() first to continue a run from its checkpoint.

    loss       fn(output, target) -> scalar; default: the model kind's (nn/loss.py LOSSES)
    batch_loss fn(model, batch) -> scalar, for a loss that is more than a function of one output:
               post-training's (post/tune.py: SFT on a padded batch, DPO with a frozen reference
               copy held by the loss, GRPO that samples); default: loss(model(x), y) for (x, y)
    evaluate   fn() -> {"train_loss": .., "val_loss": ..}; default: mean loss over the source's
               eval batches; None: never evaluate (nor checkpoint)
    optimizer  default: AdamW with weight decay on matrices only (build_optimizer, below)
    lr_at      fn(step) -> learning rate; default: cfg's schedule (schedule_lr, below)
    progress   "bar" (tqdm), "lines" (evaluation lines only) or "silent"
    world      this process's place among torchrun's processes (distributed.current()); default: alone
    """

    def __init__(
        self,
        model: nn.Module,
        cfg,
        batches,
        run_dir=None,
        *,
        loss=None,
        batch_loss: BatchLoss | None = None,
        evaluate="default",
        optimizer=None,
        lr_at=None,
        callbacks: Sequence[Callback] = (),
        progress: str = "bar",
        world=SINGLE,
    ) -> None:
        self.model, self.cfg, self.batches, self.world = model.to(cfg.device), cfg, batches, world
        self.files = world.run_files(run_dir) if run_dir is not None else None
        self.loss_fn: LossFn = loss or cast(LossFn, LOSSES[cast(str, model.loss)])
        self.batch_loss: BatchLoss = batch_loss or self.output_loss
        self.evaluate = world.shared(self.evaluate_loss if evaluate == "default" else evaluate)
        self.optimizer = optimizer or build_optimizer(model, cfg)
        self.lr_at = lr_at or (lambda step: schedule_lr(step, cfg))
        self.callbacks, self.progress_mode = list(callbacks), progress
        self.names, self.params = zip(*[(n, p) for n, p in model.named_parameters() if p.requires_grad], strict=False)
        self.batch_generator = torch.Generator().manual_seed(cfg.seed)
        self.global_rng = global_rng_state()  # right after the seeded init; fit() starts from it
        self.parallel = world.wrap(model)  # the model, or DistributedDataParallel around it
        self.forward = compile_or_eager(self.parallel) if cfg.compile else self.parallel
        self.pending = PendingSteps(self.names)  # losses and norms not yet read back from the device
        self.extra_loss = getattr(model, "extra_loss", None)  # () -> the latest forward's extra loss, or None
        self.pending_extra: list[torch.Tensor] = []  # each step's extra loss (in its loss), on the device
        self.has_experts = any(isinstance(m, MixtureOfExperts) for m in model.modules())  # nn/moe.py's layers
        self.bias_rate = float(getattr(getattr(model, "cfg", None), "moe_bias_rate", 0.0))  # γ of their biases
        self.pending_load: torch.Tensor | None = None  # (L, E) the expert load of the steps not yet logged
        self.step, self.best_val = 0, math.inf
        self.last_eval: dict[str, float] = {}
        self.last_loss: torch.Tensor | None = None  # the latest step's loss, still on the device
        self.stop_reason = ""
        self.in_step = False  # True while a step is half-applied: Ctrl-C then must not checkpoint

    @property
    def run_dir(self) -> Path | None:
        return self.files.dir if self.files else None

    def resume(self) -> None:
        """Continue from the checkpoint in run_dir: weights, optimizer, RNG streams, step (rank 0 first:
        it may finish a save a crash cut, which the other ranks then read)."""
        with self.world.main_first():
            state = cast(RunFiles, self.files).restore(self)  # resume() needs a run directory
        self.global_rng = global_rng_state()  # the checkpoint restored the saved streams
        self.step, self.best_val = state["step"], state["best_val"]
        self.last_eval = {k: state[k] for k in ("train_loss", "val_loss") if k in state}

    def request_stop(self, reason: str) -> None:
        """Ask the loop to stop after the current step (early stopping, a lesson's budget)."""
        self.stop_reason = reason

    # ---- the loop -------------------------------------------------------------------------------
    def fit(self) -> TrainResult:
        cfg = self.cfg
        self.progress = Progress(cfg.max_steps, self.step, self.progress_mode)
        self.timer = StepTimer()
        self.model.train()
        set_global_rng_state(self.global_rng)  # whatever ran since __init__ cannot change dropout
        status, message, stopped_by = "done", "", 0
        try:
            with stop_signals_as_flag() as interrupted:
                if self.step == 0 and self.files is not None:
                    self.evaluate_and_save()  # the untrained loss (≈ ln V) starts the run's curve
                while self.step < cfg.max_steps and not self.stop_reason:
                    self.in_step = True
                    self.train_step()
                    self.in_step = False
                    if stopped_by := interrupted():
                        raise KeyboardInterrupt
                    self.emit("step")
                    at_eval = self.step == cfg.max_steps or self.step % cfg.eval_interval == 0
                    if at_eval or self.step % cfg.log_interval == 0 or self.stop_reason:
                        self.log()
                    if at_eval or self.stop_reason:
                        self.evaluate_and_save()
            if self.stop_reason:
                status, message = "stopped", self.stop_reason
        except NonFiniteLoss as e:
            status, message = "nonfinite", f"{e}\n{self.kept()}"
        except KeyboardInterrupt:
            status, message = "interrupted", self.on_interrupt()
            stopped_by = stopped_by or signal.SIGINT  # a Ctrl-C that went straight through (a second one)
        finally:
            self.progress.close()
            self.global_rng = global_rng_state()  # a later fit() continues the streams
        self.emit("end")
        return TrainResult(
            status,
            self.step,
            self.last_eval.get("train_loss"),
            self.last_eval.get("val_loss"),
            None if math.isinf(self.best_val) else self.best_val,
            message,
            int(stopped_by) if status == "interrupted" else 0,
        )

    def train_step(self) -> None:
        cfg = self.cfg
        set_lr(self.optimizer, self.lr_at(self.step))
        self.world.seed_dropout(cfg.seed, self.step)
        loss_sum = torch.zeros((), device=cfg.device)  # ()
        extra_sum, extra = torch.zeros((), device=cfg.device), None  # ()
        load: torch.Tensor | None = None  # (L, E) the step's expert load, over its micro-batches
        for i in range(cfg.grad_accum):
            batch = self.batches.train_batch(self.batch_generator)  # (x, y), or what batch_loss reads
            with self.world.accumulating(self.parallel, last=i == cfg.grad_accum - 1):
                with self.autocast():
                    loss = self.batch_loss(self.run_model, batch) / cfg.grad_accum  # ()
                    extra = self.extra_loss() if self.extra_loss is not None else None  # () or None
                    if extra is not None:
                        loss = loss + extra / cfg.grad_accum  # ()
                        extra_sum = extra_sum + extra.detach() / cfg.grad_accum  # ()
                loss.backward()
            if self.has_experts and (chosen := layer_loads(self.model)) is not None:
                load = chosen if load is None else load + chosen  # (L, E)
            loss_sum += loss.detach()  # ()
        loss_sum = self.world.mean(loss_sum)  # () the global batch's loss
        if extra is not None:
            self.pending_extra.append(self.world.mean(extra_sum))  # ()
        norms = grad_norms(self.params)  # (P,)
        total = clip_global_norm(self.params, norms, cfg.grad_clip)  # ()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        if load is not None:
            load = self.world.mean(load.float())  # (L, E) the global batch's load
            self.pending_load = load if self.pending_load is None else self.pending_load + load  # (L, E)
            balance_experts(self.model, load, self.bias_rate)  # DeepSeek-V3's: the biases follow the load
        self.step += 1
        self.last_loss = loss_sum
        self.pending.add(self.step, loss_sum, norms, total)

    def run_model(self, x, **options):
        """The model's output for one batch input: a tensor, or a tuple of tensors given as model(*x).
        ``options`` go to the model's forward as they are (SFT packing's ``mask=``, post/sft.py)."""
        return self.forward(*x, **options) if isinstance(x, tuple) else self.forward(x, **options)

    def output_loss(self, model, batch) -> torch.Tensor:
        """The default batch_loss: x, y = batch; loss(model(x), y). x: (B, T) ids, (B, T, d_in) numbers
        or a tuple of tensors."""
        x, y = batch
        return self.loss_fn(model(x), y)  # ()

    # ---- collaborators' entry points ------------------------------------------------------------
    def emit(self, event: str) -> None:
        for callback in self.callbacks:
            callback(event, self)

    def autocast(self):
        model_cfg = getattr(self.model, "cfg", None)  # auto in the library: decided per step (a run's is fixed)
        if resolve_dtype(self.cfg.dtype, self.cfg.device, model_cfg, self.cfg) == "bfloat16":
            return torch.autocast(torch.device(self.cfg.device).type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def log(self) -> None:
        """The one host sync between evaluations: check the losses, write a log record."""
        if not self.pending:
            return
        losses, totals = self.pending.check(self.lr_at)  # raises NonFiniteLoss, naming the culprit
        n, seconds = len(losses), self.timer.lap()
        tokens = n * self.cfg.batch_size * self.cfg.seq_len * self.cfg.grad_accum * self.world.size
        record = {
            "kind": "log",
            "step": self.step,
            "loss": sum(losses) / n,
            "lr": self.lr_at(self.step - 1),
            "grad_norm": sum(totals) / n,
            "ms_per_step": 1000 * seconds / n,
            "tokens_per_s": tokens / seconds,
            "time": self.timer.now(),
        }
        if self.pending_extra:  # the part of "loss" that is the model's extra loss (experts' balance)
            record["extra_loss"] = torch.stack(self.pending_extra).mean().item()
            self.pending_extra = []
        if self.pending_load is not None:  # the experts' balance over the logged steps: the worst layer's
            record["expert_max_violation"] = max_violation(self.pending_load).max().item()
            self.pending_load = None
        if self.files:
            self.files.log(record)
        self.progress.update(self.step, record["loss"], record["lr"], record["tokens_per_s"])

    @torch.no_grad()
    def evaluate_loss(self) -> dict[str, float]:
        """Mean loss over the source's eval batches of each split, in eval mode (no dropout)."""
        was_training = self.model.training
        self.model.eval()
        out = {}
        for split in self.batches.splits:
            batches = list(self.batches.eval_batches(split))
            losses = torch.zeros(len(batches), device=self.cfg.device)  # (eval batches,)
            for i, batch in enumerate(batches):
                with self.autocast():
                    losses[i] = self.batch_loss(self.run_model, batch)
            out[f"{split}_loss"] = losses.mean().item()
        self.model.train(was_training)
        return out

    def evaluate_and_save(self) -> None:
        """Evaluate, remember the best, write metrics, checkpoint and plot (with a run directory)."""
        if self.evaluate is None:
            return
        was_training = self.model.training
        self.model.eval()
        with torch.no_grad():
            losses = {k: float(v) for k, v in self.evaluate().items()}
        self.model.train(was_training)
        if not all(map(math.isfinite, losses.values())):
            raise NonFiniteLoss(
                t(
                    "evaluation at step {step} gave {losses} (lr {lr:.3g})",
                    step=self.step,
                    losses=losses,
                    lr=self.lr_at(max(self.step - 1, 0)),
                )
            )
        improved = losses.get("val_loss", math.inf) < self.best_val
        self.best_val = min(self.best_val, losses.get("val_loss", math.inf))
        self.last_eval = losses
        self.progress.write(eval_line(self.step, losses, improved))
        if self.files:
            self.files.evaluation(
                {
                    "kind": "eval",
                    "step": self.step,
                    **losses,
                    "best_val": self.best_val,
                    "lr": self.lr_at(max(self.step - 1, 0)),
                    "time": self.timer.now(),
                },
                improved,
                self,
            )
        self.emit("eval")
        self.timer.lap()  # ms/step measures training, not evaluation

    def kept(self) -> str:
        return self.files.kept() if self.files else t("No checkpoint was written.")

    def on_interrupt(self) -> str:
        """Ctrl-C or SIGTERM: save where we are if the state is whole (between steps), else keep the last save."""
        if self.in_step or self.files is None:
            return t("Interrupted at step {step}. {kept}", step=self.step, kept=self.kept())
        try:
            self.log()
        except NonFiniteLoss as e:
            return t("Interrupted at step {step}; {problem}\n{kept}", step=self.step, problem=e, kept=self.kept())
        self.files.checkpoint(self)
        return t("Interrupted at step {step}; checkpoint saved in {dir}.", step=self.step, dir=self.run_dir)


# ---- the numbers of one step: AdamW with decay on matrices only; global-norm clipping --------------
# AdamW. Weight decay pulls every weight toward 0 a little each step (AdamW applies it decoupled from the
# gradient: θ ← θ - lr·λ·θ, Loshchilov & Hutter 2019). That is a useful prior for the matrices that mix
# features (Linear weights), but not for:
#
# - biases and LayerNorm gains/shifts: they set offsets and scales; pulling a gain toward 0 shrinks
#   the whole normalised signal, which nobody wants;
# - embeddings (token and learned position tables): a row is only touched when its token occurs, so
#   decay would mostly shrink the vectors of rare tokens (nanoGPT also leaves them undecayed in
#   spirit: it decides by ndim; we decide by module type first, so embeddings are explicit).
#
# So the rule, decided per parameter: no decay if the module that owns it is an nn.Embedding or an
# nn.LayerNorm, or if the parameter has fewer than 2 dimensions (biases); decay otherwise. A weight
# shared by two modules (tied embedding and head) is not decayed if either owner says no.
#
# Clipping: with g the concatenation of every gradient, ‖g‖ = √(Σ_p ‖g_p‖²); if ‖g‖ > max_norm
# every gradient is scaled by max_norm / ‖g‖ (Pascanu et al. 2013). We compute the per-parameter norms
# ourselves because the loop keeps them: when a loss turns NaN they name the parameter whose gradient
# was largest — at no extra cost, since the global norm is built from them anyway.
NO_DECAY_MODULES = (nn.Embedding, nn.LayerNorm)


def split_decay(model: nn.Module) -> tuple[list[str], list[str]]:
    """Names of the parameters that get weight decay, and of those that do not (see the comment above)."""
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
# Plain functions of the step, so any of them can be printed:
#
#     constant   lr
#     cosine     linear warmup 0 -> lr over `warmup` steps, then cosine decay to `min_lr` at its
#                horizon, and `min_lr` after it (nanoGPT's get_lr; Loshchilov & Hutter 2017 without
#                restarts). The horizon is `decay_steps`, or `max_steps` when that is 0; resuming with
#                a larger max_steps keeps the horizon the run was started with (train/run.py), so a
#                longer run never raises the learning rate again unless asked (--stretch-schedule).
#     noam       d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)        (Vaswani et al. 2017, eq. 3)
#                This is already a learning rate (it peaks at (d_model·warmup)^-0.5); multiplying it by
#                a base lr, as a LambdaLR with base lr 1e-3 does, shrinks it a thousandfold.


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


def schedule_lr(step: int, train_cfg) -> float:
    """The learning rate a TrainConfig asks for at `step`."""
    if train_cfg.lr_schedule == "cosine":
        return cosine(step, train_cfg.lr, train_cfg.min_lr, train_cfg.warmup_steps, horizon(train_cfg))
    return constant(step, train_cfg.lr)


# ---- when a loss turns NaN or inf -----------------------------------------------------------------
# Say where, with what learning rate, and which gradient was largest.
#
# The trainer does not read each step's loss back from the device (that would stall a GPU every
# step). `PendingSteps` keeps the losses and every parameter's gradient norm of the steps not yet
# checked (the norms cost nothing extra: the global norm for clipping is built from them), and
# checks them all at the next log; when a loss is not finite it names the parameter that blew up,
# at that step and at the last healthy one.

ADVISED_CLIP = 1.0  # the grad_clip a non-finite loss's message suggests


class NonFiniteLoss(RuntimeError):
    """The loss became NaN or inf; the message names the step, the lr and the largest gradient."""


def largest_gradient(names: tuple[str, ...], norms: torch.Tensor) -> str:
    """One phrase: how many norms are not finite (and the first), or the largest and its norm."""
    bad = ~torch.isfinite(norms)  # (P,)
    if bad.any():
        first = names[int(bad.nonzero()[0])]
        return t(
            "{bad} of {total} gradient norms are not finite (first: {first})",
            bad=int(bad.sum()),
            total=len(norms),
            first=first,
        )
    i = int(norms.argmax())
    return t("largest gradient {name} (norm {norm:.3g})", name=names[i], norm=float(norms[i]))


def explain_nonfinite(
    names: tuple[str, ...],
    step: int,
    loss: float,
    lr: float,
    norms: torch.Tensor,
    previous: tuple[int, torch.Tensor] | None,
) -> str:
    """The message of a NonFiniteLoss: the bad step, and the last finite one if there was one."""
    before = ""
    if previous is not None:
        prev_step, prev = previous
        before = t(
            "; at step {step}, the last finite one: {gradient}", step=prev_step, gradient=largest_gradient(names, prev)
        )
    return t(
        "loss became {loss} at step {step} (lr {lr:.3g}); "
        "{gradient}{before}. Try a lower lr, grad_clip={clip}, or a "
        "longer warmup.",
        loss=loss,
        step=step,
        lr=lr,
        gradient=largest_gradient(names, norms),
        before=before,
        clip=ADVISED_CLIP,
    )


class PendingSteps:
    """Losses and gradient norms of the steps since the last check, still on the device."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.steps: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        self.last_finite: tuple[int, torch.Tensor] | None = None  # (step, grad norms) last known good

    def add(self, step: int, loss: torch.Tensor, norms: torch.Tensor, total: torch.Tensor) -> None:
        self.steps.append((step, loss, norms, total))

    def __bool__(self) -> bool:
        return bool(self.steps)

    def check(self, lr_at: Callable[[int], float]) -> tuple[list[float], list[float]]:
        """The one host sync: read the losses and global norms back; raise NonFiniteLoss on a bad one."""
        losses = torch.stack([loss for _, loss, _, _ in self.steps]).tolist()  # host sync
        totals = torch.stack([total for *_, total in self.steps]).tolist()
        for (step, _, norms, _), loss in zip(self.steps, losses, strict=False):
            if not math.isfinite(loss):
                raise NonFiniteLoss(explain_nonfinite(self.names, step, loss, lr_at(step - 1), norms, self.last_finite))
            self.last_finite = (step, norms)
        self.steps = []
        return losses, totals


# ---- Ctrl-C or SIGTERM during training: finish the step, then stop cleanly (and checkpoint) -------
STOP_SIGNALS = {
    signal.SIGINT: N_("Ctrl-C: stopping after this step (press again to stop at once) ..."),
    signal.SIGTERM: N_("SIGTERM: stopping after this step and saving a checkpoint (send it again to stop at once) ..."),
}  # and what each says


@contextlib.contextmanager
def stop_signals_as_flag():
    """Turn the first Ctrl-C (SIGINT) or SIGTERM (what `kill`, a batch scheduler or a container stop
    sends) into a flag the loop checks between steps, so a checkpoint is never taken from a
    half-applied optimizer step; a second signal of either kind goes to the handler that was there
    before (Ctrl-C: KeyboardInterrupt at once; SIGTERM: the process ends at once).
    Yields a function: the number of the signal received, 0 while none was."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: 0  # signal handlers can only be set from the main thread
        return

    def handler(signum, frame):
        hits.append(signum)
        restore()
        print("\n" + t(STOP_SIGNALS[signum]), file=sys.stderr)

    def restore():
        for signum, old in previous.items():
            signal.signal(signum, old)

    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield lambda: hits[0] if hits else 0
    finally:
        restore()


# ---- opt-in torch.compile that never costs a user their run ------------------------------------------
# `torch.compile` is lazy: it compiles at the first call, and that is where a missing C compiler,
# an unsupported platform or a backend bug shows up. `compile_or_eager` makes that first call the
# test: if the compiled model fails and the plain model succeeds on the same input, the failure was
# the compiler's, so training says so once and goes on eagerly. Any later error is the model's and
# propagates as usual.


def compile_or_eager(model: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    compiled = torch.compile(model)
    fn: Callable[..., Any] = compiled  # the compiled model until its first call fails, then the plain one
    tested = False

    def forward(x: torch.Tensor) -> torch.Tensor:
        nonlocal fn, tested
        if tested:
            return fn(x)
        tested = True
        try:
            return compiled(x)
        except Exception as e:  # noqa: BLE001 - decided just below: the compiler's fault or the model's
            out = model(x)  # raises the model's own error if the model is what fails
            first = (str(e).strip().splitlines() or [""])[0][:200]
            print(
                t(
                    "torch.compile does not work here ({error}: {first}); "
                    "continuing without it (drop --compile=true to skip this "
                    "message).",
                    error=type(e).__name__,
                    first=first,
                ),
                file=sys.stderr,
            )
            fn = model
            return out

    return forward


# ---- early stopping, as a trainer callback --------------------------------------------------------
# Stop when validation stops improving, keep the best.
#
# After each evaluation the callback compares the validation loss with the best so far. It keeps a
# copy of the best weights in memory; after `patience` evaluations without a better one it asks the
# trainer to stop, and when training ends (stopped or not) it puts the best weights back.
# The untrained evaluation at step 0 is not a candidate: early stopping chooses among trained models.


class EarlyStopping:
    def __init__(self, patience: int | None = None, key: str = "val_loss") -> None:
        self.patience, self.key = patience, key
        self.best: float | None = None
        self.best_eval = -1  # index among the evaluations seen (0 = the first after training began)
        self.evals = 0
        self.state = None
        self.stopped = False

    def __call__(self, event: str, trainer) -> None:
        if event == "eval" and trainer.step > 0:
            value = trainer.last_eval[self.key]
            if self.best is None or value < self.best:
                self.best, self.best_eval = value, self.evals
                self.state = copy.deepcopy(trainer.model.state_dict())
            if self.patience is not None and self.evals - self.best_eval >= self.patience:
                self.stopped = True
                trainer.request_stop(
                    t("no better {key} for {patience} evaluations", key=self.key, patience=self.patience)
                )
            self.evals += 1
        elif event == "end" and self.state is not None and self.patience is not None:
            trainer.model.load_state_dict(self.state)

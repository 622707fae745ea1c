"""The training loop: one trainer for every model kind, every lesson and every run.

It knows nothing about GPT. It takes a model, a TrainConfig, a batch source (sources.py) and a loss
(next-token cross-entropy by default, mean squared error for a regressor: the model kind names it),
and repeats one optimizer step:

    lr = lr_at(step)                                          schedules.py (or the caller's function)
    repeat grad_accum times:  x, y = batch;  loss = loss_fn(model(x), y) / grad_accum;  backward
                              (x may be a tuple of tensors, passed as model(*x): a seq2seq
                              model reads (src, tgt_in))
    ‖g_p‖ per parameter  ─►  clip to global norm grad_clip      optim.py
    optimizer step (AdamW, decay on matrices only, unless the caller brings its own); zero the grads

Around the step, small collaborators do the rest: the run directory's files — metrics,
checkpoints, best weights, the loss plot (record.py) —, the progress display (metrics.py), NaN
diagnosis (diagnose.py), and whatever callbacks the caller adds (early_stop.py, a lesson's epoch
table, the run's samples).

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
draw their own batches (sources.py). All streams are saved in train_state.pt, so a resumed run
continues bit-for-bit (on CPU) as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from torch import nn

from glassformer.messages import t
from glassformer.nn.loss import LOSSES
from glassformer.train.checkpoint import global_rng_state, set_global_rng_state
from glassformer.train.compile import compile_or_eager
from glassformer.train.diagnose import NonFiniteLoss, PendingSteps
from glassformer.train.distributed import SINGLE
from glassformer.train.interrupt import sigint_as_flag
from glassformer.train.metrics import Progress, StepTimer, eval_line
from glassformer.train.optim import build_optimizer, clip_global_norm, grad_norms, set_lr
from glassformer.train.schedules import lr_at as schedule_lr


@dataclass
class TrainResult:
    status: str  # "done" | "stopped" (a callback asked) | "interrupted" | "nonfinite"
    step: int  # optimizer steps completed
    train_loss: float | None  # at the last evaluation
    val_loss: float | None
    best_val: float | None
    message: str = ""


Callback = Callable[[str, "Trainer"], None]  # called with ("step" | "eval" | "end", trainer)


class Trainer:
    """Trains `model` on `batches`. Usage: Trainer(model, cfg, batches, run_dir).fit(); call
    .resume() first to continue a run from its checkpoint.

    loss       fn(output, target) -> scalar; default: the model kind's (nn/loss.py LOSSES)
    evaluate   fn() -> {"train_loss": .., "val_loss": ..}; default: mean loss over the source's
               eval batches; None: never evaluate (nor checkpoint)
    optimizer  default: AdamW with weight decay on matrices only (optim.py)
    lr_at      fn(step) -> learning rate; default: cfg's schedule (schedules.py)
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
        evaluate="default",
        optimizer=None,
        lr_at=None,
        callbacks: list[Callback] = (),
        progress: str = "bar",
        world=SINGLE,
    ) -> None:
        self.model, self.cfg, self.batches, self.world = model.to(cfg.device), cfg, batches, world
        self.files = world.run_files(run_dir) if run_dir is not None else None
        self.loss_fn = loss or LOSSES[model.loss]
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
            state = self.files.restore(self)
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
        status, message = "done", ""
        try:
            with sigint_as_flag() as interrupted:
                if self.step == 0 and self.files is not None:
                    self.evaluate_and_save()  # the untrained loss (≈ ln V) starts the run's curve
                while self.step < cfg.max_steps and not self.stop_reason:
                    self.in_step = True
                    self.train_step()
                    self.in_step = False
                    if interrupted():
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
        )

    def train_step(self) -> None:
        cfg = self.cfg
        set_lr(self.optimizer, self.lr_at(self.step))
        self.world.seed_dropout(cfg.seed, self.step)
        loss_sum = torch.zeros((), device=cfg.device)  # ()
        for i in range(cfg.grad_accum):
            x, y = self.batches.train_batch(self.batch_generator)  # (B, T) ids, (B, T, d_in) numbers or a tuple
            with self.world.accumulating(self.parallel, last=i == cfg.grad_accum - 1):
                with self.autocast():
                    loss = self.loss_fn(self.run_model(x), y) / cfg.grad_accum  # ()
                loss.backward()
            loss_sum += loss.detach()  # ()
        loss_sum = self.world.mean(loss_sum)  # () the global batch's loss
        norms = grad_norms(self.params)  # (P,)
        total = clip_global_norm(self.params, norms, cfg.grad_clip)  # ()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        self.last_loss = loss_sum
        self.pending.add(self.step, loss_sum, norms, total)

    def run_model(self, x):
        """The model's output for one batch input: a tensor, or a tuple of tensors given as model(*x)."""
        return self.forward(*x) if isinstance(x, tuple) else self.forward(x)

    # ---- collaborators' entry points ------------------------------------------------------------
    def emit(self, event: str) -> None:
        for callback in self.callbacks:
            callback(event, self)

    def autocast(self):
        if self.cfg.dtype == "bfloat16":
            return torch.autocast(torch.device(self.cfg.device).type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def log(self) -> None:
        """The one host sync between evaluations: check the losses, write a log record."""
        if not self.pending:
            return
        losses, totals = self.pending.check(self.lr_at)  # raises NonFiniteLoss, naming the culprit
        n, seconds = len(losses), self.timer.lap()
        tokens = n * self.cfg.batch_size * self.cfg.block_size * self.cfg.grad_accum * self.world.size
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
            for i, (x, y) in enumerate(batches):
                with self.autocast():
                    losses[i] = self.loss_fn(self.run_model(x), y)
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
                t("train.eval_nonfinite", step=self.step, losses=losses, lr=self.lr_at(max(self.step - 1, 0)))
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
        return self.files.kept() if self.files else t("run.kept_none")

    def on_interrupt(self) -> str:
        """Ctrl-C: save where we are if the state is whole (between steps), else keep the last save."""
        if self.in_step or self.files is None:
            return t("train.interrupted", step=self.step, kept=self.kept())
        try:
            self.log()
        except NonFiniteLoss as e:
            return t("train.interrupted_nonfinite", step=self.step, problem=e, kept=self.kept())
        self.files.checkpoint(self)
        return t("train.interrupted_saved", step=self.step, dir=self.run_dir)

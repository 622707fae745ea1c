"""The training loop. It knows nothing about GPT beyond "ids (B, T) in, logits (B, T, V) out".

One optimizer step:

    lr = lr_at(step)                                          schedules.py
    repeat grad_accum times:  x, y = batch;  loss = CE(model(x), y) / grad_accum;  loss.backward()
    ‖g_p‖ per parameter  ─►  clip to global norm grad_clip      optim.py
    AdamW step (decay on matrices only), zero the gradients

Host syncs (.item(), .tolist()) happen only every log_interval steps and at evaluations: the step
itself only queues work, so on a GPU the CPU runs ahead. Losses and gradient norms wait on the
device in `_pending` until then — which is also where a NaN is caught, before any checkpoint is
written from poisoned weights.

Determinism: torch.manual_seed (called before the model is built) fixes init and dropout (the
global RNG state right after init is kept and restored when fit() starts, so other work in between
cannot shift it); one torch.Generator seeded with cfg.seed draws every training batch. Evaluation uses its own
generators, re-seeded each time, so it sees the same batches at every eval and never moves the
training streams. All three streams are saved in train_state.pt, so a resumed run continues
bit-for-bit (on CPU) as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from torch import nn

from glassformer.nn.loss import next_token_loss
from glassformer.text.batches import get_batch
from glassformer.train.compile import compile_or_eager
from glassformer.train.checkpoint import (BEST_FILE, global_rng_state, load_checkpoint, save_checkpoint,
                                          save_weights, set_global_rng_state)
from glassformer.train.metrics import MetricsLog, Progress, plot_loss
from glassformer.train.optim import build_optimizer, clip_global_norm, grad_norms, set_lr
from glassformer.train.schedules import lr_at


class NonFiniteLoss(RuntimeError):
    """The loss became NaN or inf; the message names the step, the lr and the largest gradient."""


@dataclass
class TrainResult:
    status: str  # "done" | "interrupted" | "nonfinite"
    step: int  # optimizer steps completed
    train_loss: float | None  # at the last evaluation
    val_loss: float | None
    best_val: float | None
    message: str = ""


Callback = Callable[[str, "Trainer"], None]  # called with ("step" | "eval", trainer)


class Trainer:
    """Trains any module mapping (B, T) ids to (B, T, V) logits on two id arrays (train, val).

    Usage: Trainer(model, train_cfg, train_ids, val_ids, run_dir).fit(); .resume() first to continue.
    Callbacks get ("step", trainer) after every step and ("eval", trainer) after every evaluation.
    """

    def __init__(self, model: nn.Module, cfg, train_data, val_data, run_dir=None,
                 callbacks: list[Callback] = (), progress: bool = True) -> None:
        self.model, self.cfg = model.to(cfg.device), cfg
        self.train_data, self.val_data = train_data, val_data
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.callbacks, self.show_progress = list(callbacks), progress
        self.optimizer = build_optimizer(model, cfg)
        self.names, self.params = zip(*[(n, p) for n, p in model.named_parameters() if p.requires_grad])
        self.batch_generator = torch.Generator().manual_seed(cfg.seed)
        self.global_rng = global_rng_state()  # right after the seeded init; fit() starts from it
        self.forward = compile_or_eager(model) if cfg.compile else model
        self.metrics = MetricsLog(self.run_dir / "metrics.jsonl") if self.run_dir else None
        self.step, self.saved_step, self.best_val = 0, None, math.inf
        self.last_eval: dict[str, float] = {}
        self._pending: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        self._previous_norms: tuple[int, torch.Tensor] | None = None
        self._in_step = False

    def resume(self) -> None:
        """Continue from the checkpoint in run_dir: weights, optimizer, RNG streams, step."""
        state = load_checkpoint(self.run_dir, self.model, self.optimizer, self.batch_generator)
        self.global_rng = global_rng_state()  # load_checkpoint restored the saved streams
        self.step = self.saved_step = state["step"]
        self.best_val = state["best_val"]
        self.last_eval = {k: state[k] for k in ("train_loss", "val_loss") if k in state}
        self.metrics.truncate_after(self.step)  # records a crashed run wrote after its checkpoint

    # ---- one step -------------------------------------------------------------------------------
    def autocast(self):
        if self.cfg.dtype == "bfloat16":
            return torch.autocast(torch.device(self.cfg.device).type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def train_step(self) -> None:
        cfg = self.cfg
        set_lr(self.optimizer, lr_at(self.step, cfg))
        loss_sum = torch.zeros((), device=cfg.device)  # ()
        for _ in range(cfg.grad_accum):
            x, y = get_batch(self.train_data, cfg.batch_size, cfg.block_size, self.batch_generator,
                             cfg.device)  # (B, T), (B, T)
            with self.autocast():
                loss = next_token_loss(self.forward(x), y) / cfg.grad_accum  # ()
            loss.backward()
            loss_sum += loss.detach()  # ()
        norms = grad_norms(self.params)  # (P,)
        total = clip_global_norm(self.params, norms, cfg.grad_clip)  # ()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        self._pending.append((self.step, loss_sum, norms, total))

    # ---- the loop -------------------------------------------------------------------------------
    def fit(self) -> TrainResult:
        cfg = self.cfg
        self.progress = Progress(cfg.max_steps, self.step, self.show_progress)
        self.model.train()
        set_global_rng_state(self.global_rng)  # whatever ran since __init__ cannot change dropout
        status, message = "done", ""
        try:
            with _sigint_as_flag() as interrupted:
                self._timer = time.perf_counter()
                if self.step == 0:
                    self._eval_and_save()  # the untrained loss (≈ ln V) starts the curve
                while self.step < cfg.max_steps:
                    self._in_step = True
                    self.train_step()
                    self._in_step = False
                    if interrupted():
                        raise KeyboardInterrupt
                    self._emit("step")
                    last = self.step == cfg.max_steps
                    at_eval = last or self.step % cfg.eval_interval == 0
                    if at_eval or self.step % cfg.log_interval == 0:
                        self._log()
                    if at_eval:
                        self._eval_and_save()
        except NonFiniteLoss as e:
            status, message = "nonfinite", f"{e}\n{self._kept()}"
        except KeyboardInterrupt:
            status, message = "interrupted", self._on_interrupt()
        finally:
            self.progress.close()
            self.global_rng = global_rng_state()  # a later fit() continues the streams
        return TrainResult(status, self.step, self.last_eval.get("train_loss"),
                           self.last_eval.get("val_loss"),
                           None if math.isinf(self.best_val) else self.best_val, message)

    def _emit(self, event: str) -> None:
        for callback in self.callbacks:
            callback(event, self)

    def _log(self) -> None:
        """The one host sync between evaluations: check the losses, write a log record."""
        if not self._pending:
            return
        steps = [s for s, *_ in self._pending]
        losses = torch.stack([loss for _, loss, _, _ in self._pending]).tolist()  # host sync
        totals = torch.stack([total for *_, total in self._pending]).tolist()
        for (step, _, norms, _), loss in zip(self._pending, losses):
            if not math.isfinite(loss):
                raise NonFiniteLoss(self._diagnose(step, loss, norms))
            self._previous_norms = (step, norms)  # the last step known to be finite
        now = time.perf_counter()
        seconds, n = now - self._timer, len(steps)
        self._timer, self._pending = now, []
        tokens = n * self.cfg.batch_size * self.cfg.block_size * self.cfg.grad_accum
        record = {"kind": "log", "step": self.step, "loss": sum(losses) / n,
                  "lr": lr_at(self.step - 1, self.cfg), "grad_norm": sum(totals) / n,
                  "ms_per_step": 1000 * seconds / n, "tokens_per_s": tokens / seconds, "time": time.time()}
        if self.metrics:
            self.metrics.append(record)
        self.progress.update(self.step, record["loss"], record["lr"], record["tokens_per_s"])

    def _diagnose(self, step: int, loss: float, norms: torch.Tensor) -> str:
        """Name the step, its lr and the parameter with the largest gradient."""
        def largest(n: torch.Tensor) -> str:
            bad = ~torch.isfinite(n)  # (P,)
            if bad.any():
                first = self.names[int(bad.nonzero()[0])]
                return f"{int(bad.sum())} of {len(n)} gradient norms are not finite (first: {first})"
            i = int(n.argmax())
            return f"largest gradient {self.names[i]} (norm {float(n[i]):.3g})"
        text = f"loss became {loss} at step {step} (lr {lr_at(step - 1, self.cfg):.3g}); {largest(norms)}"
        if self._previous_norms is not None:
            prev_step, prev = self._previous_norms
            text += f"; at step {prev_step}, the last finite one: {largest(prev)}"
        return text + ". Try a lower lr, grad_clip=1.0, or a longer warmup."

    @torch.no_grad()
    def evaluate(self) -> dict[str, float]:
        """Mean loss over eval_iters batches of each split, in eval mode (no dropout)."""
        cfg, was_training = self.cfg, self.model.training
        self.model.eval()
        out = {}
        for offset, (split, data) in enumerate((("train", self.train_data), ("val", self.val_data)), 1):
            generator = torch.Generator().manual_seed(cfg.seed + offset)  # same batches every eval
            losses = torch.zeros(cfg.eval_iters, device=cfg.device)  # (eval_iters,)
            for i in range(cfg.eval_iters):
                x, y = get_batch(data, cfg.batch_size, cfg.block_size, generator, cfg.device)  # (B, T)
                with self.autocast():
                    losses[i] = next_token_loss(self.forward(x), y)
            out[f"{split}_loss"] = losses.mean().item()
        self.model.train(was_training)
        return out

    def _eval_and_save(self) -> None:
        losses = self.evaluate()
        if not all(map(math.isfinite, losses.values())):
            raise NonFiniteLoss(f"evaluation at step {self.step} gave {losses} "
                                f"(lr {lr_at(max(self.step - 1, 0), self.cfg):.3g})")
        improved = losses["val_loss"] < self.best_val
        self.best_val = min(self.best_val, losses["val_loss"])
        self.last_eval = losses
        self.progress.write(f"step {self.step:>6}: train {losses['train_loss']:.4f}  "
                            f"val {losses['val_loss']:.4f}" + ("  (best)" if improved else ""))
        if self.run_dir:
            self.metrics.append({"kind": "eval", "step": self.step, **losses, "best_val": self.best_val,
                                 "lr": lr_at(max(self.step - 1, 0), self.cfg), "time": time.time()})
            if improved:
                save_weights(self.run_dir / BEST_FILE, self.model, self.step)
            self.save()
            plot_loss(self.metrics.read(), self.run_dir / "loss.png", title=self.run_dir.name)
        self._emit("eval")
        self._timer = time.perf_counter()  # ms/step measures training, not evaluation

    def save(self) -> None:
        save_checkpoint(self.run_dir, self.model, self.optimizer, self.step, self.batch_generator,
                        {"best_val": self.best_val, **self.last_eval})
        self.saved_step = self.step

    def _kept(self) -> str:
        if self.saved_step is None:
            return "No checkpoint was written."
        return f"The last good checkpoint (step {self.saved_step}) in {self.run_dir} is kept."

    def _on_interrupt(self) -> str:
        """Ctrl-C: save where we are if the state is whole (between steps), else keep the last save."""
        if self._in_step or self.run_dir is None:
            return f"Interrupted at step {self.step}. {self._kept()}"
        try:
            self._log()
        except NonFiniteLoss as e:
            return f"Interrupted at step {self.step}; {e}\n{self._kept()}"
        self.save()
        return f"Interrupted at step {self.step}; checkpoint saved in {self.run_dir}."


@contextlib.contextmanager
def _sigint_as_flag():
    """Turn the first Ctrl-C into a flag the loop checks between steps, so a checkpoint is never
    taken from a half-applied optimizer step; a second Ctrl-C interrupts at once."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False  # signal handlers can only be set from the main thread
        return

    def handler(signum, frame):
        hits.append(signum)
        signal.signal(signal.SIGINT, previous)
        print("\nCtrl-C: stopping after this step (press again to stop at once) ...", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(hits)
    finally:
        signal.signal(signal.SIGINT, previous)

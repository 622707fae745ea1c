"""What the lessons share: a narrator that speaks the user's language (its sentences are the
catalogue's `lesson.*` keys, glassformer/messages/lessons.py), number formatting, an output
folder, PNG saving, and `train_epochs`: the tutorials' way of training (epoch after epoch over a
small dataset held in memory), run by glassformer's one trainer (train/loop.py) with a callback
that keeps the per-epoch table the lessons print.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import torch

from glassformer.config import TrainConfig
from glassformer.messages import N_, in_language, language, resolve, t
from glassformer.train.data import TensorBatches
from glassformer.train.loop import EarlyStopping, Trainer


class Narrator:
    """Prints a lesson. Words come from the catalogue (one `lesson.*` key per sentence, in the
    language of `lang`: --lang, else the user's); numbers are always computed by the caller and
    passed in as fields.

    title(key)   a section heading          say(key)   a sentence that frames a result
    why(key)     one-sentence commentary, printed only with --explain
    show(text)   a raw line (numbers, shapes) that needs no translation
    matrix(...)  a labelled matrix (matrix_lines), its "shape" word in the lesson's language
    """

    def __init__(self, lang: str | None = None, explain: bool = False, echo: Callable[[str], None] = print):
        self.lang = resolve(lang) if lang is not None else language()  # an unknown language is refused
        self.explain, self.echo = explain, echo

    def text(self, key: str, **kw) -> str:
        with in_language(self.lang):
            return t(key, **kw)

    def title(self, key: str, **kw) -> None:
        self.echo("\n== " + self.text(key, **kw) + " ==")

    def say(self, key: str, **kw) -> None:
        self.echo(self.text(key, **kw))

    def why(self, key: str, **kw) -> None:
        if self.explain:
            self.echo("  » " + self.text(key, **kw))

    def show(self, line: str = "") -> None:
        self.echo(line)

    def matrix(self, name: str, a, rows: Iterable[str] | None = None, decimals: int = 4) -> None:
        for line in matrix_lines(name, a, rows, decimals, shape=self.text(N_("shape"))):
            self.echo(line)


def fmt(a, decimals: int = 4, sci: bool = False) -> str:
    """A number or array as text with a fixed number of decimals (or in scientific notation),
    rounded for reading only; the values themselves stay exact."""
    a = np.asarray(a, dtype=np.float64)
    spec = f".{decimals}e" if sci else f".{decimals}f"
    if a.ndim == 0:
        return format(float(a) + 0.0, spec)  # + 0.0 turns -0.0 into 0.0
    return "[" + ", ".join(fmt(x, decimals, sci) for x in a) + "]"


def matrix_lines(name: str, a, rows: Iterable[str] | None = None, decimals: int = 4, shape: str = "shape") -> list[str]:
    """`name  shape (…)` and then one labelled line per row."""
    a = np.asarray(a, dtype=np.float64)
    lines = [f"{name}  {shape} {tuple(a.shape)}"]
    if a.ndim == 1:
        return lines + ["  " + fmt(a, decimals)]
    labels = list(rows) if rows is not None else [str(i) for i in range(a.shape[0])]
    width = max(len(s) for s in labels)
    return lines + [f"  {lab:<{width}}  {fmt(row, decimals)}" for lab, row in zip(labels, a, strict=False)]


def out_dir(lesson: str, out: str | Path | None) -> Path:
    """The folder for a lesson's files: --out if given, else out/lessons/<lesson>/."""
    path = Path(out) if out is not None else Path("out") / "lessons" / lesson
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_png(fig, path: Path) -> Path:
    """Write a matplotlib Figure (made with matplotlib.figure.Figure, no GUI backend) as a PNG, its
    words (the lesson's language: nar.text) drawn with the shipped CJK font where the default lacks a glyph."""
    from glassformer.fonts import use_in_figure

    use_in_figure(fig)
    fig.savefig(path, dpi=100)
    return path


def seed_all(seed: int) -> np.random.Generator:
    """Seed torch's global generator (init, dropout) and return a NumPy generator for the data."""
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


@dataclass
class FitResult:
    """What `fit` measured: one entry per epoch, and the epoch whose weights the model ends with."""

    train: list[float] = field(default_factory=list)  # mean training loss of each epoch
    val: list[float] = field(default_factory=list)  # validation loss after each epoch (if any)
    lr: list[float] = field(default_factory=list)  # learning rate of each epoch's last step
    best_epoch: int = -1  # index into val; -1 when there is no validation
    stopped_early: bool = False
    steps: int = 0


class EpochRecorder:
    """Trainer callback: the mean training loss of each epoch (each sample counted once, whatever
    the batch sizes), the lr of its last step, and the validation loss after it."""

    def __init__(self, result: FitResult, n: int, batch_size: int, on_epoch=None) -> None:
        self.result, self.n, self.batch_size, self.on_epoch = result, n, batch_size, on_epoch
        self.steps_per_epoch = math.ceil(n / batch_size)
        self.total = 0.0

    def __call__(self, event: str, trainer) -> None:
        r = self.result
        if event == "step":
            in_epoch = (trainer.step - 1) % self.steps_per_epoch  # this step's batch index in its epoch
            rows = min(self.batch_size, self.n - in_epoch * self.batch_size)
            self.total += trainer.last_loss.item() * rows
            r.steps = trainer.step
            if in_epoch == self.steps_per_epoch - 1:  # the epoch's last batch
                r.train.append(self.total / self.n)
                r.lr.append(trainer.optimizer.param_groups[0]["lr"])
                self.total = 0.0
                if trainer.evaluate is None and self.on_epoch is not None:
                    self.on_epoch(len(r.train) - 1, r)
        elif event == "eval" and trainer.step > 0:
            r.val.append(trainer.last_eval["val_loss"])
            if self.on_epoch is not None:
                self.on_epoch(len(r.train) - 1, r)


def train_epochs(
    model: torch.nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable,
    optimizer: torch.optim.Optimizer,
    epochs: int,
    batch_size: int,
    *,
    shuffle_seed: int | None = None,
    lr_at: Callable[[int], float] | None = None,
    grad_clip: float = 0.0,
    evaluate: Callable[[], float] | None = None,
    patience: int | None = None,
    on_epoch: Callable[[int, FitResult], None] | None = None,
) -> FitResult:
    """Train for up to `epochs` passes over (inputs, targets) through glassformer's trainer.

    shuffle_seed  reshuffle the rows each epoch with a generator seeded so; None: rows in order
    loss_fn(output, targets) -> scalar loss
    lr_at(step)   the learning rate of each step (default: the optimizer's own, constant)
    evaluate()    validation loss, computed under model.eval() and torch.no_grad() after each epoch
    patience      stop after this many epochs without a better validation loss, and put back
                  the weights of the best epoch (early stopping, train/loop.py)
    """
    source = TensorBatches(inputs, targets, batch_size, shuffle=shuffle_seed is not None)
    steps = source.steps_per_epoch
    base_lr = optimizer.param_groups[0]["lr"]
    cfg = TrainConfig(
        batch_size=batch_size,
        seq_len=max(1, inputs.size(1)),
        max_steps=epochs * steps,
        lr=base_lr,
        grad_clip=grad_clip,
        eval_interval=steps,
        log_interval=steps,
        seed=shuffle_seed or 0,
        threads=0,
    )
    result = FitResult()
    stopper = EarlyStopping(patience)
    trainer = Trainer(
        model,
        cfg,
        source,
        loss=loss_fn,
        optimizer=optimizer,
        lr_at=lr_at or (lambda step: base_lr),
        evaluate=(lambda: {"val_loss": float(evaluate())}) if evaluate is not None else None,
        callbacks=[stopper, EpochRecorder(result, len(inputs), batch_size, on_epoch)],
        progress="silent",
    )
    outcome = trainer.fit()
    if outcome.status == "nonfinite":
        raise FloatingPointError(outcome.message)
    result.best_epoch = stopper.best_eval if evaluate is not None else -1
    result.stopped_early = stopper.stopped
    model.eval()
    return result


def n_batches(n: int, batch_size: int) -> int:
    return math.ceil(n / batch_size)

"""What the three lessons share: a narrator that speaks English or Chinese, number formatting,
an output folder, PNG saving, and the one small epoch loop used by hello-world and sine.

The epoch loop is deliberately not glassformer.train.loop: that loop streams windows of a long
token file step by step; the tutorials instead pass over a small in-memory dataset epoch after
epoch, which is what `fit` does (in ~40 lines, so a reader can see every step of training).
"""

from __future__ import annotations

import contextlib
import copy
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import torch

from glassformer.lessons import text_en, text_zh

TEXTS = {"en": text_en.TEXT, "zh": text_zh.TEXT}


class Narrator:
    """Prints a lesson. Words come from the text tables (one key per sentence, `--lang` picks the
    table); numbers are always computed by the caller and passed in as format arguments.

    title(key)   a section heading          say(key)   a sentence that frames a result
    why(key)     one-sentence commentary, printed only with --explain
    show(text)   a raw line (numbers, shapes) that needs no translation
    """

    def __init__(self, lang: str = "en", explain: bool = False, echo: Callable[[str], None] = print):
        if lang not in TEXTS:
            raise ValueError(f"--lang {lang!r} is not one of {sorted(TEXTS)}.")
        self.lang, self.explain, self.echo = lang, explain, echo

    def text(self, key: str, **kw) -> str:
        return TEXTS[self.lang][key].format(**kw)

    def title(self, key: str, **kw) -> None:
        self.echo("\n== " + self.text(key, **kw) + " ==")

    def say(self, key: str, **kw) -> None:
        self.echo(self.text(key, **kw))

    def why(self, key: str, **kw) -> None:
        if self.explain:
            self.echo("  » " + self.text(key, **kw))

    def show(self, line: str = "") -> None:
        self.echo(line)


def fmt(a, decimals: int = 4, sci: bool = False) -> str:
    """A number or array as text with a fixed number of decimals (or in scientific notation),
    rounded for reading only; the values themselves stay exact."""
    a = np.asarray(a, dtype=np.float64)
    spec = f".{decimals}e" if sci else f".{decimals}f"
    if a.ndim == 0:
        return format(float(a) + 0.0, spec)  # + 0.0 turns -0.0 into 0.0
    return "[" + ", ".join(fmt(x, decimals, sci) for x in a) + "]"


def matrix_lines(name: str, a, rows: Iterable[str] | None = None, decimals: int = 4) -> list[str]:
    """`name (shape)` and then one labelled line per row."""
    a = np.asarray(a, dtype=np.float64)
    lines = [f"{name}  shape {tuple(a.shape)}"]
    if a.ndim == 1:
        return lines + ["  " + fmt(a, decimals)]
    labels = list(rows) if rows is not None else [str(i) for i in range(a.shape[0])]
    width = max(len(s) for s in labels)
    return lines + [f"  {lab:<{width}}  {fmt(row, decimals)}" for lab, row in zip(labels, a)]


def out_dir(lesson: str, out: str | Path | None) -> Path:
    """The folder for a lesson's files: --out if given, else out/lessons/<lesson>/."""
    path = Path(out) if out is not None else Path("out") / "lessons" / lesson
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_png(fig, path: Path) -> Path:
    """Write a matplotlib Figure (made with matplotlib.figure.Figure, no GUI backend) as a PNG."""
    fig.savefig(path, dpi=100)
    return path


def seed_all(seed: int) -> np.random.Generator:
    """Seed torch's global generator (init, dropout) and return a NumPy generator for the data."""
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


@contextlib.contextmanager
def torch_threads(n: int):
    """Run a block with n intra-op threads, then restore the previous setting.

    The lessons' models are tiny (matrices of a few thousand numbers): splitting each product
    across threads costs more in synchronisation than it saves, and on a 2-core machine shared
    with other jobs two spinning threads made a training step many times slower than one."""
    if n < 1:
        raise ValueError(f"--threads must be at least 1, got {n}.")
    previous = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@dataclass
class FitResult:
    """What `fit` measured: one entry per epoch, and the epoch whose weights the model ends with."""

    train: list[float] = field(default_factory=list)  # mean training loss of each epoch
    val: list[float] = field(default_factory=list)  # validation loss after each epoch (if any)
    lr: list[float] = field(default_factory=list)  # learning rate of each epoch's last step
    best_epoch: int = -1  # index into val; -1 when there is no validation
    stopped_early: bool = False
    steps: int = 0


def fit(model: torch.nn.Module, batches: Callable[[int], Iterable[tuple]], loss_fn: Callable,
        optimizer: torch.optim.Optimizer, epochs: int, *, lr_at: Callable[[int], float] | None = None,
        grad_clip: float = 0.0, evaluate: Callable[[], float] | None = None,
        patience: int | None = None, on_epoch: Callable[[int, FitResult], None] | None = None,
        ) -> FitResult:
    """Train for up to `epochs` passes over a small dataset.

    batches(epoch)  yields (inputs, targets) for one epoch (the caller decides order/shuffling)
    loss_fn(model, inputs, targets) -> scalar loss
    lr_at(step)     if given, the learning rate set on every parameter group before each step
    evaluate()      validation loss, computed under model.eval() and torch.no_grad()
    patience        stop after this many epochs without a better validation loss, and put back
                    the weights of the best epoch (early stopping)
    """
    result, best_state, step = FitResult(), None, 0
    for epoch in range(epochs):
        model.train()
        total, count = 0.0, 0
        for inputs, targets in batches(epoch):
            if lr_at is not None:
                for group in optimizer.param_groups:
                    group["lr"] = lr_at(step)
            loss = loss_fn(model, inputs, targets)  # ()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
            step += 1
            total, count = total + loss.item() * len(inputs), count + len(inputs)
        result.train.append(total / count)  # each sample counts once, whatever the batch sizes
        result.lr.append(optimizer.param_groups[0]["lr"])
        if evaluate is not None:
            model.eval()
            with torch.no_grad():
                result.val.append(float(evaluate()))
            if result.best_epoch < 0 or result.val[-1] < result.val[result.best_epoch]:
                result.best_epoch, best_state = epoch, copy.deepcopy(model.state_dict())
        result.steps = step
        if on_epoch is not None:
            on_epoch(epoch, result)
        if patience is not None and evaluate is not None and epoch - result.best_epoch >= patience:
            result.stopped_early = True
            break
    if best_state is not None and patience is not None:
        model.load_state_dict(best_state)
    model.eval()
    return result


def batches_in_order(inputs: torch.Tensor, targets: torch.Tensor, batch_size: int,
                     generator: torch.Generator | None = None) -> Callable[[int], Iterable[tuple]]:
    """batches(epoch) for `fit`: consecutive slices, reshuffled each epoch if a generator is given."""
    n = len(inputs)

    def batches(epoch: int):
        order = torch.randperm(n, generator=generator) if generator is not None else torch.arange(n)  # (N,)
        for i in range(0, n, batch_size):
            idx = order[i: i + batch_size]
            yield inputs[idx], targets[idx]

    return batches


def n_batches(n: int, batch_size: int) -> int:
    return math.ceil(n / batch_size)

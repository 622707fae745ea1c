"""What a run directory receives while the trainer works, in one place.

    metrics.jsonl       a "log" line every log_interval steps, an "eval" line at every evaluation
    model.safetensors   ┐ the checkpoint, at every evaluation (and on Ctrl-C between steps)
    train_state.pt      ┘
    best.safetensors    the weights at the lowest validation loss so far
    loss.png            the curves so far
    attention_log.json  when asked (--attention-every N): the chosen heads' maps at chosen steps
                        (AttentionLog, a trainer callback; at the end of this file)

The trainer calls `RunFiles` with what happened; it never opens a file itself. A trainer without a
run directory (a lesson, a test, the lab) simply has none. In a multi-process run (distributed.py)
rank 0 has the RunFiles; the other ranks have ReadOnlyRunFiles: they read the checkpoint to resume
from, and write nothing.

A write that fails (a full disk, a directory made read-only) stops training with WriteFailed, whose
message says which file failed and that the last good checkpoint is kept: every file is replaced
atomically (files.py, checkpoint.py), so a failed write never damages what was there before. A full
disk is DiskFull (exit 2), one line: how many MB are free and about how many a checkpoint needs.

What a run shows while it trains is here too: the progress bar and the evaluation lines (Progress,
eval_line). metrics.jsonl holds one JSON object per line, two kinds:

    {"kind": "log",  "step", "loss", "lr", "grad_norm", "ms_per_step", "tokens_per_s", "time"}
    {"kind": "eval", "step", "train_loss", "val_loss", "best_val", "lr", "time"}

"log" lines come every log_interval steps (loss averaged over those steps); "eval" lines every
eval_interval. Any tool can read the file line by line while the run is still going.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import cast

import torch
from tqdm import tqdm

from glassformer.errors import Clause, DiskFull, NotFound, UsageError, WriteFailed
from glassformer.files import finite, json_text, read_bytes, write_bytes_atomic, write_json_atomic, write_text_atomic
from glassformer.messages import N_, NP_, t
from glassformer.train.checkpoint import (
    BEST_FILE,
    MODEL_FILE,
    checkpoint_bytes,
    load_checkpoint,
    save_checkpoint,
    save_weights,
)

# ---- the run directory's files -------------------------------------------------------------------
# what the user can do about a failed write, by its cause: keys of the catalogue (glassformer/messages)
REMEDIES: dict[int | None, str] = {
    errno.ENOSPC: N_("free some disk space"),
    errno.EACCES: N_("make the directory writable"),
    errno.EPERM: N_("make the directory writable"),
    errno.EROFS: N_("move the run to a writable disk"),
}


class RunFiles:
    def __init__(self, run_dir) -> None:
        self.dir = Path(run_dir)
        self.metrics = MetricsLog(self.dir / "metrics.jsonl")
        self.saved_step: int | None = None  # the step of the checkpoint on disk, if any
        self.trainer = None  # the trainer writing here (its model and optimizer size a checkpoint)

    def log(self, record: dict) -> None:
        self._write("metrics.jsonl", self.metrics.append, record)

    def evaluation(self, record: dict, improved: bool, trainer) -> None:
        """An evaluation's line, the best weights if they improved, a checkpoint, the plot."""
        self.trainer = trainer
        self._write("metrics.jsonl", self.metrics.append, record)
        if improved:
            self._write(BEST_FILE, save_weights, self.dir / BEST_FILE, trainer.model, trainer.step)
        self.checkpoint(trainer)
        self._write("loss.png", lambda: plot_loss(self.metrics.read(), self.dir / "loss.png", title=self.dir.name))

    def checkpoint(self, trainer) -> None:
        self.trainer = trainer
        self._write(
            Clause(
                "the checkpoint of step {step} ({model} and {state})",
                step=trainer.step,
                model=MODEL_FILE,
                state="train_state.pt",
            ),  # worded when shown, in the reader's language
            save_checkpoint,
            self.dir,
            trainer.model,
            trainer.optimizer,
            trainer.step,
            trainer.batch_generator,
            {"best_val": trainer.best_val, **trainer.last_eval},
        )
        self.saved_step = trainer.step

    def restore(self, trainer) -> dict:
        """Load the checkpoint into the trainer's model, optimizer and generators; forget any
        metrics a crashed run wrote after it, and the temp files a killed save left. Returns
        train_state as a dict."""
        self.trainer = trainer
        state = load_checkpoint(self.dir, trainer.model, trainer.optimizer, trainer.batch_generator)
        self.saved_step = state["step"]
        for stray in self.dir.glob(".*.tmp"):  # half-written by a killed process; never loaded by name
            stray.unlink(missing_ok=True)
        # fit() opens every run at step 0 with an evaluation, a resumed one too: keep no step-0 record twice
        last_kept = state["step"] if state["step"] > 0 else -1
        bad = self._write("metrics.jsonl", self.metrics.truncate_after, last_kept)
        if bad:
            print(
                t(
                    "note: {path}: dropped {n} damaged line(s) (line {lines}); a "
                    "run killed while writing leaves its last line cut short.",
                    path=self.metrics.path,
                    n=len(bad),
                    lines=", ".join(map(str, bad)),
                ),
                file=sys.stderr,
            )
        return state

    def kept(self) -> str:
        if self.saved_step is None:
            return t("No checkpoint was written.")
        return t("The last good checkpoint (step {step}) in {dir} is kept.", step=self.saved_step, dir=self.dir)

    def _write(self, what: str | Clause, write, *args):
        """Run one write; an OSError becomes WriteFailed, saying what is kept and what to do."""
        try:
            return write(*args)
        except OSError as e:
            if e.errno == errno.ENOSPC:
                raise self._disk_full() from e
            reason, remedy = e.strerror or str(e), t(REMEDIES.get(e.errno, N_("fix the cause")))
            if self.saved_step is None:
                raise WriteFailed(
                    "write.first",
                    "could not write {what} in {dir} ({reason}); no checkpoint "
                    "had been saved yet. To retry, {remedy}, then start the run "
                    "again.",
                    what=what,
                    dir=self.dir,
                    reason=reason,
                    remedy=remedy,
                ) from e
            raise WriteFailed(
                "write.kept",
                "could not write {what} in {dir} ({reason}). The last good "
                "checkpoint, step {step}, is kept; {remedy}, then continue "
                "with: glassformer train --resume {dir}",
                what=what,
                dir=self.dir,
                reason=reason,
                step=self.saved_step,
                remedy=remedy,
            ) from e

    def _disk_full(self) -> DiskFull:
        """The one line a full disk gets: MB free on the run's disk, MB a checkpoint needs."""
        free = shutil.disk_usage(self.dir).free / 1e6
        need = checkpoint_bytes(self.trainer.model, self.trainer.optimizer) / 1e6 if self.trainer else 0.0
        if self.saved_step is None:
            return DiskFull(
                "write.disk_full_first",
                "the disk holding {dir} is full: {free:.1f} MB free, a "
                "checkpoint needs about {need:.1f} MB; no checkpoint had "
                "been saved yet. Free some space, then start the run again.",
                dir=self.dir,
                free=free,
                need=need,
            )
        return DiskFull(
            "write.disk_full",
            "the disk holding {dir} is full: {free:.1f} MB free, a "
            "checkpoint needs about {need:.1f} MB. The last good "
            "checkpoint, step {step}, is kept; free some space, then "
            "continue with: glassformer train --resume {dir}",
            dir=self.dir,
            free=free,
            need=need,
            step=self.saved_step,
        )


class ReadOnlyRunFiles(RunFiles):
    """The run directory as the other ranks of a multi-process run see it: rank 0 writes every file,
    so these writes do nothing; restoring reads the checkpoint rank 0 has already repaired (if a
    crash had cut its save), without touching a file."""

    def log(self, record: dict) -> None:
        pass

    def evaluation(self, record: dict, improved: bool, trainer) -> None:
        self.saved_step = trainer.step  # rank 0 saved a checkpoint

    def checkpoint(self, trainer) -> None:
        self.saved_step = trainer.step

    def restore(self, trainer) -> dict:
        state = load_checkpoint(self.dir, trainer.model, trainer.optimizer, trainer.batch_generator, repair=False)
        self.saved_step = state["step"]
        return state


# ---- metrics.jsonl, loss.png and the progress display --------------------------------------------
class MetricsLog:
    """Append-only JSON lines. Each line is flushed at once, so a crash loses at most one record."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def append(self, record: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json_text(record) + "\n")

    def read(self) -> list[dict]:
        return self.read_checked()[0]

    def read_checked(self) -> tuple[list[dict], list[int]]:
        """(records, numbers of the lines that are not records). A process killed while appending
        leaves its last line cut short; damaged lines are skipped, never a reason to stop a run."""
        if not self.path.exists():
            return [], []
        text = read_bytes(self.path, t("It is the run's log; delete it to start a fresh one.")).decode(
            "utf-8", errors="replace"
        )
        records, bad = [], []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: a line nested thousands deep
                record = None
            if _is_record(record):
                records.append({k: math.nan if v is None and k in NUMBERS else v for k, v in record.items()})
            else:
                bad.append(number)
        return records, bad

    def truncate_after(self, step: int) -> list[int]:
        """Drop records past `step` (written after the checkpoint a resumed run starts from) and any
        damaged line; return the numbers of the damaged lines dropped."""
        records, bad = self.read_checked()
        text = "".join(json_text(r) + "\n" for r in records if r["step"] <= step)
        write_text_atomic(self.path, text)
        return bad


NUMBERS = ("loss", "train_loss", "val_loss", "best_val", "lr", "grad_norm", "ms_per_step", "tokens_per_s", "time")


def _is_record(record) -> bool:
    """A metrics line as the trainer writes it: a dict with a kind, a whole-number step, and numbers
    where numbers belong (an edited "val_loss": "low" would otherwise reach the plot). A null is a
    number that was not finite (files.json_text writes it so): read back as NaN."""
    return (
        isinstance(record, dict)
        and "kind" in record
        and type(record.get("step")) is int
        and all(type(record[k]) in (int, float, type(None)) for k in NUMBERS if k in record)
    )


def plot_loss(records: list[dict], path: str | os.PathLike, title: str = "") -> None:
    """Train and val loss against step, as a PNG (written atomically).

    Uses matplotlib's Figure + Agg canvas directly, not pyplot: no global backend is changed and no
    window can open, so this works on a headless machine and inside a notebook alike.
    """
    fig = loss_figure(records, title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    write_bytes_atomic(path, buf.getvalue())


def loss_figure(records: list[dict], title: str = ""):
    """The loss curves as a matplotlib Figure, its words (axes, legend) in the user's language."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from glassformer.inspect.fonts import label_font

    logs = [r for r in records if r["kind"] == "log" and _numbers(r, "loss")]
    evals = [r for r in records if r["kind"] == "eval"]
    words = {
        "x": t(NP_("pictures.loss.step_axis", "step")),
        "y": t("cross-entropy (nats / token)"),
        "batch": t("train (batch, log interval mean)"),
        "train": t("{split} (eval)", split=t(NP_("pictures.loss.split.train", "train"))),
        "val": t("{split} (eval)", split=t(NP_("pictures.loss.split.val", "val"))),
    }
    font, _ = label_font([title, *words.values()])  # the shipped CJK font where the words need it
    fig = Figure(figsize=(7, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if logs:
        ax.plot(
            [r["step"] for r in logs],
            [r["loss"] for r in logs],
            color="tab:blue",
            alpha=0.3,
            lw=1,
            label=words["batch"],
        )
    for split, color in (("train", "tab:blue"), ("val", "tab:orange")):  # a source may have no val split
        points = [(r["step"], r[f"{split}_loss"]) for r in evals if _numbers(r, f"{split}_loss")]
        if points:
            ax.plot(*zip(*points, strict=False), "o-", color=color, ms=3, label=words[split])
    ax.set_xlabel(words["x"], fontproperties=font)
    ax.set_ylabel(words["y"], fontproperties=font)
    ax.set_title(title, fontproperties=font)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:  # a GRPO run's first evaluation has no loss to draw yet
        ax.legend(prop=font)
    fig.tight_layout()
    return fig


def _numbers(record: dict, *keys: str) -> bool:
    return all(isinstance(record.get(k), (int, float)) for k in keys)


SPLIT_WORDS = {
    "train": N_(NP_("train.split.train", "train")),
    "val": N_(NP_("train.split.val", "val")),
}  # the splits the catalogue names
IMPROVED = N_("step {step:>6}: {losses}  (best)")  # the line of an evaluation that improved (tests name it)


def eval_line(step: int, losses: dict[str, float], improved: bool) -> str:
    """The line an evaluation prints: `step    500: train 1.2345  val 1.3456  (best)`, in the user's
    language (a split the catalogue does not name, e.g. a lesson's own, keeps its name)."""

    def split(key: str) -> str:
        name = key.removesuffix("_loss")
        return t(SPLIT_WORDS[name]) if name in SPLIT_WORDS else name

    shown = "  ".join(f"{split(k)} {v:.4f}" for k, v in losses.items())
    return t(IMPROVED if improved else N_("step {step:>6}: {losses}"), step=step, losses=shown)


class Progress:
    """What the user sees while a run trains, in one of three modes:

    bar     a tqdm bar over optimizer steps (step/total, ETA, rate; loss/lr/tok/s from us); text
            printed through `write` goes above the bar instead of breaking it. Only on a terminal:
            when stderr (where the bar draws) is a pipe or a file, a bar's carriage returns would
            fill it, so instead each log interval prints one plain line ("step 50/300: loss ...")
    lines   no bar; the evaluation lines and messages are printed
    silent  nothing (lessons print their own tables)
    """

    MODES = ("bar", "lines", "silent")

    def __init__(self, total: int, initial: int, mode: str = "bar") -> None:
        if mode not in self.MODES:
            raise UsageError(
                "progress.mode", "progress={mode!r} is not one of {modes}.", mode=mode, modes=list(self.MODES)
            )
        self.plain = mode == "bar" and not _on_terminal(sys.stderr)  # a bar, but not on a terminal
        self.mode, self.total = ("lines" if self.plain else mode), total
        self.bar = tqdm(
            total=total, initial=initial, unit="step", dynamic_ncols=True, disable=self.mode != "bar", leave=True
        )

    def update(self, step: int, loss: float, lr: float, tokens_per_s: float) -> None:
        if self.plain:
            self.write(
                t(
                    "step {step}/{total}: loss {loss:.4f}  lr {lr:.2e}  {tokens_per_s:,.0f} tok/s",
                    step=step,
                    total=self.total,
                    loss=loss,
                    lr=lr,
                    tokens_per_s=tokens_per_s,
                )
            )
            return
        self.bar.update(step - self.bar.n)
        self.bar.set_postfix(loss=f"{loss:.4f}", lr=f"{lr:.2e}", tok_s=f"{tokens_per_s:,.0f}")

    def write(self, text: str) -> None:
        if self.mode == "bar":
            self.bar.write(text)
        elif self.mode == "lines":
            print(text, flush=True)

    def close(self) -> None:
        self.bar.close()


def _on_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: not a terminal
        return False


class StepTimer:
    """Wall time between log records (ms/step, tokens/s), and the clock written into metrics."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def lap(self) -> float:
        """Seconds since the last lap (or since the timer was made), and start a new lap."""
        now = time.perf_counter()
        seconds, self.start = now - self.start, now
        return seconds

    @staticmethod
    def now() -> float:
        return time.time()


# ---- attention_log.json: the attention maps as training goes (--attention-every N) ---------------
# A trainer callback that keeps attention maps as training goes: how the heads learn where to look.
#
#     AttentionLog(model, probe, labels, heads=[(0, 1), (3, 2)], every=100, path=run_dir / ATTENTION_FILE)
#
# At step 0 (when it is made, before the first update) and then at every `every`-th step, or at the
# steps listed in `steps`, it runs the model once on a fixed probe input, reads the attention weights
# of the chosen heads through the hook points (inspect.attention_maps: the hooks of stage "weights";
# no module attributes), and appends them to a JSON file:
#
#     {"tokens": [...labels...], "heads": [[layer, head], ...],
#      "records": [{"step": 0, "maps": [[[w_ij ...] ...] per head]}, ...]}     masked cells are null
#
# The probe runs in eval mode under no_grad and draws no random numbers, so recording changes nothing
# in the run (the loss curve is bit-identical with and without it). `glassformer train
# --attention-every N` adds one; the lab's attention-steps experiment uses the same class, and
# glassformer.lab.attention_steps turns the file into a PNG strip and an offline page with a slider.
ATTENTION_FILE = "attention_log.json"
PROBE_LENGTH = 32  # tokens in the probe: enough to see a pattern, small enough to keep every record


def probe_for(data, T: int) -> tuple[torch.Tensor, list[str]]:
    """A fixed probe from a run's data — the first T validation tokens (or the first validation
    sequence, for numbers) — and one label per position."""
    from glassformer.inspect.trace import token_labels

    T = min(T, PROBE_LENGTH)
    if getattr(data, "tokenizer", None) is None:  # numbers (WaveData): (1, T, d_in)
        x = data.x_val[:1, :T]
        return x, [str(i) for i in range(x.size(1))]
    ids = torch.as_tensor(data.val[:T].astype("int64"))[None, :]  # (1, T)
    return ids, token_labels(ids, data.tokenizer)


def parse_heads(text: str | None) -> list[tuple[int, int]] | None:
    """'0.1,3.2' -> [(0, 1), (3, 2)]; None or 'all' -> None (every head of every layer)."""
    if text is None or text == "all":
        return None
    heads = []
    for part in text.split(","):
        layer, dot, head = part.strip().partition(".")
        if not dot or not layer.isdigit() or not head.isdigit():
            raise UsageError(
                "attention_log.heads_spec",
                "--attention-heads {text!r}: write LAYER.HEAD pairs separated by commas, e.g. {example} (or all).",
                text=text,
                example="0.1,3.2",
            )
        heads.append((int(layer), int(head)))
    return heads


class AttentionLog:
    """Records the chosen heads' maps for one probe input at chosen steps (see the comment above)."""

    def __init__(
        self,
        model,
        probe: torch.Tensor,
        labels: list[str],
        heads=None,
        every: int | None = None,
        steps=None,
        path: str | Path | None = None,
        start_step: int = 0,
    ) -> None:
        from glassformer.inspect.attention_maps import attention_maps

        if every is None and steps is None:
            raise UsageError("attention_log.when", "AttentionLog needs every=N or steps=[...] to know when to record.")
        if every is not None and every < 1:
            raise UsageError("attention_log.every", "--attention-every must be at least 1, got {every}.", every=every)
        W, _ = attention_maps(model, probe)  # (L, H, T, T): also checks the probe fits the model
        L, H = W.shape[:2]
        self.heads = [(layer, h) for layer in range(L) for h in range(H)] if heads is None else list(heads)
        bad = [(layer, h) for layer, h in self.heads if not (0 <= layer < L and 0 <= h < H)]
        if bad:
            raise UsageError(
                "attention_log.outside",
                "--attention-heads names {bad}, outside this model: layers 0..{last_layer}, heads 0..{last_head}.",
                bad=bad,
                last_layer=L - 1,
                last_head=H - 1,
            )
        self.probe, self.labels, self.every = probe, list(labels), every
        self.steps = None if steps is None else sorted(set(steps))
        self.path = Path(path) if path is not None else None
        self.records: list[dict] = []
        if self.path is not None and self.path.exists() and start_step > 0:  # a resumed run keeps its maps
            self.records = [
                r for r in json.loads(self.path.read_text(encoding="utf-8"))["records"] if r["step"] <= start_step
            ]
        elif self.due(start_step):
            self.record(model, start_step)

    def due(self, step: int) -> bool:
        if self.steps is not None:
            return step in self.steps
        return step % cast(int, self.every) == 0  # __init__ refused neither every nor steps

    def record(self, model, step: int) -> None:
        from glassformer.inspect.attention_maps import attention_maps

        W, hidden = attention_maps(model, self.probe)  # (L, H, T, T) each, first sequence
        maps = []
        for layer, h in self.heads:
            w = W[layer, h].masked_fill(hidden[layer, h], float("nan"))  # (T, T), masked cells NaN: null in the file
            maps.append(finite([[round(v, 3) for v in row] for row in w.tolist()]))
        self.records.append({"step": step, "maps": maps})
        self.save()

    def save(self) -> None:
        if self.path is not None:
            write_json_atomic(self.path, self.as_dict(), ensure_ascii=False)

    def as_dict(self) -> dict:
        return {"tokens": self.labels, "heads": [list(p) for p in self.heads], "records": self.records}

    def __call__(self, event: str, trainer) -> None:
        if event == "step" and self.due(trainer.step):
            self.record(trainer.model, trainer.step)


def read_log(path: str | Path) -> dict:
    path = Path(path)
    if path.is_dir():
        path = path / ATTENTION_FILE
    if not path.exists():
        raise NotFound(
            "attention_log.missing", "{path} does not exist: train with --attention-every N to record one.", path=path
        )
    return json.loads(path.read_text(encoding="utf-8"))

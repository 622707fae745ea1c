"""What a run directory receives while the trainer works, in one place.

    metrics.jsonl       a "log" line every log_interval steps, an "eval" line at every evaluation
    model.safetensors   ┐ the checkpoint, at every evaluation (and on Ctrl-C between steps)
    train_state.pt      ┘
    best.safetensors    the weights at the lowest validation loss so far
    loss.png            the curves so far

The trainer calls `RunFiles` with what happened; it never opens a file itself. A trainer without a
run directory (a lesson, a test, the lab) simply has none. In a multi-process run (distributed.py)
rank 0 has the RunFiles; the other ranks have ReadOnlyRunFiles: they read the checkpoint to resume
from, and write nothing.

A write that fails (a full disk, a directory made read-only) stops training with WriteFailed, whose
message says which file failed and that the last good checkpoint is kept: every file is replaced
atomically (files.py, checkpoint.py), so a failed write never damages what was there before.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path

from glassformer.errors import WriteFailed
from glassformer.messages import t
from glassformer.train.checkpoint import BEST_FILE, MODEL_FILE, load_checkpoint, save_checkpoint, save_weights
from glassformer.train.metrics import MetricsLog, plot_loss

# what the user can do about a failed write, by its cause: keys of the catalogue (glassformer/messages)
REMEDIES = {
    errno.ENOSPC: "remedy.disk_full",
    errno.EACCES: "remedy.writable",
    errno.EPERM: "remedy.writable",
    errno.EROFS: "remedy.read_only",
}


class RunFiles:
    def __init__(self, run_dir) -> None:
        self.dir = Path(run_dir)
        self.metrics = MetricsLog(self.dir / "metrics.jsonl")
        self.saved_step: int | None = None  # the step of the checkpoint on disk, if any

    def log(self, record: dict) -> None:
        self._write("metrics.jsonl", self.metrics.append, record)

    def evaluation(self, record: dict, improved: bool, trainer) -> None:
        """An evaluation's line, the best weights if they improved, a checkpoint, the plot."""
        self._write("metrics.jsonl", self.metrics.append, record)
        if improved:
            self._write(BEST_FILE, save_weights, self.dir / BEST_FILE, trainer.model, trainer.step)
        self.checkpoint(trainer)
        self._write("loss.png", lambda: plot_loss(self.metrics.read(), self.dir / "loss.png", title=self.dir.name))

    def checkpoint(self, trainer) -> None:
        self._write(
            f"the checkpoint of step {trainer.step} ({MODEL_FILE} and train_state.pt)",
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
        state = load_checkpoint(self.dir, trainer.model, trainer.optimizer, trainer.batch_generator)
        self.saved_step = state["step"]
        for stray in self.dir.glob(".*.tmp"):  # half-written by a killed process; never loaded by name
            stray.unlink(missing_ok=True)
        # fit() opens every run at step 0 with an evaluation, a resumed one too: keep no step-0 record twice
        last_kept = state["step"] if state["step"] > 0 else -1
        bad = self._write("metrics.jsonl", self.metrics.truncate_after, last_kept)
        if bad:
            print(
                t("run.dropped_lines", path=self.metrics.path, n=len(bad), lines=", ".join(map(str, bad))),
                file=sys.stderr,
            )
        return state

    def kept(self) -> str:
        if self.saved_step is None:
            return t("run.kept_none")
        return t("run.kept", step=self.saved_step, dir=self.dir)

    def _write(self, what: str, write, *args):
        """Run one write; an OSError becomes WriteFailed, saying what is kept and what to do."""
        try:
            return write(*args)
        except OSError as e:
            reason, remedy = e.strerror or str(e), t(REMEDIES.get(e.errno, "remedy.other"))
            if self.saved_step is None:
                raise WriteFailed("error.write.first", what=what, dir=self.dir, reason=reason, remedy=remedy) from e
            raise WriteFailed(
                "error.write.kept", what=what, dir=self.dir, reason=reason, step=self.saved_step, remedy=remedy
            ) from e


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

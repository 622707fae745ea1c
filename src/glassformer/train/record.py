"""What a run directory receives while the trainer works, in one place.

    metrics.jsonl       a "log" line every log_interval steps, an "eval" line at every evaluation
    model.safetensors   ┐ the checkpoint, at every evaluation (and on Ctrl-C between steps)
    train_state.pt      ┘
    best.safetensors    the weights at the lowest validation loss so far
    loss.png            the curves so far

The trainer calls `RunFiles` with what happened; it never opens a file itself. A trainer without a
run directory (a lesson, a test, the lab) simply has none.
"""

from __future__ import annotations

from pathlib import Path

from glassformer.train.checkpoint import BEST_FILE, load_checkpoint, save_checkpoint, save_weights
from glassformer.train.metrics import MetricsLog, plot_loss


class RunFiles:
    def __init__(self, run_dir) -> None:
        self.dir = Path(run_dir)
        self.metrics = MetricsLog(self.dir / "metrics.jsonl")
        self.saved_step: int | None = None  # the step of the checkpoint on disk, if any

    def log(self, record: dict) -> None:
        self.metrics.append(record)

    def evaluation(self, record: dict, improved: bool, trainer) -> None:
        """An evaluation's line, the best weights if they improved, a checkpoint, the plot."""
        self.metrics.append(record)
        if improved:
            save_weights(self.dir / BEST_FILE, trainer.model, trainer.step)
        self.checkpoint(trainer)
        plot_loss(self.metrics.read(), self.dir / "loss.png", title=self.dir.name)

    def checkpoint(self, trainer) -> None:
        save_checkpoint(self.dir, trainer.model, trainer.optimizer, trainer.step, trainer.batch_generator,
                        {"best_val": trainer.best_val, **trainer.last_eval})
        self.saved_step = trainer.step

    def restore(self, trainer) -> dict:
        """Load the checkpoint into the trainer's model, optimizer and generators; forget any
        metrics a crashed run wrote after it. Returns train_state as a dict."""
        state = load_checkpoint(self.dir, trainer.model, trainer.optimizer, trainer.batch_generator)
        self.saved_step = state["step"]
        self.metrics.truncate_after(state["step"])
        return state

    def kept(self) -> str:
        if self.saved_step is None:
            return "No checkpoint was written."
        return f"The last good checkpoint (step {self.saved_step}) in {self.dir} is kept."

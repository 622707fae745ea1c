"""What a run shows while it trains and keeps afterwards: a progress bar, metrics.jsonl, loss.png.

metrics.jsonl holds one JSON object per line, two kinds:

    {"kind": "log",  "step", "loss", "lr", "grad_norm", "ms_per_step", "tokens_per_s", "time"}
    {"kind": "eval", "step", "train_loss", "val_loss", "best_val", "lr", "time"}

"log" lines come every log_interval steps (loss averaged over those steps); "eval" lines every
eval_interval. Any tool can read the file line by line while the run is still going.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from tqdm import tqdm

from glassformer.train.checkpoint import atomic_write


class MetricsLog:
    """Append-only JSON lines. Each line is flushed at once, so a crash loses at most one record."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def append(self, record: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def read(self) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def truncate_after(self, step: int) -> None:
        """Drop records past `step` (written after the checkpoint a resumed run starts from)."""
        kept = [r for r in self.read() if r["step"] <= step]
        text = "".join(json.dumps(r) + "\n" for r in kept)
        atomic_write(self.path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def plot_loss(records: list[dict], path: str | os.PathLike, title: str = "") -> None:
    """Train and val loss against step, as a PNG (written atomically).

    Uses matplotlib's Figure + Agg canvas directly, not pyplot: no global backend is changed and no
    window can open, so this works on a headless machine and inside a notebook alike.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    logs = [r for r in records if r["kind"] == "log"]
    evals = [r for r in records if r["kind"] == "eval"]
    fig = Figure(figsize=(7, 4.2), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if logs:
        ax.plot([r["step"] for r in logs], [r["loss"] for r in logs], color="tab:blue", alpha=0.3,
                lw=1, label="train (batch, log interval mean)")
    if evals:
        steps = [r["step"] for r in evals]
        ax.plot(steps, [r["train_loss"] for r in evals], "o-", color="tab:blue", ms=3, label="train (eval)")
        ax.plot(steps, [r["val_loss"] for r in evals], "o-", color="tab:orange", ms=3, label="val (eval)")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats / token)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(buf.getvalue()))


class Progress:
    """A tqdm bar over optimizer steps: step/total, ETA and rate from tqdm, loss/lr/tok/s from us.

    Text printed through `write` goes above the bar instead of breaking it.
    """

    def __init__(self, total: int, initial: int, enabled: bool = True) -> None:
        self.bar = tqdm(total=total, initial=initial, unit="step", dynamic_ncols=True,
                        disable=not enabled, leave=True)
        self.enabled = enabled

    def update(self, step: int, loss: float, lr: float, tokens_per_s: float) -> None:
        self.bar.update(step - self.bar.n)
        self.bar.set_postfix(loss=f"{loss:.4f}", lr=f"{lr:.2e}", tok_s=f"{tokens_per_s:,.0f}")

    def write(self, text: str) -> None:
        if self.enabled:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def close(self) -> None:
        self.bar.close()

"""Benchmark (not a test): nanoGPT's CPU recipe (`baby`) on the Shakespeare corpus, 2000 steps.

Reports the val loss at steps 500/1000/1500/2000, the median ms per optimizer step and tokens/s.
Evaluation uses 200 batches per split here (the preset's 20 are enough to watch, too noisy to
compare: the standard error of a 20-batch mean is a few hundredths of a nat).

    .venv/bin/python bench/charlm.py [--threads N] [--out DIR]

Writes a normal run directory (config, checkpoint, metrics.jsonl, loss.png) and prints a summary.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import statistics
import time
from pathlib import Path

import torch

from glassformer.files import json_text, write_json_atomic
from glassformer.text.corpora import default_cache_dir
from glassformer.train.record import MetricsLog
from glassformer.train.run import new_run, train

REFERENCE_TEXT = Path(__file__).resolve().parents[2] / "shared" / "data" / "shakespeare.txt"
MARKS = (500, 1000, 1500, 2000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", default=f"runs/bench-charlm-{time.strftime('%Y%m%d-%H%M%S')}")
    args = parser.parse_args()
    overrides = {"max_steps": MARKS[-1], "eval_interval": MARKS[0], "eval_iters": 200, "threads": args.threads}
    run = new_run("baby", overrides, source="shakespeare", out=args.out, progress=False)
    check_reference_text()
    start = time.perf_counter()
    result = train(run)
    wall = time.perf_counter() - start
    records = MetricsLog(run.dir / "metrics.jsonl").read()
    val = {r["step"]: r["val_loss"] for r in records if r["kind"] == "eval"}
    train_loss = {r["step"]: r["train_loss"] for r in records if r["kind"] == "eval"}
    logs = [r for r in records if r["kind"] == "log"]
    summary = {
        "status": result.status,
        "val_loss": {s: round(val[s], 4) for s in MARKS},
        "train_loss": {s: round(train_loss[s], 4) for s in MARKS},
        "median_ms_per_step": round(statistics.median(r["ms_per_step"] for r in logs), 1),
        "median_tokens_per_s": round(statistics.median(r["tokens_per_s"] for r in logs)),
        "wall_s": round(wall, 1),
        "parameters": run.model.num_params(),
        "torch": torch.__version__,
        "threads": torch.get_num_threads() if not args.threads else args.threads,
        "cpu": platform.processor() or platform.machine(),
        "run_dir": str(run.dir),
    }
    print(json_text(summary, indent=2))
    write_json_atomic(run.dir / "bench.json", summary, indent=2)


def check_reference_text() -> None:
    """The prepared corpus must be the reference bytes (only checked where the reference exists)."""
    ours = default_cache_dir() / "sources" / "shakespeare.txt"
    if not REFERENCE_TEXT.exists():
        print("reference text not found; skipping the byte comparison")
        return
    same = ours.read_bytes() == REFERENCE_TEXT.read_bytes()
    digest = hashlib.sha256(ours.read_bytes()).hexdigest()
    print(f"prepared text {ours}: sha256 {digest}, byte-identical to {REFERENCE_TEXT}: {same}")
    if not same:
        raise SystemExit("the prepared Shakespeare text differs from the reference")


if __name__ == "__main__":
    main()

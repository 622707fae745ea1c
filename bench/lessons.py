"""Benchmark the three lessons' full runs: wall time, final losses, and for sine the forecast's
validation MSE as a fraction of the naive last-value baseline, under each learning-rate schedule.

Not a test: one run each, printed as a Markdown table (docs/lessons/*.md quote it).

    .venv/bin/python bench/lessons.py                  # everything (~10-20 min on 2 cores)
    .venv/bin/python bench/lessons.py --only fruit hello-world
    .venv/bin/python bench/lessons.py --json out/bench_lessons.json

The machine matters (and so does anything else running on it): the header records the CPU,
core count, torch version and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from glassformer.files import json_text
from glassformer.lab.runner import machine
from glassformer.lessons import fruit, hello_world, sine

PARTS = ("fruit", "hello-world", "sine-forecast", "sine-schedules", "sine-tutorial")


def timed(fn, **kwargs) -> tuple[dict, float]:
    start = time.perf_counter()
    result = fn(echo=lambda s: None, **kwargs)
    return result, time.perf_counter() - start


def bench(parts, out: Path) -> list[dict]:
    rows = []
    if "fruit" in parts:
        _, t = timed(fruit.run, out=out / "fruit")
        rows.append({"run": "glassformer lesson fruit", "seconds": t})
    if "hello-world" in parts:
        r, t = timed(hello_world.run, out=out / "hello")
        leak = r["leak"]
        rows.append(
            {
                "run": "glassformer lesson hello-world",
                "seconds": t,
                "final loss (none / causal)": [r["fits"][m].train[-1] for m in ("none", "causal")],
                "random-token held-out (none / causal)": [leak.held_out["none"], leak.held_out["causal"]],
                "chance ln S": leak.chance,
                "leak floor ln S / T": leak.leak_floor,
                "future gradient (none / causal)": [r["future_gradient"]["none"], r["future_gradient"]["causal"]],
            }
        )
    schedules = []
    if "sine-forecast" in parts:
        schedules.append("noam")
    if "sine-schedules" in parts:
        schedules += ["cosine", "tutorial"]
    for schedule in schedules:
        r, t = timed(sine.run, out=out / f"sine_{schedule}", schedule=schedule)
        fit = r["fit"]
        rows.append(
            {
                "run": f"glassformer lesson sine --schedule {schedule}",
                "seconds": t,
                "epochs run": len(fit.val),
                "best epoch": fit.best_epoch,
                "val forecast MSE": r["val_mse"],
                "baselines": r["baselines"],
                "fraction of last-value baseline": r["val_mse"] / r["baselines"]["last value"],
                "final train MSE": fit.train[-1],
            }
        )
    if "sine-tutorial" in parts:
        r, t = timed(sine.run, out=out / "sine_tutorial", task="tutorial")
        rows.append(
            {
                "run": "glassformer lesson sine --task tutorial",
                "seconds": t,
                "val MSE": r["val_mse"],
                **{k: v for k, v in r["reference"].items()},
                "model / best possible": r["val_mse"] / r["reference"]["bayes_on_val"],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    args = parser.parse_args()
    info = machine()
    with tempfile.TemporaryDirectory() as tmp:
        rows = bench(args.only, Path(tmp))
    info["load_after"] = os.getloadavg()[0]
    print(f"machine: {info['cpu']}, {info['cores']} cores, torch {info['torch']}, Python {info['python']}")
    print(f"1-minute load average before {info['load_1min']:.1f}, after {info['load_after']:.1f}\n")
    for row in rows:
        print(f"### {row['run']}")
        for key, value in row.items():
            if key != "run":
                text = f"{value:.6g}" if isinstance(value, float) else json_text(value)
                print(f"- {key}: {text}")
        print()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json_text({"machine": info, "runs": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()

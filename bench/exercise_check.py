"""How long one `exercise check` takes, from the shell's prompt back to it.

    python bench/exercise_check.py [--runs 5] [--src SRC ...]

Runs `/usr/bin/time -f %e env PYTHONPATH=SRC PYTHON -m glassformer exercise check softmax FILE`
`--runs` times for each SRC (default: this checkout's src/), interleaved (A B A B ...) so a load
that changes during the measure falls on both alike, with FILE the reference solution written to a
temporary folder (it passes: every case is graded). Prints each run's seconds and the load average
(`/proc/loadavg`'s first figure) just before it, then per SRC the median and the range. Give a
second SRC to compare, e.g. an older tree exported with `git archive main src | tar -x -C /tmp/old`:

    python bench/exercise_check.py --src src /tmp/old/src

The CPU (`lscpu`'s model name) is printed first: report the figures with it and the load.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown"
    return next((line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name")), "?")


def load() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError):
        return float("nan")


def one(src: str, file: Path) -> float:
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e", "env", f"PYTHONPATH={src}", sys.executable, "-m", "glassformer"]
        + ["exercise", "check", "softmax", str(file)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the check failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return float(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--src", nargs="+", default=[str(ROOT / "src")])
    args = parser.parse_args()
    sys.path.insert(0, args.src[0])
    from glassformer.exercises import catalog

    print(f"CPU: {cpu()}")
    times: dict[str, list[tuple[float, float]]] = {src: [] for src in args.src}
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "softmax.py"
        file.write_text(catalog.get("softmax").solution, encoding="utf-8")
        for run in range(args.runs):
            for src in args.src:
                before = load()
                seconds = one(src, file)
                times[src].append((seconds, before))
                print(f"run {run + 1}  {src}: {seconds:.2f} s  (load {before:.2f})", flush=True)
    for src, runs in times.items():
        secs = [s for s, _ in runs]
        loads = [x for _, x in runs]
        print(
            f"{src}: median {statistics.median(secs):.2f} s over {len(secs)} runs "
            f"(range {min(secs):.2f}-{max(secs):.2f}; load {min(loads):.2f}-{max(loads):.2f})"
        )


if __name__ == "__main__":
    main()

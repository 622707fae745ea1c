"""How long `glassformer --help` and `glassformer VERB --help` take, and whether they import torch.

    PYTHONPATH=src python bench/cli_startup.py                  # 7 runs of each command
    PYTHONPATH=src python bench/cli_startup.py --runs 15 --verbs train sample trace lesson
    python bench/cli_startup.py --src ../other-checkout/src   # another version of the code, to compare

Each command is `python -m glassformer ARGS` in a fresh interpreter (as a user's shell starts it),
timed from start to exit; the median of --runs runs is printed, with the fastest and slowest. One
more run of each under `python -X importtime` says whether torch was imported (building the parser
must not import it: cli/__init__.py; tests/e2e/cli/test_cli_startup.py holds that, without timings).
Figures depend on the machine and its load: report them with the CPU model this prints.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
DEFAULT_VERBS = ("train", "sample", "trace", "patch", "lesson", "explore")
TORCH_LINE = re.compile(r"\|\s+torch$", re.MULTILINE)  # importtime's line for the top-level torch package


def environment(src: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH", "")) if p)
    return env


def time_once(args: list[str], src: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "glassformer", *args], env=environment(src), capture_output=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"glassformer {' '.join(args)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return took


def imports_torch(args: list[str], src: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "glassformer", *args], env=environment(src), capture_output=True
    )
    return bool(TORCH_LINE.search(done.stderr.decode()))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters per command (default 7)")
    parser.add_argument("--verbs", nargs="*", default=list(DEFAULT_VERBS), help="VERB --help to time, besides --help")
    parser.add_argument("--src", type=Path, default=SRC, help="the src/ folder to run (default: this checkout's)")
    args = parser.parse_args(argv)
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs, python {platform.python_version()}, {args.runs} runs each")
    print(f"# code: {args.src.resolve()}")
    print(f"{'command':<34} {'median s':>9} {'min s':>7} {'max s':>7}  torch imported")
    for command in (["--help"], *([verb, "--help"] for verb in args.verbs)):
        times = [time_once(command, args.src) for _ in range(args.runs)]
        name = "glassformer " + " ".join(command)
        print(
            f"{name:<34} {statistics.median(times):>9.3f} {min(times):>7.3f} {max(times):>7.3f}  "
            f"{'yes' if imports_torch(command, args.src) else 'no'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Peak memory and time of `glassformer data prepare` on a big generated text file.

    python bench/prepare_memory.py                       # 1024 MB, char tokenizer
    python bench/prepare_memory.py --size-mb 200 -- --tokenizer bpe --backend hf

Writes a UTF-8 file of English-like words with some Chinese, emoji and digits (seeded, so every run
writes the same bytes) into a temporary directory, then runs the CLI's prepare on it in a child
process, with a fresh cache beside it, and reports the child's peak resident memory (ru_maxrss from
os.wait4) and wall time. A second child that only imports the CLI gives the baseline every CLI run
pays (torch is imported by the other verbs). Arguments after `--` go to `data prepare`.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parent.parent / "src"


def vocabulary(rng: np.random.Generator) -> list[str]:
    """~6,000 made-up words: Latin letters mostly, some Chinese, a few emoji and numbers."""
    letters = list("etaoinshrdlucmfwypvbgkjqxz")
    latin = ["".join(rng.choice(letters, size=rng.integers(1, 10))) for _ in range(5000)]
    hanzi = ["".join(chr(c) for c in rng.integers(0x4E00, 0x9FA5, size=rng.integers(1, 4))) for _ in range(800)]
    extra = ["👍", "🙂", "—", "“quoted”", "café", "naïve", "2024", "3.14", "it's", "don't"]
    return latin + [w.capitalize() for w in latin[:200]] + hanzi + extra


def generate(path: Path, size_mb: int, seed: int = 0) -> int:
    """Write about ``size_mb`` MB of lines of Zipf-distributed words; returns the byte count."""
    rng = np.random.default_rng(seed)
    words = np.array(vocabulary(rng), dtype=object)  # (V,)
    zipf = 1 / np.arange(1, len(words) + 1)  # (V,) the k-th most common word is k times rarer than the first
    target, written = size_mb * 2**20, 0
    with open(path, "wb") as f:
        while written < target:
            idx = rng.choice(len(words), size=400_000, p=zipf / zipf.sum())  # (400000,) word ids
            lines = [" ".join(words[idx[i : i + 12]]) for i in range(0, len(idx), 12)]
            block = ("\n".join(lines) + "\n").encode("utf-8")[: target - written]
            block = block.decode("utf-8", errors="ignore").encode("utf-8")  # never end mid-character
            f.write(block)
            written += len(block)
    return written


def run_child(code: str, args: list[str]) -> tuple[float, float, float, int]:
    """Run ``python -c code args`` with our src on the path: (peak RSS in MB, wall seconds, CPU seconds,
    exit code). CPU time is reported too because the machine may be shared: wall time then depends on
    the other jobs, CPU time much less."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code, *args], env=env)
    _, status, usage = os.wait4(child.pid, 0)  # the child's own rusage, not the sum of all children
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return usage.ru_maxrss / 1024, seconds, cpu, child.returncode  # ru_maxrss is in KiB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="size of the generated file (default 1024)")
    ap.add_argument("--dir", help="where to write the file and the cache (default: a temp dir, removed after)")
    ap.add_argument("prepare_args", nargs="*", help="after --: extra flags for data prepare")
    args = ap.parse_args()
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="gf-prepare-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        text = work / f"generated-{args.size_mb}mb.txt"
        t0 = time.perf_counter()
        if not text.exists():
            generate(text, args.size_mb)
        print(
            f"file        {text} ({text.stat().st_size / 2**20:,.0f} MB, written in {time.perf_counter() - t0:.0f} s)"
        )
        base_rss, base_s, base_cpu, _ = run_child("import glassformer.cli as c; c.build_parser()", [])
        print(f"baseline    {base_rss:,.0f} MB peak RSS to import the CLI ({base_s:.1f} s, cpu {base_cpu:.1f} s)")
        cache = work / "cache"
        shutil.rmtree(cache, ignore_errors=True)  # a fresh cache: prepare must do the whole job
        flags = ["data", "prepare", f"file:{text}", "--cache-dir", str(cache), *args.prepare_args]
        rss, seconds, cpu, code = run_child("import sys, glassformer.cli as c; sys.exit(c.main(sys.argv[1:]))", flags)
        if code != 0:
            sys.exit(f"prepare failed with exit code {code}")
        mb = text.stat().st_size / 2**20
        print(
            f"prepare     {' '.join(args.prepare_args) or '--tokenizer char'}: peak RSS {rss:,.0f} MB, "
            f"{seconds:.0f} s wall ({mb / seconds:.1f} MB/s), cpu {cpu:.0f} s ({mb / cpu:.1f} MB/s)"
        )
        print(f"load        {os.getloadavg()[0]:.1f} (1-minute load average at the end; {os.cpu_count()} cores)")
        print(f"limit       500 MB: {'met' if rss <= 500 else 'NOT met'}")
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""What the crash-safe, checksummed checkpoint costs: save and load timed against the checkpoint.py
of an earlier commit (plain atomic renames, no sha256, no fsync), side by side in one process.

    python bench/checkpoint_cost.py [--preset baby] [--reps 15] [--before d46992c] [--no-fsync]

Prints the median milliseconds of each and the ratios. --no-fsync replaces the fsyncs with nothing,
to split their share from the hashing's.
"""

import argparse
import importlib.util
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import torch

import glassformer.files as files
import glassformer.train.checkpoint as after
from glassformer.config import get_preset
from glassformer.models import build_model
from glassformer.train.loop import build_optimizer


def module_at(commit: str, path: str = "src/glassformer/train/checkpoint.py"):
    """The module `path` as it was at `commit` (read with git show), imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True, cwd=Path(__file__).parent
    ).stdout
    file = Path(tempfile.mkdtemp()) / "checkpoint_before.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location("checkpoint_before", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="baby")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--before", default="d46992c", help="commit whose checkpoint.py is the baseline")
    ap.add_argument("--no-fsync", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.no_fsync:
        files.fsync_path = after.fsync_path = lambda path: None
    before = module_at(args.before)
    p = get_preset(args.preset)
    torch.manual_seed(0)
    model = build_model(p.model)
    optimizer = build_optimizer(model, p.train)
    ids = torch.randint(0, p.model.vocab_size, (2, 17))  # (2, 17)
    model(ids[:, :-1]).logsumexp(-1).mean().backward()
    optimizer.step()  # so the optimizer has moments to save
    generator = torch.Generator().manual_seed(0)
    times = {f"{what} {which}": [] for what in ("save", "load") for which in ("before", "after")}
    dirs = {"before": Path(tempfile.mkdtemp()), "after": Path(tempfile.mkdtemp())}
    for rep in range(args.reps):
        for which, module in (("before", before), ("after", after)):
            start = time.perf_counter()
            module.save_checkpoint(dirs[which], model, optimizer, rep, generator, {"best_val": 1.0})
            times[f"save {which}"].append(time.perf_counter() - start)
            start = time.perf_counter()
            module.load_checkpoint(dirs[which], model, optimizer, generator)
            times[f"load {which}"].append(time.perf_counter() - start)
    ms = {k: 1000 * statistics.median(v) for k, v in times.items()}
    print(
        f"{args.preset}: {sum(q.numel() for q in model.parameters()):,} parameters, median of {args.reps}"
        + (", fsync off" if args.no_fsync else "")
    )
    for what in ("save", "load"):
        print(
            f"  {what}  before {ms[f'{what} before']:7.1f} ms   after {ms[f'{what} after']:7.1f} ms   "
            f"x{ms[f'{what} after'] / ms[f'{what} before']:.2f}"
        )


if __name__ == "__main__":
    main()

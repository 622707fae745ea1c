"""`glassformer train`: train any preset's model, any config field overridable as --key=value.

    glassformer train --preset baby --d_model=256 --max_steps=300
    glassformer train --resume runs/baby-20250101-120000 --max_steps=4000
"""

from __future__ import annotations

import argparse
import sys

from glassformer.cli.options import add_tokenizer_options, count, count_or_zero, tokenizer_options, utf8_text
from glassformer.config import PRESETS
from glassformer.errors import UsageError
from glassformer.exercises.plug import plug_in
from glassformer.train.run import RUNS_DIR, new_run, resume_run, train

DEFAULT_PRESET = "baby"
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130  # 130 = 128 + SIGINT, the shell's code for Ctrl-C


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train", allow_abbrev=False, help="train a preset's model; writes runs/<name>/",
        description="Train a preset's model (its kind: a GPT, an encoder, a regressor ...). Any field of "
                    "ModelConfig or TrainConfig can be set as --key=value or --key value (e.g. "
                    "--d_model=256 --max-steps 300 --threads 1); unknown keys are errors.")
    p.add_argument("--preset", choices=sorted(PRESETS), default=None,
                   help=f"starting config (default: {DEFAULT_PRESET}; with --resume: the run's own): "
                   + "; ".join(f"{name}: {PRESETS[name].about}" for name in sorted(PRESETS)))
    p.add_argument("--data", default=None, help="text source for token models: shakespeare (default), "
                   "file:PATH, builtin:seed; numbers for a regressor: sine (default), sine:forecast; "
                   "pairs for seq2seq: numbers:zh2num (default), numbers:num2zh, digits:copy|reverse|sort")
    p.add_argument("--out", default=None, help=f"run directory (default: {RUNS_DIR}/<preset>-<time>)")
    p.add_argument("--resume", metavar="RUN", default=None, help="continue the run in this directory")
    add_tokenizer_options(p)
    p.add_argument("--prompt", default=None, type=utf8_text, help="prompt of the sample printed at each evaluation")
    p.add_argument("--sample-chars", type=count_or_zero, default=None,
                   help="length of that sample (default 200; 0: no samples while training)")
    p.add_argument("--cache-dir", default=None,
                   help="data cache (default: $GLASSFORMER_CACHE or ~/.cache/glassformer)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (log lines still print)")
    p.add_argument("--use-mine", metavar="DIR", default=None,
                   help="train with your own block and LayerNorm from `glassformer exercise` (they must pass)")
    p.add_argument("--debug-shapes", action="store_true",
                   help="print the shape of every named tensor of one forward pass before training")
    p.add_argument("--attention-every", type=count, default=None, metavar="N",
                   help="record attention maps of a fixed validation probe at step 0 and every N steps into "
                        "the run (attention_log.json), then draw attention_steps.png and an offline "
                        "attention_steps.html with a step slider")
    p.add_argument("--attention-heads", default=None, metavar="L.H,...",
                   help="with --attention-every: which heads, e.g. 0.1,3.2 (default: all)")
    p.set_defaults(func=run_train, accepts_overrides=True)


def run_train(args: argparse.Namespace) -> int:
    progress = not args.no_progress
    if args.resume:
        if args.out:
            raise UsageError("--resume continues a run in its own directory; drop --out.")
        if tokenizer_options(args):
            raise UsageError("--resume reads the run's text the way it was cut into tokens before; drop "
                             "--tokenizer, --vocab-size, --segment and --backend.")
        run = resume_run(args.resume, args.overrides, preset=args.preset, source=args.data,
                         cache_dir=args.cache_dir, progress=progress, prompt=args.prompt,
                         sample_chars=args.sample_chars)
        print(f"resuming {run.dir} from step {run.trainer.step}")
    else:
        run = new_run(args.preset or DEFAULT_PRESET, args.overrides, source=args.data,
                      out=args.out, cache_dir=args.cache_dir, progress=progress, prompt=args.prompt,
                      sample_chars=args.sample_chars, text=tokenizer_options(args))
        cut = f", {run.tokenizer.kind} tokens" if run.tokenizer is not None else ""
        print(f"run directory {run.dir}  ({run.model.kind}, {run.model.num_params():,} parameters, "
              f"data {run.config['source']}{cut})")
    if args.use_mine:
        plugged = plug_in(run.model, args.use_mine)
        print(f"your code from {args.use_mine} computes: {', '.join(plugged)}")
    if args.debug_shapes:
        from glassformer.inspect.trace import print_shapes_once

        x, _ = next(run.trainer.batches.eval_batches("val"))  # a fixed batch: draws no training randomness
        x = tuple(t[:1] for t in x) if isinstance(x, tuple) else x[:1, :16].to(run.trainer.cfg.device)
        print_shapes_once(run.model, x, run.tokenizer)
    if args.attention_every is not None:
        _record_attention(run, args)
    elif args.attention_heads is not None:
        raise UsageError("--attention-heads chooses the heads --attention-every records; add --attention-every N.")
    result = train(run)
    if args.attention_every is not None:
        from glassformer.lab.attention_steps import render
        from glassformer.train.attention_log import read_log

        files = render(read_log(run.dir), run.dir)
        print("attention across training: " + ", ".join(str(f) for f in files))
    if result.status == "nonfinite":
        print(f"glassformer train: stopped: {result.message}", file=sys.stderr)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        print(f"Resume with: glassformer train --resume {run.dir}")
        return EXIT_INTERRUPTED
    print(f"done: {result.step} steps, train loss {result.train_loss:.4f}, val loss {result.val_loss:.4f} "
          f"(best {result.best_val:.4f})")
    print(f"run directory {run.dir}  (loss curve: {run.loss_plot})")
    if run.model.samples:
        print(f"sample it:     glassformer sample {run.dir} --prompt \"...\"")
    print(f"look inside:   glassformer trace --run {run.dir}")
    return 0


def _record_attention(run, args: argparse.Namespace) -> None:
    """Add the callback that keeps the chosen heads' maps (train/attention_log.py)."""
    from glassformer.train.attention_log import FILE, AttentionLog, parse_heads, probe_for

    if run.model.inputs not in ("tokens", "numbers"):
        raise UsageError(f"--attention-every records the self-attention of one stack (gpt, encoder, regressor); "
                         f"a {run.model.kind} model reads {run.model.inputs}. Drop --attention-every and look at "
                         f"its maps after training: glassformer attention --run {run.dir}")
    probe, labels = probe_for(run.data, run.trainer.cfg.block_size)
    run.trainer.callbacks.append(AttentionLog(run.model, probe, labels, heads=parse_heads(args.attention_heads),
                                              every=args.attention_every, path=run.dir / FILE,
                                              start_step=run.trainer.step))

"""`glassformer lesson tiny|fruit|hello-world|sine|seq2seq`: run one of the lessons. Thin: each
subcommand parses its options and calls the lesson's run(); everything else is in
glassformer.lessons."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads, count, non_negative, seed


def _shared(p: argparse.ArgumentParser, name: str) -> None:
    """Options every lesson has."""
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="commentary language (default en)")
    p.add_argument("--explain", action="store_true", help="one sentence of commentary per step")
    p.add_argument("--out", default=None, help=f"folder for the PNGs (default out/lessons/{name}/)")


def _training(p: argparse.ArgumentParser, fast_help: str) -> None:
    """Options of the lessons that train a model."""
    p.add_argument("--fast", action="store_true", help=fast_help)
    p.add_argument("--seed", type=seed, default=0)
    add_threads(p)


def register(subparsers: argparse._SubParsersAction) -> None:
    lesson = subparsers.add_parser("lesson", help="run a lesson: tiny, fruit, hello-world, sine or seq2seq",
                                   description="Runnable lessons that re-create the tutorials' "
                                               "examples, with every number computed.")
    which = lesson.add_subparsers(dest="lesson", metavar="{tiny,fruit,hello-world,sine,seq2seq}", required=True)

    tiny = which.add_parser("tiny", help="the first tutorial's TinyTransformer, trained as it describes")
    _shared(tiny, "tiny")
    _training(tiny, "100 training steps instead of 500 (what the tests run)")
    tiny.add_argument("--lab", default="docs/lab",
                      help="folder of `glassformer lab run` results whose verdicts to show (default docs/lab)")
    tiny.set_defaults(func=run_tiny)

    fruit = which.add_parser("fruit", help="attention by hand on apple/banana/orange, heads, positions")
    _shared(fruit, "fruit")
    fruit.add_argument("--fast", action="store_true", help="accepted for symmetry: fruit is always fast")
    fruit.set_defaults(func=run_fruit)

    hello = which.add_parser("hello-world", help="the one-layer word model and its missing causal mask")
    _shared(hello, "hello-world")
    _training(hello, "at most 40 epochs and a smaller leak experiment (what the tests run)")
    hello.add_argument("--mask", choices=("none", "causal", "both"), default="both",
                       help="attention mask; both = train the two side by side (default)")
    hello.add_argument("--data", default="tutorial",
                       help="tutorial (default), greetings, or a text file with one sentence per line")
    hello.add_argument("--epochs", type=count, default=200, help="default 200, as in the tutorial")
    hello.set_defaults(func=run_hello)

    sine = which.add_parser("sine", help="a Transformer for numbers: forecasting sine waves")
    _shared(sine, "sine")
    _training(sine, "1000/200 sequences and a few epochs (what the tests run)")
    sine.add_argument("--task", choices=("forecast", "tutorial"), default="forecast")
    sine.add_argument("--schedule", choices=("noam", "cosine", "tutorial"), default="noam")
    sine.add_argument("--epochs", type=count, default=None, help="default 30 (forecast), 10 (tutorial)")
    sine.add_argument("--patience", type=count, default=4, help="epochs without improvement before stopping")
    sine.add_argument("--train-size", type=count, default=None, help="training sequences (default 5000)")
    sine.add_argument("--val-size", type=count, default=None, help="validation sequences (default 1000)")
    sine.set_defaults(func=run_sine)

    s2s = which.add_parser("seq2seq", help="the original Transformer: encoder, decoder, cross-attention "
                                           "(一千二百零五 ↔ 1205)")
    _shared(s2s, "seq2seq")
    _training(s2s, "a smaller model, 300 steps (what the tests run; about 20 s)")
    s2s.add_argument("--task", choices=("zh2num", "num2zh"), default="zh2num",
                     help="zh2num: 一千二百零五 → 1205 (default); num2zh: the other way")
    s2s.add_argument("--steps", type=count, default=None, help="training steps (default 1500; --fast 300)")
    s2s.add_argument("--beam", type=count, default=4, help="beam width k (default 4)")
    s2s.add_argument("--alpha", type=non_negative, default=0.6, help="length penalty α (default 0.6)")
    s2s.set_defaults(func=run_seq2seq)


def run_tiny(args: argparse.Namespace) -> int:
    from glassformer.lessons import tiny

    tiny.run(lang=args.lang, explain=args.explain, out=args.out, fast=args.fast, seed=args.seed,
             threads=args.threads, lab=args.lab)
    return 0


def run_fruit(args: argparse.Namespace) -> int:
    from glassformer.lessons import fruit

    fruit.run(lang=args.lang, explain=args.explain, out=args.out)
    return 0


def run_hello(args: argparse.Namespace) -> int:
    from glassformer.lessons import hello_world

    hello_world.run(lang=args.lang, explain=args.explain, out=args.out, mask=args.mask, data=args.data,
                    epochs=args.epochs, fast=args.fast, seed=args.seed, threads=args.threads)
    return 0


def run_sine(args: argparse.Namespace) -> int:
    from glassformer.lessons import sine

    sine.run(lang=args.lang, explain=args.explain, out=args.out, task=args.task, schedule=args.schedule,
             epochs=args.epochs, patience=args.patience, fast=args.fast, seed=args.seed,
             threads=args.threads, n_train=args.train_size, n_val=args.val_size)
    return 0


def run_seq2seq(args: argparse.Namespace) -> int:
    from glassformer.lessons import seq2seq

    seq2seq.run(lang=args.lang, explain=args.explain, out=args.out, task=args.task, steps=args.steps,
                beam=args.beam, alpha=args.alpha, fast=args.fast, seed=args.seed, threads=args.threads)
    return 0

"""`glassformer lesson tiny|fruit|hello-world|sine|seq2seq`: run one of the lessons. Thin: each
subcommand parses its options and calls the lesson's run(); everything else is in
glassformer.lessons."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads, count, non_negative, seed
from glassformer.lessons import hello_world as hello_lesson
from glassformer.lessons import seq2seq as seq2seq_lesson
from glassformer.lessons import sine as sine_lesson
from glassformer.lessons import tiny as tiny_lesson
from glassformer.messages import t

SINE_PATIENCE = 4  # epochs without improvement before stopping
BEAM, ALPHA = 4, 0.6  # beam width k and length penalty α of the seq2seq lesson's beam search
WORDS, DIGITS = "一千二百零五", "1205"  # the seq2seq lesson's example pair, as its help shows it
TINY_LAB = "docs/lab"  # the lab results the tiny lesson shows the verdicts of


def _shared(p: argparse.ArgumentParser, name: str) -> None:
    """Options every lesson has (and --lang, which every parser has: the commentary's language)."""
    p.add_argument("--explain", action="store_true", help=t("help.lesson.explain"))
    p.add_argument("--out", default=None, help=t("help.lesson.out", name=name))


def _training(p: argparse.ArgumentParser, name: str, **fast) -> None:
    """Options of the lessons that train a model (fast: the figures --fast's help names)."""
    p.add_argument("--fast", action="store_true", help=t(f"help.lesson.{name}.fast", **fast))
    p.add_argument("--seed", type=seed, default=0, help=t("help.lesson.seed", default=0))
    add_threads(p)


def register(subparsers: argparse._SubParsersAction) -> None:
    lesson = subparsers.add_parser("lesson", help=t("help.lesson"), description=t("help.lesson.about"))
    which = lesson.add_subparsers(dest="lesson", metavar="{tiny,fruit,hello-world,sine,seq2seq}", required=True)

    tiny = which.add_parser("tiny", help=t("help.lesson.tiny"))
    _shared(tiny, "tiny")
    _training(tiny, "tiny", fast=tiny_lesson.FAST_STEPS, steps=tiny_lesson.STEPS)
    tiny.add_argument("--lab", default=TINY_LAB, help=t("help.lesson.tiny.lab", default=TINY_LAB))
    tiny.set_defaults(func=run_tiny)

    fruit = which.add_parser("fruit", help=t("help.lesson.fruit"))
    _shared(fruit, "fruit")
    fruit.add_argument("--fast", action="store_true", help=t("help.lesson.fruit.fast"))
    fruit.set_defaults(func=run_fruit)

    hello = which.add_parser("hello-world", help=t("help.lesson.hello-world"))
    _shared(hello, "hello-world")
    _training(hello, "hello-world", epochs=hello_lesson.FAST_EPOCHS)
    hello.add_argument("--mask", choices=("none", "causal", "both"), default="both", help=t("help.lesson.mask"))
    hello.add_argument("--data", default="tutorial", help=t("help.lesson.hello.data"))
    hello.add_argument(
        "--epochs",
        type=count,
        default=hello_lesson.EPOCHS,
        help=t("help.lesson.hello.epochs", default=hello_lesson.EPOCHS),
    )
    hello.set_defaults(func=run_hello)

    sine = which.add_parser("sine", help=t("help.lesson.sine"))
    _shared(sine, "sine")
    _training(sine, "sine", train=sine_lesson.FAST["n_train"], val=sine_lesson.FAST["n_val"])
    sine.add_argument("--task", choices=("forecast", "tutorial"), default="forecast", help=t("help.lesson.sine.task"))
    sine.add_argument(
        "--schedule", choices=("noam", "cosine", "tutorial"), default="noam", help=t("help.lesson.sine.schedule")
    )
    sine.add_argument("--epochs", type=count, default=None, help=t("help.lesson.sine.epochs", **sine_lesson.TASKS))
    sine.add_argument(
        "--patience", type=count, default=SINE_PATIENCE, help=t("help.lesson.sine.patience", default=SINE_PATIENCE)
    )
    sine.add_argument(
        "--train-size", type=count, default=None, help=t("help.lesson.sine.train_size", default=sine_lesson.N_TRAIN)
    )
    sine.add_argument(
        "--val-size", type=count, default=None, help=t("help.lesson.sine.val_size", default=sine_lesson.N_VAL)
    )
    sine.set_defaults(func=run_sine)

    s2s = which.add_parser("seq2seq", help=t("help.lesson.seq2seq", example=f"{WORDS} ↔ {DIGITS}"))
    _shared(s2s, "seq2seq")
    _training(s2s, "seq2seq", steps=seq2seq_lesson.FAST_STEPS)  # its time: the lesson prints it
    s2s.add_argument(
        "--task",
        choices=("zh2num", "num2zh"),
        default="zh2num",
        help=t("help.lesson.seq2seq.task", words=WORDS, digits=DIGITS),
    )
    s2s.add_argument(
        "--steps",
        type=count,
        default=None,
        help=t("help.lesson.seq2seq.steps", default=seq2seq_lesson.STEPS, fast=seq2seq_lesson.FAST_STEPS),
    )
    s2s.add_argument("--beam", type=count, default=BEAM, help=t("help.lesson.seq2seq.beam", default=BEAM))
    s2s.add_argument("--alpha", type=non_negative, default=ALPHA, help=t("help.lesson.seq2seq.alpha", default=ALPHA))
    s2s.set_defaults(func=run_seq2seq)


def run_tiny(args: argparse.Namespace) -> int:
    from glassformer.lessons import tiny

    tiny.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
        lab=args.lab,
    )
    return 0


def run_fruit(args: argparse.Namespace) -> int:
    from glassformer.lessons import fruit

    fruit.run(lang=args.lang, explain=args.explain, out=args.out)
    return 0


def run_hello(args: argparse.Namespace) -> int:
    from glassformer.lessons import hello_world

    hello_world.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        mask=args.mask,
        data=args.data,
        epochs=args.epochs,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
    )
    return 0


def run_sine(args: argparse.Namespace) -> int:
    from glassformer.lessons import sine

    sine.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        task=args.task,
        schedule=args.schedule,
        epochs=args.epochs,
        patience=args.patience,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
        n_train=args.train_size,
        n_val=args.val_size,
    )
    return 0


def run_seq2seq(args: argparse.Namespace) -> int:
    from glassformer.lessons import seq2seq

    seq2seq.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        task=args.task,
        steps=args.steps,
        beam=args.beam,
        alpha=args.alpha,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
    )
    return 0

"""`glassformer eval RUN [--against RUN2]`: a run's evaluation card (eval_card.py), printed as a
table and written as card.json and card.png into the run directory or --out."""

from __future__ import annotations

import argparse
from pathlib import Path

from glassformer.cli.options import add_threads, count, positive, probability, seed, temperature, utf8_text
from glassformer.cli.sample import TEMPERATURE, _unescape
from glassformer.config import RUN_EXAMPLE, EvalConfig
from glassformer.messages import say, t

DEFAULT = EvalConfig()


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("eval", help=t("help.eval"), description=t("help.eval.about"))
    p.add_argument("run", help=t("help.eval.run", example=RUN_EXAMPLE))
    p.add_argument("--against", default=None, help=t("help.eval.against"))
    p.add_argument("--text", default=None, help=t("help.eval.text"))
    p.add_argument("--questions", default=None, help=t("help.eval.questions"))
    p.add_argument("--out", default=None, help=t("help.eval.out"))
    p.add_argument(
        "--samples", type=count, default=DEFAULT.samples, help=t("help.eval.samples", default=DEFAULT.samples)
    )
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=DEFAULT.max_new_tokens,
        help=t("help.eval.max_new_tokens", default=DEFAULT.max_new_tokens),
    )
    p.add_argument("--prompt", default=None, type=utf8_text, help=t("help.eval.prompt"))
    p.add_argument(
        "--temperature", type=temperature, default=TEMPERATURE, help=t("help.eval.temperature", default=TEMPERATURE)
    )
    p.add_argument("--top-k", type=count, default=None, help=t("help.sample.top_k"))
    p.add_argument("--top-p", type=probability, default=None, help=t("help.sample.top_p"))
    p.add_argument("--seed", type=seed, default=DEFAULT.seed, help=t("help.eval.seed", default=DEFAULT.seed))
    p.add_argument(
        "--max-chars", type=count, default=DEFAULT.max_chars, help=t("help.eval.max_chars", default=DEFAULT.max_chars)
    )
    p.add_argument("--bins", type=count, default=DEFAULT.bins, help=t("help.eval.bins", default=DEFAULT.bins))
    p.add_argument("--rtol", type=positive, default=None, help=t("help.eval.rtol"))
    p.add_argument("--best", action="store_true", help=t("help.eval.best"))
    p.add_argument("--cache-dir", default=None, help=t("help.eval.cache_dir"))
    add_threads(p)
    p.set_defaults(func=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    from glassformer.eval_card import card_table, check_out, evaluate, write_card

    out = Path(args.out) if args.out else Path(args.run)
    replaced = check_out(out)  # before any work: a file that is not an earlier card is never written over
    settings = EvalConfig(
        samples=args.samples,
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        seed=args.seed,
        prompt=_unescape(args.prompt) if args.prompt is not None else None,
        max_chars=args.max_chars,
        bins=args.bins,
        rtol=args.rtol,
        best=args.best,
        cache_dir=args.cache_dir,
        text=args.text,
        questions=args.questions,
    )
    card = evaluate(args.run, settings, args.against)
    print(card_table(card))
    print()
    for path in write_card(card, out):
        say("card.replaced" if path in replaced else "inspect.wrote", files=path)
    return 0

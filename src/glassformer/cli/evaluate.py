"""`glassformer eval RUN [--against RUN2]`: a run's evaluation card (eval_card.py), printed as a
table and written as card.json and card.png into the run directory or --out."""

from __future__ import annotations

import argparse
from pathlib import Path

from glassformer.cli.options import add_threads, count, positive, probability, seed, temperature, utf8_text
from glassformer.cli.sample import TEMPERATURE, _unescape
from glassformer.config import RUN_EXAMPLE, EvalConfig
from glassformer.messages import N_, say, t

DEFAULT = EvalConfig()


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help=t("an evaluation card of a run: bits per byte, loss by position, calibration, repetition"),
        description=t(
            "Grade a trained run beyond its loss: bits per byte on "
            "held-out text (comparable across tokenizers), the loss at "
            "each position of the context, the calibration of its "
            "next-token probabilities, the repetition of its samples, "
            "and multiple-choice questions scored by the logits. With "
            "--against, two runs side by side and the first step their "
            "logs part. Prints a table and writes card.json and card.png."
        ),
    )
    p.add_argument("run", help=t("the run directory to grade, e.g. {example}", example=RUN_EXAMPLE))
    p.add_argument(
        "--against",
        default=None,
        help=t(
            "a second run to compare with: scored on the same text, "
            "prompt and seeds, and the first step where the loss, "
            "learning rate, gradient norm or throughput in the two "
            "metrics.jsonl part"
        ),
    )
    p.add_argument("--text", default=None, help=t("a UTF-8 text file to score instead of the run's validation split"))
    p.add_argument(
        "--questions",
        default=None,
        help=t('a JSONL file of questions, one a line: {{"context": "...", "choices": ["...", "..."], "answer": 0}}'),
    )
    p.add_argument("--out", default=None, help=t("the folder for card.json and card.png (default: the run directory)"))
    p.add_argument(
        "--samples",
        type=count,
        default=DEFAULT.samples,
        help=t("how many samples to measure repetition on (default {default})", default=DEFAULT.samples),
    )
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=DEFAULT.max_new_tokens,
        help=t("tokens per sample (default {default})", default=DEFAULT.max_new_tokens),
    )
    p.add_argument(
        "--prompt",
        default=None,
        type=utf8_text,
        help=t("the samples' prompt (default: a newline, or the run's first word); \\n is a newline"),
    )
    p.add_argument(
        "--temperature",
        type=temperature,
        default=TEMPERATURE,
        help=t("the samples' temperature (default {default}, as in sample)", default=TEMPERATURE),
    )
    p.add_argument("--top-k", type=count, default=None, help=t("keep the k most likely tokens"))
    p.add_argument(
        "--top-p", type=probability, default=None, help=t("keep the most likely tokens up to probability p (nucleus)")
    )
    p.add_argument(
        "--seed",
        type=seed,
        default=DEFAULT.seed,
        help=t("the samples' seed (default {default}): the same card every time", default=DEFAULT.seed),
    )
    p.add_argument(
        "--max-chars",
        type=count,
        default=DEFAULT.max_chars,
        help=t("held-out characters scored for bits per byte (default {default})", default=DEFAULT.max_chars),
    )
    p.add_argument(
        "--bins",
        type=count,
        default=DEFAULT.bins,
        help=t(
            "equal-width bins of the top-1 probability for the calibration error (default {default})",
            default=DEFAULT.bins,
        ),
    )
    p.add_argument(
        "--rtol",
        type=positive,
        default=None,
        help=t("one relative tolerance for where two runs part, for every quantity (default: each its own)"),
    )
    p.add_argument("--best", action="store_true", help=t("grade best.safetensors instead of the latest weights"))
    p.add_argument(
        "--cache-dir", default=None, help=t("where the prepared corpora are (the --cache-dir the run was trained with)")
    )
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
        say(N_("replaced {files} (the earlier card)") if path in replaced else N_("wrote {files}"), files=path)
    return 0

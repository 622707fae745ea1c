"""`glassformer data ...`: prepare corpora from the command line. Thin: every step is a library call."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_tokenizer_options, tokenizer_options
from glassformer.messages import say, t
from glassformer.text.corpora import NAMED_SOURCES, VALID_FORMS, prepare

DEFAULT_SOURCE = "shakespeare"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``data`` command (and its ``prepare`` subcommand) to the top-level CLI."""
    data = subparsers.add_parser("data", help=t("help.data"))
    verbs = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True)
    prep = verbs.add_parser(
        "prepare",
        help=t("help.data.prepare"),
        description=t("help.data.prepare.about", sources=", ".join([*VALID_FORMS, *NAMED_SOURCES])),
    )
    prep.add_argument("source", nargs="?", default=DEFAULT_SOURCE, help=t("help.default", default=DEFAULT_SOURCE))
    prep.add_argument("--cache-dir", help=t("help.cache_dir"))
    add_tokenizer_options(prep)
    prep.set_defaults(func=run_prepare)


def run_prepare(args: argparse.Namespace) -> int:
    """Prepare ``args.source`` and print what was done, so the user can see where the ids came from."""
    data = prepare(args.source, cache_dir=args.cache_dir, **tokenizer_options(args))  # failures: cli/failure.py
    m = data.meta
    total = m["train_tokens"] + m["val_tokens"]
    first_name = t("data.first_name", source=m["source"]) if m["source"] != args.source else ""
    options = "".join(f", {k} {v}" for k, v in m.get("options", {}).items() if k != "vocab_size")
    asked = m.get("options", {}).get("vocab_size")
    if asked is not None and asked != m["vocab_size"]:
        options += t("data.vocab_asked", asked=asked)
    say("data.source", source=args.source, first_name=first_name)
    say("data.text", chars=m["chars"], sha256=m["text_sha256"])
    say("data.tokenizer", kind=m["tokenizer"], vocab_size=m["vocab_size"], options=options)
    say("data.train", tokens=m["train_tokens"], share=m["train_tokens"] / total)
    say("data.val", tokens=m["val_tokens"], share=m["val_tokens"] / total)
    say("data.dtype", dtype=m["dtype"])
    say("data.files", dir=data.dir)
    say("data.cached" if data.cached else "data.prepared")
    return 0

"""`glassformer data ...`: prepare corpora from the command line. Thin: every step is a library call."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_tokenizer_options, tokenizer_options
from glassformer.text.corpora import NAMED_SOURCES, VALID_FORMS, prepare


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``data`` command (and its ``prepare`` subcommand) to the top-level CLI."""
    data = subparsers.add_parser("data", help="turn a text source into token ids on disk")
    verbs = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True)
    prep = verbs.add_parser(
        "prepare",
        help="encode a source with a tokenizer (char, word or bpe); train/val ids go into the cache",
        description="Sources: " + ", ".join([*VALID_FORMS, *NAMED_SOURCES]) + ". Re-running on the same text and "
                    "tokenizer is instant. A file: source is read in chunks, so its size is not limited "
                    "by memory.",
    )
    prep.add_argument("source", nargs="?", default="shakespeare", help="default: shakespeare")
    prep.add_argument("--cache-dir", help="default: $GLASSFORMER_CACHE, else ~/.cache/glassformer")
    add_tokenizer_options(prep)
    prep.set_defaults(func=run_prepare)


def run_prepare(args: argparse.Namespace) -> int:
    """Prepare ``args.source`` and print what was done, so the user can see where the ids came from."""
    data = prepare(args.source, cache_dir=args.cache_dir, **tokenizer_options(args))  # failures: cli/failure.py
    m = data.meta
    total = m["train_tokens"] + m["val_tokens"]
    first_name = f"  (first prepared as {m['source']})" if m["source"] != args.source else ""
    options = "".join(f", {k} {v}" for k, v in m.get("options", {}).items() if k != "vocab_size")
    asked = m.get("options", {}).get("vocab_size")
    if asked is not None and asked != m["vocab_size"]:
        options += f" (asked for {asked}: no pair was left that occurs twice)"
    print(f"source      {args.source}{first_name}")
    print(f"text        {m['chars']:,} chars, sha256 {m['text_sha256']}")
    print(f"tokenizer   {m['tokenizer']}, vocab_size {m['vocab_size']}{options}")
    print(f"train       {m['train_tokens']:,} tokens ({m['train_tokens'] / total:.1%})")
    print(f"val         {m['val_tokens']:,} tokens ({m['val_tokens'] / total:.1%})")
    print(f"dtype       {m['dtype']}")
    print(f"files       {data.dir}/  train.bin val.bin tokenizer.json meta.json")
    print("cached      " + ("yes: prepared earlier, nothing rewritten" if data.cached else "no: prepared now"))
    return 0

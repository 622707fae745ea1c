"""`glassformer import gpt2 DIR --out RUN` and `glassformer export gpt2 RUN --out DIR`: GPT-2
checkpoints from and to Hugging Face directories on disk (nothing is downloaded). Thin: the work is
train/run.py; docs/gpt2.md says what is checked."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads
from glassformer.messages import say, t
from glassformer.train.checkpoint import load_model
from glassformer.train.run import export_gpt2, import_gpt2


def register(subparsers: argparse._SubParsersAction) -> None:
    imp = subparsers.add_parser("import", help=t("help.import"))
    formats = imp.add_subparsers(dest="import_format", metavar="{gpt2}", required=True)
    p = formats.add_parser("gpt2", help=t("help.import.gpt2"), description=t("help.import.gpt2.about"))
    p.add_argument("source", metavar="DIR", help=t("help.import.gpt2.source"))
    p.add_argument("--out", metavar="RUN", required=True, help=t("help.import.gpt2.out"))
    add_threads(p)
    p.set_defaults(func=run_import)

    exp = subparsers.add_parser("export", help=t("help.export"))
    formats = exp.add_subparsers(dest="export_format", metavar="{gpt2}", required=True)
    p = formats.add_parser("gpt2", help=t("help.export.gpt2"), description=t("help.export.gpt2.about"))
    p.add_argument("run", metavar="RUN", help=t("help.export.gpt2.run"))
    p.add_argument("--out", metavar="DIR", required=True, help=t("help.export.gpt2.out"))
    p.add_argument("--best", action="store_true", help=t("help.export.gpt2.best"))
    add_threads(p)
    p.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    out = import_gpt2(args.source, args.out)
    model, tokenizer, _ = load_model(out)  # read back as every verb will
    say(
        "import.done",
        source=args.source,
        out=out,
        kind=model.kind,
        params=model.num_params(),
        layers=model.cfg.n_layers,
        vocab=tokenizer.vocab_size,
        positions=model.cfg.max_len,
    )
    say("train.sample_it", dir=out)
    say("import.look_inside", dir=out)
    return 0


def run_export(args: argparse.Namespace) -> int:
    out = export_gpt2(args.run, args.out, best=args.best)
    say("export.done", run=args.run, out=out)
    say("export.load_it", out=repr(str(out)))
    return 0

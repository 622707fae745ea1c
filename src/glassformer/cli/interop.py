"""`glassformer import gpt2 DIR --out RUN` and `glassformer export gpt2 RUN --out DIR`: GPT-2
checkpoints from and to Hugging Face directories on disk (nothing is downloaded). Thin: the work is
train/gpt2_runs.py; docs/gpt2.md says what is checked."""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads
from glassformer.train.gpt2_runs import export_gpt2, import_gpt2
from glassformer.train.saved import load_model


def register(subparsers: argparse._SubParsersAction) -> None:
    imp = subparsers.add_parser("import", help="read a model saved by another library into a run directory")
    formats = imp.add_subparsers(dest="import_format", metavar="{gpt2}", required=True)
    p = formats.add_parser("gpt2", help="a Hugging Face GPT-2 directory (config.json, weights, vocab.json, "
                           "merges.txt) into a run", description="Read a GPT-2 that transformers saved "
                           "(save_pretrained, or a downloaded model folder) into a glassformer run directory "
                           "that sample, trace, attention and explore open. Nothing is downloaded.")
    p.add_argument("source", metavar="DIR", help="the model directory")
    p.add_argument("--out", metavar="RUN", required=True, help="the run directory to write")
    add_threads(p)
    p.set_defaults(func=run_import)

    exp = subparsers.add_parser("export", help="write a run's model in another library's format")
    formats = exp.add_subparsers(dest="export_format", metavar="{gpt2}", required=True)
    p = formats.add_parser("gpt2", help="a run's GPT as a Hugging Face GPT-2 directory",
                           description="Write a run's GPT (GPT-2's shape, GPT-2's tokenizer: a run made by "
                           "`glassformer import gpt2`, then perhaps changed) as a directory that "
                           "GPT2LMHeadModel.from_pretrained and GPT2Tokenizer.from_pretrained load.")
    p.add_argument("run", metavar="RUN", help="the run directory")
    p.add_argument("--out", metavar="DIR", required=True, help="the directory to write (new or empty)")
    p.add_argument("--best", action="store_true", help="export best.safetensors (lowest val loss)")
    add_threads(p)
    p.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    out = import_gpt2(args.source, args.out)
    model, tokenizer, _ = load_model(out)  # read back as every verb will
    print(f"imported {args.source} -> {out}  ({model.kind}, {model.num_params():,} parameters, "
          f"{model.cfg.n_layers} layers, vocab {tokenizer.vocab_size:,}, {model.cfg.max_len} positions)")
    print(f"sample it:     glassformer sample {out} --prompt \"...\"")
    print(f"look inside:   glassformer trace --run {out}   (or attention, explore)")
    return 0


def run_export(args: argparse.Namespace) -> int:
    out = export_gpt2(args.run, args.out, best=args.best)
    print(f"exported {args.run} -> {out}  (config.json, model.safetensors, vocab.json, merges.txt, "
          f"tokenizer_config.json)")
    print(f"load it:       GPT2LMHeadModel.from_pretrained({str(out)!r})")
    return 0

"""`glassformer lab list | run NAME | report`: the experiments that test the tutorials' claims.

    glassformer lab list                          every experiment, its tutorials and claims
    glassformer lab run length --threads 1        a full run: out/lab/length/{report.md, *.png, results.json}
    glassformer lab run all --fast                every experiment at smoke-test size (seconds each)
    glassformer lab report                        out/lab/index.md and index.html from the results there

Thin: the experiments, their verdict rules and the reports are in glassformer.lab.
"""

from __future__ import annotations

import argparse
import sys

from glassformer.cli.options import add_threads, count


def register(subparsers: argparse._SubParsersAction) -> None:
    lab = subparsers.add_parser("lab", help="experiments that test the tutorials' claims",
                                description="Train the small models a tutorial's claim is about and "
                                            "report what was measured, with a verdict computed by a rule.")
    which = lab.add_subparsers(dest="lab_command", metavar="{list,run,report}", required=True)

    ls = which.add_parser("list", help="the experiments and the claims they test")
    ls.add_argument("--lang", choices=("en", "zh"), default="en")
    ls.set_defaults(func=run_list)

    run = which.add_parser("run", help="run one experiment (or all)")
    run.add_argument("name", help="an experiment name from `glassformer lab list`, or all")
    run.add_argument("--fast", action="store_true", help="smoke-test sizes: seconds, offline, what the tests run")
    run.add_argument("--seeds", type=count, default=None, help="seeds per setting (default: the experiment's own)")
    run.add_argument("--out", default=None, help="results folder (default out/lab); one sub-folder per experiment")
    run.add_argument("--data", default=None,
                     help="text source: shakespeare (full default), file:PATH, builtin:seed; --fast defaults "
                          "to the lab's own generated text")
    run.add_argument("--cache-dir", default=None,
                     help="data cache (default: $GLASSFORMER_CACHE or ~/.cache/glassformer)")
    run.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the printed verdicts")
    add_threads(run)
    run.set_defaults(func=run_run)

    rep = which.add_parser("report", help="one index (Markdown + offline HTML) of every result in a folder")
    rep.add_argument("--out", default=None, help="the folder `lab run` wrote to (default out/lab)")
    rep.set_defaults(func=run_report)


def run_list(args: argparse.Namespace) -> int:
    from glassformer.lab import experiments
    from glassformer.lab.texts import text

    for name, exp in experiments().items():
        print(f"{name:<16} {text(args.lang, name + '.title')}")
        for c in exp.claims:
            print(f"  {c.tutorial} {c.where:<6} {text(args.lang, c.key + '.claim')}")
    return 0


def run_run(args: argparse.Namespace) -> int:
    from glassformer.text.corpora import CorpusUnavailable

    try:
        return _run(args)
    except CorpusUnavailable as e:
        print(f"glassformer lab: error: {e}. A full run reads Shakespeare; without it, use --fast (the lab's "
              "own text) or --data file:PATH.", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from glassformer.lab import experiments, get_experiment
    from glassformer.lab.runner import DEFAULT_OUT, run_experiment
    from glassformer.lab.texts import text

    chosen = list(experiments().values()) if args.name == "all" else [get_experiment(args.name)]
    for exp in chosen:
        print(f"== {exp.name}: {text(args.lang, exp.name + '.title')}", flush=True)
        record = run_experiment(exp, fast=args.fast, seeds=args.seeds, out=args.out, data=args.data,
                                cache_dir=args.cache_dir, threads=args.threads,
                                echo=lambda line: print(line, flush=True))
        for c in record["claims"]:
            print(f"  [{text(args.lang, 'level.' + c['level'])}] {c['tutorial']} {c['where']}: "
                  f"{c['claim_' + args.lang]}")
            print(f"      {c['finding_' + args.lang]}")
        folder = (args.out or DEFAULT_OUT)
        print(f"  {record['seconds']:.1f} s; wrote {folder}/{exp.name}/report.md, results.json, "
              f"{len(record['figures'])} figure(s)")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from glassformer.lab.report import write_index
    from glassformer.lab.runner import DEFAULT_OUT

    md, page = write_index(args.out or DEFAULT_OUT)
    print(f"wrote {md} and {page}")
    return 0

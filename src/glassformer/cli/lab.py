"""`glassformer lab list | run NAME | report`: the experiments that test the tutorials' claims.

    glassformer lab list                          every experiment, its tutorials and claims
    glassformer lab run length --threads 1        a full run: out/lab/length/{report.md, *.png, results.json}
    glassformer lab run all --fast                every experiment at smoke-test size (seconds each)
    glassformer lab report                        out/lab/index.md and index.html from the results there
    glassformer lab ledger                        the reproduction ledger of docs/lab (or --out DIR)

Thin: the experiments, their verdict rules and the reports are in glassformer.lab. What this verb
says is in the catalogue (glassformer/messages); the claims and verdicts are the lab's own texts,
in the language of --lang (which every parser has).
"""

from __future__ import annotations

import argparse
import sys

from glassformer.cli.options import add_threads, count
from glassformer.messages import say, t

LEDGER_DIR = "docs/lab"  # the committed results, where the ledger's entries are


def register(subparsers: argparse._SubParsersAction) -> None:
    lab = subparsers.add_parser("lab", help=t("help.lab"), description=t("help.lab.about"))
    which = lab.add_subparsers(dest="lab_command", metavar="{list,run,report,ledger}", required=True)

    ls = which.add_parser("list", help=t("help.lab.list"))
    ls.set_defaults(func=run_list)

    run = which.add_parser("run", help=t("help.lab.run"))
    run.add_argument("name", help=t("help.lab.run.name"))
    run.add_argument("--fast", action="store_true", help=t("help.lab.run.fast"))
    run.add_argument("--seeds", type=count, default=None, help=t("help.lab.run.seeds"))
    run.add_argument("--out", default=None, help=t("help.lab.run.out"))
    run.add_argument("--data", default=None, help=t("help.lab.run.data"))
    run.add_argument("--cache-dir", default=None, help=t("help.train.cache_dir"))
    add_threads(run)
    run.set_defaults(func=run_run)

    rep = which.add_parser("report", help=t("help.lab.report"))
    rep.add_argument("--out", default=None, help=t("help.lab.report.out"))
    rep.set_defaults(func=run_report)

    led = which.add_parser("ledger", help=t("help.lab.ledger"))
    led.add_argument("--out", default=LEDGER_DIR, help=t("help.lab.ledger.out"))
    led.set_defaults(func=run_ledger)


def run_list(args: argparse.Namespace) -> int:
    from glassformer.lab import experiments

    for name, exp in experiments().items():
        print(f"{name:<16} {t(f'lab.{name}.title')}")
        for c in exp.claims:
            print(f"  {c.tutorial} {c.where:<6} {t(f'lab.{c.key}.claim')}")
    return 0


def run_run(args: argparse.Namespace) -> int:
    from glassformer.text.corpora import CorpusUnavailable

    try:
        return _run(args)
    except CorpusUnavailable as e:
        say("fail.error", file=sys.stderr, who="glassformer lab", message=t("lab.no_corpus", error=e))
        return 1


def _run(args: argparse.Namespace) -> int:
    from glassformer.lab import experiments, get_experiment
    from glassformer.lab.runner import DEFAULT_OUT, run_experiment

    chosen = list(experiments().values()) if args.name == "all" else [get_experiment(args.name)]
    for exp in chosen:
        print(f"== {exp.name}: {t(f'lab.{exp.name}.title')}", flush=True)
        record = run_experiment(
            exp,
            fast=args.fast,
            seeds=args.seeds,
            out=args.out,
            data=args.data,
            cache_dir=args.cache_dir,
            threads=args.threads,
            echo=lambda line: print(line, flush=True),
        )
        for c in record["claims"]:
            print(f"  [{t('lab.level.' + c['level'])}] {c['tutorial']} {c['where']}: {c['claim_' + args.lang]}")
            print(f"      {c['finding_' + args.lang]}")
        folder = args.out or DEFAULT_OUT
        say("lab.wrote", seconds=record["seconds"], dir=f"{folder}/{exp.name}", figures=len(record["figures"]))
    return 0


def run_report(args: argparse.Namespace) -> int:
    from glassformer.lab.report import write_index
    from glassformer.lab.runner import DEFAULT_OUT

    md, page = write_index(args.out or DEFAULT_OUT)
    say("lab.index", md=md, page=page)
    return 0


def run_ledger(args: argparse.Namespace) -> int:
    from glassformer.errors import NotFound
    from glassformer.lab.report import ledger_rows, ledger_text, read_records

    records = read_records(args.out)
    if not ledger_rows(records):
        raise NotFound("error.lab.no_ledger", root=args.out)
    print(ledger_text(records, args.lang))
    return 0

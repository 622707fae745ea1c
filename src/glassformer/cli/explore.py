"""`glassformer explore [RUN]`: a local web page where you type text and watch your model think.

Thin: picks the model (RUN, else the newest run under runs/, or --preset with random weights),
then serves glassformer.explore on 127.0.0.1 until Ctrl-C.
"""

from __future__ import annotations

import argparse

from glassformer.cli.options import MAX_PORT, add_threads, port, seed
from glassformer.errors import UsageError
from glassformer.messages import t

DEFAULT_PORT = 8321
LOCAL = "127.0.0.1"  # this machine only


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("explore", help=t("help.explore"), description=t("help.explore.about", local=LOCAL))
    p.add_argument("run", nargs="?", default=None, help=t("help.explore.run"))
    p.add_argument("--preset", default=None, help=t("help.explore.preset"))
    p.add_argument("--seed", type=seed, default=0, help=t("help.explore.seed", default=0))
    p.add_argument("--port", type=port, default=DEFAULT_PORT, help=t("help.explore.port", default=DEFAULT_PORT))
    p.add_argument("--host", default=LOCAL, help=t("help.explore.host", default=LOCAL))
    p.add_argument("--allow-remote", action="store_true", help=t("help.explore.allow_remote", local=LOCAL))
    add_threads(p)
    p.set_defaults(func=run_explore, accepts_overrides=True)


def run_explore(args: argparse.Namespace) -> int:
    from glassformer.explore.serve import check_host, latest_run, open_preset, open_run, serve

    if args.run and args.preset:
        raise UsageError("explore.run_and_preset")
    if args.overrides and not args.preset:
        raise UsageError("explore.overrides", overrides=args.overrides)
    if not 0 <= args.port <= MAX_PORT:
        raise UsageError("explore.port", most=MAX_PORT, port=args.port)
    check_host(args.host, args.allow_remote)  # refuse before loading anything
    if args.preset:
        explorer = open_preset(args.preset, args.seed, args.overrides)
    else:
        explorer = open_run(args.run or latest_run())
    serve(explorer, args.host, args.port, args.allow_remote)
    return 0

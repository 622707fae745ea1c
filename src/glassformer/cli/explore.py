"""`glassformer explore [RUN]`: a local web page where you type text and watch your model think.

Thin: picks the model (RUN, else the newest run under runs/, or --preset with random weights),
then serves glassformer.explore on 127.0.0.1 until Ctrl-C.
"""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads, port, seed


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "explore", help="a local web page: type text, see tokens, attention, the logit lens, next tokens",
        description="Serve a page on 127.0.0.1 that shows your model at work on the text you type: tokens "
                    "and the shape trace, every head's attention, the residual stream and logit lens, the "
                    "next-token distribution with temperature/top-k/top-p, generation step by step, and head "
                    "ablation. Works offline: nothing is loaded from the network. Preset fields can be "
                    "overridden with --key=value (with --preset).")
    p.add_argument("run", nargs="?", default=None,
                   help="a run directory (default: the newest run under runs/)")
    p.add_argument("--preset", default=None, help="explore this preset with random weights instead of a run")
    p.add_argument("--seed", type=seed, default=0, help="seed of the preset's random weights (default 0)")
    p.add_argument("--port", type=port, default=8321, help="port (default 8321; 0 = any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--allow-remote", action="store_true",
                   help="required with a --host other than 127.0.0.1/localhost: other machines can then reach it")
    add_threads(p)
    p.set_defaults(func=run_explore, accepts_overrides=True)


def run_explore(args: argparse.Namespace) -> int:
    from glassformer.explore.serve import check_host, latest_run, open_preset, open_run, serve

    if args.run and args.preset:
        raise ValueError("give a RUN or --preset NAME, not both.")
    if args.overrides and not args.preset:
        raise ValueError(f"overrides {args.overrides} apply to a --preset; a run's model is fixed by its checkpoint.")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be between 0 and 65535, got {args.port}.")
    check_host(args.host, args.allow_remote)  # refuse before loading anything
    if args.preset:
        explorer = open_preset(args.preset, args.seed, args.overrides)
    else:
        explorer = open_run(args.run or latest_run())
    serve(explorer, args.host, args.port, args.allow_remote)
    return 0

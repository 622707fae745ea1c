"""`glassformer <verb>`: a thin dispatcher. Each verb lives in its own module here and only
calls the library; a module adds its verb with `register(subparsers)`.

What every verb shares is done once, here:
  - option spelling: `--max-steps 500`, `--max_steps 500` and `--max_steps=500` are the same
    (`normalize_argv`); config overrides (`--key=value`) are parsed by config.parse_overrides;
  - threads: every verb that computes has `--threads N` with one default (threads.py); the verb
    runs inside `using_threads(N)` (train takes it as its TrainConfig field, the same rule);
  - errors: an expected failure prints one line naming the problem and the fix, exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from glassformer.cli.options import normalize_argv
from glassformer.threads import check_threads, using_threads

# verb modules, in the order `glassformer --help` lists them
VERB_MODULES = ["data", "train", "sample", "demo", "inspect", "lesson", "lab"]
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="glassformer", description="A Transformer you can see through.")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERB_MODULES:
        importlib.import_module(f"glassformer.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(normalize_argv(sys.argv[1:] if argv is None else argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if extra and not getattr(args, "accepts_overrides", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.overrides = extra
    try:
        with using_threads(check_threads(getattr(args, "threads", 0))):
            return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as e:
        print(f"glassformer {args.verb}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

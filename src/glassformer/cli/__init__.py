"""`glassformer <verb>`: a thin dispatcher. Each verb lives in its own module here and only
calls the library; a module adds its verb with `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import sys

# verb modules, in the order `glassformer --help` lists them
VERB_MODULES = ["data", "train", "sample", "demo", "inspect", "lesson", "exercise"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="glassformer", description="A Transformer you can see through.")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERB_MODULES:
        try:
            module = importlib.import_module(f"glassformer.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"glassformer.cli.{name}":
                raise
            continue  # verb not built yet
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if extra and not getattr(args, "accepts_overrides", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.overrides = extra
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as e:
        print(f"glassformer {args.verb}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""`glassformer <verb>`: a thin dispatcher. Each verb lives in a module here and only calls the
library; a module adds its verbs with `register(subparsers)` (a module holds the verbs of one thing
a user does: cli/train.py makes a model (data, train, demo, bench, import, export), cli/inspect.py looks inside one
(trace, attention, grads, params and the causal views patch, heads, attribute), cli/explore.py opens
a browser (explore, notebooks); the others hold one verb each).

What every verb shares is done once, here:
  - option spelling: `--max-steps 500`, `--max_steps 500` and `--max_steps=500` are the same
    (`normalize_argv`); config overrides (`--key=value`) are parsed by config.parse_overrides;
  - threads: every verb that computes has `--threads N` with one default (devices.py); the verb
    runs inside `using_threads(N)` (train takes it as its TrainConfig field, the same rule);
  - errors: one path (cli/failure.py). An expected failure prints one or two lines naming the
    problem and the fix — exit code 2 for a usage error, 1 for a failure (errors.py); an
    unexpected one is a bug: a short note, and the traceback saved to a crash file it names.
    `--debug` anywhere (or GLASSFORMER_DEBUG=1) prints tracebacks too;
  - language: `--lang zh` anywhere (or GLASSFORMER_LANG=zh) speaks Chinese for the whole command:
    help, progress lines and errors all come from one catalogue, glassformer/messages (a verb
    prints `t("key", field=value)`, never a literal sentence; tests/cli/test_messages.py checks).
"""

from __future__ import annotations

import importlib
import sys

from glassformer.cli.failure import DEBUG_FLAG, debug_requested, report
from glassformer.cli.options import Parser, argparse_speaking, language_requested, normalize_argv
from glassformer.devices import check_threads, using_threads
from glassformer.errors import UsageError
from glassformer.messages import UnknownLanguage, speaking, t

# verb modules, in the order `glassformer --help` lists them
VERB_MODULES = [
    "train",  # data, train, demo, bench, import, export
    "sample",
    "inspect",  # trace, attention, grads, params; patch, heads, attribute
    "lesson",
    "exercise",
    "explore",  # explore, notebooks
    "lab",
]


def build_parser() -> Parser:
    parser = Parser(prog="glassformer", description=t("help.description"))
    parser.add_argument(DEBUG_FLAG, action="store_true", help=t("help.debug"))
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERB_MODULES:
        importlib.import_module(f"glassformer.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, debug = debug_requested(argv)  # --debug may stand anywhere, before or after the verb
    try:
        argv, lang = language_requested(argv)  # so may --lang; else GLASSFORMER_LANG, else English
    except (UsageError, UnknownLanguage) as e:
        return report(e, None, debug, argv)
    with speaking(lang):
        return _run(argv, debug)


def _run(argv: list[str], debug: bool) -> int:
    with argparse_speaking():  # argparse's own words ("usage:", "invalid choice") in the language too
        parser = build_parser()
        args, extra = parser.parse_known_args(normalize_argv(argv))  # a usage error: two lines, SystemExit(2)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        if extra and not getattr(args, "accepts_overrides", False):
            parser.error(t("cli.unrecognized", args=" ".join(extra)))
    args.overrides = extra
    try:
        with using_threads(check_threads(getattr(args, "threads", 0))):
            return int(args.func(args) or 0)
    except (Exception, KeyboardInterrupt) as e:
        return report(e, getattr(args, "verb", None), debug, argv)


if __name__ == "__main__":
    sys.exit(main())

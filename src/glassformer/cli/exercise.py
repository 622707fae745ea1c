"""`glassformer exercise ...`: write each component by hand, glassformer grades it. Thin: every
subcommand parses its options and calls glassformer.exercises (session.py, educator.py).

    list                          progress table, in data-flow order
    start NAME                    write a skeleton into the exercises folder (never overwrites)
    check NAME [FILE]             grade your file (a separate process with a time limit)
    hint NAME [--all]             the next of three hints
    solution NAME [--give-up]     the reference solution (after a passing check)
    grade SUBMISSIONS --out CSV   educator: one folder per student -> CSV + Markdown summary
    export-golden --out DIR       educator: seeded inputs + expected outputs (.npz + .json)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from glassformer.cli.options import positive

DEFAULT_DIR = "exercises"


def register(subparsers: argparse._SubParsersAction) -> None:
    ex = subparsers.add_parser("exercise", help="write each component by hand; glassformer grades it",
                               description="手撕 mode: write each part of a Transformer yourself, in data-flow "
                                           "order; glassformer grades it against its own parts and the "
                                           "NumPy twin, in float64, and names the usual mistakes.")
    verbs = ex.add_subparsers(dest="exercise_verb", metavar="{list,start,check,hint,solution,grade,export-golden}",
                              required=True)

    def learner(name: str, help_: str) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help_)
        p.add_argument("--dir", default=DEFAULT_DIR, help=f"your exercises folder (default {DEFAULT_DIR}/)")
        p.add_argument("--lang", choices=("en", "zh"), default=None,
                       help="language of skeletons and messages (default: $GLASSFORMER_LANG, else en)")
        return p

    p = learner("list", "which exercises exist, in data-flow order, and where you are")
    p.set_defaults(func=run_list)
    p = learner("start", "write the skeleton of an exercise (never over your file)")
    p.add_argument("name")
    p.set_defaults(func=run_start)
    p = learner("check", "grade your file")
    p.add_argument("name")
    p.add_argument("file", nargs="?", default=None, help="default: DIR/NAME.py")
    p.add_argument("--timeout", type=positive, default=None, help="seconds your code may run (default 10)")
    p.set_defaults(func=run_check)
    p = learner("hint", "the next hint (three per exercise, the last close to the answer)")
    p.add_argument("name")
    p.add_argument("--all", action="store_true", help="show all three")
    p.set_defaults(func=run_hint)
    p = learner("solution", "the reference solution, once your check has passed")
    p.add_argument("name")
    p.add_argument("--give-up", action="store_true", help="show it now, before passing (it is recorded)")
    p.set_defaults(func=run_solution)

    p = verbs.add_parser("grade", help="educator: grade one folder per student")
    p.add_argument("submissions", help="a folder with one subfolder per student (alice/softmax.py, ...)")
    p.add_argument("--out", required=True, help="the CSV to write; the Markdown summary goes beside it (.md)")
    p.add_argument("--exercises", default=None, help="comma-separated names (default: all)")
    p.add_argument("--timeout", type=positive, default=None, help="seconds per student file (default 10)")
    p.add_argument("--lang", choices=("en", "zh"), default=None)
    p.set_defaults(func=run_grade)
    p = verbs.add_parser("export-golden", help="educator: write seeded inputs and expected outputs")
    p.add_argument("--out", required=True, help="folder for NAME.npz, NAME.json and manifest.json")
    p.add_argument("--exercises", default=None, help="comma-separated names (default: all)")
    p.add_argument("--lang", choices=("en", "zh"), default=None)
    p.set_defaults(func=run_export)


def _lang(args) -> str:
    from glassformer.exercises.text import resolve_lang

    return resolve_lang(args.lang)


def _timeout(args) -> float:
    from glassformer.exercises.grader import TIMEOUT

    if args.timeout is not None and args.timeout <= 0:
        raise ValueError(f"--timeout must be positive, got {args.timeout}")
    return args.timeout or TIMEOUT


def _out(result: tuple[str, int]) -> int:
    print(result[0])
    return result[1]


def run_list(args) -> int:
    from glassformer.exercises import session

    return _out(session.overview(Path(args.dir), _lang(args)))


def run_start(args) -> int:
    from glassformer.exercises import session

    return _out(session.start(args.name, Path(args.dir), _lang(args)))


def run_check(args) -> int:
    from glassformer.exercises import session

    file = Path(args.file) if args.file else None
    return _out(session.check(args.name, Path(args.dir), file, _lang(args), _timeout(args)))


def run_hint(args) -> int:
    from glassformer.exercises import session

    return _out(session.hint(args.name, Path(args.dir), _lang(args), args.all))


def run_solution(args) -> int:
    from glassformer.exercises import session

    return _out(session.solution(args.name, Path(args.dir), _lang(args), args.give_up))


def run_grade(args) -> int:
    from glassformer.exercises import educator
    from glassformer.exercises.text import t

    lang = _lang(args)
    names = args.exercises.split(",") if args.exercises else None
    rows, md = educator.grade(Path(args.submissions), Path(args.out), lang, _timeout(args), names)
    students = len({r["student"] for r in rows})
    print(md.read_text(encoding="utf-8"))
    print(t(lang, "msg.grade.wrote", students=students, exercises=len(rows) // students, csv=args.out, md=md))
    return 0


def run_export(args) -> int:
    from glassformer.exercises import educator
    from glassformer.exercises.text import t

    names = args.exercises.split(",") if args.exercises else None
    files = educator.export_golden(Path(args.out), names)
    print(t(_lang(args), "msg.export.wrote", n=len(files), folder=args.out))
    return 0

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
from glassformer.errors import UsageError
from glassformer.messages import t

DEFAULT_DIR = "exercises"


def register(subparsers: argparse._SubParsersAction) -> None:
    from glassformer.exercises.grading import TIMEOUT

    ex = subparsers.add_parser("exercise", help=t("help.exercise"), description=t("help.exercise.about"))
    verbs = ex.add_subparsers(
        dest="exercise_verb", metavar="{list,start,check,hint,solution,grade,export-golden}", required=True
    )

    def learner(name: str) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=t(f"help.exercise.{name}"))
        p.add_argument("--dir", default=DEFAULT_DIR, help=t("help.exercise.dir", default=DEFAULT_DIR))
        return p  # --lang (every command has it): the language of skeletons and messages

    def named(name: str) -> argparse.ArgumentParser:
        p = learner(name)
        p.add_argument("name", help=t("help.exercise.name"))
        return p

    learner("list").set_defaults(func=run_list)
    named("start").set_defaults(func=run_start)
    p = named("check")
    p.add_argument("file", nargs="?", default=None, help=t("help.exercise.file"))
    p.add_argument("--timeout", type=positive, default=None, help=t("help.exercise.timeout", default=TIMEOUT))
    p.set_defaults(func=run_check)
    p = named("hint")
    p.add_argument("--all", action="store_true", help=t("help.exercise.all"))
    p.set_defaults(func=run_hint)
    p = named("solution")
    p.add_argument("--give-up", action="store_true", help=t("help.exercise.give_up"))
    p.set_defaults(func=run_solution)

    p = verbs.add_parser("grade", help=t("help.exercise.grade"))
    p.add_argument("submissions", help=t("help.exercise.submissions"))
    p.add_argument("--out", required=True, help=t("help.exercise.grade.out"))
    p.add_argument("--exercises", default=None, help=t("help.exercise.names"))
    p.add_argument("--timeout", type=positive, default=None, help=t("help.exercise.grade.timeout", default=TIMEOUT))
    p.set_defaults(func=run_grade)
    p = verbs.add_parser("export-golden", help=t("help.exercise.export-golden"))
    p.add_argument("--out", required=True, help=t("help.exercise.export.out"))
    p.add_argument("--exercises", default=None, help=t("help.exercise.names"))
    p.set_defaults(func=run_export)


def _timeout(args) -> float:
    from glassformer.exercises.grading import TIMEOUT

    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("exercise.timeout", value=args.timeout)
    return args.timeout or TIMEOUT


def _out(result: tuple[str, int]) -> int:
    print(result[0])
    return result[1]


def run_list(args) -> int:
    from glassformer.exercises import session

    return _out(session.overview(Path(args.dir)))


def run_start(args) -> int:
    from glassformer.exercises import session

    return _out(session.start(args.name, Path(args.dir)))


def run_check(args) -> int:
    from glassformer.exercises import session

    file = Path(args.file) if args.file else None
    return _out(session.check(args.name, Path(args.dir), file, timeout=_timeout(args)))


def run_hint(args) -> int:
    from glassformer.exercises import session

    return _out(session.hint(args.name, Path(args.dir), show_all=args.all))


def run_solution(args) -> int:
    from glassformer.exercises import session

    return _out(session.solution(args.name, Path(args.dir), give_up=args.give_up))


def run_grade(args) -> int:
    from glassformer.exercises import educator

    names = args.exercises.split(",") if args.exercises else None
    rows, md = educator.grade(Path(args.submissions), Path(args.out), timeout=_timeout(args), names=names)
    students = len({r["student"] for r in rows})
    print(md.read_text(encoding="utf-8"))
    print(t("exercise.msg.grade.wrote", students=students, exercises=len(rows) // students, csv=args.out, md=md))
    return 0


def run_export(args) -> int:
    from glassformer.exercises import educator

    names = args.exercises.split(",") if args.exercises else None
    files = educator.export_golden(Path(args.out), names)
    print(t("exercise.msg.export.wrote", n=len(files), folder=args.out))
    return 0

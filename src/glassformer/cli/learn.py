"""The verbs of learning: `glassformer lesson` (run a lesson), `exercise` (write each component by
hand, glassformer grades it) and `lab` (the experiments that test the tutorials' claims). Thin:
each subcommand parses its options and calls glassformer.lessons, glassformer.exercises
(session.py, educator.py) or glassformer.lab, where everything else is.

    glassformer lesson tiny|fruit|hello-world|sine|seq2seq   one of the lessons

    glassformer exercise list                          progress table, in data-flow order
    glassformer exercise start NAME                    write a skeleton into the exercises folder (never overwrites)
    glassformer exercise check NAME [FILE]             grade your file (a separate process with a time limit)
    glassformer exercise hint NAME [--all]             the next of three hints
    glassformer exercise solution NAME [--give-up]     the reference solution (after a passing check)
    glassformer exercise grade SUBMISSIONS --out CSV   educator: one folder per student -> CSV + Markdown summary
    glassformer exercise export-golden --out DIR       educator: seeded inputs + expected outputs (.npz + .json)

    glassformer lab list                          every experiment, its tutorials and claims
    glassformer lab run length --threads 1        a full run: out/lab/length/{report.md, *.png, results.json}
    glassformer lab run all --fast                every experiment at smoke-test size (seconds each)
    glassformer lab report                        out/lab/index.md and index.html from the results there
    glassformer lab ledger                        the reproduction ledger of docs/lab (or --out DIR)

What these verbs say is in the catalogue (glassformer/messages); the claims and verdicts are the
lab's own texts, and the lessons' commentary and the exercises' skeletons are in the language of
--lang (which every parser has).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from glassformer.cli.options import Later, Parser, add_threads, count, non_negative, positive, seed
from glassformer.config import (
    HELLO_EPOCHS,
    HELLO_FAST_EPOCHS,
    SEQ2SEQ_FAST_STEPS,
    SINE_EPOCHS,
    SINE_FAST,
    SINE_N_TRAIN,
    SINE_N_VAL,
    TINY_FAST_STEPS,
    TINY_PRESET,
    get_preset,
)
from glassformer.errors import UsageError
from glassformer.messages import N_, say, t

# The lessons and the exercises' grader import torch: they are imported inside the verbs, and the
# figures a help states come from config.py, so that building the parser and showing any help
# (`glassformer lesson sine --help` too) never loads torch (cli/__init__.py).

LAB_DIR = "docs/lab"  # the committed lab results: the ledger's entries, the verdicts the tiny lesson shows


def register(subparsers: argparse._SubParsersAction) -> None:
    register_lesson(subparsers)
    register_exercise(subparsers)
    register_lab(subparsers)


# ---- lesson ------------------------------------------------------------------------------------
SINE_PATIENCE = 4  # epochs without improvement before stopping
BEAM, ALPHA = 4, 0.6  # beam width k and length penalty α of the seq2seq lesson's beam search
WORDS, DIGITS = "一千二百零五", "1205"  # the seq2seq lesson's example pair, as its help shows it


def _shared(p: argparse.ArgumentParser, name: str) -> None:
    """Options every lesson has (and --lang, which every parser has: the commentary's language)."""
    p.add_argument("--explain", action="store_true", help=t("help.lesson.explain"))
    p.add_argument("--out", default=None, help=t("help.lesson.out", name=name))


def _training(p: argparse.ArgumentParser, fast_help: str, fast) -> None:
    """Options of the lessons that train a model (fast_help: --fast's help; fast: a function giving
    the figures it names)."""
    p.add_argument("--fast", action="store_true", help=Later(lambda: t(fast_help, **fast())))
    p.add_argument("--seed", type=seed, default=0, help=t("help.lesson.seed", default=0))
    add_threads(p)


def register_lesson(subparsers: argparse._SubParsersAction) -> None:
    lesson = subparsers.add_parser("lesson", help=t("help.lesson"), description=t("help.lesson.about"))
    which = lesson.add_subparsers(dest="lesson", metavar="{tiny,fruit,hello-world,sine,seq2seq}", required=True)

    tiny = which.add_parser("tiny", help=t("help.lesson.tiny"))
    _shared(tiny, "tiny")
    _training(
        tiny,
        N_("help.lesson.tiny.fast"),
        lambda: {"fast": TINY_FAST_STEPS, "steps": get_preset(TINY_PRESET).train.max_steps},
    )
    tiny.add_argument("--lab", default=LAB_DIR, help=t("help.lesson.tiny.lab", default=LAB_DIR))
    tiny.set_defaults(func=run_lesson_tiny)

    fruit = which.add_parser("fruit", help=t("help.lesson.fruit"))
    _shared(fruit, "fruit")
    fruit.add_argument("--fast", action="store_true", help=t("help.lesson.fruit.fast"))
    fruit.set_defaults(func=run_lesson_fruit)

    hello = which.add_parser("hello-world", help=t("help.lesson.hello-world"))
    _shared(hello, "hello-world")
    _training(hello, N_("help.lesson.hello-world.fast"), lambda: {"epochs": HELLO_FAST_EPOCHS})
    hello.add_argument("--mask", choices=("none", "causal", "both"), default="both", help=t("help.lesson.mask"))
    hello.add_argument("--data", default="tutorial", help=t("help.lesson.hello.data"))
    hello.add_argument(
        "--epochs",
        type=count,
        default=None,  # the lesson's own (hello_world.EPOCHS)
        help=t("help.lesson.hello.epochs", default=HELLO_EPOCHS),
    )
    hello.set_defaults(func=run_lesson_hello)

    sine = which.add_parser("sine", help=t("help.lesson.sine"))
    _shared(sine, "sine")
    _training(sine, N_("help.lesson.sine.fast"), lambda: {"train": SINE_FAST["n_train"], "val": SINE_FAST["n_val"]})
    sine.add_argument("--task", choices=("forecast", "tutorial"), default="forecast", help=t("help.lesson.sine.task"))
    sine.add_argument(
        "--schedule", choices=("noam", "cosine", "tutorial"), default="noam", help=t("help.lesson.sine.schedule")
    )
    sine.add_argument("--epochs", type=count, default=None, help=t("help.lesson.sine.epochs", **SINE_EPOCHS))
    sine.add_argument(
        "--patience", type=count, default=SINE_PATIENCE, help=t("help.lesson.sine.patience", default=SINE_PATIENCE)
    )
    sine.add_argument(
        "--train-size",
        type=count,
        default=None,
        help=t("help.lesson.sine.train_size", default=SINE_N_TRAIN),
    )
    sine.add_argument(
        "--val-size",
        type=count,
        default=None,
        help=t("help.lesson.sine.val_size", default=SINE_N_VAL),
    )
    sine.set_defaults(func=run_lesson_sine)

    s2s = which.add_parser("seq2seq", help=t("help.lesson.seq2seq", example=f"{WORDS} ↔ {DIGITS}"))
    _shared(s2s, "seq2seq")
    _training(
        s2s, N_("help.lesson.seq2seq.fast"), lambda: {"steps": SEQ2SEQ_FAST_STEPS}
    )  # its time: the lesson prints it
    s2s.add_argument(
        "--task",
        choices=("zh2num", "num2zh"),
        default="zh2num",
        help=t("help.lesson.seq2seq.task", words=WORDS, digits=DIGITS),
    )
    s2s.add_argument(
        "--steps",
        type=count,
        default=None,
        help=t("help.lesson.seq2seq.steps", default=get_preset("seq2seq").train.max_steps, fast=SEQ2SEQ_FAST_STEPS),
    )
    s2s.add_argument("--beam", type=count, default=BEAM, help=t("help.lesson.seq2seq.beam", default=BEAM))
    s2s.add_argument("--alpha", type=non_negative, default=ALPHA, help=t("help.lesson.seq2seq.alpha", default=ALPHA))
    s2s.set_defaults(func=run_lesson_seq2seq)


def run_lesson_tiny(args: argparse.Namespace) -> int:
    from glassformer.lessons import tiny

    tiny.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
        lab=args.lab,
    )
    return 0


def run_lesson_fruit(args: argparse.Namespace) -> int:
    from glassformer.lessons import fruit

    fruit.run(lang=args.lang, explain=args.explain, out=args.out)
    return 0


def run_lesson_hello(args: argparse.Namespace) -> int:
    from glassformer.lessons import hello_world

    hello_world.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        mask=args.mask,
        data=args.data,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
        **({} if args.epochs is None else {"epochs": args.epochs}),  # else the lesson's own
    )
    return 0


def run_lesson_sine(args: argparse.Namespace) -> int:
    from glassformer.lessons import sine

    sine.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        task=args.task,
        schedule=args.schedule,
        epochs=args.epochs,
        patience=args.patience,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
        n_train=args.train_size,
        n_val=args.val_size,
    )
    return 0


def run_lesson_seq2seq(args: argparse.Namespace) -> int:
    from glassformer.lessons import seq2seq

    seq2seq.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        task=args.task,
        steps=args.steps,
        beam=args.beam,
        alpha=args.alpha,
        fast=args.fast,
        seed=args.seed,
        threads=args.threads,
    )
    return 0


# ---- exercise ----------------------------------------------------------------------------------
EXERCISES_DIR = "exercises"  # where the learner's files go


class Intermixed(Parser):
    """A parser whose options may stand between its positionals: `exercise check softmax --timeout 5
    FILE` reads FILE as the file (plain argparse fills `name [file]` at the first positional and
    calls FILE unrecognized). argparse's intermixed parsing calls parse_known_args itself, hence the flag."""

    mixing = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        if self.mixing:
            return super().parse_known_args(args, namespace)
        self.mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self.mixing = False


def register_exercise(subparsers: argparse._SubParsersAction) -> None:
    def timeout() -> float:
        from glassformer.exercises.sandbox import TIMEOUT  # sandbox.py imports no torch: a help stays quick

        return TIMEOUT

    ex = subparsers.add_parser("exercise", help=t("help.exercise"), description=t("help.exercise.about"))
    verbs = ex.add_subparsers(
        dest="exercise_verb",
        metavar="{list,start,check,hint,solution,grade,export-golden}",
        required=True,
        parser_class=Intermixed,  # options anywhere: before, between or after NAME and FILE
    )

    def learner(name: str, about: str) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=t(about))
        p.add_argument("--dir", default=EXERCISES_DIR, help=t("help.exercise.dir", default=EXERCISES_DIR))
        return p  # --lang (every command has it): the language of skeletons and messages

    def named(name: str, about: str) -> argparse.ArgumentParser:
        p = learner(name, about)
        p.add_argument("name", help=t("help.exercise.name"))
        return p

    learner("list", N_("help.exercise.list")).set_defaults(func=run_exercise_list)
    named("start", N_("help.exercise.start")).set_defaults(func=run_exercise_start)
    p = named("check", N_("help.exercise.check"))
    p.add_argument("file", nargs="?", default=None, help=t("help.exercise.file"))
    p.add_argument(
        "--timeout", type=positive, default=None, help=Later(lambda: t("help.exercise.timeout", default=timeout()))
    )
    p.set_defaults(func=run_exercise_check)
    p = named("hint", N_("help.exercise.hint"))
    p.add_argument("--all", action="store_true", help=t("help.exercise.all"))
    p.set_defaults(func=run_exercise_hint)
    p = named("solution", N_("help.exercise.solution"))
    p.add_argument("--give-up", action="store_true", help=t("help.exercise.give_up"))
    p.set_defaults(func=run_exercise_solution)

    p = verbs.add_parser("grade", help=t("help.exercise.grade"))
    p.add_argument("submissions", help=t("help.exercise.submissions"))
    p.add_argument("--out", required=True, help=t("help.exercise.grade.out"))
    p.add_argument("--exercises", default=None, help=t("help.exercise.names"))
    p.add_argument(
        "--timeout",
        type=positive,
        default=None,
        help=Later(lambda: t("help.exercise.grade.timeout", default=timeout())),
    )
    p.set_defaults(func=run_exercise_grade)
    p = verbs.add_parser("export-golden", help=t("help.exercise.export-golden"))
    p.add_argument("--out", required=True, help=t("help.exercise.export.out"))
    p.add_argument("--exercises", default=None, help=t("help.exercise.names"))
    p.set_defaults(func=run_exercise_export)


def _exercise_timeout(args) -> float:
    from glassformer.exercises.sandbox import TIMEOUT

    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("exercise.timeout", value=args.timeout)
    return args.timeout or TIMEOUT


def _exercise_out(result: tuple[str, int]) -> int:
    print(result[0])
    return result[1]


def run_exercise_list(args) -> int:
    from glassformer.exercises import session

    return _exercise_out(session.overview(Path(args.dir)))


def run_exercise_start(args) -> int:
    from glassformer.exercises import session

    return _exercise_out(session.start(args.name, Path(args.dir)))


def run_exercise_check(args) -> int:
    from glassformer.exercises import session

    file = Path(args.file) if args.file else None
    return _exercise_out(session.check(args.name, Path(args.dir), file, timeout=_exercise_timeout(args)))


def run_exercise_hint(args) -> int:
    from glassformer.exercises import session

    return _exercise_out(session.hint(args.name, Path(args.dir), show_all=args.all))


def run_exercise_solution(args) -> int:
    from glassformer.exercises import session

    return _exercise_out(session.solution(args.name, Path(args.dir), give_up=args.give_up))


def run_exercise_grade(args) -> int:
    from glassformer.exercises import educator

    names = args.exercises.split(",") if args.exercises else None
    rows, md = educator.grade(Path(args.submissions), Path(args.out), timeout=_exercise_timeout(args), names=names)
    students = len({r["student"] for r in rows})
    print(md.read_text(encoding="utf-8"))
    print(t("exercise.msg.grade.wrote", students=students, exercises=len(rows) // students, csv=args.out, md=md))
    return 0


def run_exercise_export(args) -> int:
    from glassformer.exercises import educator

    names = args.exercises.split(",") if args.exercises else None
    files = educator.export_golden(Path(args.out), names)
    print(t("exercise.msg.export.wrote", n=len(files), folder=args.out))
    return 0


# ---- lab ---------------------------------------------------------------------------------------
def register_lab(subparsers: argparse._SubParsersAction) -> None:
    lab = subparsers.add_parser("lab", help=t("help.lab"), description=t("help.lab.about"))
    which = lab.add_subparsers(dest="lab_command", metavar="{list,run,report,ledger}", required=True)

    ls = which.add_parser("list", help=t("help.lab.list"))
    ls.add_argument("--out", default=LAB_DIR, help=t("help.lab.list.out"))
    ls.set_defaults(func=run_lab_list)

    run = which.add_parser("run", help=t("help.lab.run"))
    run.add_argument("name", help=t("help.lab.run.name"))
    run.add_argument("--fast", action="store_true", help=t("help.lab.run.fast"))
    run.add_argument("--seeds", type=count, default=None, help=t("help.lab.run.seeds"))
    run.add_argument("--out", default=None, help=t("help.lab.run.out"))
    run.add_argument("--data", default=None, help=t("help.lab.run.data"))
    run.add_argument("--cache-dir", default=None, help=t("help.train.cache_dir"))
    add_threads(run)
    run.set_defaults(func=run_lab_run)

    rep = which.add_parser("report", help=t("help.lab.report"))
    rep.add_argument("--out", default=None, help=t("help.lab.report.out"))
    rep.set_defaults(func=run_lab_report)

    led = which.add_parser("ledger", help=t("help.lab.ledger"))
    led.add_argument("--out", default=LAB_DIR, help=t("help.lab.ledger.out"))
    led.set_defaults(func=run_lab_ledger)


def run_lab_list(args: argparse.Namespace) -> int:
    """Every experiment: its title, what one run of it cost where it was last run (the seconds its
    results.json recorded under --out, docs/lab by default), and each claim with where it comes from."""
    from dataclasses import asdict

    from glassformer.lab import experiments
    from glassformer.lab.report import read_records, source
    from glassformer.lab.runner import TUTORIALS

    runs = {r["experiment"]: r for r in read_records(args.out)} if Path(args.out).is_dir() else {}
    say("lab.list.legend")
    for tutorial, about in TUTORIALS.items():
        say("lab.list.tutorial", tutorial=tutorial, about=t(about))
    for name, exp in experiments().items():
        print(f"\n{name:<16} {t(exp.title)}")
        r = runs.get(name)
        if r is None:
            say("lab.list.no_cost", dir=Path(args.out) / name)
        else:
            say(
                "lab.list.cost_fast" if r["fast"] else "lab.list.cost",
                seconds=r["seconds"],
                cpu_seconds=r.get("cpu_seconds", r["seconds"]),
                seeds=r["seeds"],
                cpu=r["machine"]["cpu"],
                threads=r["machine"]["threads"],
                dir=Path(args.out) / name,
            )
        for c in exp.claims:
            print(f"  {source(asdict(c), args.lang)}: {t(c.claim)}")
    return 0


def run_lab_run(args: argparse.Namespace) -> int:
    from glassformer.text.corpora import CorpusUnavailable

    try:
        return _lab_run(args)
    except CorpusUnavailable as e:
        say("fail.error", file=sys.stderr, who="glassformer lab", message=t("lab.no_corpus", error=e))
        return 1


def _lab_run(args: argparse.Namespace) -> int:
    from glassformer.lab import experiments, get_experiment
    from glassformer.lab.report import LEVEL_WORDS
    from glassformer.lab.runner import DEFAULT_OUT, run_experiment

    chosen = list(experiments().values()) if args.name == "all" else [get_experiment(args.name)]
    for exp in chosen:
        print(f"== {exp.name}: {t(exp.title)}", flush=True)
        seeds = args.seeds
        if args.name == "all" and not exp.seeded and seeds is not None and seeds > 1:  # refused when named alone
            say("lab.unseeded_in_all", name=exp.name, seeds=seeds)
            seeds = None
        record = run_experiment(
            exp,
            fast=args.fast,
            seeds=seeds,
            out=args.out,
            data=args.data,
            cache_dir=args.cache_dir,
            threads=args.threads,
            echo=lambda line: print(line, flush=True),
        )
        for c in record["claims"]:
            print(f"  [{t(LEVEL_WORDS[c['level']])}] {c['tutorial']} {c['where']}: {c['claim_' + args.lang]}")
            print(f"      {c['finding_' + args.lang]}")
        folder = args.out or DEFAULT_OUT
        say("lab.wrote", seconds=record["seconds"], dir=f"{folder}/{exp.name}", figures=len(record["figures"]))
    return 0


def run_lab_report(args: argparse.Namespace) -> int:
    from glassformer.lab.report import write_index
    from glassformer.lab.runner import DEFAULT_OUT

    md, page = write_index(args.out or DEFAULT_OUT)
    say("lab.index", md=md, page=page)
    return 0


def run_lab_ledger(args: argparse.Namespace) -> int:
    from glassformer.errors import NotFound
    from glassformer.lab.report import ledger_rows, ledger_text, read_records

    records = read_records(args.out)
    if not ledger_rows(records):
        raise NotFound("error.lab.no_ledger", root=args.out)
    print(ledger_text(records, args.lang))
    return 0

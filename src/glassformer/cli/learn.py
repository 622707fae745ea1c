"""The verbs of learning: `glassformer lesson` (run a lesson), `exercise` (write each component by
hand, glassformer grades it) and `lab` (the experiments that test the tutorials' claims). Thin:
each subcommand parses its options and calls glassformer.lessons, glassformer.exercises
(session.py, educator.py) or glassformer.lab, where everything else is.

    glassformer lesson tiny|fruit|hello-world|sine|seq2seq|ladder|post-training   one of the lessons

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
    LADDER_FAST,
    LADDER_STEPS,
    POST_LESSON_FAST,
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
    p.add_argument("--explain", action="store_true", help=t("one sentence of commentary per step"))
    p.add_argument("--out", default=None, help=t("folder for the PNGs (default out/lessons/{name}/)", name=name))


def _training(p: argparse.ArgumentParser, fast_help: str, fast) -> None:
    """Options of the lessons that train a model (fast_help: --fast's help; fast: a function giving
    the figures it names)."""
    p.add_argument("--fast", action="store_true", help=Later(lambda: t(fast_help, **fast())))
    p.add_argument(
        "--seed", type=seed, default=0, help=t("seed of the weights and batches (default {default})", default=0)
    )
    add_threads(p)


def register_lesson(subparsers: argparse._SubParsersAction) -> None:
    lesson = subparsers.add_parser(
        "lesson",
        help=t("run a lesson: tiny, fruit, hello-world, sine, seq2seq, ladder or post-training"),
        description=t("Runnable lessons that re-create the tutorials' examples, with every number computed."),
    )
    which = lesson.add_subparsers(
        dest="lesson", metavar="{tiny,fruit,hello-world,sine,seq2seq,ladder,post-training}", required=True
    )

    tiny = which.add_parser("tiny", help=t("the first tutorial's TinyTransformer, trained as it describes"))
    _shared(tiny, "tiny")
    _training(
        tiny,
        N_("{fast} training steps instead of {steps} (what the tests run)"),
        lambda: {"fast": TINY_FAST_STEPS, "steps": get_preset(TINY_PRESET).train.max_steps},
    )
    tiny.add_argument(
        "--lab",
        default=LAB_DIR,
        help=t("folder of `glassformer lab run` results whose verdicts to show (default {default})", default=LAB_DIR),
    )
    tiny.set_defaults(func=run_lesson_tiny)

    fruit = which.add_parser("fruit", help=t("attention by hand on apple/banana/orange, heads, positions"))
    _shared(fruit, "fruit")
    fruit.add_argument("--fast", action="store_true", help=t("accepted for symmetry: fruit is always fast"))
    fruit.set_defaults(func=run_lesson_fruit)

    hello = which.add_parser("hello-world", help=t("the one-layer word model and its missing causal mask"))
    _shared(hello, "hello-world")
    _training(
        hello,
        N_("at most {epochs} epochs and a smaller leak experiment (what the tests run)"),
        lambda: {"epochs": HELLO_FAST_EPOCHS},
    )
    hello.add_argument(
        "--mask",
        choices=("none", "causal", "both"),
        default="both",
        help=t("attention mask; both = train the two side by side (default)"),
    )
    hello.add_argument(
        "--data", default="tutorial", help=t("tutorial (default), greetings, or a text file with one sentence per line")
    )
    hello.add_argument(
        "--epochs",
        type=count,
        default=None,  # the lesson's own (hello_world.EPOCHS)
        help=t("default {default}, as in the tutorial", default=HELLO_EPOCHS),
    )
    hello.set_defaults(func=run_lesson_hello)

    sine = which.add_parser("sine", help=t("a Transformer for numbers: forecasting sine waves"))
    _shared(sine, "sine")
    _training(
        sine,
        N_("{train}/{val} sequences and a few epochs (what the tests run)"),
        lambda: {"train": SINE_FAST["n_train"], "val": SINE_FAST["n_val"]},
    )
    sine.add_argument(
        "--task",
        choices=("forecast", "tutorial"),
        default="forecast",
        help=t(
            "forecast (default): read a noisy wave, predict its next "
            "values; tutorial: the tutorial's framing (x values in, y "
            "values out)"
        ),
    )
    sine.add_argument(
        "--schedule",
        choices=("noam", "cosine", "tutorial"),
        default="noam",
        help=t("learning-rate schedule: noam (default), cosine, or tutorial (the tutorial's LambdaLR)"),
    )
    sine.add_argument(
        "--epochs",
        type=count,
        default=None,
        help=t("default {forecast} (forecast), {tutorial} (tutorial)", **SINE_EPOCHS),
    )
    sine.add_argument(
        "--patience",
        type=count,
        default=SINE_PATIENCE,
        help=t("epochs without improvement before stopping (default {default})", default=SINE_PATIENCE),
    )
    sine.add_argument(
        "--train-size",
        type=count,
        default=None,
        help=t("training sequences (default {default})", default=SINE_N_TRAIN),
    )
    sine.add_argument(
        "--val-size",
        type=count,
        default=None,
        help=t("validation sequences (default {default})", default=SINE_N_VAL),
    )
    sine.set_defaults(func=run_lesson_sine)

    s2s = which.add_parser(
        "seq2seq",
        help=t(
            "the original Transformer: encoder, decoder, cross-attention ({example})", example=f"{WORDS} ↔ {DIGITS}"
        ),
    )
    _shared(s2s, "seq2seq")
    _training(
        s2s, N_("a smaller model, {steps} steps (what the tests run)"), lambda: {"steps": SEQ2SEQ_FAST_STEPS}
    )  # its time: the lesson prints it
    s2s.add_argument(
        "--task",
        choices=("zh2num", "num2zh"),
        default="zh2num",
        help=t("zh2num: {words} → {digits} (default); num2zh: the other way", words=WORDS, digits=DIGITS),
    )
    s2s.add_argument(
        "--steps",
        type=count,
        default=None,
        help=t(
            "training steps (default {default}; --fast {fast})",
            default=get_preset("seq2seq").train.max_steps,
            fast=SEQ2SEQ_FAST_STEPS,
        ),
    )
    s2s.add_argument("--beam", type=count, default=BEAM, help=t("beam width k (default {default})", default=BEAM))
    s2s.add_argument(
        "--alpha", type=non_negative, default=ALPHA, help=t("length penalty α (default {default})", default=ALPHA)
    )
    s2s.set_defaults(func=run_lesson_seq2seq)

    ladder = which.add_parser(
        "ladder", help=t("from GPT-2 to Qwen3 one change at a time, each rung trained and measured")
    )
    _shared(ladder, "ladder")
    _training(
        ladder,
        N_("{steps} steps per rung on the lab's own short text (what the tests run)"),
        lambda: {"steps": LADDER_FAST["steps"]},
    )
    ladder.add_argument(
        "--steps",
        type=count,
        default=None,
        help=t("training steps per rung (default {default})", default=LADDER_STEPS),
    )
    ladder.add_argument(
        "--data",
        default=None,
        help=t("text to train every rung on (default shakespeare; --fast: the lab's toy text); file:PATH for your own"),
    )
    ladder.set_defaults(func=run_lesson_ladder)
    post = which.add_parser(
        "post-training", help=t("from a language model to an assistant: SFT, LoRA, DPO and GRPO, each measured")
    )
    _shared(post, "post-training")
    _training(
        post,
        N_(
            "pretraining {pretrain} steps, then {sft} SFT, {dpo} DPO and "
            "{grpo} GRPO steps, accuracy on {held_out} sums (what the "
            "tests run)"
        ),
        lambda: POST_LESSON_FAST,
    )
    post.set_defaults(func=run_lesson_post_training)


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


def run_lesson_ladder(args: argparse.Namespace) -> int:
    from glassformer.lessons import ladder

    ladder.run(
        lang=args.lang,
        explain=args.explain,
        out=args.out,
        steps=args.steps,
        fast=args.fast,
        data=args.data,
        seed=args.seed,
        threads=args.threads,
    )
    return 0


def run_lesson_post_training(args: argparse.Namespace) -> int:
    from glassformer.lessons import post_training

    post_training.run(
        lang=args.lang, explain=args.explain, out=args.out, fast=args.fast, seed=args.seed, threads=args.threads
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

    ex = subparsers.add_parser(
        "exercise",
        help=t("write each component by hand; glassformer grades it"),
        description=t(
            "手撕 mode: write each part of a Transformer yourself, in "
            "data-flow order; glassformer grades it against its own "
            "parts and the NumPy twin, in float64, and names the usual "
            "mistakes."
        ),
    )
    verbs = ex.add_subparsers(
        dest="exercise_verb",
        metavar="{list,start,check,hint,solution,grade,export-golden}",
        required=True,
        parser_class=Intermixed,  # options anywhere: before, between or after NAME and FILE
    )

    def learner(name: str, about: str) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=t(about))
        p.add_argument(
            "--dir", default=EXERCISES_DIR, help=t("your exercises folder (default {default}/)", default=EXERCISES_DIR)
        )
        return p  # --lang (every command has it): the language of skeletons and messages

    def named(name: str, about: str) -> argparse.ArgumentParser:
        p = learner(name, about)
        p.add_argument("name", help=t("the exercise (`glassformer exercise list` shows them all)"))
        return p

    learner("list", N_("which exercises exist, in data-flow order, and where you are")).set_defaults(
        func=run_exercise_list
    )
    named("start", N_("write the skeleton of an exercise (never over your file)")).set_defaults(func=run_exercise_start)
    p = named("check", N_("grade your file"))
    p.add_argument("file", nargs="?", default=None, help=t("default: DIR/NAME.py"))
    p.add_argument(
        "--timeout",
        type=positive,
        default=None,
        help=Later(lambda: t("seconds your code may run (default {default:g})", default=timeout())),
    )
    p.set_defaults(func=run_exercise_check)
    p = named("hint", N_("the next hint (three per exercise, the last close to the answer)"))
    p.add_argument("--all", action="store_true", help=t("show all three"))
    p.set_defaults(func=run_exercise_hint)
    p = named("solution", N_("the reference solution, once your check has passed"))
    p.add_argument("--give-up", action="store_true", help=t("show it now, before passing (it is recorded)"))
    p.set_defaults(func=run_exercise_solution)

    p = verbs.add_parser("grade", help=t("educator: grade one folder per student"))
    p.add_argument("submissions", help=t("a folder with one subfolder per student (alice/softmax.py, ...)"))
    p.add_argument("--out", required=True, help=t("the CSV to write; the Markdown summary goes beside it (.md)"))
    p.add_argument("--exercises", default=None, help=t("comma-separated names (default: all)"))
    p.add_argument(
        "--timeout",
        type=positive,
        default=None,
        help=Later(lambda: t("seconds per student file (default {default:g})", default=timeout())),
    )
    p.set_defaults(func=run_exercise_grade)
    p = verbs.add_parser("export-golden", help=t("educator: write seeded inputs and expected outputs"))
    p.add_argument("--out", required=True, help=t("folder for NAME.npz, NAME.json and manifest.json"))
    p.add_argument("--exercises", default=None, help=t("comma-separated names (default: all)"))
    p.set_defaults(func=run_exercise_export)


def _exercise_timeout(args) -> float:
    from glassformer.exercises.sandbox import TIMEOUT

    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("exercise.timeout", "--timeout must be positive, got {value}", value=args.timeout)
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
    print(
        t(
            "Graded {students} students × {exercises} exercises: {csv} and {md}",
            students=students,
            exercises=len(rows) // students,
            csv=args.out,
            md=md,
        )
    )
    return 0


def run_exercise_export(args) -> int:
    from glassformer.exercises import educator

    names = args.exercises.split(",") if args.exercises else None
    files = educator.export_golden(Path(args.out), names)
    print(
        t(
            "Wrote {n} files to {folder}: NAME.npz (arrays) and "
            "NAME.json (shapes, tolerance) per exercise, and "
            "manifest.json.",
            n=len(files),
            folder=args.out,
        )
    )
    return 0


# ---- lab ---------------------------------------------------------------------------------------
def register_lab(subparsers: argparse._SubParsersAction) -> None:
    lab = subparsers.add_parser(
        "lab",
        help=t("experiments that test the tutorials' claims"),
        description=t(
            "Train the small models a tutorial's claim is about and "
            "report what was measured, with a verdict computed by a rule."
        ),
    )
    which = lab.add_subparsers(dest="lab_command", metavar="{list,run,report,ledger}", required=True)

    ls = which.add_parser("list", help=t("the experiments and the claims they test"))
    ls.add_argument(
        "--out",
        default=LAB_DIR,
        help=t("the folder of results whose recorded times are shown (default docs/lab, the committed ones)"),
    )
    ls.set_defaults(func=run_lab_list)

    run = which.add_parser("run", help=t("run one experiment (or all)"))
    run.add_argument("name", help=t("an experiment name from `glassformer lab list`, or all"))
    run.add_argument("--fast", action="store_true", help=t("smoke-test sizes: seconds, offline, what the tests run"))
    run.add_argument("--seeds", type=count, default=None, help=t("seeds per setting (default: the experiment's own)"))
    run.add_argument("--out", default=None, help=t("results folder (default out/lab); one sub-folder per experiment"))
    run.add_argument(
        "--data",
        default=None,
        help=t(
            "text source: shakespeare (full default), file:PATH, "
            "builtin:seed; --fast defaults to the lab's own generated "
            "text"
        ),
    )
    run.add_argument(
        "--cache-dir", default=None, help=t("data cache (default: $GLASSFORMER_CACHE or ~/.cache/glassformer)")
    )
    add_threads(run)
    run.set_defaults(func=run_lab_run)

    rep = which.add_parser("report", help=t("one index (Markdown + offline HTML) of every result in a folder"))
    rep.add_argument("--out", default=None, help=t("the folder `lab run` wrote to (default out/lab)"))
    rep.set_defaults(func=run_lab_report)

    led = which.add_parser(
        "ledger", help=t("the reproduction ledger: published results re-run, the paper's number beside ours")
    )
    led.add_argument(
        "--out", default=LAB_DIR, help=t("the folder of results to read (default docs/lab, the committed ones)")
    )
    led.set_defaults(func=run_lab_ledger)


def run_lab_list(args: argparse.Namespace) -> int:
    """Every experiment: its title, what one run of it cost where it was last run (the seconds its
    results.json recorded under --out, docs/lab by default), and each claim with where it comes from."""
    from dataclasses import asdict

    from glassformer.lab import experiments
    from glassformer.lab.report import read_records, source
    from glassformer.lab.runner import TUTORIALS

    runs = {r["experiment"]: r for r in read_records(args.out)} if Path(args.out).is_dir() else {}
    say(
        "Where each claim comes from: a tutorial, by the number of "
        "its file (the three Chinese tutorials glassformer follows, "
        '"手撕 Transformer"), and §x.y, the section of it that makes '
        "the claim; a ledger entry names the paper's authors, the "
        "place in the paper and its identifier instead. Each cost is "
        "what the last recorded run took."
    )
    for tutorial, about in TUTORIALS.items():
        say("  tutorial {tutorial}: {about}", tutorial=tutorial, about=t(about))
    for name, exp in experiments().items():
        print(f"\n{name:<16} {t(exp.title)}")
        r = runs.get(name)
        if r is None:
            say(
                "  cost: not measured here ({dir}/results.json does not exist; glassformer lab run writes it)",
                dir=Path(args.out) / name,
            )
        else:
            say(
                N_(
                    "  cost: {seconds:.0f} s ({cpu_seconds:.0f} s CPU), {seeds} "
                    "seed(s), --fast run, recorded on {cpu} with {threads} "
                    "thread(s) ({dir}/results.json)"
                )
                if r["fast"]
                else N_(
                    "  cost: {seconds:.0f} s ({cpu_seconds:.0f} s CPU), {seeds} "
                    "seed(s), full run, recorded on {cpu} with {threads} "
                    "thread(s) ({dir}/results.json)"
                ),
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
        say(
            "{who}: error: {message}",
            file=sys.stderr,
            who="glassformer lab",
            message=t(
                "{error}. A full run reads Shakespeare; without it, use "
                "--fast (the lab's own text) or --data file:PATH.",
                error=e,
            ),
        )
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
            say(
                "  {name} is one computation with no random seed to vary: it "
                "runs once (--seeds {seeds} applies to the others).",
                name=exp.name,
                seeds=seeds,
            )
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
        say(
            "  {seconds:.1f} s; wrote {dir}/report.md, results.json, {figures} figure(s)",
            seconds=record["seconds"],
            dir=f"{folder}/{exp.name}",
            figures=len(record["figures"]),
        )
    return 0


def run_lab_report(args: argparse.Namespace) -> int:
    from glassformer.lab.report import write_index
    from glassformer.lab.runner import DEFAULT_OUT

    md, page = write_index(args.out or DEFAULT_OUT)
    say("wrote {md} and {page}", md=md, page=page)
    return 0


def run_lab_ledger(args: argparse.Namespace) -> int:
    from glassformer.errors import NotFound
    from glassformer.lab.report import ledger_rows, ledger_text, read_records

    records = read_records(args.out)
    if not ledger_rows(records):
        raise NotFound(
            "lab.no_ledger",
            "no ledger entry among the results in {root}: run one (glassformer lab run grokking) first.",
            root=args.out,
        )
    print(ledger_text(records, args.lang))
    return 0

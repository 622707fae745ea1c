"""The lab's runner: an experiment is a claim, a setup, a run and a verdict rule written as code.

    Experiment(name, claims=(Claim(...), ...), run=run, verdicts=verdicts, tables=tables)

Its words are written where it is defined, each marked N_ (a catalogue key today, looked up when a
report is written in each language): `Experiment(title=N_(...), setup=N_(...))` and per claim
`Claim(claim=N_(...), rule=N_(...), finding=N_(...))`. A rule's thresholds are the experiment's own constants,
handed to its sentence as fields (`Claim(..., limits={"stuck": figure(STUCK)})`), so the sentence
and the code that judges cannot disagree on a figure.

`run(ctx)` trains and measures, writes its figures through `ctx.figure`, and returns plain numbers
(a JSON-ready dict). `verdicts(results)` is the rule, fixed before any run: it reads only those
numbers and returns one `Verdict` per claim (a level, and the measured figures its sentence is
formatted with). Nothing here types a verdict in: the level comes out of the comparison.

`run_experiment` times the run, writes `<out>/<name>/results.json` (numbers, verdicts in English
and Chinese, figures, the command that reproduces it, the machine, the git commit of the code) and
`report.md` beside it.
"""

from __future__ import annotations

import io
import os
import platform
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import torch

from glassformer.devices import using_threads
from glassformer.errors import Unsupported, UsageError
from glassformer.files import finite, write_bytes_atomic, write_json_atomic, write_text_atomic
from glassformer.fonts import use_in_figure
from glassformer.lab.report import LANGS, LEVELS, experiment_markdown, read_record, text
from glassformer.messages import N_

DEFAULT_OUT = Path("out") / "lab"
MAX_PNG_BYTES = 200_000  # figures are committed under docs/lab: keep each one small
DPIS = (90, 75, 60)  # a figure is drawn at the first of these that keeps it under MAX_PNG_BYTES


def figure(x: float) -> str:
    """A threshold as a rule's sentence writes it: 0.1, 1.25, 1e-6 (not 1e-06 or 0.000001)."""
    if x and abs(x) < 1e-2:
        mantissa, exponent = f"{x:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{x:g}"


# The seed tutorials a claim can cite, by the number of their file, and the one-line description of
# each that `glassformer lab list` shows.
TUTORIALS = {
    "000": N_("builds a decoder-only character model from scratch"),
    "002": N_("a one-layer word-level model, with its attention weights and gradients"),
    "004": N_("works attention by hand in NumPy, then a Post-LN encoder layer and a sine-wave regressor"),
}


@dataclass(frozen=True)
class Claim:
    key: str  # "<experiment>.<claim>": names its verdict in the rule's answer and in results.json
    tutorial: str  # "000", "002" or "004": which seed tutorial makes it (a ledger entry: the paper's authors)
    where: str  # its section there, e.g. "§3.2"
    claim: str  # N_(...): the claim, in our words
    rule: str  # N_(...): the verdict rule, formatted with `limits`
    finding: str  # N_(...): what was measured, formatted with `limits` and the verdict's figures
    # the rule's thresholds (the experiment's constants), fields of its .rule and .finding sentences
    limits: dict = field(default_factory=dict)
    # a ledger entry (a published result re-run): the paper's identifier, e.g. "arXiv 2301.05217". Its
    # claim then has two more sentences: paper_says (the paper's number and where it is printed) and
    # ours (our number, from the verdict's figures), the ledger's two middle columns.
    paper: str = ""
    paper_says: str = ""  # N_(...), a ledger entry's
    ours: str = ""  # N_(...), a ledger entry's


@dataclass
class Verdict:
    level: str  # one of LEVELS
    figures: dict = field(default_factory=dict)  # formatted into "<key>.finding"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise UsageError(
                "lab.level", "verdict level {level!r} is not one of {levels}", level=self.level, levels=LEVELS
            )


def level(parts: list[bool]) -> str:
    """A claim made of several checkable parts: all true -> holds, none -> fails, else half-true."""
    if all(parts):
        return "holds"
    return "fails" if not any(parts) else "half-true"


@dataclass(frozen=True)
class Experiment:
    name: str  # the CLI name: glassformer lab run NAME
    title: str  # N_(...): what it tests, in a few words
    setup: str  # N_(...): how, formatted with setup_fields
    claims: tuple[Claim, ...]
    run: Callable[["Context"], dict]
    verdicts: Callable[[dict], dict[str, Verdict]]  # claim key -> Verdict; reads numbers only
    tables: Callable[[dict], list[str]] = lambda results: []  # Markdown lines for report.md
    setup_fields: dict = field(default_factory=dict)  # constants its setup sentence states
    seeds: int = 1  # seeds of a full run (at least 3 where the differences are small)
    seeded: bool = True  # False: one computation with no random seed to vary (--seeds above 1 is refused)
    budget_s: int = 600  # what a full run should take on one thread


@dataclass
class Context:
    """What a run may use: where to write, how big to be, and a progress line printer."""

    out: Path
    fast: bool
    seeds: int
    data: str | None = None  # text source; None: the experiment's default for the mode
    cache_dir: str | None = None
    echo: Callable[[str], None] = print
    figures: list[str] = field(default_factory=list)

    def figure(self, fig, name: str) -> str:
        """Save a matplotlib Figure as <out>/<name>.png (small), remember it, return the file name."""
        path = self.out / f"{name}.png"
        use_in_figure(fig)  # Chinese words draw from the shipped font
        for dpi in DPIS:  # a busy figure drawn coarser rather than a finished run lost at its last step
            data = io.BytesIO()
            fig.savefig(data, dpi=dpi, format="png")
            if data.tell() <= MAX_PNG_BYTES:
                break
        else:  # the figure there before (a committed one) is kept
            raise Unsupported(
                "lab.figure_size",
                "{path} is {size:,} bytes; lab figures must stay under {most:,}.",
                path=path,
                size=data.tell(),
                most=MAX_PNG_BYTES,
            )
        write_bytes_atomic(path, data.getvalue())
        self.figures.append(path.name)
        return path.name

    def log(self, message: str) -> None:
        self.echo(f"  [{self.out.name}] {message}")


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1):
    """A matplotlib Figure on the Agg canvas (never pyplot: no global backend, no window)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, squeeze=False)


def machine() -> dict:
    """Where a run happened: CPU model, cores, threads used, torch version, load when it started."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "system": platform.system(),
        "load_1min": load,
    }


def git_commit(where: str | Path | None = None) -> dict | None:
    """{"commit": sha, "dirty": bool} of the git checkout that holds glassformer's own source (or the
    folder `where`), so a result names the code that produced it; "dirty": tracked files differ from
    the commit (untracked files, such as results, do not count). None when the package is not a
    tracked file of a checkout (an installed wheel, a copy, a venv inside some other repository), when
    there is no git program, or when git fails: a missing commit never stops an experiment."""
    where = Path(where) if where is not None else Path(__file__).resolve().parents[1]  # .../glassformer

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    try:
        git("ls-files", "--error-unmatch", "__init__.py")  # tracked here: the checkout's code is this code
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):  # no git, not a checkout, not tracked, git failed
        return None


def command(name: str, fast: bool, seeds: int, data: str | None, threads: int, out: Path) -> str:
    parts = ["glassformer", "lab", "run", name, "--seeds", str(seeds), "--threads", str(threads)]
    parts += ["--fast"] if fast else []
    parts += ["--data", data] if data else []
    parts += ["--out", str(out)]
    return shlex.join(parts)


def jsonable(value):
    """Numbers from NumPy and torch as plain JSON (NaN and infinities as the strings "nan", "inf",
    "-inf", which results.json keeps and the rules read back): files.finite, with str."""
    return finite(value, str)


def judge(experiment: Experiment, results: dict) -> list[dict]:
    """The experiment's rule applied to its numbers: one record per claim, with its level, the
    figures (as data) and every sentence in every language."""
    verdicts = experiment.verdicts(results)
    missing = {c.key for c in experiment.claims} - set(verdicts)
    if missing:
        raise Unsupported(
            "lab.no_verdict", "experiment {name} gave no verdict for {keys}", name=experiment.name, keys=sorted(missing)
        )
    claims = []
    for claim in experiment.claims:
        v = verdicts[claim.key]
        parts = [
            ("claim", claim.claim, {}),
            ("rule", claim.rule, claim.limits),
            ("finding", claim.finding, {**claim.limits, **v.figures}),
        ]
        if claim.paper:  # a ledger entry: what the paper prints beside what we measured
            parts += [("paper", claim.paper_says, {}), ("ours", claim.ours, {**claim.limits, **v.figures})]
        claims.append(
            {
                "key": claim.key,
                "tutorial": claim.tutorial,
                "where": claim.where,
                **({"paper": claim.paper} if claim.paper else {}),
                "level": v.level,
                "figures": jsonable(v.figures),
                **{f"{part}_{lang}": text(lang, words, **fields) for part, words, fields in parts for lang in LANGS},
            }
        )
    return claims


def rewrite(folder: str | Path) -> dict:
    """Write <folder>/results.json and report.md again from the numbers already in it: the rule
    re-applied and every sentence re-rendered from today's catalogue, nothing re-run. The run's own
    facts (time, machine, commit, command, figures) stay as they were recorded."""
    from glassformer.lab import get_experiment

    folder = Path(folder)
    record = read_record(folder / "results.json")
    experiment = get_experiment(record["experiment"])
    results = record["results"]
    record.update(
        {
            **{f"title_{lang}": text(lang, experiment.title) for lang in LANGS},
            **{f"setup_{lang}": text(lang, experiment.setup, **experiment.setup_fields) for lang in LANGS},
            "claims": judge(experiment, results),
        }
    )
    write_json_atomic(folder / "results.json", record, str, indent=1, ensure_ascii=False)
    write_text_atomic(folder / "report.md", experiment_markdown(record, experiment.tables(results)))
    return record


def run_experiment(
    experiment: Experiment,
    fast: bool = False,
    seeds: int | None = None,
    out: str | Path | None = None,
    data: str | None = None,
    cache_dir: str | None = None,
    threads: int = 1,
    echo: Callable[[str], None] = print,
) -> dict:
    """Run one experiment, judge its claims by its rule, write results.json and report.md."""
    seeds = (1 if fast else experiment.seeds) if seeds is None else seeds
    if seeds < 1:
        raise UsageError("lab.seeds", "--seeds must be at least 1, got {seeds}.", seeds=seeds)
    if seeds > 1 and not experiment.seeded:  # never "3 seeds" on a report that ran once
        raise UsageError(
            "lab.unseeded",
            "--seeds {seeds}: {name} is one computation with no random "
            "seed to vary, so it runs once; leave --seeds out.",
            name=experiment.name,
            seeds=seeds,
        )
    root = Path(out) if out is not None else DEFAULT_OUT
    folder = root / experiment.name
    folder.mkdir(parents=True, exist_ok=True)
    ctx = Context(folder, fast, seeds, data, cache_dir, echo)
    with using_threads(threads):
        where, code = machine(), git_commit()
        start, cpu_start = time.perf_counter(), time.process_time()
        results = experiment.run(ctx)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    claims = judge(experiment, results)
    record = {
        "experiment": experiment.name,
        **{f"title_{lang}": text(lang, experiment.title) for lang in LANGS},
        **{f"setup_{lang}": text(lang, experiment.setup, **experiment.setup_fields) for lang in LANGS},
        "fast": fast,
        "seeds": seeds,
        "data": data,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "machine": where,
        "git": code,
        "command": command(experiment.name, fast, seeds, data, threads, root),
        "claims": claims,
        "figures": ctx.figures,
        "results": jsonable(results),
    }
    write_json_atomic(folder / "results.json", record, str, indent=1, ensure_ascii=False)
    write_text_atomic(folder / "report.md", experiment_markdown(record, experiment.tables(results)))
    return record

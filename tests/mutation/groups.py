"""Mutation testing by module group, and the kill rate per group (docs/testing.md; results in docs/mutants.md).

Run from the repository root with the project's Python (mutmut 3 is in the dev extra; the
[tool.mutmut] table of pyproject.toml says what is mutated and which tests run):

    python tests/mutation/groups.py run [GROUP ...]            every mutant of each group, in turn
    python tests/mutation/groups.py run GROUP ... --sample 120   a seeded random sample per group
    python tests/mutation/groups.py run --sample 10 --seed 1 --exclude FILE [FILE ...]
                                                               a fresh sample, none from those files
    python tests/mutation/groups.py report [--names FILE]      kill rate per group, survivors listed

Groups: nn, models, train, sample, text, inspect, causal, exercises (the sandbox and the grading),
lab (the rules: each experiment's verdicts and what they call), explore, devices (all of them when
none is named).

    python tests/mutation/groups.py run devices --sample 3 --dry-run   the names a run would take

The kill rate counts a mutant as killed when a test failed (or it timed out); mutants that no
selected test executes are counted separately ("no tests"), and so are the ones docs/mutants.md
lists as equivalent (the same program in every way a test could see), with the reason there.

    rate = killed / (killed + survived + no tests - equivalent)

A sample (--sample N) picks N mutants of each group with a fixed seed, so the same sample comes
back every time (and a larger N extends a smaller one); mutants of the sample that already have a
result are not run again, so an interrupted run resumes. The report then gives the rate of the
sample and its 95% Wilson interval. To re-run mutants after adding tests, name them:
`python -m mutmut run NAME ...` (PYTHONPATH unset), then report again.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

LAB = Path(__file__).resolve().parents[2] / "src" / "glassformer" / "lab"


def lab_rules(folder: Path = LAB) -> set[str]:
    """The lab's rule code, by function name: every experiment's `verdicts`, `judge` (which applies
    them), and every function of a lab module that a rule calls, and so on down (`together`, `level`,
    `spread` ...). Read from the source, so a new helper of a rule joins the group by itself; an
    experiment's training run and figures are not rules (its fast run is a test of its own)."""
    defined, calls = {}, {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                defined.setdefault(node.name, path.stem)
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                calls[node.name] = calls.get(node.name, set()) | names
    rules, todo = set(), ["verdicts", "judge"]
    while todo:
        name = todo.pop()
        if name in defined and name not in rules:
            rules.add(name)
            todo += sorted(calls[name])
    return rules


# A group: a regular expression a mutant's name starts with (mutmut names a mutant after its module
# and function: glassformer.nn.hooks.x_meaning__mutmut_1, a method xǁClassǁname__mutmut_2).
GROUPS = {
    "nn": r"glassformer\.nn\.",
    "models": r"glassformer\.models\.",
    "train": r"glassformer\.train\.",
    "sample": r"glassformer\.sample\.",
    "text": r"glassformer\.text\.",
    "inspect": r"glassformer\.inspect\.",
    "causal": r"glassformer\.causal\.",
    "exercises": r"glassformer\.exercises\.(?:sandbox|grading)\.",  # the grader, not the learners' skeletons
    "lab": rf"glassformer\.lab\.\w+\.x_(?:{'|'.join(sorted(lab_rules()))})__mutmut_" if LAB.is_dir() else "$^",
    "explore": r"glassformer\.explore\.",
    "devices": r"glassformer\.devices\.",
    "post": r"glassformer\.post\.",
    "numpy_ref": r"glassformer\.numpy_ref\.",
    "lessons": r"glassformer\.lessons\.",
}
_PATTERNS = {g: re.compile(rx) for g, rx in GROUPS.items()}
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    33: "no tests",
    5: "no tests",
    None: "not checked",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
}
DOC = Path("docs/mutants.md")
SAMPLE_FILE = Path("mutants/sample-names.txt")


def group_of(name: str) -> str | None:
    return next((g for g, pattern in _PATTERNS.items() if pattern.match(name)), None)


def all_results(root: Path = Path(".")) -> dict[str, int | None]:
    """mutant name -> mutmut's exit code (None: not run yet), from mutants/**/*.meta. A .meta whose
    module is no longer in src/ (moved or merged since mutmut made it) is left out: mutmut keeps the
    file, but its mutants can never run again, and a sample that drew them would be short."""
    out = {}
    mutated = root / "mutants" / "src"
    for meta in mutated.rglob("*.py.meta"):
        source = root / "src" / meta.relative_to(mutated).with_suffix("")  # x.py.meta -> src/.../x.py
        if source.exists():
            out.update(json.loads(meta.read_text())["exit_code_by_key"])
    return out


def equivalent_names() -> set[str]:
    """The mutants docs/mutants.md lists as equivalent: the backquoted names in the first column of
    the table under "### Equivalent mutants" (and no other table: survivors left alone are not
    equivalent, and count against the rate)."""
    if not DOC.exists():
        return set()
    section = re.search(r"^### Equivalent mutants\n(.*?)(?=^#{1,3} |\Z)", DOC.read_text(encoding="utf-8"), re.M | re.S)
    if section is None:
        return set()
    first_cells = re.findall(r"^\| ([^|]*)\|", section.group(1), re.M)
    return {name for cell in first_cells for name in re.findall(r"`(glassformer\.[^`]+__mutmut_\d+)`", cell)}


def mutmut(*args: str) -> None:
    for half_written in Path("mutants/src").rglob("*.py"):  # a run stopped while generating leaves these
        if half_written.stat().st_size == 0:
            half_written.unlink()  # mutmut makes it again (its results, in the .meta beside it, stay)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the mutants/ copy must win
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "mutmut", *args]
    print("$", " ".join(cmd[:6]), "..." if len(cmd) > 6 else "", flush=True)
    subprocess.run(cmd, env=env, check=False)


def excluded_names(files: list[str] | None) -> set[str]:
    """Every mutant name in these files (one sample each, e.g. mutants/sample-seed0.txt)."""
    names: set[str] = set()
    for file in files or []:
        if not Path(file).is_file():
            raise SystemExit(
                f"--exclude {file}: no such file; give the names files of earlier samples "
                f"(e.g. mutants/sample-seed0.txt), one or more after --exclude"
            )
        names |= set(Path(file).read_text().split())
    return names


def choose(names: list[str], groups: list[str], sample: int, seed: int, left_out: set[str]) -> list[str]:
    """`sample` names per group, none of `left_out`: a seeded shuffle per group, so a larger
    sample extends a smaller one with the same seed."""
    chosen = []
    for g in groups:
        mine = sorted(n for n in names if group_of(n) == g and n not in left_out)
        random.Random(f"{seed}-{g}").shuffle(mine)
        chosen += sorted(mine[:sample])
    return chosen


def run(
    groups: list[str],
    sample: int | None,
    seed: int,
    max_children: int,
    exclude: list[str] | None = None,
    dry_run: bool = False,
) -> None:
    """Run each group's mutants (all, or a seeded sample of `sample` per group). dry_run: list the
    names that would run, one a line, and run none (the mutants must have been made once)."""
    if sample is None and exclude:
        raise SystemExit("--exclude only applies to a sample: add --sample N (mutants per group)")
    left_out = excluded_names(exclude)  # earlier samples; a wrong file name stops here, before any long step
    if not all_results():
        if dry_run:
            raise SystemExit("no mutants made yet: run without --dry-run once (mutmut makes them all first)")
        mutmut("run", "--max-children", "1", "glassformer.nn.hooks.x_meaning__mutmut_1")  # makes them, and the stats
    results = all_results()
    if sample is None:
        for g in groups:
            mine = sorted(n for n in results if group_of(n) == g)
            if dry_run:
                print("\n".join(mine))
            elif mine:
                mutmut("run", "--max-children", str(max_children), *mine)
        return
    chosen = choose(list(results), groups, sample, seed, left_out)
    if dry_run:
        print("\n".join(chosen))
        return
    SAMPLE_FILE.write_text("\n".join(chosen) + "\n")
    todo = [n for n in chosen if results[n] is None]  # resumable: results already on disk are kept
    print(f"{len(chosen)} mutants sampled (seed {seed}), listed in {SAMPLE_FILE}; {len(todo)} not run yet")
    if todo:
        mutmut("run", "--max-children", str(max_children), *todo)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def weighted_rate(per_group: dict[str, tuple[int, int]], population: dict[str, int]) -> float:
    """The stratified estimate of the population's kill rate: each group's rate (killed, counted)
    weighted by its share of the population's mutants, over the groups the sample has. A sample of
    N per group over-weights the small groups (sample.py: 290 mutants of 14,896) and under-weights
    the large (train: 3,984); this weighs each group as often as it occurs."""
    counted = {g: kn for g, kn in per_group.items() if kn[1]}
    total = sum(population[g] for g in counted)
    return sum(population[g] / total * killed / n for g, (killed, n) in counted.items())


def report(names_file: str | None) -> None:
    results, equivalent = all_results(), equivalent_names()
    population = Counter(group_of(n) for n in results)
    if names_file:
        wanted = set(Path(names_file).read_text().split())
        results = {n: c for n, c in results.items() if n in wanted}
    print(
        f"{'group':8} {'mutants':>7} {'killed':>6} {'survived':>8} {'no tests':>8} {'equiv.':>6} "
        f"{'not run':>7}  kill rate (95% interval)"
    )
    survivors, per_group = [], {}
    for g in GROUPS:
        mine = {n: STATUS.get(c, "other") for n, c in results.items() if group_of(n) == g}
        if not mine:
            continue
        count = Counter(mine.values())
        killed = count["killed"] + count["timeout"]
        equiv = sum(1 for n, s in mine.items() if n in equivalent and s in ("survived", "no tests"))
        alive = count["survived"] + count["no tests"] - equiv
        n = killed + alive
        per_group[g] = (killed, n)
        lo, hi = wilson(killed, n)
        rate = f"{100 * killed / n:5.1f}% ({100 * lo:.1f}-{100 * hi:.1f})" if n else "-"
        print(
            f"{g:8} {len(mine):7} {killed:6} {count['survived']:8} {count['no tests']:8} {equiv:6} "
            f"{count['not checked']:7}  {rate}"
        )
        survivors += [(s, n) for n, s in mine.items() if s in ("survived", "no tests") and n not in equivalent]
    killed, n = (sum(kn[i] for kn in per_group.values()) for i in (0, 1))
    if n:
        lo, hi = wilson(killed, n)
        print(
            f"{'all':8} {killed} / {n} = {100 * killed / n:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}); weighted by "
            f"each group's share of the population: {100 * weighted_rate(per_group, population):.1f}%"
        )
    if survivors:
        print(f"\n{len(survivors)} mutants alive and not listed as equivalent in {DOC}:")
        for status, name in sorted(survivors, key=lambda t: t[1]):
            print(f"  {status:9} {name}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run")
    r.add_argument("groups", nargs="*", default=[], help=f"some of {', '.join(GROUPS)} (default: all)")
    r.add_argument("--sample", type=int, default=None, help="mutants per group (seeded); default: all")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--max-children", type=int, default=2)
    r.add_argument("--dry-run", action="store_true", help="list the mutant names that would run, run none")
    r.add_argument(
        "--exclude",
        nargs="+",
        action="extend",
        default=[],
        metavar="FILE",
        help="files of mutant names never to sample (a fresh sample after tests were written "
        "for earlier ones): --exclude A B, or --exclude A --exclude B",
    )
    p = sub.add_parser("report")
    p.add_argument("--names", default=None, help="only these mutants (e.g. mutants/sample-names.txt)")
    args = parser.parse_args(argv)
    unknown = [g for g in getattr(args, "groups", []) if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group(s) {unknown}: choose from {list(GROUPS)}")
    if args.verb == "run":
        run(args.groups or list(GROUPS), args.sample, args.seed, args.max_children, args.exclude, args.dry_run)
    else:
        report(args.names)


if __name__ == "__main__":
    main()

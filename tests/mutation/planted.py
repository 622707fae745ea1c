"""Mutants of code that only another process runs, each planted in a copy of the tree and tested there.

mutmut switches mutants inside one process: every mutated function becomes a trampoline that
reads which mutant is active (MUTANT_UNDER_TEST) and calls it. Code run by a process the tests
start with a clean environment never sees that switch: the exercise sandbox's worker is
`python -I sandbox.py` with only the variables it keeps (sandbox.KEPT_ENV), so every mutant of
the functions only the worker and its job processes run (`work`, `run_job`, the guard, the gate,
Landlock ...) runs as the original there and shows as "survived" or "no tests", although the
exercise tests drive that code on every run. This script measures those mutants the slow way:

    python tests/mutation/planted.py NAME [NAME ...]          each mutant, in turn
    python tests/mutation/planted.py --names FILE             the names in FILE (one a line)
    python tests/mutation/planted.py NAME --tests tests/exercises/test_sandbox.py
    python tests/mutation/planted.py --names FILE --tests auto   each its package's test folder
    python tests/mutation/planted.py                          the clean copy only
    python tests/mutation/planted.py --report [--names FILE]  the results kept, per group

For each name it copies the tree (src/, tests/, tools/, docs/ ...) into a temporary folder,
writes the mutant into that copy's source with mutmut's own `apply` (run in the copy, with the
copy's mutants/ linked to this tree's: src/ here is never touched), checks the copy differs from
src/ in exactly that file, and runs the tests (default: tests/exercises, `-x`) in the copy with
its src/ first on PYTHONPATH, so the tests, the parent and the worker (started as a script from
the copy's sandbox.py) all run the mutated file, and a test that reads the tree's files (the
catalogue's, tests/messages/test_catalogue.py) reads the mutated one. The same method serves a
mutant that only a test outside mutmut's selection can see (`--tests` names it). A clean copy is
tested first: the tests must pass there, or no result would mean anything. Killed: a test
failed (or the run passed --timeout); survived: every test passed. Results go to
mutants/planted-results.json (a run resumes), and `--report` prints them per group. Run from
the repository root, PYTHONPATH unset, after mutmut has made the mutants (`groups.py run` once).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from groups import GROUPS, group_of, wilson  # noqa: E402

RESULTS = Path("mutants/planted-results.json")
TESTS = ["tests/exercises"]
# --tests auto: a mutant's module's test folder, the file that mirrors the module first (-x stops sooner)
FOLDERS = {"causal": "tests/causal", "exercises": "tests/exercises", "lab": "tests/lab", "explore": "tests/explore"}
FOLDERS |= {"numpy_ref": "tests/reference", "lessons": "tests/e2e/lessons"}  # tested from outside their own name
CATALOGUE = "tests/messages/test_catalogue.py"  # reads the tree's source: outside mutmut's selection
MIRRORS = {"lab": "test_rules.py", "requests": "test_server.py", "grading": "test_grading.py"}


def tests_for(name: str) -> list[str]:
    """The tests --tests auto runs for mutant `name`: its package's test folder (tests/devices for
    devices.py), the file that mirrors its module first, then the folder's other files."""
    parts = name.split(".")
    folder = Path(FOLDERS.get(parts[1], f"tests/{parts[1]}"))
    module = parts[2] if len(parts) > 3 else parts[1]
    mirror = MIRRORS.get(parts[1]) or MIRRORS.get(module) or ""
    files = sorted(str(f) for f in folder.glob("test_*.py"))
    first = [f for f in files if Path(f).name == mirror or Path(f).stem.endswith(module)]
    return first + [f for f in files if f not in first] + [CATALOGUE]  # a reworded sentence: no Chinese


TREE = ("src", "tests", "tools", "docs", "notebooks", "bench", "pyproject.toml", "README.md", "README.zh.md")


def copy_tree(into: Path) -> Path:
    """The tree's code, tests, tools and docs copied into `into` (a test that reads the tree, like
    the catalogue's, reads the copy), mutants/ linked: what `mutmut apply` reads."""
    into.mkdir(parents=True)
    for name in TREE:
        if Path(name).is_dir():
            shutil.copytree(name, into / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        elif Path(name).is_file():
            shutil.copy(name, into / name)
    (into / "mutants").symlink_to(Path("mutants").resolve())
    return into


def changed_files(copy: Path) -> list[str]:
    """The files of the copy's src/ that differ from this tree's."""
    out = subprocess.run(
        ["diff", "-rq", "-x", "__pycache__", "src", str(copy / "src")], capture_output=True, text=True, check=False
    ).stdout
    return [line for line in out.splitlines() if line]


def plant(name: str, copy: Path) -> str:
    """Write mutant `name` into the copy's source; return the one changed file."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "apply", name], cwd=copy, env=env, capture_output=True, text=True
    )
    changed = changed_files(copy)
    if done.returncode != 0 or len(changed) != 1:
        raise SystemExit(f"{name}: mutmut apply did not change exactly one file ({changed}): {done.stderr[-800:]}")
    return changed[0]


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[str, str, float]:
    """(status, the first failure or the last line, seconds) of the tests against the copy."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(copy / "src"), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"over {timeout:.0f} s", time.monotonic() - start
    lines = done.stdout.strip().splitlines() or ["(no output)"]
    failed = [line for line in lines if line.startswith(("FAILED tests/", "ERROR tests/"))]  # not a log line
    status = "survived" if done.returncode == 0 else "killed"
    return status, (failed[0] if failed else lines[-1])[:300], time.monotonic() - start


def imports_the_copy(copy: Path) -> bool:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(copy / "src")
    where = subprocess.run(
        [sys.executable, "-c", "import glassformer.exercises.sandbox as s; print(s.CHILD)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(where).resolve().is_relative_to(copy.resolve())


def run(names: list[str], tests: list[str], timeout: float, keep_going_clean: bool = False) -> None:
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    key = " ".join(tests)
    with tempfile.TemporaryDirectory(prefix="planted-") as tmp:
        clean = copy_tree(Path(tmp) / "clean")
        if not imports_the_copy(clean):
            raise SystemExit("the copy's sandbox is not the one imported: unset PYTHONPATH and run from the root")
        if tests != ["auto"] and f"clean {key}" not in results:
            status, line, secs = run_tests(clean, tests, timeout)
            print(f"clean copy: {status} in {secs:.0f} s ({line})", flush=True)
            if status != "survived" and not keep_going_clean:
                raise SystemExit("the tests fail on the unmutated copy: fix that first (no result would mean anything)")
            results[f"clean {key}"] = {
                "status": "passed" if status == "survived" else status,
                "line": line,
                "seconds": round(secs),
            }
            RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True))
        for name in names:
            mine = tests_for(name) if tests == ["auto"] else tests
            key = " ".join(mine)
            if name in results and results[name].get("tests") == key:
                print(f"{name}: {results[name]['status']} (kept)", flush=True)
                continue
            copy = copy_tree(Path(tmp) / name.rpartition(".")[2][:80])
            changed = plant(name, copy)
            status, line, secs = run_tests(copy, mine, timeout)
            print(f"{name}: {status} in {secs:.0f} s  {line}", flush=True)
            results[name] = {"status": status, "line": line, "seconds": round(secs), "tests": key, "file": changed}
            RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True))
            shutil.rmtree(copy)


def report(names: list[str] | None) -> None:
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    mine = {n: r for n, r in results.items() if not n.startswith("clean ") and (names is None or n in names)}
    for g in GROUPS:
        rows = {n: r for n, r in mine.items() if group_of(n) == g}
        if not rows:
            continue
        killed = sum(r["status"] in ("killed", "timeout") for r in rows.values())
        lo, hi = wilson(killed, len(rows))
        print(f"{g:9} {killed} / {len(rows)} killed when planted ({100 * lo:.1f}-{100 * hi:.1f})")
        for n, r in sorted(rows.items()):
            print(f"  {r['status']:8} {n}  [{r['seconds']} s] {r['line']}")


def main(argv: list[str] | None = None) -> None:
    global RESULTS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutant names (mutmut's)")
    parser.add_argument("--names", dest="names_file", help="a file of mutant names, one a line")
    parser.add_argument("--tests", nargs="+", default=TESTS, help=f"test paths (default: {' '.join(TESTS)})")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds for one mutant's tests")
    parser.add_argument("--report", action="store_true", help="print the results kept, per group")
    parser.add_argument(
        "--results", default=str(RESULTS), help="where results are kept (default: mutants/planted-results.json)"
    )
    args = parser.parse_args(argv)
    RESULTS = Path(args.results)
    names = list(args.names) + (Path(args.names_file).read_text().split() if args.names_file else [])
    if args.report:
        report(names or None)
    else:  # no name: the clean copy only (is the method sound here?)
        run(names, args.tests, args.timeout)


if __name__ == "__main__":
    main()

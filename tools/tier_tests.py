"""Where each test file lives (issue 45.5), and `git mv` to put it there. Kept, and re-run after a merge:

    python tools/tier_tests.py            the moves it would make (nothing is changed)
    python tools/tier_tests.py --apply    `git mv` each file, then rewrite its old path in every tracked text file

The tiers under tests/ (docs/testing.md):

- tests/<name>/ mirrors src/glassformer/<name> (a package, or a module such as sample.py, config.py):
  the tests of that code, run in this process on tiny inputs;
- tests/reference/: our code against independent references (float64 twins, PyTorch, Hugging Face);
- tests/e2e/<area>/: whole runs: CLI runs that train, lessons, notebooks, the browser, torchrun, the
  crash and fuzz runs of tests/e2e/reliability;
- tests/repo/: checks of the repository rather than of the package: lint, docs, recipes, Makefile, bench;
- tests/gpu/ (CUDA only), tests/kits/ (helpers several tiers import, on pytest's pythonpath),
  tests/mutation/ (the mutation-testing driver, no tests).

The rule, first match wins: a file named in PLACES goes there; `*_browser.py` to e2e/browser; a file
of a folder in AREAS goes to that area; a file already in a tier stays; `test_<name>_*.py` goes to
tests/<name>/ when src/glassformer/<name> exists; else to the package it imports most (said). A helper
module (not test_*.py, conftest.py or a driver) goes to tests/kits/. tests/repo/test_tiers.py fails
while any file is out of place, so a new file in an old folder is noticed and this script moves it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "glassformer"

# the tiers that mirror no module of the package
OTHER_TIERS = {"reference", "e2e", "repo", "gpu", "kits", "mutation"}
E2E_AREAS = {"browser", "cli", "distributed", "lab", "lessons", "notebooks", "reliability"}

# files whose place their name does not tell (by file name, wherever they are now)
PLACES = {
    # the repository: lint, docs, recipes, the Makefile, the benchmarks, the mutation driver
    **dict.fromkeys(
        [
            "test_architecture.py",
            "test_architecture_docs.py",
            "test_bench_peers.py",
            "test_causal_docs.py",
            "test_chart_words.py",
            "test_docs_paths.py",
            "test_forbidden_builtins.py",
            "test_lint.py",
            "test_makefile.py",
            "test_mutation_groups.py",
            "test_readme_zh.py",
            "test_recipes.py",
            "test_tiers.py",
        ],
        "repo",
    ),
    # the module they test is not in their name
    "test_axis_labels.py": "inspect",
    "test_figure_snapshots.py": "inspect",
    "test_text_snapshots.py": "inspect",
    "test_nn_formula.py": "inspect",  # inspect/formula.py
    "test_repetition.py": "inspect",  # inspect/repetition.py
    "test_seq2seq_inspect.py": "inspect",
    "test_core_edges.py": "models",
    "test_observing.py": "nn",  # hooks: reads KINDS from test_hook_ids.py, beside it
    "test_gpt2.py": "models",  # models/gpt2.py
    "test_gpt2_import.py": "models",
    "test_llama_import.py": "models",  # models/llama.py, beside GPT-2's import
    "test_modern_config.py": "config",
    "test_moe_config.py": "config",
    "test_mla_config.py": "config",
    "test_modern_presets.py": "config",
    "test_moe_import.py": "models",  # config.py's modern decoder fields and the modules they build
    "test_model_declarations.py": "models",
    "test_seq2seq_declarations.py": "models",
    "test_seq2seq_model.py": "models",
    "test_bpe.py": "text",
    "test_chinese.py": "text",
    "test_corpora.py": "text",
    "test_gpt2_bpe.py": "text",
    "test_gpt2_tokenizer.py": "text",
    "test_tokenizers.py": "text",
    "test_loss.py": "nn",
    "test_hook_ids.py": "nn",  # nn/hooks.py
    "test_positions.py": "nn",  # nn/position.py
    "test_seq2seq_training.py": "train",
    "test_world.py": "train",  # train/distributed.py, in this process
    "test_said.py": "messages",
    "test_messages.py": "messages",
    "test_catalogue.py": "messages",  # the gettext catalogue (locale/zh/.../glassformer.po)
    # whole runs: the CLI training, importing, starting in a fresh interpreter
    **dict.fromkeys(
        [
            "test_train_cli.py",
            "test_every_kind.py",
            "test_post_cli.py",
            "test_seq2seq_cli.py",
            "test_gpt2_cli.py",
            "test_cli_startup.py",
            "test_notebooks_cli.py",
            "test_runnable_command.py",
        ],
        "e2e/cli",
    ),
    "test_experiments.py": "e2e/lab",  # trains every experiment's fast run
    "test_gpt2_import_fuzz.py": "e2e/reliability",
    "test_torchrun.py": "e2e/distributed",
}
# a driver a test runs as a script, by its path beside the test: it goes where that test goes
DRIVERS = {"crash_driver.py": "test_reliability_crash.py", "ddp_driver.py": "test_torchrun.py"}
# old folders whose every file is a whole run (their conftest.py goes with them)
AREAS = {"reliability": "e2e/reliability", "lessons": "e2e/lessons", "notebooks": "e2e/notebooks"}
# folders of data beside their tests
DATA = {"unit/snapshots": "inspect/snapshots"}


def mirrored() -> set[str]:
    """The names tests/<name>/ may mirror: src/glassformer's packages and modules."""
    names = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if p.is_dir()}
    return {n for n in names if not n.startswith("_")}


def is_tier(folder: PurePosixPath) -> bool:
    parts = folder.parts
    if not parts:
        return True  # tests/conftest.py, tests/helpers.py
    if parts[0] == "e2e":
        return len(parts) == 2 and parts[1] in E2E_AREAS
    return len(parts) == 1 and (parts[0] in OTHER_TIERS or parts[0] in mirrored())


def imported_package(path: Path) -> str | None:
    """The glassformer package or module a test file imports most often."""
    found = re.findall(r"^\s*(?:from|import) glassformer\.(\w+)", path.read_text(encoding="utf-8"), re.M)
    counts = Counter(n for n in found if n not in {"errors", "messages"}) or Counter(found)
    return counts.most_common(1)[0][0] if counts else None


def place(rel: PurePosixPath, root: Path = ROOT) -> tuple[PurePosixPath, str]:
    """Where the file tests/<rel> belongs (relative to tests/), and why."""
    name, folder = rel.name, rel.parent
    for old, new in DATA.items():
        if str(rel).startswith(old + "/"):
            return PurePosixPath(new) / rel.relative_to(old), "data"
    if not name.endswith(".py"):
        return rel, "data"
    if name in DRIVERS:
        home, _ = place(folder / DRIVERS[name], root)
        return home.parent / name, "driver"
    if name == "conftest.py":
        head = folder.parts[0] if folder.parts else ""
        return (PurePosixPath(AREAS[head]) / name, "area") if head in AREAS else (rel, "stays")
    if not name.startswith("test_"):
        if not folder.parts or folder.parts[0] in {"kits", "mutation"}:
            return rel, "stays"
        return PurePosixPath("kits") / name, "kit"
    if name in PLACES:
        return PurePosixPath(PLACES[name]) / name, "PLACES"
    if name.endswith("_browser.py"):
        return PurePosixPath("e2e/browser") / name, "browser"
    if folder.parts and folder.parts[0] in AREAS:
        return PurePosixPath(AREAS[folder.parts[0]]) / name, "area"
    if is_tier(folder):
        return rel, "stays"
    stem = name.removeprefix("test_").removesuffix(".py")
    prefixes = [n for n in mirrored() if stem == n or stem.startswith(n + "_")]
    if prefixes:
        return PurePosixPath(max(prefixes, key=len)) / name, "name"
    guess = imported_package(root / "tests" / rel)
    if guess:
        return PurePosixPath(guess) / name, f"imports glassformer.{guess} most (add it to PLACES to say otherwise)"
    raise SystemExit(f"tests/{rel}: no rule places it; add it to PLACES in {Path(__file__).name}")


def test_files(root: Path = ROOT) -> list[PurePosixPath]:
    """Every file under tests/ that git tracks or would track (caches and ignored files left out)."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [PurePosixPath(p).relative_to("tests") for p in out if (root / p).is_file()]


def moves(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(old, new, why) for every file not where the rule puts it, paths from the repository root."""
    out = []
    for rel in test_files(root):
        new, why = place(rel, root)
        if new != rel:
            out.append((f"tests/{rel}", f"tests/{new}", why))
    return out


def rewrite_mentions(pairs: list[tuple[str, str]], root: Path = ROOT) -> list[str]:
    """Replace each old path by its new one in every tracked text file; the files changed."""
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    pattern = re.compile("|".join(re.escape(old) + r"(?![\w.])" for old, _ in sorted(pairs, key=lambda p: -len(p[0]))))
    new_of = dict(pairs)
    changed = []
    for name in tracked:
        path = root / name
        if (
            path == Path(__file__).resolve()
            or not path.is_file()
            or path.suffix in {".png", ".otf", ".pt", ".safetensors", ".mo"}
        ):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = pattern.sub(lambda m: new_of[m.group(0)], text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apply", action="store_true", help="git mv the files and rewrite their old paths")
    args = parser.parse_args(argv)
    todo = moves()
    for old, new, why in todo:
        print(f"{old} -> {new}  ({why})")
    if not todo:
        print("every test file is in its tier")
        return 0
    if not args.apply:
        print(f"{len(todo)} to move: run again with --apply")
        return 1
    for old, new, _ in todo:
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    deeper = [new for old, new, _ in todo if new.endswith(".py") and new.count("/") != old.count("/")]
    for new in deeper:  # `Path(__file__).parents[2]` meant the repository one folder higher up
        if "__file__" in (ROOT / new).read_text(encoding="utf-8"):
            print(f"{new}: reads __file__ and moved to another depth: use helpers.ROOT for the repository")
    pairs = [(old, new) for old, new, _ in todo]
    # a folder every file of which moved to one place is rewritten too (`tests/unit/snapshots/`)
    for old, new in DATA.items():
        pairs.append((f"tests/{old}", f"tests/{new}"))
    changed = rewrite_mentions(pairs)
    print(f"moved {len(todo)} files; rewrote their paths in {len(changed)} files: {' '.join(changed)}")
    python = [name for name in changed if name.endswith(".py")]
    if python:  # a longer path can push a line past the limit: say where, for a hand to rewrap
        lint = [sys.executable, "-m", "ruff", "check", "--select", "E501", "--output-format", "concise", *python]
        print(subprocess.run(lint, cwd=ROOT, capture_output=True, text=True).stdout, end="")
    emptied = set()
    for old, _, _ in todo:  # the folders the moves left empty (git keeps no empty folder)
        for folder in PurePosixPath(old).parents:
            path = ROOT / folder
            if folder.parts[:1] == ("tests",) and path.is_dir() and not any(path.rglob("*.*")):
                emptied.add(folder)
    for folder in sorted(emptied, key=lambda f: -len(f.parts)):
        for leftover in sorted((ROOT / folder).rglob("*"), reverse=True):  # __pycache__ and empty folders
            leftover.unlink() if leftover.is_file() else leftover.rmdir()
        (ROOT / folder).rmdir()
    if emptied:
        names = sorted(str(f) for f in emptied)
        print("folders now gone:", " ".join(names))
        grep = ["git", "grep", "-n", "-E", "|".join(rf"{re.escape(n)}([^/\w.]|$)" for n in names)]
        left = subprocess.run(grep, cwd=ROOT, capture_output=True, text=True).stdout
        if left:
            print("still named (a folder, not a file: fix each by hand):\n" + left)
    return 0


if __name__ == "__main__":
    sys.exit(main())

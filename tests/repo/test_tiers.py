"""Every test file sits in the tier tools/tier_tests.py's rule gives it (issue 45.5): tests/<name>/ mirrors
src/glassformer/<name>, whole runs in tests/e2e/<area>/, the repository's checks in tests/repo/. A file
added to an old folder (tests/unit/...) fails here until `python tools/tier_tests.py --apply` moves it."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import PurePosixPath

from helpers import ROOT

spec = importlib.util.spec_from_file_location("tier_tests", ROOT / "tools" / "tier_tests.py")
tier_tests = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tier_tests)


def test_every_test_file_is_in_its_tier():
    assert tier_tests.moves() == []


def test_every_folder_of_tests_is_a_tier():
    folders = {rel.parent for rel in tier_tests.test_files()}
    assert {str(f) for f in folders if not tier_tests.is_tier(f) and f.parts[:2] != ("inspect", "snapshots")} == set()
    assert {PurePosixPath("e2e/cli"), PurePosixPath("repo"), PurePosixPath("nn"), PurePosixPath("sample")} <= folders


def test_a_test_file_imports_another_only_from_beside_it():
    """`from test_browser import browser` finds the file only on the folder pytest put on sys.path:
    the two must move together."""
    apart = []
    for rel in tier_tests.test_files():
        if rel.suffix == ".py":
            text = (ROOT / "tests" / rel).read_text(encoding="utf-8")
            for name in re.findall(r"^\s*from (test_\w+) import", text, re.M):
                if not (ROOT / "tests" / rel.parent / f"{name}.py").is_file():
                    apart.append(f"{rel} imports {name}")
    assert apart == []


def test_the_rule_places_files_added_to_the_old_folders(tmp_path):
    def place(path):
        return str(tier_tests.place(PurePosixPath(path), tmp_path)[0])

    assert place("unit/test_train_resume.py") == "train/test_train_resume.py"  # by the name's package
    assert place("unit/test_inspect_trace_more.py") == "inspect/test_inspect_trace_more.py"
    assert place("unit/test_logits_processors_more.py") == "logits_processors/test_logits_processors_more.py"
    assert place("explore/test_panels_browser.py") == "e2e/browser/test_panels_browser.py"
    assert place("lessons/test_new_lesson.py") == "e2e/lessons/test_new_lesson.py"
    assert place("reliability/conftest.py") == "e2e/reliability/conftest.py"
    assert place("unit/docs_kit.py") == "kits/docs_kit.py"
    assert place("reliability/crash_driver.py") == "e2e/reliability/crash_driver.py"  # beside its test
    assert place("unit/test_lint.py") == "repo/test_lint.py"  # PLACES
    assert place("cli/test_sample_cli.py") == "cli/test_sample_cli.py"  # in a tier already: stays
    # no package in its name: the package it imports most
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "test_odd.py").write_text(
        "from glassformer.errors import UsageError\nfrom glassformer.train.loop import train\n"
        "from glassformer.train.data import pair_source\nfrom glassformer.models import build_model\n"
    )
    assert place("unit/test_odd.py") == "train/test_odd.py"


def test_make_test_keeps_a_file_on_one_worker_and_a_session_fixtures_folder_too():
    conftest = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(conftest)
    conftest.loader.exec_module(module)

    class Config:
        def __init__(self, dist):
            self.dist = dist

        def getoption(self, name, default=None):
            return self.dist if name == "dist" else default

    class Item:
        def __init__(self, path):
            self.path, self.marks = ROOT / path, []

        def add_marker(self, mark):
            self.marks.append(mark)

    paths = [
        "tests/nn/test_loss.py",
        "tests/exercises/test_grading.py",
        "tests/e2e/reliability/test_reliability_cli.py",
    ]
    items = [Item(p) for p in paths]
    module.pytest_collection_modifyitems(Config("loadgroup"), items)
    groups = [[m.args[0] for m in item.marks if m.name == "xdist_group"] for item in items]
    assert groups == [["tests/nn/test_loss.py"], ["tests/exercises/"], ["tests/e2e/reliability/"]]
    unmarked = [Item(p) for p in paths]
    module.pytest_collection_modifyitems(Config("no"), unmarked)  # not under xdist: nothing added
    assert [item.marks for item in unmarked] == [[], [], []]


def test_a_browser_test_skipped_for_want_of_chromium_is_said_last_with_how_to_install_it():
    env = {**os.environ, "PATH": str(ROOT / "no-such-folder"), "PYTHONPATH": str(ROOT / "src")}
    env.pop("GLASSFORMER_CHROMIUM", None)
    env.pop("CI", None)
    test = "tests/e2e/browser/test_causal_browser.py"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=ROOT, env=env,
                         capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    conftest = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(conftest)
    conftest.loader.exec_module(module)
    lines = run.stdout.splitlines()
    stats = [i for i, line in enumerate(lines) if line.split()[:2] == ["1", "skipped"]]  # pytest's last line
    install = [i for i, line in enumerate(lines) if module.INSTALL_CHROMIUM in line]
    assert len(stats) == 1 and install and install[-1] > stats[0]  # said after everything pytest says

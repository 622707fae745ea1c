"""Every test file sits in the tier tools/tier_tests.py's rule gives it (issue 45.5): tests/<name>/ mirrors
src/glassformer/<name>, whole runs in tests/e2e/<area>/, the repository's checks in tests/repo/. A file
added to an old folder (tests/unit/...) fails here until `python tools/tier_tests.py --apply` moves it."""

from __future__ import annotations

import importlib.util
import re
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

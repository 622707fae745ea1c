"""A damaged results.json (committed under docs/lab, or written by `lab run`) is refused by `lab ledger`,
`lab report` and `lab list` naming the file and the first wrong field, with how to get a good one back: never an
internal error from deep inside a reader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, said

from glassformer.cli import main
from glassformer.errors import DamagedFile, NotFound
from glassformer.lab.report import read_record

DOCS_LAB = ROOT / "docs" / "lab"
ENTRY = "grokking"  # a ledger entry: `lab ledger` reads its paper's sentences too


def edit(change):
    """A damage that rewrites the stored record with `change(record)`."""

    def damage(path: Path) -> None:
        record = json.loads(path.read_text(encoding="utf-8"))
        change(record)
        path.write_text(json.dumps(record), encoding="utf-8")

    return damage


def _replace_with_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGES = {  # name -> (damage, the key it is refused with, the field named (None: the file's own problem))
    "not json": (lambda p: p.write_text('{"experiment": '), "files.json", None),
    "empty": (lambda p: p.write_text(""), "files.empty", None),
    "binary": (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10), "files.binary", None),
    "nested": (lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "files.json_nested", None),
    "a list": (lambda p: p.write_text("[1, 2]"), "lab.results_type", "results.json"),
    "no experiment": (edit(lambda r: r.pop("experiment")), "lab.results_missing", "experiment"),
    "no claims": (edit(lambda r: r.pop("claims")), "lab.results_missing", "claims"),
    "claims not a list": (edit(lambda r: r.update(claims={"a": 1})), "lab.results_type", "claims"),
    "claim not an object": (edit(lambda r: r.update(claims=[3])), "lab.results_type", "claims[0]"),
    "a claim without its level": (
        edit(lambda r: r["claims"][1].pop("level")),
        "lab.results_missing",
        "claims[1].level",
    ),
    "an unknown level": (
        edit(lambda r: r["claims"][0].update(level="maybe")),
        "lab.results_level",
        "claims[0].level",
    ),
    "a ledger claim without the paper's words": (
        edit(lambda r: r["claims"][0].pop("paper_zh")),
        "lab.results_missing",
        "claims[0].paper_zh",
    ),
    "seconds as text": (edit(lambda r: r.update(seconds="12 s")), "lab.results_type", "seconds"),
    "fast as a number": (edit(lambda r: r.update(fast=0)), "lab.results_type", "fast"),
    "no machine cpu": (edit(lambda r: r["machine"].pop("cpu")), "lab.results_missing", "machine.cpu"),
    "a figure that is no name": (edit(lambda r: r.update(figures=[7])), "lab.results_type", "figures"),
}


@pytest.fixture(scope="module")
def lab_copy(tmp_path_factory) -> Path:
    """docs/lab's results of two experiments (one a ledger entry), without their figures."""
    root = tmp_path_factory.mktemp("lab")
    for name in (ENTRY, "mask-fill"):
        (root / name).mkdir()
        shutil.copy(DOCS_LAB / name / "results.json", root / name / "results.json")
    return root


@pytest.fixture
def damaged(lab_copy, tmp_path, request):
    root = tmp_path / "lab"
    shutil.copytree(lab_copy, root)
    damage, key, field = DAMAGES[request.param]
    damage(root / ENTRY / "results.json")
    return root, key, field


@pytest.mark.parametrize("damaged", list(DAMAGES), indirect=True)
@pytest.mark.parametrize("verb", ["ledger", "report", "list"])
def test_lab_ledger_and_report_name_a_damaged_results_json(damaged, verb, capsys):
    root, key, field = damaged
    with said() as heard:
        assert main(["lab", verb, "--out", str(root)]) == 1  # a damaged file: exit 1, not an internal error
    [refused] = heard.of(key)
    assert Path(refused["path"]) == root / ENTRY / "results.json"
    if field is not None:
        assert refused["field"] == field
    assert ENTRY in refused.get("fix", ENTRY)  # how to get it back (a binary file: "give a UTF-8 text file")
    assert not [f for _, f in heard if {"kind", "path"} <= set(f)]  # no bug report (its exception kind, traceback file)
    assert "Traceback" not in capsys.readouterr().err
    assert not (root / "index.md").exists()  # nothing half written


def test_a_results_json_that_is_a_directory_is_named(lab_copy, tmp_path):
    root = tmp_path / "lab"
    shutil.copytree(lab_copy, root)
    _replace_with_directory(root / ENTRY / "results.json")
    with said() as heard:
        assert main(["lab", "ledger", "--out", str(root)]) == 2
    assert Path(heard.of("files.directory")[0]["path"]) == root / ENTRY / "results.json"


def test_every_committed_results_json_passes_the_check():
    for path in sorted(DOCS_LAB.glob("*/results.json")):
        assert read_record(path)["experiment"] == path.parent.name


def test_the_check_is_the_one_every_reader_uses(lab_copy, tmp_path):
    """rewrite (re-render words, nothing re-run) reads through the same check."""
    from glassformer.lab.runner import rewrite

    root = tmp_path / "lab"
    shutil.copytree(lab_copy, root)
    DAMAGES["no claims"][0](root / ENTRY / "results.json")
    with pytest.raises(DamagedFile) as e:
        rewrite(root / ENTRY)
    assert e.value.code == "lab.results_missing" and e.value.fields["field"] == "claims"
    (root / ENTRY / "results.json").unlink()
    with pytest.raises(NotFound):
        rewrite(root / ENTRY)

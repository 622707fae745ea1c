"""Educator mode: a class graded into CSV + Markdown, and golden files a course can grade with."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import torch
from helpers import en, said

from glassformer.cli import main
from glassformer.exercises import catalog, educator
from glassformer.exercises.grading.comparing import first_problem, prepare

NAMES = ["softmax", "causal_mask", "attention"]


def test_grade_three_students_gives_the_expected_table(tmp_path, capsys):
    subs = tmp_path / "submissions"
    for student in ("alice", "bob", "carol"):
        (subs / student).mkdir(parents=True)
    for name in NAMES:  # alice: every reference solution
        (subs / "alice" / f"{name}.py").write_text(catalog.get(name).solution)
    softmax = catalog.get("softmax")  # bob: one known mistake, the rest right
    no_shift = next(v for v in softmax.variants if v.id == "no_shift")
    (subs / "bob" / "softmax.py").write_text(educator.variant_source(softmax, no_shift))
    for name in NAMES[1:]:
        (subs / "bob" / f"{name}.py").write_text(catalog.get(name).solution)
    # carol: a crash, a missing file and a syntax error
    (subs / "carol" / "softmax.py").write_text("def softmax(x, dim=-1):\n    return x / 0 + undefined\n")
    (subs / "carol" / "attention.py").write_text("def scaled_dot_product_attention(q, k, v, mask=None)\n    pass\n")

    out = tmp_path / "report" / "grades.csv"
    with said() as heard:
        assert main(["exercise", "grade", str(subs), "--out", str(out), "--exercises", ",".join(NAMES)]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    table = {(r["student"], r["exercise"]): (r["status"], r["mistake"]) for r in rows}
    assert table == {
        ("alice", "softmax"): ("passed", ""),
        ("alice", "causal_mask"): ("passed", ""),
        ("alice", "attention"): ("passed", ""),
        ("bob", "softmax"): ("failed", "no_shift"),
        ("bob", "causal_mask"): ("passed", ""),
        ("bob", "attention"): ("passed", ""),
        ("carol", "softmax"): ("crashed", ""),
        ("carol", "causal_mask"): ("missing", ""),
        ("carol", "attention"): ("syntax", ""),
    }
    bob = next(r for r in rows if r["student"] == "bob" and r["exercise"] == "softmax")
    assert int(bob["cases_passed"]) < int(bob["cases_total"]) == len(prepare("softmax").cases)
    assert bob["detail"] == en(no_shift.note)  # the known mistake's own note
    md = out.with_suffix(".md").read_text()
    table = [[cell.strip() for cell in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| ")]
    assert table[0][1:-1] == NAMES  # the header: a column per exercise, between the student's and the total's
    ok, wrong = educator.STATUS_MARK["passed"], educator.STATUS_MARK["failed"]
    crashed, missing, syntax = (educator.STATUS_MARK[s] for s in ("crashed", "missing", "syntax"))
    assert table[1:] == [
        ["alice", ok, ok, ok, "3/3"],
        ["bob", wrong, ok, ok, "2/3"],
        ["carol", crashed, missing, syntax, "0/3"],
    ]
    per_exercise = dict(re.findall(r"^- (\w+): (\d+/\d+)$", md, re.M))
    assert per_exercise == {"softmax": "1/3", "causal_mask": "2/3", "attention": "2/3"}
    recognised = re.findall(r"^- (\w+) · `(\w+)` × (\d+): (.*)$", md, re.M)
    assert recognised == [("softmax", "no_shift", "1", bob["detail"])]
    assert heard.carrying(students=3, exercises=3, md=out.with_suffix(".md")) and str(out) in printed


def test_exported_golden_files_reload_and_match_the_references(tmp_path, capsys):
    assert main(["exercise", "export-golden", "--out", str(tmp_path)]) == 0
    assert "manifest.json" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "manifest.json").read_text())["exercises"]
    assert [m["exercise"] for m in manifest] == list(catalog.ORDER)
    for entry in manifest:
        name = entry["exercise"]
        ex, prep = catalog.get(name), prepare(name)
        spec = json.loads((tmp_path / entry["json"]).read_text())
        arrays = np.load(tmp_path / entry["npz"])
        assert spec["tolerance"]["atol"] == ex.atol and len(spec["cases"]) == len(prep.cases) == entry["cases"]
        for case, stored in zip(prep.cases, spec["cases"], strict=False):
            args = educator.load_golden_args(stored, arrays)
            assert [d["name"] for d in stored["inputs"]] == list(ex.function(case.fn).args)
            torch_args = [_to_torch(a) for a in args]
            outs = ex.reference[case.fn](*torch_args)
            twin = ex.numpy_reference[case.fn](*torch_args)
            for out, tw, d in zip(outs, twin, stored["outputs"], strict=False):
                expected = torch.from_numpy(arrays[d["key"]])
                assert list(expected.shape) == d["shape"]
                assert first_problem(out.detach(), expected, ex.atol) is None, (name, stored["label"])
                assert first_problem(tw, expected, ex.atol) is None, (name, stored["label"])
            if case.grad:
                grads = [arrays[g["key"]] for g in stored["gradients"]]
                ref = prep.ref_grads[stored["index"]]
                assert all(np.allclose(a, b.numpy(), atol=1e-12) for a, b in zip(grads, ref, strict=False))
    attention = json.loads((tmp_path / "attention.json").read_text())
    noncontig = next(c for c in attention["cases"] if "non-contiguous" in c["label"])
    assert noncontig["inputs"][0]["contiguous"] is False and noncontig["inputs"][3]["kind"] == "array"


def _to_torch(value):
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.array(value))
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    return value


def test_no_csv_cell_starts_a_formula(tmp_path):
    subs = tmp_path / "submissions"
    student = subs / '=HYPERLINK("evil.example","open")'  # a folder name: no slash
    student.mkdir(parents=True)
    (student / "causal_mask.py").write_text(catalog.get("causal_mask").solution)
    out = tmp_path / "grades.csv"
    educator.grade(subs, out, lang="en", names=["causal_mask"])
    row = next(csv.DictReader(out.open()))
    assert row["student"] == "'" + student.name and row["status"] == "passed"
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert educator.csv_cell(text) == "'" + text
    assert educator.csv_cell("ada") == "ada" and educator.csv_cell(-1) == -1


def test_one_students_code_reaches_neither_the_next_students_grade_nor_their_folder(tmp_path):
    """The class is graded by one worker, each file in a process of its own: a student who patches
    torch, changes its defaults and leaves files behind changes nothing for the next one, who in turn
    cannot read the first one's folder."""
    from glassformer.exercises import sandbox

    subs = tmp_path / "submissions"
    for student in ("amy", "ben", "cy"):
        (subs / student).mkdir(parents=True)
    (subs / "amy" / "softmax.py").write_text(
        "import torch\ntorch.exp = lambda x: x * 0\ntorch.set_default_dtype(torch.float16)\n"
        "open('left_behind.bin', 'wb').write(bytes(1 << 20))\n" + catalog.get("softmax").solution
    )
    (subs / "ben" / "softmax.py").write_text(catalog.get("softmax").solution)
    (subs / "cy" / "softmax.py").write_text(
        f"SEEN = open({str(subs / 'amy' / 'softmax.py')!r}).read()\n" + catalog.get("softmax").solution
    )
    rows, _ = educator.grade(subs, tmp_path / "grades.csv", lang="en", names=["softmax"])
    status = {r["student"]: r["status"] for r in rows}
    assert status["amy"] == "failed" and status["ben"] == "passed"  # amy's patched exp fails amy only
    if sandbox.landlock_abi() >= 1:
        assert status["cy"] == "crashed"  # PermissionError: Landlock lets each file read its own folder only

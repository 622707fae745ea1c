"""A submission cannot answer for the grader. The learner's code runs in the same process as the
code that reports its results, so it can reach everything there: the job's calls (walking the
frames), the pipes it holds, the folders it may write. Each forger below uses that to hand back
a result it did not earn, and each must fail with the named reason `exercise.msg.protocol`, in
`exercise check` and in the CSV of `exercise grade`, while an honest file graded next by the same
worker passes (sandbox.py: the worker never runs learner code; each job runs in a process of its
own that holds no handle on the protocol; what comes back is checked by the parent).

Before this design, "forged_done" was graded "✓ Passed: all 13 cases" and "forged_empty" was
`passed,0,13` in the CSV: the worker wrote <out>/<id>.pt and said DONE on a pipe the learner's
code could write to as well."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest
import torch
from helpers import en, in_catalogue, said

from glassformer.exercises import catalog, educator, grading, sandbox
from glassformer.messages import t

SOLUTION = catalog.get("softmax").solution

# what every forger does first: the grader's job (its calls), reached through the frames, and the
# real outputs and gradients, made by PyTorch's softmax with the guard taken off and put back
PRELUDE = """
import io
import os
import stat
import sys

import torch

frame = sys._getframe()
while frame is not None and "job" not in frame.f_locals:
    frame = frame.f_back
grader = frame.f_locals
job, guard = grader["job"], grader.get("guard")
worker = sys.modules["__main__"]
real = getattr(torch, "soft" + "max")
if guard is not None:
    guard.__exit__()
calls = [worker._call(lambda x, dim=-1: real(x, dim), call, job["file"], torch) for call in job["calls"]]
if guard is not None:
    guard.__enter__()
pipes = []
for fd in range(3, 256):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            pipes.append(fd)
    except OSError:
        pass
"""
# ... then one of these, and os._exit(0) before anything of the grader's runs again
FORGERS = {
    # a result file with the real outputs where the worker writes its own, then DONE on every pipe
    "forged_done": (
        "payload = {'import_error': None, 'missing': [], 'calls': calls, 'stdout': '', 'forbidden': []}\n"
        "out = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()\n"
        "torch.save(payload, os.path.join(out, job['id'] + '.pt'))\n"
        "for fd in pipes:\n    os.write(fd, ('DONE ' + job['id'] + '\\n').encode())\n"
    ),
    # likewise with no result at all: nothing failed, so nothing to fix
    "forged_empty": (
        "payload = {'import_error': None, 'missing': [], 'calls': [], 'stdout': '', 'forbidden': []}\n"
        "out = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()\n"
        "torch.save(payload, os.path.join(out, job['id'] + '.pt'))\n"
        "for fd in pipes:\n    os.write(fd, ('DONE ' + job['id'] + '\\n').encode())\n"
    ),
    # a well-made result with no calls in it, on the job's own channel
    "forged_payload": (
        "payload = {'import_error': None, 'missing': [], 'calls': [], 'stdout': '', 'forbidden': []}\n"
        "buffer = io.BytesIO()\ntorch.save(payload, buffer)\n"
        "for fd in pipes:\n    os.write(fd, buffer.getvalue())\n"
    ),
}
REASONS = {  # the first words of each forger's reason
    "forged_done": "unreadable result",
    "forged_empty": "unreadable result",
    "forged_payload": "0 results for 13 calls",
}
ENDING = "os._exit(0)\n\n\ndef softmax(x, dim=-1):\n    raise NotImplementedError\n"


def source(name: str) -> str:
    return PRELUDE + FORGERS[name] + ENDING


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    root = tmp_path_factory.mktemp("forgers")
    names = [*FORGERS, "zz_after"]
    for name in names:
        (root / name).mkdir()
        (root / name / "softmax.py").write_text(source(name) if name in FORGERS else SOLUTION, encoding="utf-8")
    checked = grading.check_many([("softmax", root / name / "softmax.py") for name in names])
    rows, _ = educator.grade(root, root.parent / "grades.csv", lang="en", names=["softmax"])
    return {"checked": dict(zip(names, checked, strict=True)), "rows": rows, "csv": root.parent / "grades.csv"}


@pytest.mark.parametrize("name", list(FORGERS))
def test_a_forged_result_fails_check_with_the_named_reason(forged, name):
    report = forged["checked"][name]
    assert (report.status, report.cases, report.n_passed) == ("crashed", [], 0)
    key, fields = report.diagnosis
    assert set(fields) == {"reason"} and fields["reason"].startswith(REASONS[name]), fields
    assert in_catalogue(key) and {forged["checked"][n].diagnosis[0] for n in FORGERS} == {key}  # one sentence for all
    with said() as heard:
        text = grading.render(report, "en")
    assert "✓" not in text and t(key, **fields) in text
    # not "your process died" (said with its exit code): it ran, and answered for us, a sentence of its own
    assert not [f for _, f in heard if "code" in f]
    (headline,) = [k for k, f in heard if f == {} and en(k) == text.splitlines()[2]]
    assert in_catalogue(headline) and headline != key


def test_a_forged_result_fails_grade_in_the_csv(forged):
    written = {r["student"]: r for r in csv.DictReader(forged["csv"].open(encoding="utf-8"))}
    for name in FORGERS:
        row = written[name]
        forgery = forged["checked"][name].diagnosis[0]  # the grader's diagnosis of it, as checked above
        assert (row["status"], row["cases_passed"], row["mistake"]) == ("crashed", "0", forgery), row
    assert written["zz_after"]["status"] == "passed"


def test_after_the_forgers_an_honest_file_graded_by_the_same_worker_passes(forged):
    assert forged["checked"]["zz_after"].passed


def test_the_jobs_process_holds_no_handle_on_the_protocol_or_the_jobs(tmp_path):
    """Its only pipe is its own result's; fd 0 is /dev/null; no folder outside scratch is writable."""
    (tmp_path / "softmax.py").write_text(
        "import os, stat\n"
        "def softmax(x, dim=-1):\n    return x\n"
        "def _open(fd):\n"
        "    try:\n        os.fstat(fd)\n        return True\n    except OSError:\n        return False\n"
        "pipes = [fd for fd in range(256) if _open(fd) and stat.S_ISFIFO(os.fstat(fd).st_mode)]\n"
        "null = os.path.samestat(os.fstat(0), os.stat(os.devnull))\n"
        "raise RuntimeError(repr((len(pipes), null)))\n",
        encoding="utf-8",
    )
    report = grading.check("softmax", tmp_path / "softmax.py")
    assert report.import_error["type"] == "RuntimeError"
    assert report.import_error["message"] == "(1, True)"


def job(calls: int = 2) -> sandbox.Job:
    x = torch.zeros(2, 3, dtype=torch.float64)
    return sandbox.Job("j0", "softmax.py", [{"fn": "softmax", "args": (x,), "grad": [0]}] * calls, None, [])


def result(**changes) -> dict:
    call = {"outputs": {"kind": "tensor", "value": torch.zeros(2, 3)}, "grads": [torch.zeros(2, 3)], "grad_note": None}
    payload = {"import_error": None, "missing": [], "calls": [call, dict(call)], "stdout": "", "forbidden": []}
    payload.update(changes)
    return payload


@pytest.mark.parametrize(
    "payload, reason",
    [
        (result(), ""),
        (result(calls=[]), "0 results for 2 calls"),
        (result(verdict="passed"), "not the fields of a result"),
        (result(forbidden=[{"name": "x", "why": "exercise.msg.passed", "file": "a.py", "line": 1}]), "a refusal"),
        (result(calls=[{"missing": True}, {"missing": True}]), "the missing functions differ"),
        (
            result(calls=[{"outputs": {"kind": "tensor", "value": "0.5"}, "grads": None, "grad_note": None}] * 2),
            "an output",
        ),
        (result(calls=[{"outputs": {"kind": "scalar", "value": 1}, "grads": [], "grad_note": None}] * 2), "gradients"),
        (result(import_error={"type": "E", "message": "m", "where": None}, calls=[]), ""),
        (result(calls=[{"missing": True}] * 2, missing=["softmax", "softmax"]), ""),
        (result(calls=[{"error": {"type": "E", "message": "m", "where": None}, "todo": True}] * 2), ""),
        (result(calls=[{"error": {"type": "E", "message": 5, "where": None}, "todo": True}] * 2), "not an error"),
        (result(calls=[{"error": {"type": "E", "message": "m", "where": None}, "todo": "yes"}] * 2), "not an error"),
        (result(calls=[{"error": {"type": "E", "message": "m", "where": None}}] * 2), "not a call's result"),
        (["not", "a", "dict"], "not the fields of a result"),
    ],
)
def test_the_parent_accepts_only_what_run_job_writes(payload, reason):
    found = sandbox.check_payload(payload, job(), torch)
    assert found.startswith(reason) and bool(found) == bool(reason), found


def test_the_worker_is_started_before_torch_and_used_by_the_next_check(tmp_path, monkeypatch):
    """`python -m glassformer exercise check` starts the worker before it imports torch (the two
    imports overlap); the next grading takes that worker; other verbs start none."""
    light = "import sys, glassformer.exercises.sandbox; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", light], capture_output=True, text=True).stdout.strip() == "False"
    monkeypatch.setattr(sandbox, "_warm", None)
    for argv in (["train", "--preset", "tiny"], ["exercise", "list"], ["--lang", "zh", "exercise", "hint", "x"]):
        sandbox.prestart_for(argv)
        assert sandbox._warm is None, argv
    sandbox.prestart_for(["--lang", "zh", "exercise", "check", "softmax"])
    warm = sandbox._warm
    assert warm is not None and warm.proc.poll() is None
    (tmp_path / "softmax.py").write_text(SOLUTION, encoding="utf-8")
    assert grading.check("softmax", tmp_path / "softmax.py").passed
    assert sandbox._warm is None and warm.proc.poll() is not None  # taken, used, ended

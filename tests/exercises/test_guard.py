"""The exercise's forbidden operations stay refused when the learner's code switches off the
grader's guard (sandbox.Guard). Each of the three escapes reported against the torch-function
mode is planted twice: written plainly (the syntax-tree scan refuses torch._C and a function's
closure before anything runs) and with every name built at run time (the dispatch-level trace and
the checks after each call refuse it). Both in `exercise check` (check_many) and in `exercise
grade` (the CSV a teacher reads)."""

from __future__ import annotations

import csv

import pytest

from glassformer.exercises import catalog, educator, grading
from glassformer.exercises.catalog import SOFTMAX as SOFTMAX_RULE
from glassformer.exercises.grading.scanning import INTERNALS, scan
from glassformer.messages import t

SOLUTION = catalog.get("softmax").solution
C = 'C = getattr(torch, "_" + "C")\n'  # torch._C, its name built at run time: the scan cannot see it
SOFTMAX = 'getattr(torch, "soft" + "max")'  # torch.softmax, likewise

ESCAPES = {
    # name: (source of softmax.py, (name refused, rule) of the first offence)
    "disable": (
        "import torch\ndef softmax(x, dim=-1):\n    with torch._C.DisableTorchFunction():\n"
        "        return torch.softmax(x, dim)\n",
        (
            "torch._C.DisableTorchFunction",
            INTERNALS.why,
        ),
    ),
    "pop": (
        "import torch\ndef softmax(x, dim=-1):\n    mode = torch._C._pop_torch_function_stack()\n    try:\n"
        "        return torch.softmax(x, dim)\n    finally:\n        torch._C._push_on_torch_function_stack(mode)\n",
        (
            "torch._C",
            INTERNALS.why,
        ),
    ),
    "closure": (
        "import torch\nmode = torch._C._get_function_stack_at(0)\n"
        "for cell in type(mode).__torch_function__.__closure__:\n"
        "    if isinstance(cell.cell_contents, dict):\n        cell.cell_contents.clear()\n"
        "def softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n",
        (
            "torch._C",
            INTERNALS.why,
        ),
    ),
    "disable_dynamic": (
        "import torch\n" + C + "def softmax(x, dim=-1):\n"
        '    with getattr(C, "Disable" + "TorchFunction")():\n'
        f"        return {SOFTMAX}(x, dim)\n",
        ("_softmax", "PyTorch's softmax: this exercise is to write it."),  # seen by the dispatch-level trace, at line 5
    ),
    "pop_dynamic": (
        "import torch\n" + C + "def softmax(x, dim=-1):\n"
        '    mode = getattr(C, "_pop_torch" + "_function_stack")()\n    try:\n'
        f"        return {SOFTMAX}(x, dim)\n    finally:\n"
        '        getattr(C, "_push_on_torch" + "_function_stack")(mode)\n',
        ("_softmax", "PyTorch's softmax: this exercise is to write it."),
    ),
    "closure_dynamic": (  # the rules emptied: the guard's own check after the import says so
        "import torch\n" + C + 'mode = getattr(C, "_get_function" + "_stack_at")(0)\n'
        'handler = getattr(type(mode), "__torch" + "_function__")\n'
        'for cell in getattr(handler, "__clo" + "sure__"):\n'
        '    for inner in getattr(getattr(cell, "cell" + "_contents"), "__clo" + "sure__") or ():\n'
        '        if isinstance(getattr(inner, "cell" + "_contents"), frozenset):\n'
        '            setattr(inner, "cell" + "_contents", frozenset())\n'
        f"def softmax(x, dim=-1):\n    return {SOFTMAX}(x, dim)\n",
        (
            "the torch-function mode or its rules changed",
            "the grader's check of forbidden operations was switched off "
            "or changed while your code ran: it must stay on.",
        ),
    ),
    "disable_left": (  # torch functions switched off at import and never on again: the check after the import says so
        "import torch\n" + C + 'getattr(C, "Disable" + "TorchFunction")().__enter__()\n'
        "def softmax(x, dim=-1):\n    e = (x - x.max(dim, keepdim=True).values).exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n",
        (
            "torch functions disabled",
            "the grader's check of forbidden operations was switched off "
            "or changed while your code ran: it must stay on.",
        ),
    ),
    # the guard taken off and put back around the call, so that no check after it sees a change:
    # through the frames (the grader's own `guard`), and by popping both modes and pushing them back;
    # torch's own record of the operation, the autograd graph of what it returned, refuses it
    "frames": (
        "import sys\nimport torch\ndef softmax(x, dim=-1):\n    frame = sys._getframe()\n"
        '    while "guard" not in frame.f_locals:\n        frame = frame.f_back\n'
        '    guard = frame.f_locals["guard"]\n    guard.__exit__()\n    try:\n'
        f"        return {SOFTMAX}(x, dim)\n    finally:\n        guard.__enter__()\n",
        ("SoftmaxBackward0", "PyTorch's softmax: this exercise is to write it."),
    ),
    "frames_below": (  # the same, its softmax below a node whose other input has no gradient (None)
        "import sys\nimport torch\ndef softmax(x, dim=-1):\n    frame = sys._getframe()\n"
        '    while "guard" not in frame.f_locals:\n        frame = frame.f_back\n'
        '    guard = frame.f_locals["guard"]\n    guard.__exit__()\n    try:\n'
        f"        return {SOFTMAX}(x, dim) + torch.zeros_like(x)\n    finally:\n        guard.__enter__()\n",
        ("SoftmaxBackward0", "PyTorch's softmax: this exercise is to write it."),
    ),
    "pop_both": (
        "import torch\n" + C + "def softmax(x, dim=-1):\n"
        '    function = getattr(C, "_pop_torch" + "_function_stack")()\n'
        '    dispatch = getattr(C, "_pop_torch" + "_dispatch_stack")(None)\n    try:\n'
        f"        return {SOFTMAX}(x, dim)\n    finally:\n"
        '        getattr(C, "_push_on_torch" + "_dispatch_stack")(dispatch)\n'
        '        getattr(C, "_push_on_torch" + "_function_stack")(function)\n',
        ("SoftmaxBackward0", "PyTorch's softmax: this exercise is to write it."),
    ),
}
PLAIN = ("disable", "pop", "closure")


@pytest.fixture(scope="module")
def escapes(tmp_path_factory):
    root = tmp_path_factory.mktemp("escapes")
    for name, (source, _) in ESCAPES.items():
        (root / name).mkdir()
        (root / name / "softmax.py").write_text(source, encoding="utf-8")
    (root / "zz_after").mkdir()  # graded last, by the same worker: the guard is whole again
    (root / "zz_after" / "softmax.py").write_text(SOLUTION, encoding="utf-8")
    checked = grading.check_many([("softmax", root / name / "softmax.py") for name in [*ESCAPES, "zz_after"]])
    rows, _ = educator.grade(root, root.parent / "grades.csv", lang="en", names=["softmax"])
    return {"checked": dict(zip([*ESCAPES, "zz_after"], checked, strict=True)), "rows": rows, "root": root}


@pytest.mark.parametrize("name", list(ESCAPES))
def test_each_escape_fails_check_with_a_named_reason(escapes, name):
    report = escapes["checked"][name]
    assert report.status == "forbidden" and report.cases == [], (report.status, report.n_passed)
    first = report.offences[0]
    assert (first.name, first.why) == ESCAPES[name][1]
    assert report.sandbox is None if name in PLAIN else report.sandbox is not None  # the plain ones never ran
    text = grading.render(report, "en")
    assert "✓" not in text and t(first.why) in text


def test_the_dynamic_escapes_are_refused_where_the_call_is(escapes):
    assert escapes["checked"]["disable_dynamic"].offences[0].line == 5
    assert escapes["checked"]["pop_dynamic"].offences[0].line == 6
    assert escapes["checked"]["closure_dynamic"].offences[0].line == 0  # found after the import, not at a line
    assert escapes["checked"]["frames"].offences[0].line == 0  # found in what the call returned
    assert escapes["checked"]["pop_both"].offences[0].line == 0


def test_each_escape_fails_grade_in_the_csv(escapes):
    rows = {r["student"]: r for r in escapes["rows"]}
    for name in ESCAPES:
        assert (rows[name]["status"], rows[name]["cases_passed"]) == ("forbidden", 0), name
    assert rows["zz_after"]["status"] == "passed"
    written = {r["student"]: r["status"] for r in csv.DictReader((escapes["root"].parent / "grades.csv").open())}
    assert {written[name] for name in ESCAPES} == {"forbidden"}


def test_after_an_escape_the_next_file_is_graded_under_a_whole_guard(escapes):
    assert escapes["checked"]["zz_after"].passed


def test_the_scan_refuses_the_plain_escapes_and_names_each_reach_once(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_text(ESCAPES["disable"][0])
    found = [(o.line, o.name, o.why) for o in scan(path, catalog.get("softmax").forbidden)]
    assert found == [
        (
            3,
            "torch._C.DisableTorchFunction",
            INTERNALS.why,
        ),
        (4, "torch.softmax", SOFTMAX_RULE.why),
    ]
    path.write_text("from torch._C import DisableTorchFunction\nimport torch.overrides as o\n")
    assert [(o.line, o.why) for o in scan(path, ())] == [
        (
            1,
            INTERNALS.why,
        ),
        (
            2,
            INTERNALS.why,
        ),
    ]

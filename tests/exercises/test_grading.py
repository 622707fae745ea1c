"""The grader on real files: every reference solution passes, every known mistake fails with its
own message, skeletons are "not finished", and the usual accidents are reported as such."""

from __future__ import annotations

import pytest
import torch

from glassformer.exercises import catalog, grading
from glassformer.exercises.grading.comparing import (
    CaseResult,
    Problem,
    _grade_grads,
    first_problem,
    path_name,
    prepare,
    twin_directional,
)
from glassformer.exercises.grading.report import _problem_lines, fmt_number
from glassformer.exercises.grading.scanning import scan
from glassformer.messages import speaking, t


def said(key: str, lang: str = "en", **fields) -> str:
    """The catalogue's sentence `key` with `fields`: what the report must hold (keys, not wording)."""
    with speaking(lang):
        return t(key, **fields)


ALL_VARIANTS = [(name, v.id) for name in catalog.ORDER for v in catalog.get(name).variants]


def test_there_are_at_least_14_exercises_in_data_flow_order():
    assert len(catalog.ORDER) >= 14
    assert catalog.ORDER.index("softmax") < catalog.ORDER.index("attention") < catalog.ORDER.index("block")
    assert catalog.ORDER.index("layer_norm") < catalog.ORDER.index("block") < catalog.ORDER.index("loss")
    assert catalog.get("multi-head-attention").name == "multi_head_attention"  # hyphens accepted
    with pytest.raises(ValueError) as e:
        catalog.get("softmx")
    assert (e.value.code, e.value.fields) == (
        "exercise.unknown",
        {"name": "softmx", "hint": t(" Did you mean {near!r}?", near="softmax"), "n": len(catalog.ORDER)},
    )


@pytest.mark.parametrize("name", catalog.ORDER)
def test_the_reference_solution_passes(graded, name):
    rep = graded[("solution", name)]
    assert rep.status == "passed", grading.render(rep, "en")
    assert rep.n_passed == len(rep.cases) == len(prepare(name).cases) >= 6
    atol = catalog.get(name).atol
    assert all(c.err_ref <= atol * 1e3 and c.err_twin <= atol * 1e3 for c in rep.cases)
    key = (
        "✓ Passed: all {n} cases, outputs and gradients."
        if any(c.grad for c in prepare(name).cases)
        else "✓ Passed: all {n} cases."
    )
    assert grading.render(rep).splitlines()[2] == said(key, n=len(rep.cases))


def test_every_exercise_has_the_named_edge_cases():
    labels = {name: {c.label for c in prepare(name).cases} for name in catalog.ORDER}
    for name in ("attention_scores", "attention", "heads", "multi_head_attention", "layer_norm", "block"):
        assert {"T = 1 (a single position)", "non-contiguous inputs (transposed views)"} <= labels[name], name
    for name in ("attention", "multi_head_attention", "block"):
        assert "a query row whose keys are all masked" in labels[name], name
    assert "large values (around {scale})" in labels["softmax"] and "large values (around {scale})" in labels["loss"]
    assert all(
        any(lab in ("random case #{i}", "max_len = {L}, d_model = {C}", "T = {T}") for lab in ls)  # random or sized
        for ls in labels.values()
    )
    assert sum(1 for ls in labels.values() if "a batch of 1" in ls) >= 10


@pytest.mark.parametrize("name,variant", ALL_VARIANTS)
def test_each_known_mistake_fails_with_its_own_message(graded, name, variant):
    rep = graded[("variant", name, variant)]
    assert rep.status in ("failed", "crashed"), grading.render(rep, "en")
    assert rep.n_passed < len(rep.cases)
    note = next(v.note for v in catalog.get(name).variants if v.id == variant)
    assert rep.diagnosis == (note, {})
    for lang in ("en", "zh"):
        with speaking(lang):
            assert "→ " + t(note) in grading.render(rep)


def test_a_failure_report_snapshot_in_english_and_chinese(graded):
    """The deliberate wording checks of the report: what a learner reads, in both languages."""
    rep = graded[("variant", "softmax", "no_shift")]
    text = grading.render(rep, "en")
    first = rep.first_failure()
    assert first.problem.what == "nan" and first.problem.index == (0, 0)
    assert "first failing case: large values (around 800)" in text
    assert "inputs: x (4, 6) float64, dim = -1" in text
    assert "output: NaN first at index (0, 0)" in text and "largest error inf against glassformer.nn" in text
    rep = graded[("variant", "attention_scores", "scale_by_d")]
    first = rep.first_failure()
    assert first.problem.what == "value" and first.problem.yours == pytest.approx(first.problem.ref / 2)
    text = grading.render(rep, "en")
    assert "inputs: q (2, 5, 4) float64, k (2, 5, 4) float64" in text
    assert f"first mismatch at index {first.problem.index}" in text
    zh = grading.render(rep, "zh")
    assert "第一个不一致的位置" in zh and "你除以的是 D" in zh


def test_a_mistake_can_show_as_a_wrong_shape_or_dtype(graded):
    flat = graded[("variant", "padding_mask", "flat")].first_failure().problem
    assert (flat.what, flat.yours, flat.ref) == ("shape", (3, 6), (3, 1, 1, 6))
    additive = graded[("variant", "causal_mask", "additive")].first_failure().problem
    assert (additive.what, additive.yours, additive.ref) == ("dtype", "float32", "bool")
    stale = graded[("variant", "kv_cache", "stale_cache")]
    assert stale.first_failure().where == " 1 (keys)"  # the output comes back right, the keys do not
    shape = said(
        "output{where}: shape {yours}, expected {ref}", where=" 1 (keys)", yours=(2, 2, 4, 4), ref=(2, 2, 5, 4)
    )
    assert "  " + shape in grading.render(stale).splitlines()


@pytest.mark.parametrize("name", catalog.ORDER)
def test_an_untouched_skeleton_is_not_finished_rather_than_crashed(graded, name):
    rep = graded[("skeleton", name)]
    assert rep.status == "todo" and rep.diagnosis is None
    fns = ", ".join(sorted({prepare(name).cases[c.index].fn for c in rep.cases if c.todo}))
    assert (
        said(
            "… Not finished yet: {fns} still raises NotImplementedError "
            "(the skeleton's TODO). Write it, then check again.",
            fns=fns,
        )
        in grading.render(rep).splitlines()
    )


def test_a_lost_graph_and_a_wrong_backward_are_gradient_failures(graded):
    rep = graded[("special", "no_graph")]
    assert rep.status == "failed"
    first = rep.first_failure()
    assert first.stage == "grad" and first.problem.what == "grad_missing" and first.problem.yours == "no_graph"
    assert rep.diagnosis == (
        "No gradient flows back to an input. Did you use .detach(), "
        ".data, .item(), .tolist(), NumPy, or torch.tensor(...) on "
        "an input? Keep every step a torch operation on the inputs.",
        {},
    )
    rep = graded[("special", "bad_backward")]
    first = rep.first_failure()
    assert rep.status == "failed" and first.stage == "grad" and first.problem.what == "value"
    p = first.problem
    grad = said(
        "gradient of {where}: first mismatch at index {index}: yours {yours}, reference {ref}",
        where="x",
        index=p.index,
        yours=fmt_number(p.yours),
        ref=fmt_number(p.ref),
    )
    assert "  " + grad in grading.render(rep).splitlines()


def test_errors_are_reported_with_the_learners_line_and_a_hint_when_recognised(graded):
    rep = graded[("special", "view_after_transpose")]
    assert rep.status == "crashed" and rep.diagnosis == (
        ".view() needs a contiguous tensor, and a transposed one is "
        "not. Use .reshape() (it copies when it must), or "
        ".contiguous().view().",
        {},
    )
    first = rep.first_failure()
    assert first.error["type"] == "RuntimeError" and first.error["where"]["file"] == "heads.py"
    assert "view size is not compatible" in first.error["message"]
    cases = prepare("heads").cases
    # splitting one axis is always a valid view, even of a transposed x; joining H and D after
    # the transpose is not, in general (the first merge case)
    assert all(c.ok for c in rep.cases if cases[c.index].fn == "split_heads")
    assert (cases[first.index].fn, cases[first.index].label) == ("merge_heads", "a small ordinary input")
    rep = graded[("special", "exception")]
    assert rep.status == "crashed" and rep.n_passed == 0
    error = said(
        "your code raised {type} in {path} line {line}:  {code}\n    {message}",
        type="NameError",
        path="causal_mask.py",
        line=2,
        code="return helper(T)  # NameError: no such helper",
        message="name 'helper' is not defined",
    )
    assert "  " + error in grading.render(rep)


def test_a_huge_allocation_fails_inside_the_learners_code(graded):
    rep = graded[("special", "memory")]
    assert rep.status == "crashed" and rep.diagnosis == (
        "Your code asked for more memory than a check allows (the "
        "cases are tiny): look for a tensor whose size grows with "
        "something it should not, e.g. a (V, V) or (T, T, T) "
        "intermediate.",
        {},
    )
    assert rep.first_failure().error["where"]["line"] == 3


def test_one_files_global_changes_do_not_reach_the_next_file(graded):
    assert graded[("special", "global_state")].status == "passed"
    assert graded[("special", "after_global_state")].status == "passed"  # gradients on, float32 default


def test_a_float_mask_is_a_dtype_problem_with_its_message(graded):
    rep = graded[("special", "float32_mask")]
    assert rep.first_failure().problem.what == "dtype"
    assert rep.diagnosis == (
        "Your mask holds floats 1.0/0.0. glassformer's masks are "
        "boolean (True = may attend): build it with "
        "dtype=torch.bool, or compare positions (j <= i).",
        {},
    )  # float64 0/1 is the same mistake


def test_the_learners_own_files_are_imported_and_never_shared_between_folders(graded):
    assert graded[("siblings", "right")].status == "passed"
    wrong = graded[("siblings", "wrong")]
    assert wrong.status == "failed" and wrong.n_passed < len(wrong.cases)


def test_an_endless_loop_times_out_and_the_next_file_is_still_graded(graded):
    loop = graded[("loop",)]
    assert loop.status == "timeout" and loop.cases == []
    for lang in ("en", "zh"):
        assert said(
            "✗ Stopped after {seconds} s: your code did not finish (an "
            "endless loop? a huge tensor?). Nothing else was affected; "
            "fix it and run glassformer exercise check {name} again.",
            lang,
            seconds="2",
            name="softmax",
        ) in grading.render(loop, lang)
    assert graded[("after",)].status == "passed"


def test_a_hard_exit_is_reported_and_the_next_file_is_still_graded(graded):
    died = graded[("exit",)]
    assert died.status == "crashed" and died.exit_code == 7
    assert (
        said(
            "✗ The process running your code died (exit code {code}) "
            "before it finished: a hard crash or an exit() call.",
            code=7,
        )
        in grading.render(died).splitlines()
    )
    assert graded[("loop",)].status == "timeout" and graded[("after",)].status == "passed"


def test_syntax_errors_missing_files_and_missing_functions_need_no_process(tmp_path):
    bad = tmp_path / "softmax.py"
    bad.write_text("import torch\n\ndef softmax(x, dim=-1)\n    return x\n")
    rep, missing, wrong_name = grading.check_many(
        [
            ("softmax", bad),
            ("attention", tmp_path / "attention.py"),
            ("causal_mask", _file(tmp_path, "causal_mask.py", "def mask(T):\n    return T\n")),
        ]
    )
    assert rep.status == "syntax" and rep.syntax["line"] == 3
    lines = grading.render(rep).splitlines()
    assert lines[2] == said(
        "✗ Syntax error in {path}, line {line}, column {col}: {message}",
        path="softmax.py",
        **{k: rep.syntax[k] for k in ("line", "col", "message")},
    )
    assert lines[3:] == ["    def softmax(x, dim=-1)", "    " + " " * (rep.syntax["col"] - 1) + "^"]
    assert missing.status == "missing"
    assert (
        said(
            "✗ {path} does not exist. Start it with:  glassformer exercise start {name}",
            path=missing.file,
            name="attention",
        )
        in grading.render(missing).splitlines()
    )
    assert wrong_name.status == "failed" and wrong_name.missing_functions == ["causal_mask"]


def test_a_missing_or_gradient_figure_shows_the_dash_placeholder():
    """No `where` for a missing gradient, and no NumPy-twin error for a gradient's mismatch: both
    lines put "—" in that field rather than an empty or made-up value."""
    lost = CaseResult(0, False, Problem("grad_missing", yours="no_graph"), stage="grad", where="")
    note = said("your outputs are not connected to the inputs")
    assert _problem_lines(lost, ("y",), 1e-6) == [said("no gradient for {where}: {note}", where="—", note=note)]
    wrong = CaseResult(0, False, Problem("value", (1,), 1.0, 2.0, max_err=1.0), stage="grad", where="x", err_twin=0.5)
    assert _problem_lines(wrong, ("y",), 1e-6)[1] == said(
        "largest error {ref} against glassformer.nn, {twin} against numpy_ref (tolerance {atol} · (1 + |reference|))",
        ref="1",
        twin="—",
        atol="1e-06",
    )


def test_the_twin_check_catches_gradients_that_disagree_with_the_finite_difference():
    ex, prep = catalog.get("layer_norm"), prepare("layer_norm")
    case = prep.cases[0]
    assert twin_directional(ex, case, prep.ref_grads[0], prep.cot[0]) is None
    wrong = [g * 1.01 for g in prep.ref_grads[0]]
    problem = twin_directional(ex, case, wrong, prep.cot[0])
    assert problem is not None and problem.what == "twin_slope"


def test_cases_are_seeded_and_every_reference_is_nan_free():
    for name in catalog.ORDER:
        first, again = catalog.get(name).cases(), catalog.get(name).cases()
        for a, b in zip(first, again, strict=False):
            for x, y in zip(a.args, b.args, strict=False):
                assert type(x) is type(y) and (not torch.is_tensor(x) or torch.equal(x, y))
        assert all(not torch.isnan(o.double()).any() for outs in prepare(name).ref for o in outs)


def _file(folder, name, source):
    path = folder / name
    path.write_text(source)
    return path


def test_a_todo_function_does_not_hide_a_wrong_one(graded):
    rep = graded[("special", "todo_and_wrong")]
    assert rep.status == "failed"  # not "todo": merge_heads is finished, and wrong
    wrong = [c for c in rep.cases if not c.ok and not c.todo]
    assert wrong and {prepare("heads").cases[c.index].fn for c in wrong} == {"merge_heads"}
    assert {prepare("heads").cases[c.index].fn for c in rep.cases if c.todo} == {"split_heads"}


def test_a_float32_answer_is_a_dtype_problem_even_where_its_values_are_exact():
    ref = torch.tensor([[0.5, 0.25], [0.125, 1.0]], dtype=torch.float64)  # each value exact in float32 too
    problem = first_problem(ref.float(), ref, 1e-10)
    assert problem is not None and (problem.what, problem.yours, problem.ref) == ("dtype", "float32", "float64")
    assert first_problem(ref.clone(), ref, 1e-10) is None


def test_the_scan_looks_below_an_attribute_of_a_call(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_text("import torch.nn.functional as F\ndef softmax(x, dim=-1):\n    return F.softmax(x, dim).clone()\n")
    found = [(o.line, o.name) for o in scan(path, catalog.get("softmax").forbidden)]
    assert found == [(3, "F.softmax")]


def test_an_input_that_gets_no_gradient_is_named_as_unused():
    """A graded input the learner's outputs do not depend on gets None from autograd: the problem
    is a missing gradient noted "unused", for that input, and the report words the note."""
    ex, prep = catalog.get("layer_norm"), prepare("layer_norm")
    case = prep.cases[0]
    assert len(case.grad) >= 2
    grads = [prep.ref_grads[0][0], None, *prep.ref_grads[0][2:]]
    problem, name = _grade_grads(ex, prep, 0, case, {"grads": grads, "grad_note": None})
    assert (problem.what, problem.yours, name) == ("grad_missing", "unused", path_name(ex, case, case.grad[1]))
    res = CaseResult(0, False, problem, stage="grad", where=name)
    note = said("this input does not influence your outputs")
    assert _problem_lines(res, ("y",), 1e-6) == [said("no gradient for {where}: {note}", where=name, note=note)]


def test_a_gradient_off_the_twins_slope_shows_both_slopes_to_ten_digits():
    slope = CaseResult(0, False, Problem("twin_slope", yours=0.125, ref=-1 / 3), stage="grad", where="x")
    assert _problem_lines(slope, ("y",), 1e-6) == [
        said(
            "gradients of {where} along a random direction: yours {yours}, the NumPy twin's finite difference {ref}",
            where="x",
            yours="0.125",
            ref="-0.3333333333",
        )
    ]

"""The grader on real files: every reference solution passes, every known mistake fails with its
own message, skeletons are "not finished", and the usual accidents are reported as such."""

from __future__ import annotations

import hashlib
import re

import pytest
import torch
from helpers import en, said, shown

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
from glassformer.exercises.grading.diagnosing import COMMON_ERROR_HINTS, WHY
from glassformer.exercises.grading.report import GRAD_NOTES, GRAD_PROBLEMS, PROBLEMS, _problem_lines, fmt_number
from glassformer.exercises.grading.scanning import scan
from glassformer.messages import speaking, t
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.glu import GatedFeedForward
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.nn.rope_scaling import ScaledRotary


def rendered(rep, lang: str = "en"):
    """The report as text in `lang`, and what it said: (sentence, fields) pairs, so a test pins the
    figures and names the learner reads, and which of the grader's sentences, not their English."""
    with said() as heard:
        text = grading.render(rep, lang)
    return text, heard


def saying(heard, key: str, **fields) -> bool:
    """Was the sentence `key` (one of the grader's own tables' entries) said with these field values?"""
    return any(k == key and all(f.get(name) == v for name, v in fields.items()) for k, f in heard)


def hint_for(token: str) -> tuple[str, dict]:
    """The diagnosis the shared error hint whose pattern names `token` (an error's own word) gives."""
    (hint,) = [h for pattern, h in COMMON_ERROR_HINTS if token in pattern]
    return hint, {}


def has_chinese(text: str) -> bool:
    return re.search("[\u4e00-\u9fff]", text) is not None


ALL_VARIANTS = [(name, v.id) for name in catalog.ORDER for v in catalog.get(name).variants]


def test_there_are_at_least_14_exercises_in_data_flow_order():
    assert len(catalog.ORDER) >= 14
    assert catalog.ORDER.index("softmax") < catalog.ORDER.index("attention") < catalog.ORDER.index("block")
    assert catalog.ORDER.index("layer_norm") < catalog.ORDER.index("block") < catalog.ORDER.index("loss")
    assert catalog.get("multi-head-attention").name == "multi_head_attention"  # hyphens accepted
    with pytest.raises(ValueError) as e:
        catalog.get("softmx")
    assert e.value.code == "exercise.unknown" and e.value.fields.keys() == {"name", "hint", "n"}
    assert (e.value.fields["name"], e.value.fields["n"]) == ("softmx", len(catalog.ORDER))
    assert "'softmax'" in e.value.fields["hint"]  # the nearest name, offered


@pytest.mark.parametrize("name", catalog.ORDER)
def test_the_reference_solution_passes(graded, name):
    rep = graded[("solution", name)]
    assert rep.status == "passed", grading.render(rep, "en")
    assert rep.n_passed == len(rep.cases) == len(prepare(name).cases) >= 6
    atol = catalog.get(name).atol
    assert all(c.err_ref <= atol * 1e3 and c.err_twin <= atol * 1e3 for c in rep.cases)
    text, heard = rendered(rep)
    (headline,) = [k for k, fields in heard if fields == {"n": len(rep.cases)}]  # the one saying how many
    assert text.splitlines()[2] == en(headline, n=len(rep.cases))


def test_the_passed_line_says_whether_gradients_were_graded(graded):
    """One headline for the exercises whose gradients are graded, another for the rest."""
    headlines: dict[bool, set[str]] = {True: set(), False: set()}
    for name in catalog.ORDER:
        rep = graded[("solution", name)]
        _, heard = rendered(rep)
        headlines[any(c.grad for c in prepare(name).cases)] |= {k for k, f in heard if f == {"n": len(rep.cases)}}
    assert len(headlines[True]) == len(headlines[False]) == 1 and headlines[True] != headlines[False]


def _tensors(case) -> list[torch.Tensor]:
    """A case's tensor inputs, those inside a dict of tensors (a block's weights) too."""
    found = []
    for a in case.args:
        found += (
            [a] if torch.is_tensor(a) else [v for v in a.values() if torch.is_tensor(v)] if isinstance(a, dict) else []
        )
    return found


def test_every_exercise_has_the_named_edge_cases():
    """The edge cases are there by what they hold (the inputs), each under one label shared by the
    exercises that have it."""
    cases = {name: prepare(name).cases for name in catalog.ORDER}

    def labels_where(name, holds) -> set[str]:
        return {c.label for c in cases[name] if _tensors(c) and holds(c, _tensors(c))}

    def one_position(c, xs):  # T = 1: the first input has a single position (its next-to-last axis)
        return xs[0].dim() >= 2 and xs[0].shape[-2] == 1

    def transposed(c, xs):
        return any(not x.is_contiguous() for x in xs)

    def masked_row(c, xs):  # a boolean mask with a query row whose keys are all masked
        return any(x.dtype == torch.bool and (~x).all(dim=-1).any() for x in xs)

    def large(c, xs):
        return "scale" in c.fields and float(xs[0].abs().max()) >= 100

    def batch_of_one(c, xs):
        return xs[0].shape[:1] == (1,)

    six = ("attention_scores", "attention", "heads", "multi_head_attention", "layer_norm", "block")
    for holds in (one_position, transposed):
        shared = set.intersection(*(labels_where(name, holds) for name in six))
        assert len(shared) == 1, holds.__name__
    assert (
        len(set.intersection(*(labels_where(n, masked_row) for n in ("attention", "multi_head_attention", "block"))))
        == 1
    )
    assert labels_where("softmax", large) and labels_where("loss", large)
    assert all(any({"i", "L", "T"} & c.fields.keys() for c in cs) for cs in cases.values())  # random or sized
    assert sum(1 for name in catalog.ORDER if labels_where(name, batch_of_one)) >= 10


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
            assert has_chinese(t(note)) == (lang == "zh")


MODERN = ("rms_norm", "swiglu", "rope", "gqa")  # the Llama / Qwen3 / Mistral pieces, after GPT-2's


def test_the_modern_decoder_exercises_follow_gpt2s_and_are_graded_by_the_models_own_modules(monkeypatch):
    assert len(catalog.ORDER) == 19 and catalog.ORDER[-4:] == MODERN
    modules = {"rms_norm": RMSNorm, "swiglu": GatedFeedForward, "rope": ScaledRotary, "gqa": MultiHeadAttention}

    class Called(Exception):
        pass

    def called(self, *args, **kwargs):
        raise Called(type(self).__name__)

    for name, module in modules.items():
        ex = catalog.get(name)
        case = ex.cases()[0]
        with monkeypatch.context() as m:  # the reference is the module itself, not a copy of its math
            m.setattr(module, "forward", called)
            with pytest.raises(Called) as e:
                ex.reference[case.fn](*case.args)
        assert str(e.value) == module.__name__


def test_the_modern_mistakes_fail_exactly_where_they_differ(graded):
    """Each mistake shows on the cases that tell it apart, and only there."""
    cases = {name: prepare(name).cases for name in MODERN}

    def passing(name, variant):
        return [cases[name][c.index] for c in graded[("variant", name, variant)].cases if c.ok]

    # a tiled key-value layout equals the right one only when nothing is shared (H_kv = H) or all is (H_kv = 1)
    tiled = passing("gqa", "tiled")
    assert tiled and all(c.args[6] in (1, c.args[5]) for c in tiled)
    assert {c.fields.get("H_kv") for c in tiled} >= {1, 3}  # the multi-query and multi-head cases
    # a RoPE that ignores the cache's offset is right on exactly the cases that start at position 0
    assert all(c.args[1] == 0 for c in passing("rope", "offset_ignored"))
    first = graded[("variant", "rope", "offset_ignored")].first_failure()
    assert cases["rope"][first.index].fields == {"offset": 7}
    # RMSNorm over the tokens' axis is right only where that axis is the features' (a 2-D input)
    assert [c.args[0].dim() for c in passing("rms_norm", "wrong_axis")] == [2]


def test_a_failure_report_names_the_case_its_inputs_and_the_first_bad_value(graded):
    """What a learner reads of a failure, by its figures and names, in both languages."""
    rep = graded[("variant", "softmax", "no_shift")]
    text, heard = rendered(rep)
    first = rep.first_failure()
    assert first.problem.what == "nan" and first.problem.index == (0, 0)
    assert prepare("softmax").cases[first.index].fields == {"scale": 800}  # the large values' case
    assert heard.carrying(i=first.index + 1, n=len(rep.cases), fn="softmax")
    assert heard.carrying(inputs="x (4, 6) float64, dim = -1")
    assert saying(heard, PROBLEMS["nan"], where="", index=(0, 0)) and heard.carrying(ref="inf")
    rep = graded[("variant", "attention_scores", "scale_by_d")]
    first = rep.first_failure()
    assert first.problem.what == "value" and first.problem.yours == pytest.approx(first.problem.ref / 2)
    text, heard = rendered(rep)
    assert heard.carrying(inputs="q (2, 5, 4) float64, k (2, 5, 4) float64")
    assert saying(heard, PROBLEMS["value"], index=first.problem.index) and str(first.problem.index) in text
    zh, heard_zh = rendered(rep, "zh")
    assert heard_zh.keys() == heard.keys() and has_chinese(zh) and zh != text  # the same sentences, in Chinese
    note = next(v.note for v in catalog.get("attention_scores").variants if v.id == "scale_by_d")
    with speaking("zh"):
        assert t(note) in zh and has_chinese(t(note))


def test_a_mistake_can_show_as_a_wrong_shape_or_dtype(graded):
    flat = graded[("variant", "padding_mask", "flat")].first_failure().problem
    assert (flat.what, flat.yours, flat.ref) == ("shape", (3, 6), (3, 1, 1, 6))
    additive = graded[("variant", "causal_mask", "additive")].first_failure().problem
    assert (additive.what, additive.yours, additive.ref) == ("dtype", "float32", "bool")
    stale = graded[("variant", "kv_cache", "stale_cache")]
    assert stale.first_failure().where == " 1 (keys)"  # the output comes back right, the keys do not
    _, heard = rendered(stale)
    assert saying(heard, PROBLEMS["shape"], where=" 1 (keys)", yours="(2, 2, 4, 4)", ref="(2, 2, 5, 4)")


@pytest.mark.parametrize("name", catalog.ORDER)
def test_an_untouched_skeleton_is_not_finished_rather_than_crashed(graded, name):
    rep = graded[("skeleton", name)]
    assert rep.status == "todo" and rep.diagnosis is None
    fns = ", ".join(sorted({prepare(name).cases[c.index].fn for c in rep.cases if c.todo}))
    text, heard = rendered(rep)
    assert [f for _, f in heard if "fns" in f] == [{"fns": fns}]  # which functions are still to write


def test_a_lost_graph_and_a_wrong_backward_are_gradient_failures(graded):
    rep = graded[("special", "no_graph")]
    assert rep.status == "failed"
    first = rep.first_failure()
    assert first.stage == "grad" and first.problem.what == "grad_missing" and first.problem.yours == "no_graph"
    assert rep.diagnosis == (WHY["grad_missing"], {})
    rep = graded[("special", "bad_backward")]
    first = rep.first_failure()
    assert rep.status == "failed" and first.stage == "grad" and first.problem.what == "value"
    p = first.problem
    _, heard = rendered(rep)
    fields = {"where": "x", "index": p.index, "yours": fmt_number(p.yours), "ref": fmt_number(p.ref)}
    assert saying(heard, GRAD_PROBLEMS["value"], **fields)


def test_errors_are_reported_with_the_learners_line_and_a_hint_when_recognised(graded):
    rep = graded[("special", "view_after_transpose")]
    assert rep.status == "crashed" and rep.diagnosis == hint_for("view")
    first = rep.first_failure()
    assert first.error["type"] == "RuntimeError" and first.error["where"]["file"] == "heads.py"
    (view,) = [pattern for pattern, _ in COMMON_ERROR_HINTS if "view" in pattern]
    assert re.search(view, first.error["message"])  # torch's own complaint, which the hint reads
    cases = prepare("heads").cases
    # splitting one axis is always a valid view, even of a transposed x; joining H and D after
    # the transpose is not, in general (the first merge case)
    assert all(c.ok for c in rep.cases if cases[c.index].fn == "split_heads")
    assert first.index == min(i for i, c in enumerate(cases) if c.fn == "merge_heads")
    rep = graded[("special", "exception")]
    assert rep.status == "crashed" and rep.n_passed == 0
    _, heard = rendered(rep)
    assert heard.carrying(
        type="NameError",
        path="causal_mask.py",
        line=2,
        code="return helper(T)  # NameError: no such helper",
        message="name 'helper' is not defined",
    )


def test_a_huge_allocation_fails_inside_the_learners_code(graded):
    rep = graded[("special", "memory")]
    assert rep.status == "crashed" and rep.diagnosis == hint_for("MemoryError")
    assert rep.first_failure().error["where"]["line"] == 3


def test_one_files_global_changes_do_not_reach_the_next_file(graded):
    assert graded[("special", "global_state")].status == "passed"
    assert graded[("special", "after_global_state")].status == "passed"  # gradients on, float32 default


def test_a_float_mask_is_a_dtype_problem_with_its_message(graded):
    rep = graded[("special", "float32_mask")]
    assert rep.first_failure().problem.what == "dtype"
    float_01 = next(v.note for v in catalog.get("causal_mask").variants if v.id == "float_01")
    assert rep.diagnosis == (float_01, {})  # float64 0/1 is the same mistake as float32's


def test_the_learners_own_files_are_imported_and_never_shared_between_folders(graded):
    assert graded[("siblings", "right")].status == "passed"
    wrong = graded[("siblings", "wrong")]
    assert wrong.status == "failed" and wrong.n_passed < len(wrong.cases)


def test_an_endless_loop_times_out_and_the_next_file_is_still_graded(graded):
    loop = graded[("loop",)]
    assert loop.status == "timeout" and loop.cases == []
    for lang in ("en", "zh"):
        text, heard = rendered(loop, lang)
        assert heard.carrying(seconds="2", name="softmax") and has_chinese(text) == (lang == "zh")
    assert graded[("after",)].status == "passed"


def test_a_hard_exit_is_reported_and_the_next_file_is_still_graded(graded):
    died = graded[("exit",)]
    assert died.status == "crashed" and died.exit_code == 7
    _, heard = rendered(died)
    assert heard.carrying(code=7)
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
    text, heard = rendered(rep)
    lines = text.splitlines()
    assert heard.carrying(path="softmax.py", **{k: rep.syntax[k] for k in ("line", "col", "message")})
    line = bad.read_text().splitlines()[rep.syntax["line"] - 1]  # the learner's line, and a caret under the spot
    assert lines[3:] == ["    " + line, "    " + " " * (rep.syntax["col"] - 1) + "^"]
    assert missing.status == "missing"
    _, heard = rendered(missing)
    assert heard.carrying(path=missing.file, name="attention")
    assert wrong_name.status == "failed" and wrong_name.missing_functions == ["causal_mask"]


def test_a_missing_or_gradient_figure_shows_the_dash_placeholder():
    """No `where` for a missing gradient, and no NumPy-twin error for a gradient's mismatch: both
    lines put "—" in that field rather than an empty or made-up value."""
    lost = CaseResult(0, False, Problem("grad_missing", yours="no_graph"), stage="grad", where="")
    with said() as heard:
        lines = _problem_lines(lost, ("y",), 1e-6)
    assert len(lines) == 1 and heard.carrying(where="—", note=en(GRAD_NOTES["no_graph"]))
    wrong = CaseResult(0, False, Problem("value", (1,), 1.0, 2.0, max_err=1.0), stage="grad", where="x", err_twin=0.5)
    with said() as heard:
        lines = _problem_lines(wrong, ("y",), 1e-6)
    assert len(lines) == 2 and heard.carrying(ref="1", twin="—", atol="1e-06")


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


@pytest.mark.parametrize(("yours", "named"), [(None, "None"), (3, "int"), ([1.0], "list"), (("list", 2), ("list", 2))])
def test_an_answer_that_is_no_tensor_is_named_by_what_the_learner_returned(yours, named):
    """A function that forgot its `return` gives None: the report says "you return None", the
    name Python prints for it (not "NoneType", nor another spelling)."""
    problem = first_problem(yours, torch.zeros(2), 1e-10)
    assert problem is not None and (problem.what, problem.yours) == ("type", named)


def test_the_scan_judges_the_very_text_whose_digest_the_report_holds(tmp_path, monkeypatch):
    """The learner's file is read once: a file saved again between two reads would be scanned as
    the new text and graded and named (its digest) as the old one."""
    from glassformer.exercises.grading import reading

    path = tmp_path / "softmax.py"
    clean = "def softmax(x, dim=-1):\n    return x\n"
    path.write_text(clean)
    first_read = reading.read_source

    def read_then_saved_again(file):
        text = first_read(file)
        path.write_text("import torch\ndef softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n")
        return text

    monkeypatch.setattr(reading, "read_source", read_then_saved_again)
    report = grading._static_checks("softmax", path, timeout=5.0)
    assert report.digest == hashlib.sha256(clean.encode()).hexdigest()
    assert (report.status, report.offences) == ("pending", [])


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
    with said() as heard:
        lines = _problem_lines(res, ("y",), 1e-6)
    [fields] = heard.having("where", "note")
    assert fields["where"] == name and lines == [heard.sentence(where=name)]  # the input named, the note worded
    assert fields["note"] == shown(heard.one())  # the "unused" note, said on its own


def test_a_gradient_off_the_twins_slope_shows_both_slopes_to_ten_digits():
    slope = CaseResult(0, False, Problem("twin_slope", yours=0.125, ref=-1 / 3), stage="grad", where="x")
    with said() as heard:
        lines = _problem_lines(slope, ("y",), 1e-6)
    assert heard.carrying(where="x", yours="0.125", ref="-0.3333333333")  # both slopes, to ten digits
    assert lines == [heard.sentence(where="x", yours="0.125", ref="-0.3333333333")]

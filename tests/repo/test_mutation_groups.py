"""tests/mutation/groups.py, the mutation-testing driver: how it draws a sample, leaves out earlier
samples (one file or several), and computes the Wilson interval it reports."""

import importlib.util
from pathlib import Path

import pytest
from helpers import ROOT

_SPEC = importlib.util.spec_from_file_location("groups", Path(__file__).parents[1] / "mutation" / "groups.py")
groups = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(groups)

NAMES = [f"glassformer.{g}.f.x_f__mutmut_{i}" for g in ("nn", "text") for i in range(1, 41)]


def test_several_exclude_files_leave_out_every_name_in_any_of_them(tmp_path):
    """A fresh sample must share no mutant with *any* earlier sample (the bug: only the last
    --exclude file counted, so sample C could re-draw sample A's mutants, whose tests were written
    for them, and read high)."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(NAMES[:30]) + "\n")
    b.write_text("\n".join(NAMES[40:75]) + "\n")
    left_out = groups.excluded_names([str(a), str(b)])
    assert left_out == set(NAMES[:30]) | set(NAMES[40:75])
    chosen = groups.choose(NAMES, ["nn", "text"], 10, seed=2, left_out=left_out)
    assert sorted(chosen) == sorted(set(NAMES[30:40]) | set(NAMES[75:]))  # all that is left: 10 + 5
    chosen = groups.choose(NAMES, ["nn", "text"], 3, seed=2, left_out=left_out)
    assert len(chosen) == 6 and not set(chosen) & left_out


def test_both_spellings_of_exclude_reach_the_run(monkeypatch):
    seen = {}
    monkeypatch.setattr(groups, "run", lambda *args: seen.setdefault("exclude", args[4]))
    groups.main(["run", "--sample", "3", "--exclude", "a.txt", "b.txt", "--exclude", "c.txt"])
    assert seen["exclude"] == ["a.txt", "b.txt", "c.txt"]


def test_a_missing_exclude_file_is_named_before_anything_runs(monkeypatch, tmp_path):
    monkeypatch.setattr(groups, "mutmut", lambda *a: pytest.fail("mutmut must not start"))
    with pytest.raises(SystemExit) as e:
        groups.run(["nn"], 3, 0, 1, exclude=[str(tmp_path / "a.txt"), "nowhere.txt"][1:])
    assert str(e.value).startswith("--exclude nowhere.txt:")  # the flag and the file that is not there
    with pytest.raises(SystemExit) as e:  # --exclude without --sample: the flag to add is named
        groups.run(["nn"], None, 0, 1, exclude=["a.txt"])
    assert str(e.value).startswith("--exclude ") and "--sample N" in str(e.value)


def test_sample_grows_by_extension_and_seeds_differ():
    small = groups.choose(NAMES, ["nn"], 5, seed=1, left_out=set())
    large = groups.choose(NAMES, ["nn"], 12, seed=1, left_out=set())
    assert set(small) < set(large)
    assert set(groups.choose(NAMES, ["nn"], 12, seed=2, left_out=set())) != set(large)


def test_wilson_interval_against_worked_values():
    """The 95% Wilson score interval, checked against values worked by hand from its formula
    (49/58: 0.7306-0.9162; 0/10: 0-0.2775; 10/10: 0.7225-1)."""
    for (k, n), (lo, hi) in {(49, 58): (0.7306, 0.9162), (0, 10): (0.0, 0.2775), (10, 10): (0.7225, 1.0)}.items():
        got = groups.wilson(k, n)
        assert got == pytest.approx((lo, hi), abs=1e-4)


def test_only_the_equivalent_table_is_read_as_equivalent(tmp_path, monkeypatch):
    """Survivors left alone (another table) count against the rate; only the rows of the
    "Equivalent mutants" table are left out of it, every name of a row's first cell (the bug: every
    table's first name was read as equivalent, which raised the rate)."""
    doc = tmp_path / "testing.md"
    doc.write_text(
        """# Testing
| mutant | why |
|---|---|
| `glassformer.a.x_f__mutmut_1` | a table before the section |

### Equivalent mutants

| mutant | why it is equivalent |
|---|---|
| `glassformer.sample.x_f__mutmut_2` | reason, naming `glassformer.sample.x_f__mutmut_9` in passing |
| `glassformer.sample.x_g__mutmut_3`, `glassformer.sample.x_g__mutmut_4` | two alike |

### Survivors not killed

| `glassformer.sample.x_h__mutmut_5` | left alone |
""",
        encoding="utf-8",
    )
    monkeypatch.setattr(groups, "DOC", doc)
    assert groups.equivalent_names() == {
        "glassformer.sample.x_f__mutmut_2",
        "glassformer.sample.x_g__mutmut_3",
        "glassformer.sample.x_g__mutmut_4",
    }


def test_weighted_rate_weighs_each_group_by_its_share_of_the_population():
    """Sample G's per-group counts with the population's group sizes, worked by hand:
    (2835·1 + 2098·1 + 3984·0.8 + 290·8/9 + 2913·0.9 + 2776·0.8) / 14896 = 0.887519.
    A group missing from the sample (or with nothing counted) leaves the weights of the others."""
    per_group = {
        "nn": (10, 10),
        "models": (10, 10),
        "train": (8, 10),
        "sample": (8, 9),
        "text": (9, 10),
        "inspect": (8, 10),
    }
    population = {"nn": 2835, "models": 2098, "train": 3984, "sample": 290, "text": 2913, "inspect": 2776}
    assert groups.weighted_rate(per_group, population) == pytest.approx(0.887519, abs=1e-6)
    assert groups.weighted_rate({"nn": (5, 10), "text": (0, 0)}, population) == 0.5
    assert groups.weighted_rate({"nn": (10, 10), "train": (0, 10)}, population) == pytest.approx(2835 / (2835 + 3984))


def test_report_prints_the_overall_and_the_weighted_rate(tmp_path, monkeypatch, capsys):
    """The report's last table line: all groups together with their Wilson interval, and the
    weighted estimate (a sample of 2 nn mutants, both killed, and 2 text, one alive)."""
    results = {
        "glassformer.nn.a.x__mutmut_1": 1,
        "glassformer.nn.a.x__mutmut_2": 1,
        "glassformer.text.b.x__mutmut_1": 1,
        "glassformer.text.b.x__mutmut_2": 0,
        "glassformer.text.b.x__mutmut_3": None,
        "glassformer.text.b.x__mutmut_4": None,
    }
    monkeypatch.setattr(groups, "all_results", lambda: results)
    monkeypatch.setattr(groups, "equivalent_names", set)
    names = tmp_path / "names.txt"
    names.write_text("\n".join(list(results)[:4]))
    groups.report(str(names))
    out = capsys.readouterr().out
    lo, hi = groups.wilson(3, 4)
    # population: nn 2, text 4 -> (2·1 + 4·0.5) / 6
    [total] = [line.split() for line in out.splitlines() if line.startswith("all ")]
    assert total[1:6] == ["3", "/", "4", "=", "75.0%"] and total[6] == f"({100 * lo:.1f}-{100 * hi:.1f});"
    assert total[-1] == "66.7%"  # weighted by each group's share of the population
    assert ["survived", "glassformer.text.b.x__mutmut_2"] in [line.split() for line in out.splitlines()]


def test_results_of_a_module_no_longer_in_src_are_not_drawn(tmp_path):
    """mutmut keeps the .meta of a module that was moved or merged away; its mutants cannot run, so
    a sample must not draw them (sample M drew 5 such names: models/gpt2_files.py and friends)."""
    import json

    for module, names in (
        ("kept.py", {"glassformer.kept.x_f__mutmut_1": 1}),
        ("gone.py", {"glassformer.gone.x_g__mutmut_1": None}),
    ):
        meta = tmp_path / "mutants" / "src" / "glassformer" / f"{module}.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": names}))
    (tmp_path / "src" / "glassformer").mkdir(parents=True)
    (tmp_path / "src" / "glassformer" / "kept.py").write_text("")
    assert groups.all_results(tmp_path) == {"glassformer.kept.x_f__mutmut_1": 1}


def test_the_groups_added_for_causal_exercises_lab_explore_and_devices_take_their_mutants():
    """Each new group takes the mutants of its code and no other's; the lab's group only its rules
    (verdicts, judge and what they call), the exercises' only the grader (sandbox and grading)."""
    cases = {
        "glassformer.causal.patching.x_patch__mutmut_1": "causal",
        "glassformer.exercises.sandbox.x_run_job__mutmut_3": "exercises",
        "glassformer.exercises.grading.xǁGraderǁgrade__mutmut_2": "exercises",
        "glassformer.exercises.catalog.x_find__mutmut_1": None,  # the catalogue of skeletons: not the grader
        "glassformer.lab.induction.x_together__mutmut_2": "lab",
        "glassformer.lab.attention_explanation.x_verdicts__mutmut_7": "lab",
        "glassformer.lab.runner.x_judge__mutmut_1": "lab",
        "glassformer.lab.common.x_spread__mutmut_4": "lab",  # a helper a rule calls
        "glassformer.lab.induction.x_run__mutmut_1": None,  # the training run: not a rule
        "glassformer.lab.induction.x_together_extra__mutmut_1": None,  # a name that only starts like one
        "glassformer.explore.server.x_serve__mutmut_5": "explore",
        "glassformer.devices.x_checked_peak__mutmut_1": "devices",
        "glassformer.nn.hooks.x_meaning__mutmut_1": "nn",
    }
    assert {name: groups.group_of(name) for name in cases} == cases
    assert {"verdicts", "judge", "together", "level", "spread", "below"} <= groups.lab_rules()
    assert not {"run", "plot", "train", "run_experiment"} & groups.lab_rules()


def test_pyproject_mutates_every_group_s_files_and_selects_their_tests():
    import fnmatch
    import tomllib

    root = ROOT
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    files = {
        "causal": "src/glassformer/causal/patching.py",
        "exercises": "src/glassformer/exercises/sandbox.py",
        "lab": "src/glassformer/lab/induction.py",
        "explore": "src/glassformer/explore/server.py",
        "devices": "src/glassformer/devices.py",
        "nn": "src/glassformer/nn/attention.py",
    }
    for group, path in files.items():
        assert group in groups.GROUPS and (root / path).is_file(), group
        assert any(fnmatch.fnmatch(path, pattern) for pattern in config["only_mutate"]), path
    assert not any(fnmatch.fnmatch("src/glassformer/exercises/defs/x.py", p) for p in config["only_mutate"])
    selection = config["pytest_add_cli_args_test_selection"]
    assert selection[0] == "tests"  # every tier, less the folders ignored
    ignored = {arg.split("=", 1)[1] for arg in selection if arg.startswith("--ignore=")}
    assert {"tests/e2e/browser", "tests/e2e/lessons", "tests/gpu"} <= ignored  # browsers, whole lessons, CUDA: out
    tested = ("tests/nn", "tests/exercises", "tests/lab", "tests/explore", "tests/causal", "tests/e2e/reliability")
    assert not any(path.startswith(tested) for path in ignored)  # the groups' own tests are in
    assert "docs/lab" in config["also_copy"]  # tests/lab reads the committed results


def test_a_dry_run_lists_the_names_it_would_run_and_runs_none(monkeypatch, capsys):
    names = [f"glassformer.devices.x_f__mutmut_{i}" for i in range(1, 9)] + ["glassformer.nn.f.x_f__mutmut_1"]
    monkeypatch.setattr(groups, "all_results", lambda: dict.fromkeys(names))
    monkeypatch.setattr(groups, "mutmut", lambda *a: pytest.fail("a dry run runs nothing"))
    groups.main(["run", "devices", "--sample", "3", "--dry-run"])
    listed = capsys.readouterr().out.split()
    assert len(listed) == 3 and set(listed) <= set(names[:8])
    assert listed == groups.choose(names, ["devices"], 3, seed=0, left_out=set())
    groups.main(["run", "devices", "--dry-run"])  # every mutant of the group
    assert capsys.readouterr().out.split() == names[:8]

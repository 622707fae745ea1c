"""The natural-text induction entry (lab/induction_text.py): its rule on made-up numbers (every
level, each part able to fail alone), and the same rule re-applied to the committed full run."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT

from glassformer.lab import induction, induction_text
from glassformer.lab.induction import icl_tokens, summary

RESULTS = ROOT / "docs" / "lab" / "induction-text" / "results.json"


def made_up(share: float = 0.8, half: int | None = 500, ind: int | None = 520, prev: int | None = 480) -> dict:
    s = {
        "final_icl": -0.5,
        "half_step": half,
        "window_share": share,
        "induction_step": ind,
        "previous_step": prev,
        "final_induction": 0.7,
        "final_previous": 0.8,
    }
    return {"steps": 1000, "runs": {m: [{"summary": s}, {"summary": s}] for m in induction_text.MODELS}}


@pytest.mark.parametrize("model", induction_text.MODELS)
def test_the_rule_comes_out_every_way(model):
    key = f"induction-text.{model}"
    assert induction_text.verdicts(made_up())[key].level == "holds"
    assert induction_text.verdicts(made_up(share=0.3))[key].level == "half-true"  # gradual, heads on time
    assert induction_text.verdicts(made_up(ind=700))[key].level == "half-true"  # abrupt, head 200 steps late
    assert induction_text.verdicts(made_up(ind=None))[key].level == "half-true"  # abrupt, no induction head
    assert induction_text.verdicts(made_up(prev=None))[key].level == "half-true"  # no previous-token head
    assert induction_text.verdicts(made_up(share=0.3, ind=None))[key].level == "fails"
    assert induction_text.verdicts(made_up(share=0.3, half=None))[key].level == "fails"


def test_one_late_seed_is_enough_to_miss_at_the_same_time():
    r = made_up()
    late = {**r["runs"]["ffn"][0]["summary"], "induction_step": 500 + int(induction.TOGETHER * 1000) + 50}
    r["runs"]["ffn"] = [r["runs"]["ffn"][0], {"summary": late}]
    v = induction_text.verdicts(r)
    assert v["induction-text.ffn"].level == "half-true" and v["induction-text.attention"].level == "holds"


def test_the_boundary_of_at_the_same_time_is_inclusive():
    edge = 500 + int(induction.TOGETHER * 1000)
    assert induction_text.together({"half_step": 500, "induction_step": edge, "previous_step": 500}, 1000)
    assert not induction_text.together({"half_step": 500, "induction_step": edge + 1, "previous_step": 500}, 1000)


@pytest.fixture(scope="module")
def committed() -> dict:
    assert RESULTS.exists(), "glassformer lab run induction-text --threads 1 --out docs/lab"
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def test_the_committed_run_is_the_full_setup_on_shakespeare(committed):
    r = committed["results"]
    full = induction_text.FULL
    assert committed["fast"] is False and committed["seeds"] == 2
    assert r["corpus"] == "shakespeare" and r["steps"] == full["steps"] and r["L"] == full["L"]
    assert (r["early"], r["late"]) == icl_tokens(full["L"])
    for m in induction_text.MODELS:
        assert len(r["runs"][m]) == 2
        for run in r["runs"][m]:
            steps = [row["step"] for row in run["curve"]]
            assert steps == list(range(0, full["steps"] + 1, full["every"]))
            assert all(len(row["induction"]) == 2 and len(row["induction"][0]) == full["heads"] for row in run["curve"])


def test_the_committed_summaries_and_verdicts_follow_from_the_committed_curves(committed):
    r = committed["results"]
    for m in induction_text.MODELS:
        for run in r["runs"][m]:
            again = summary(run["curve"], r["steps"], r["perfect"])
            assert again == pytest.approx(run["summary"])
    v = induction_text.verdicts(r)
    assert {c["key"]: c["level"] for c in committed["claims"]} == {k: x.level for k, x in v.items()}

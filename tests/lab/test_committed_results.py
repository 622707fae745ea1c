"""docs/lab/ holds the full-mode results a reader sees without running anything: every experiment is
there, at full size, and each stored verdict is what its rule gives on the stored numbers."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT

from glassformer.lab import experiments
from glassformer.lab.report import LANGS, text
from glassformer.messages import translated

DOCS_LAB = ROOT / "docs" / "lab"
EXPERIMENTS = experiments()


def record(name: str) -> dict:
    path = DOCS_LAB / name / "results.json"
    assert path.exists(), f"no committed results for {name}: glassformer lab run {name} --threads 1 --out docs/lab"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_each_committed_result_is_full_mode_and_its_verdicts_follow_from_its_numbers(name):
    r = record(name)
    exp = EXPERIMENTS[name]
    assert r["experiment"] == name and r["fast"] is False and r["seeds"] >= 1
    assert r["command"].startswith(f"glassformer lab run {name} ") and "--fast" not in r["command"]
    assert [c["key"] for c in r["claims"]] == [c.key for c in exp.claims]  # a claim added later needs a new run
    verdicts = exp.verdicts(r["results"])  # the rule, applied again to the numbers that were stored
    assert [verdicts[c["key"]].level for c in r["claims"]] == [c["level"] for c in r["claims"]]
    for figure in r["figures"]:
        assert (DOCS_LAB / name / figure).read_bytes()[:4] == b"\x89PNG"
    assert r["machine"]["cores"] >= 1 and r["cpu_seconds"] > 0  # the report says how long, on what


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_the_catalogue_words_each_committed_result_as_it_was_stored(name):
    """Each stored sentence is the catalogue's, with the experiment's constants (titles, setups, rule
    thresholds) and the stored figures (findings) as its fields: the words moved, no figure changed."""
    r, exp = record(name), EXPERIMENTS[name]
    for lang in LANGS:
        assert r[f"title_{lang}"] == text(lang, exp.title)
        assert r[f"setup_{lang}"] == text(lang, exp.setup, **exp.setup_fields)
        for claim, c in zip(exp.claims, r["claims"], strict=True):
            assert c[f"claim_{lang}"] == text(lang, claim.claim)
            assert c[f"rule_{lang}"] == text(lang, claim.rule, **claim.limits)
            assert c[f"finding_{lang}"] == text(lang, claim.finding, **{**claim.limits, **c["figures"]})
            if claim.paper:  # a ledger entry: the paper's sentence and ours, as the catalogue words them today
                assert c[f"paper_{lang}"] == text(lang, claim.paper_says)
                assert c[f"ours_{lang}"] == text(lang, claim.ours, **{**claim.limits, **c["figures"]})


def test_a_ledger_row_without_the_paper_s_number_says_what_was_read():
    """Was "not found in the paper text available to this run", which reads as if the user's own run
    had looked: each such row now names what was read (the passages it quotes, or the page's opening)."""
    for lang, old, new in (("en", "available to this run", "read for this entry"), ("zh", "本次运行", "为本条目读过")):
        says = [c.paper_says for e in EXPERIMENTS.values() for c in e.claims if c.paper]
        papers = [
            text(
                lang,
                "One row per claim of a published result, scaled down to a "
                "laptop CPU: the paper's number (and where it is printed) "
                "beside ours, and a verdict from a rule written as code "
                "before the run. Where the paper's number is not in the "
                "parts of the paper read for the entry, the row says so "
                "instead of quoting one.",
            )
        ] + [translated(k, lang) for k in says]  # unformatted: fields unfilled
        # snapshot: the ledger's wording fix itself (a missing number names what was read, not "this run")
        assert not [words for words in papers if old in words]
        assert sum(new in words for words in papers) >= 10


def test_the_index_lists_every_experiment_and_every_verdict():
    index = (DOCS_LAB / "index.md").read_text(encoding="utf-8")
    page = (DOCS_LAB / "index.html").read_text(encoding="utf-8")
    for name in EXPERIMENTS:
        r = record(name)
        assert f"]({name}/report.md)" in index and f'href="{name}/report.md"' in page
        for c in r["claims"]:
            assert c["finding_en"] in index
    assert "http" not in page  # offline: no script, font or style sheet from anywhere

"""The lab's words in the catalogue (messages/lab.py): the same keys and {fields} in English and
Chinese, every claim fully worded, no measured figure and no rule threshold typed into a sentence."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from helpers import assert_tables_match

from glassformer.lab import experiments, order
from glassformer.lab.report import text
from glassformer.lab.runner import TUTORIALS, figure
from glassformer.messages import TABLES

LAB = {lang: {k: v for k, v in TABLES[lang].items() if k.startswith("lab.") and k.count(".") > 1} for lang in TABLES}
EXPERIMENTS = experiments()


def test_english_and_chinese_have_the_same_lab_keys_and_fields():
    assert len(LAB["en"]) > 90
    assert_tables_match(LAB["en"], LAB["zh"], untranslated=frozenset({"lab.report.sep"}))  # a list separator


def words_of(claim) -> tuple[str, ...]:
    """A claim's sentences: its claim, rule and finding, and a ledger entry's paper_says and ours."""
    return (claim.claim, claim.rule, claim.finding) + ((claim.paper_says, claim.ours) if claim.paper else ())


def test_every_experiment_and_claim_has_its_words():
    used = []
    for name, exp in EXPERIMENTS.items():
        assert exp.title in LAB["en"] and exp.setup in LAB["en"], name
        assert exp.claims, f"{name} tests no claim"
        used += [exp.title, exp.setup]
        for claim in exp.claims:
            assert claim.tutorial in TUTORIALS or claim.paper, claim  # a tutorial, or a ledger paper
            assert claim.key.startswith(name + "."), f"{claim.key} should start with {name}."
            assert all(words in LAB["en"] for words in words_of(claim)), claim.key
            assert bool(claim.paper) == bool(claim.paper_says) == bool(claim.ours), claim.key  # a ledger entry's two
            used += words_of(claim)
    assert len(used) == len(set(used)), "two places say one sentence: each claim has its own words"
    shared = ("lab.level.", "lab.report.", "lab.ledger.", "lab.list.")
    stray = [k for k in LAB["en"] if not k.startswith(shared) and k not in used]
    assert not stray, f"keys no experiment uses: {stray}"


FIGURE = re.compile(r"\d\.\d|\d[eE]-?\d|\d\s*%|\d+(\.\d+)?\s*nats")  # 0.1, 1e-6, 5%, 0.5 nats


def test_no_figure_is_typed_into_a_claim_finding_or_rule():
    """Measured numbers come in as the verdict's fields, a rule's thresholds as its claim's limits:
    the sentence and the code that judges share one constant."""
    for table in LAB.values():
        for key, words in table.items():
            if key.endswith((".finding", ".claim", ".rule", ".ours")) or key in (
                "lab.heads.setup",
                "lab.scaling.setup",
            ):
                bare = re.sub(r"\{[^}]*\}", "", words).replace("-1e9", "")  # -1e9: the fill under test, a name
                assert not FIGURE.search(bare), f"{key}: {words!r}"


def test_each_rule_and_setup_is_given_exactly_the_fields_its_sentence_names():
    for exp in EXPERIMENTS.values():
        for lang in LAB:
            text(lang, exp.setup, **exp.setup_fields)  # a missing field raises KeyError
            for claim in exp.claims:
                named = set(re.findall(r"\{(\w+)", LAB[lang][claim.rule]))
                assert named == set(claim.limits), claim.key


def test_a_rule_states_the_threshold_the_code_applies(monkeypatch):
    assert figure(1e-6) == "1e-6" and figure(0.05) == "0.05" and figure(1.25) == "1.25" and figure(4) == "4"
    rule = text("en", "lab.order.set.rule", **order.EXPERIMENT.claims[0].limits)
    assert f"at most {figure(order.EQUIVARIANT)})" in rule and f"{figure(order.BLIND)} nats" in rule
    moved = replace(order.EXPERIMENT.claims[0], limits={"equivariant": figure(1e-9), "blind": figure(0.2)})
    assert "1e-9" in text("zh", "lab.order.set.rule", **moved.limits)  # the figure comes from the constant
    with pytest.raises(KeyError):
        text("en", "lab.order.set.rule")  # a rule cannot be worded without its thresholds

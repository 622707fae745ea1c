"""The lab's words: every experiment and claim fully worded, in English and Chinese, no measured
figure and no rule threshold typed into a sentence (that the two languages carry the same {fields}:
tests/messages/test_catalogue.py, for every sentence)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from helpers import in_catalogue

from glassformer.lab import experiments, order
from glassformer.lab.report import text
from glassformer.lab.runner import TUTORIALS, figure
from glassformer.messages import translated

LANGS = ("en", "zh")
EXPERIMENTS = experiments()


def words_of(claim) -> tuple[str, ...]:
    """A claim's sentences: its claim, rule and finding, and a ledger entry's paper_says and ours."""
    return (claim.claim, claim.rule, claim.finding) + ((claim.paper_says, claim.ours) if claim.paper else ())


def test_every_experiment_and_claim_has_its_words():
    used, ours = [], set()
    for name, exp in EXPERIMENTS.items():
        assert in_catalogue(exp.title) and in_catalogue(exp.setup), name
        assert exp.claims, f"{name} tests no claim"
        used += [exp.title, exp.setup]
        mine: list[str] = []  # one experiment's claims may share a rule's words: the one rule on two texts (yarn)
        for claim in exp.claims:
            assert claim.tutorial in TUTORIALS or claim.paper, claim  # a tutorial, or a ledger paper
            assert claim.key.startswith(name + "."), f"{claim.key} should start with {name}."
            assert all(in_catalogue(words) for words in words_of(claim)), claim.key
            assert bool(claim.paper) == bool(claim.paper_says) == bool(claim.ours), claim.key  # a ledger entry's two
            assert claim.claim not in mine, claim.key  # but each claims its own thing
            mine += [w for w in words_of(claim) if w not in mine]
            ours.add(claim.ours)
        used += mine
    # each claim has its own words; a ledger entry's `ours` reads measured fields, and two entries that
    # measure the same things share it (induction-text's attention and ffn entries)
    own = [words for words in used if words not in ours]
    assert len(own) == len(set(own)), "two places say one sentence: each claim has its own words"


FIGURE = re.compile(r"\d\.\d|\d[eE]-?\d|\d\s*%|\d+(\.\d+)?\s*nats")  # 0.1, 1e-6, 5%, 0.5 nats


def test_no_figure_is_typed_into_a_claim_finding_or_rule():
    """Measured numbers come in as the verdict's fields, a rule's thresholds as its claim's limits:
    the sentence and the code that judges share one constant."""
    setups = [EXPERIMENTS[name].setup for name in ("heads", "scaling")]  # (others cite a tutorial's section, 4.2)
    sentences = [translated(setup, lang) for setup in setups for lang in LANGS]
    for exp in EXPERIMENTS.values():
        for claim in exp.claims:
            said = (claim.claim, claim.rule, claim.finding) + ((claim.ours,) if claim.paper else ())
            sentences += [translated(s, lang) for s in said for lang in LANGS]
    for words in sentences:
        bare = re.sub(r"\{[^}]*\}", "", words).replace("-1e9", "")  # -1e9: the fill under test, a name
        assert not FIGURE.search(bare), repr(words)


def test_each_rule_and_setup_is_given_exactly_the_fields_its_sentence_names():
    for exp in EXPERIMENTS.values():
        for lang in LANGS:
            text(lang, exp.setup, **exp.setup_fields)  # a missing field raises KeyError
            for claim in exp.claims:
                named = set(re.findall(r"\{(\w+)", translated(claim.rule, lang)))
                assert named == set(claim.limits), claim.key


def test_a_rule_states_the_threshold_the_code_applies(monkeypatch):
    assert figure(1e-6) == "1e-6" and figure(0.05) == "0.05" and figure(1.25) == "1.25" and figure(4) == "4"
    claim = order.EXPERIMENT.claims[0]  # its rule names the two thresholds order.py applies
    assert claim.limits == {"equivariant": figure(order.EQUIVARIANT), "blind": figure(order.BLIND)}
    for lang in LANGS:
        rule = text(lang, claim.rule, **claim.limits)
        assert figure(order.EQUIVARIANT) in rule and figure(order.BLIND) in rule
    moved = replace(claim, limits={"equivariant": figure(1e-9), "blind": figure(0.2)})
    assert "1e-9" in text("zh", moved.rule, **moved.limits)  # the figure comes from the constant
    with pytest.raises(KeyError):
        text("en", claim.rule)  # a rule cannot be worded without its thresholds

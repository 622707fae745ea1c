"""The lab's two text tables: same keys, same {fields}, every claim fully worded, no result typed in."""

from __future__ import annotations

import re

from helpers import assert_tables_match

from glassformer.lab import experiments, text_en, text_zh


def test_english_and_chinese_tables_have_the_same_keys_and_fields():
    assert_tables_match(text_en.TEXT, text_zh.TEXT)


def test_every_experiment_and_claim_has_its_words():
    for name, exp in experiments().items():
        assert f"{name}.title" in text_en.TEXT and f"{name}.setup" in text_en.TEXT, name
        assert exp.claims, f"{name} tests no claim"
        for claim in exp.claims:
            assert claim.tutorial in ("000", "002", "004"), claim
            assert claim.key.startswith(name + "."), f"{claim.key} should start with {name}."
            for part in ("claim", "rule", "finding"):
                assert f"{claim.key}.{part}" in text_en.TEXT, f"{claim.key}.{part}"
    known = {f"{c.key}.{p}" for e in experiments().values() for c in e.claims for p in ("claim", "rule", "finding")}
    known |= {f"{n}.{p}" for n in experiments() for p in ("title", "setup")}
    stray = [k for k in text_en.TEXT if not k.startswith(("level.", "report.")) and k not in known]
    assert not stray, f"keys no experiment uses: {stray}"


def test_measured_figures_come_in_through_fields():
    """A finding or claim holds no decimal fraction: every measured number is a {field}. (Rules
    state their thresholds in words and numbers: those are the rule, not a result.)"""
    for table in (text_en.TEXT, text_zh.TEXT):
        for key, text in table.items():
            if key.endswith((".finding", ".claim")):
                stripped = re.sub(r"\{[^}]*\}", "", text)
                assert not re.search(r"\d\.\d", stripped), f"{key}: {text!r}"

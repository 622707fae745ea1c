"""The exercises' sentences: every one the exercises use is in the catalogue, in English and Chinese,
with well-formed {fields} and the fields the exercises pass (that both languages carry the same
fields, and that the catalogue holds nothing no code says: tests/messages/test_catalogue.py)."""

from __future__ import annotations

import re

from helpers import ROOT, in_catalogue
from helpers import format_fields as fields

from glassformer.exercises import catalog
from glassformer.exercises.grading.comparing import prepare
from glassformer.messages import speaking, t, translated


def used_keys() -> dict[str, set[str]]:
    """Every key the exercises refer to, with the fields they pass."""
    keys = {}
    for name in catalog.ORDER:
        ex = catalog.get(name)
        for key in [ex.title, ex.todo, *ex.hints]:
            keys[key] = set()
        keys.update({f.doc: set() for f in ex.functions})
        keys.update({v.note: set() for v in ex.variants})
        keys.update({k: set() for _, k in ex.error_hints})
        keys.update({r.why: set() for r in ex.forbidden})
        for case in prepare(name).cases:
            keys[case.label] = keys.get(case.label, set()) | set(case.fields)
    return keys


def test_every_key_in_use_exists_and_gets_the_fields_it_needs():
    for key, given in used_keys().items():
        assert in_catalogue(key), key
        assert fields(translated(key, "en")) <= given, (key, fields(translated(key, "en")), given)
        for lang in ("en", "zh"):  # no stray braces (Σ_{b,t})
            assert all(f.isidentifier() for f in fields(translated(key, lang))), (key, lang)


def test_every_variant_has_a_targeted_message_and_three_hints_per_exercise():
    for name in catalog.ORDER:
        ex = catalog.get(name)
        assert len(set(ex.hints)) == 3, name
        for hint in ex.hints:
            assert len(t(hint)) > 20
        assert len({v.note for v in ex.variants}) == len(ex.variants), name  # each mistake its own message
        with speaking("zh"):
            for v in ex.variants:
                assert len(t(v.note)) > 10


def test_the_docs_list_every_exercise_in_order_with_its_functions_and_tolerance():
    docs = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| (.+) \| (\S+) \|$", docs, re.M)
    assert [(int(n), name) for n, name, _, _ in rows] == list(enumerate(catalog.ORDER, 1))
    for _, name, written, atol in rows:
        ex = catalog.get(name)
        assert float(atol) == ex.atol, name
        for f in ex.functions:
            assert f"`{f.name}(" in written, (name, f.name)
    n_variants = sum(len(catalog.get(name).variants) for name in catalog.ORDER)
    assert re.search(rf"\({n_variants}\b[^()]*\)", docs)  # the count of known mistakes, in parentheses

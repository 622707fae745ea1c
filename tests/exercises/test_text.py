"""The exercises' part of the one catalogue (messages/exercises.py, `words` here): same keys, same {fields},
every key the exercises use is there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers import ROOT, assert_tables_match
from helpers import format_fields as fields

from glassformer.exercises import catalog
from glassformer.exercises.grading.comparing import prepare
from glassformer.messages import exercises as words
from glassformer.messages import speaking, t

SYMBOLIC = {
    "exercise.causal_mask.case.T",
    "exercise.sampling.case.k",
    "exercise.sampling.case.p",
    "exercise.sinusoidal.case.size",
}  # no words to translate


def test_both_tables_have_the_same_keys_and_fields():
    assert_tables_match(words.EN, words.ZH, untranslated=SYMBOLIC)
    for key in words.EN:
        assert all(f.isidentifier() for f in fields(words.EN[key])), key  # no stray braces (Σ_{b,t})


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
        assert key in words.EN, key
        assert fields(words.EN[key]) <= given, (key, fields(words.EN[key]), given)


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
    assert f"({n_variants} in all)" in docs


def test_every_exercise_key_is_written_literally_in_the_code_that_reads_it():
    """No key is built at run time (f"exercise.{name}.title"), so a grep for a key finds where it is
    used, and a key no code names is dead: both fail here."""
    src = Path(catalog.__file__).parents[1]
    literal = {
        node.value
        for path in src.rglob("*.py")
        if "messages" not in path.relative_to(src).parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert [key for key in words.EN if key not in literal] == []

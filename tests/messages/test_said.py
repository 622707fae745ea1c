"""tests/helpers.py `said()`: a test can read which catalogue keys, with which fields, were put into
words during a call, whichever module made the sentence, and `t` is itself again afterwards."""

from __future__ import annotations

import importlib
import sys

from helpers import Said, said

from glassformer import messages
from glassformer.errors import UsageError


def test_it_hears_t_in_a_module_that_imported_it_and_in_say(capsys):
    """Made-up templates without words: what is heard is whatever `t` was given."""
    import glassformer.train.loop as loop

    with said() as heard:
        loop.t("{dir}@{step}", dir="runs/x", step=5)
        messages.say("{glassformer}>{dir}", dir="runs/x", glassformer="glassformer")
        str(
            UsageError("config.type", "--{key}={value!r}:{type}", key="lr", value="x", type="float")
        )  # words made in errors.py
    assert heard[:2] == [
        ("{dir}@{step}", {"dir": "runs/x", "step": 5}),
        ("{glassformer}>{dir}", {"dir": "runs/x", "glassformer": "glassformer"}),
    ]
    assert heard.of("config.type") == [{"key": "lr", "value": "x", "type": "float"}]  # an error: by its code
    assert heard.keys()[:2] == ["{dir}@{step}", "{glassformer}>{dir}"]
    assert heard.of("{dir}@{step}") == [{"dir": "runs/x", "step": 5}]
    assert (
        capsys.readouterr().out == messages.t("{glassformer}>{dir}", dir="runs/x", glassformer="glassformer") + "\n"
    )  # still said


def test_t_is_given_back_even_to_a_module_first_imported_inside_the_block():
    name = "glassformer.cli.train"
    saved = sys.modules.pop(name, None)  # a fresh import of it; the loaded one is put back after
    try:
        with said():
            module = importlib.import_module(name)  # binds `t` while the recorder stands in
        assert module.t is messages.t
        with said() as heard:  # and a later block hears it
            module.t("{dir}@{step}", dir="d", step=1)
        assert heard.keys() == ["{dir}@{step}"]
    finally:
        if saved is not None:
            sys.modules[name] = saved
            sys.modules["glassformer.cli"].train = saved  # the package's attribute too
    assert all(getattr(m, "t", messages.t) is messages.t for n, m in sys.modules.items() if n.startswith("glassformer"))


def test_carrying_picks_sentences_by_their_fields_whatever_their_words():
    heard = Said([("words {dir} {step}", {"dir": "r", "step": 20}), ("other", {"step": 3}), ("none", {})])
    assert heard.carrying(step=20, dir="r") == [{"dir": "r", "step": 20}]
    assert heard.carrying(step=3) == [{"step": 3}]
    assert heard.carrying(step=4) == [] and heard.carrying(missing=1) == [] and heard.carrying(dir="r", step=3) == []


def test_worded_rendered_and_having_read_sentences_by_their_fields_and_leave_error_codes_out():
    heard = Said([("{a}-{b}", {"a": 1, "b": 2}), ("{a}", {"a": 1}), ("area.code", {"a": 1})])
    assert heard.worded(a=1) == ["1-2", "1"] and heard.worded(b=2) == ["1-2"] and heard.worded(a=3) == []
    assert heard.rendered(a=1) == "1" and heard.renderings(a=1, b=2) == ["1-2"]
    assert heard.having("a") == [{"a": 1, "b": 2}, {"a": 1}] and heard.having("a", "b") == [{"a": 1, "b": 2}]


def test_wording_what_was_heard_inside_the_block_is_not_heard_again():
    with said() as heard:
        messages.t("{a}-{b}", a=1, b=2)
        assert heard.sentence(a=1) == "1-2" and heard.worded(b=2) == ["1-2"]
    assert heard == [("{a}-{b}", {"a": 1, "b": 2})]


def test_exactly_and_one_find_a_sentence_by_its_field_names_and_shown_words_it():
    from helpers import shown

    heard = Said([("{a}-{b}", {"a": 1, "b": 2}), ("{a}!", {"a": 3}), ("area.code", {"a": 1})])
    assert heard.exactly("b", "a") == [("{a}-{b}", {"a": 1, "b": 2})] and heard.exactly("b") == []
    assert heard.one("a") == ("{a}!", {"a": 3}) and shown(heard.one("a")) == "3!"

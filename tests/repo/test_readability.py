"""bench/readability.py's wording-pin count: an assert comparing with prose counts; of them, those whose
prose the package itself says (a rendered sentence, a piece of one) are told from a test's own text."""

from __future__ import annotations

import importlib.util

from helpers import ROOT

spec = importlib.util.spec_from_file_location("readability", ROOT / "bench" / "readability.py")
readability = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readability)


def test_a_pin_of_the_package_s_words_is_told_from_a_test_s_own_text(tmp_path):
    po = tmp_path / "src" / "glassformer" / "locale" / "zh" / "LC_MESSAGES" / "glassformer.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "Resumed {dir} from step {step} of the run"\nmsgstr "从第 {step} 步继续训练这个运行"\n')
    (tmp_path / "src" / "m.py").write_text('"""the dog sat on the mat: a docstring"""\nX = "cannot read this file"\n')
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text(
        "def test_a():\n"
        "    assert out == 'Resumed runs/x from step 4 of the run'\n"  # line 2: a rendered sentence
        "    assert tok.encode('the dog sat on the mat') == ids\n"  # line 3: the test's own input
        "    assert '继续训练这个' in err\n"  # line 4: four Chinese characters the catalogue says
        "    assert 'cannot read' in err\n"  # line 5: a two-word piece of a src string
        "    assert name == 'blocks.0.attn'\n"  # not prose
    )
    said = readability.package_words(tmp_path)
    assert readability.wording_pins(tests) == [f"tests/test_x.py:{n}" for n in (2, 3, 4, 5)]
    assert readability.wording_pins(tests, said=said) == [f"tests/test_x.py:{n}" for n in (2, 4, 5)]


def test_a_snapshot_comment_on_the_assertion_or_above_it_marks_a_pin_as_meant(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_y.py").write_text(
        "def test_b():\n"
        "    # snapshot: the first line a learner reads\n"
        "    assert out == 'the first line'\n"  # line 3: marked on the line above
        "    assert out == (\n"  # line 4: marked inside its own lines
        "        'the second line'  # snapshot: its layout is the lesson\n"
        "    )\n"
        "    assert out == 'the third line'\n"  # line 7: not marked
    )
    assert readability.wording_pins(tests) == [f"tests/test_y.py:{n}" for n in (3, 4, 7)]
    assert readability.wording_pins(tests, unmarked=True) == ["tests/test_y.py:7"]


def test_the_suite_pins_at_most_forty_of_the_package_s_sentences_each_marked_as_meant():
    """Issue 45's bound, kept: a test that compares with the package's words says why (`# snapshot:`),
    and there are at most forty; every other sentence is asserted by its code, fields and figures."""
    said = readability.package_words(ROOT)
    assert len(readability.wording_pins(ROOT / "tests", said=said)) <= 40
    assert readability.wording_pins(ROOT / "tests", said=said, unmarked=True) == []

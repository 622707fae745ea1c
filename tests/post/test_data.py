"""post/data.py's built-in sums: the DPO pairs' wrong answers give no shortcut to the right one."""

from __future__ import annotations

from glassformer.post.data import arithmetic_preferences, off_by


def test_a_wrong_answer_is_one_to_nine_away_above_or_below():
    for value in range(20, 199):
        assert 1 <= abs(int(off_by(value)) - value) <= 9


def test_the_pairs_wrong_answers_are_as_often_below_as_above():
    """All above (as before) let DPO win by answering lower whatever the sum: the lesson measured it."""
    pairs = arithmetic_preferences()
    above = sum(int(p.rejected) > int(p.chosen) for p in pairs)
    below = sum(int(p.rejected) < int(p.chosen) for p in pairs)
    assert above + below == len(pairs) == 512
    assert abs(above - below) < 0.1 * len(pairs)

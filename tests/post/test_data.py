"""post/data.py's built-in sums: the DPO pairs' wrong answers give no shortcut to the right one; pairs
written as JSON Lines read back the same."""

from __future__ import annotations

from glassformer.post.data import Preference, arithmetic_preferences, file_sha256, load, off_by, write_preferences


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


def test_written_pairs_read_back_as_the_same_pairs(tmp_path):
    pairs = [*arithmetic_preferences(3), Preference([{"role": "user", "content": "二+三="}], "5", "6")]
    write_preferences(tmp_path / "pairs.jsonl", pairs)
    read, identity = load("dpo", str(tmp_path / "pairs.jsonl"))
    assert read == pairs
    assert identity["data_sha256"] == file_sha256(tmp_path / "pairs.jsonl")

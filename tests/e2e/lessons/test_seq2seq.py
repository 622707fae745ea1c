"""Lesson 4: the encoder-decoder learns the number words, its masks do what they promise, its
cross-attention aligns digits with their words, and without its mask the decoder only copies."""

from __future__ import annotations

import pytest
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.lessons import seq2seq
from glassformer.lessons.seq2seq import digit_spans, smoothing_floor

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    lines = []
    result = seq2seq.run(out=tmp_path_factory.mktemp("seq2seq"), fast=True, explain=True, echo=lines.append)
    return result, "\n".join(lines)


def test_held_out_numbers_are_never_trained_on(lesson):
    split = lesson[0]["split"]
    assert split == {"train": 8500, "val": 500, "test": 1000, "shared": 0}


def test_the_decoder_mask_hides_the_future_and_the_encoder_has_none(lesson):
    masks = lesson[0]["masks"]
    assert masks["decoder_before"] == 0.0 and masks["decoder_at"] > 1e-3
    assert masks["encoder_first"] > 1e-3


def test_it_learns_the_held_out_numbers(lesson):
    result, text = lesson
    accuracy = result["search"]["accuracy"]
    assert accuracy["greedy"] >= 0.95 and accuracy["beam α=0.6"] >= 0.95
    assert f"{accuracy['greedy']:.1%}" in text
    losses = [r["val_loss"] for r in result["records"]]
    assert losses[-1] < 0.25 * losses[0]
    assert all(loss > result["floor"] for loss in losses)  # label smoothing's floor is a true floor


def test_cross_attention_reads_the_words_of_the_digit_being_written(lesson):
    cross = lesson[0]["cross"]
    assert cross["best_mass"] >= 0.5 and cross["best_mass"] > 2 * cross["uniform"]


def test_without_its_mask_the_decoder_copies_and_cannot_translate(lesson):
    leak = lesson[0]["leak"]
    assert leak["none"]["teacher_forced"] > 0.8 and leak["none"]["exact"] < 0.05
    assert leak["causal"]["exact"] >= 0.95


def test_files_are_valid_pngs(lesson):
    files = lesson[0]["files"]
    assert [f.name for f in files] == ["loss.png", "cross_attention.png"]
    for f in files:
        assert_valid_png(f)


def test_helpers_computed_by_hand():
    import math

    assert digit_spans(1205) == {0: [0, 1], 1: [2, 3], 3: [5]}  # 一千 二百 (零) 五
    assert digit_spans(15) == {0: [0], 1: [1]}  # 十 says the 1, 五 the 5
    assert smoothing_floor(0.0, 10) == 0.0
    q = 0.9 + 0.01  # ε = 0.1 over V = 10: the true token keeps 0.91, each other one 0.01
    assert smoothing_floor(0.1, 10) == pytest.approx(-(q * math.log(q) + 9 * 0.01 * math.log(0.01)))


def test_bad_options_are_explained(tmp_path, capsys):
    with said() as heard, pytest.raises(SystemExit) as exit_:  # the option's range type refuses it (cli/options.py)
        main(["lesson", "seq2seq", "--steps", "0", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and heard.carrying(value="0") and "--steps" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing written for a run that could not start
    with pytest.raises(SystemExit) as exit_:
        main(["lesson", "seq2seq", "--task", "zh2en"])
    err = capsys.readouterr().err  # argparse names the option and the value it refused
    assert exit_.value.code == 2 and "--task" in err and "'zh2en'" in err

"""Generated seq2seq tasks: the Chinese number grammar, held-out splits, teacher-forcing batches."""

from __future__ import annotations

import pytest
import torch

from glassformer.text.chinese_numbers import LIMIT, from_chinese, to_chinese
from glassformer.train.data import IGNORE, SOURCES, PairBatches, pad_pairs, pair_source

EXAMPLES = {  # written out by hand, one per rule of the grammar
    0: "零",
    7: "七",
    10: "十",
    15: "十五",
    20: "二十",
    101: "一百零一",
    110: "一百一十",
    115: "一百一十五",
    1005: "一千零五",
    1050: "一千零五十",
    1205: "一千二百零五",
    1500: "一千五百",
    9999: "九千九百九十九",
    10005: "一万零五",
    10500: "一万零五百",
    11000: "一万一千",
    100000: "十万",
    100010: "十万零一十",
    12345678: "一千二百三十四万五千六百七十八",
}


@pytest.mark.parametrize("n, words", list(EXAMPLES.items()))
def test_chinese_number_words(n, words):
    assert to_chinese(n) == words and from_chinese(words) == n


def test_every_number_reads_back():
    assert all(from_chinese(to_chinese(n)) == n for n in [*range(0, 20_000), *range(99_990, 100_020), LIMIT - 1])


@pytest.mark.parametrize(
    "text, message",
    [
        ("一十五", "that would be '十五'"),
        ("五千零零五", "that would be '五千零五'"),
        ("零五", "that would be '五'"),
        ("12", "'1' is neither a digit"),
        ("", "not a number written the standard way"),
    ],
)
def test_non_standard_words_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        from_chinese(text)


def test_to_chinese_range():
    with pytest.raises(ValueError, match="0 ≤ n < 100,000,000"):
        to_chinese(10**8)


@pytest.mark.parametrize("spec", SOURCES)
def test_held_out_pairs_share_no_source_with_training(spec):
    data = pair_source(spec, n_pairs=2000, max_digits=5)
    train, val, test = ({s for s, _ in getattr(data, split)} for split in ("train", "val", "test"))
    assert not (train & test) and not (train & val) and not (val & test)
    n = len(data.train) + len(data.val) + len(data.test)
    assert len(test) == round(0.10 * n) and len(val) == round(0.05 * n)
    for s, t in data.test[:50]:  # each pair is the task's answer, and the text survives the tokenizer
        assert data.text(data.ids(s)) == s and data.text(data.ids(t)) == t
    assert pair_source(spec, n_pairs=2000, max_digits=5).test == data.test  # the split is fixed by the seed


def test_each_task_computes_its_answer():
    answers = {
        "digits:copy": lambda s: s,
        "digits:reverse": lambda s: s[::-1],
        "digits:sort": lambda s: "".join(sorted(s)),
        "numbers:zh2num": lambda s: str(from_chinese(s)),
        "numbers:num2zh": lambda s: to_chinese(int(s)),
    }
    for spec, answer in answers.items():
        data = pair_source(spec, n_pairs=500, max_digits=4)
        assert all(t == answer(s) for s, t in data.train)


def test_unknown_source_is_named():
    with pytest.raises(ValueError, match=r"unknown pair source 'numbers:zh2en'.*numbers:zh2num"):
        pair_source("numbers:zh2en")


def test_teacher_forcing_batches():
    pairs = [([5, 6, 7], [8]), ([5], [9, 10, 11])]
    BOS, EOS, PAD = 2, 3, 0
    src, tgt = pad_pairs(pairs, BOS, EOS, PAD)
    assert src.tolist() == [[5, 6, 7], [5, 0, 0]]
    assert tgt.tolist() == [[2, 8, 3, 0, 0], [2, 9, 10, 11, 3]]
    source = PairBatches(pairs, pairs[:1], batch_size=2, bos_id=BOS, eos_id=EOS, pad_id=PAD)
    (x_src, tgt_in), tgt_out = source.batch("train", torch.tensor([0, 1]))
    assert torch.equal(x_src, src)
    assert tgt_in.tolist() == [[2, 8, 3, 0], [2, 9, 10, 11]]  # the decoder reads [<BOS>, y₁ …]
    assert tgt_out.tolist() == [[8, 3, IGNORE, IGNORE], [9, 10, 11, 3]]  # and is graded on [y₁ … <EOS>]
    (short_src, short_in), _ = source.batch("val", torch.tensor([0]))
    assert short_src.shape == (1, 3) and short_in.shape == (1, 2)  # a batch is cut to its longest row
    first = [b[1].tolist() for b in source.eval_batches("val")]
    assert first == [b[1].tolist() for b in source.eval_batches("val")]  # the same every evaluation


def test_pair_batches_refuse_empty_pairs():
    with pytest.raises(ValueError, match="non-empty source and target"):
        PairBatches([([5], [])], [([5], [6])], 2, 2, 3, 0)


def test_longest_counts_every_split_the_test_one_too():
    """The longest pair sizes the model's max_len; a test pair longer than any training pair must
    count (bug guarded: the test split left out, or subtracted)."""
    from dataclasses import replace

    data = pair_source("digits:copy", n_pairs=200, max_digits=3)
    assert data.longest() == (
        max(len(s) for s, _ in data.train + data.val + data.test),
        max(len(t) for _, t in data.train + data.val + data.test),
    )
    longer = replace(data, test=[*data.test, ("1234567", "12")])
    assert longer.longest() == (7, max(len(t) for _, t in data.train + data.val + data.test))


def test_a_run_of_pairs_trains_on_the_train_split_and_evaluates_on_val():
    """batches_for (train/run.py) gives a pair task's train and val splits to PairBatches, padded
    with <BOS>/<EOS> around each target; the held-out test split is in neither."""
    from glassformer.config import TrainConfig
    from glassformer.train.run import batches_for

    data = pair_source("digits:reverse", n_pairs=200, max_digits=3)
    tok = data.tokenizer
    source = batches_for(data, TrainConfig(batch_size=4, eval_iters=2))
    for split in ("train", "val"):
        src, tgt = pad_pairs(data.encoded(split), tok.bos_id, tok.eos_id, tok.pad_id)
        assert torch.equal(source.data[split][0], src) and torch.equal(source.data[split][1], tgt)
    assert source.eval_rows == 8 and source.batch_size == 4


def test_a_run_of_waves_evaluates_on_its_own_val_waves():
    """batches_for gives a sine run its train waves to draw from and its val waves to evaluate on
    (bug guarded: no val split, so the run "evaluates" on nothing held out)."""
    from glassformer.config import TrainConfig
    from glassformer.train.data import wave_source
    from glassformer.train.run import batches_for

    data = wave_source("sine")
    source = batches_for(data, TrainConfig(batch_size=4, eval_iters=2))
    assert torch.equal(source.inputs, data.x_train) and torch.equal(source.targets, data.y_train)
    assert source.splits == ("train", "val") and source.eval_iters == 2
    assert torch.equal(source.val[0], data.x_val) and torch.equal(source.val[1], data.y_val)


def test_the_pair_vocabulary_the_digit_strings_and_the_refusals_whole():
    import hashlib
    import json

    import numpy as np

    from glassformer.train.data import digit_strings, pair_tokenizer

    tok = pair_tokenizer()
    assert tok.vocab_size == 4 + 10 + 14 and (tok.pad_id, tok.bos_id, tok.eos_id) == (0, 2, 3)
    assert tok.encode("0 九 万") == [4, 4 + 10 + 9, 4 + 10 + 13]
    strings = digit_strings(60, 2, np.random.default_rng(1))
    assert len(strings) == len(set(strings)) == 60 and {len(s) for s in strings} == {1, 2}
    assert len(digit_strings(110, 2, np.random.default_rng(1))) == 110  # exactly the capacity: 10 + 100
    with pytest.raises(ValueError) as e:
        digit_strings(111, 2, np.random.default_rng(1))
    assert (
        str(e.value)
        == "only 110 digit strings have at most 2 digits; ask for fewer than 111 pairs or allow longer strings."
    )
    with pytest.raises(ValueError) as e:
        pair_source("digits:shuffle")
    assert str(e.value) == (
        "unknown pair source 'digits:shuffle'; choose one of ['digits:copy', 'digits:reverse', "
        "'digits:sort', 'numbers:zh2num', 'numbers:num2zh']."
    )
    with pytest.raises(ValueError):
        pair_source("numbers:copy")  # a task of the other family
    data = pair_source("numbers:zh2num", limit=40)
    assert len(data.train) + len(data.val) + len(data.test) == 40 and (len(data.val), len(data.test)) == (2, 4)
    assert data.source == "numbers:zh2num" and data.ids("十二") == [4 + 10 + 10, 4 + 10 + 2]
    assert data.text([2, 5, 6, 3, 0]) == "12"  # special tokens dropped
    assert data.encoded("val") == [(data.ids(s), data.ids(t)) for s, t in data.val]
    text = json.dumps([data.train, data.val, data.test], ensure_ascii=False)
    assert data.identity == {"data_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    assert pair_source("numbers:zh2num", limit=40, seed=1).test != data.test  # the seed fixes the split
    tiny = pair_source("numbers:num2zh", limit=3)
    assert (len(tiny.val), len(tiny.test), len(tiny.train)) == (1, 1, 1)  # at least one pair held out each


def test_chinese_number_refusals_word_for_word():
    """Both functions' messages whole, at the edges: n = −1 and 10⁸, a float; a non-digit; empty
    text; a number ≥ 10⁸ (no 'that would be', it has no standard form); a non-standard spelling."""
    assert to_chinese(LIMIT - 1) == "九千九百九十九万九千九百九十九"
    for bad in (-1, LIMIT, 1.0):
        with pytest.raises(ValueError) as caught:
            to_chinese(bad)
        assert str(caught.value) == f"to_chinese takes a whole number 0 ≤ n < 100,000,000, got {bad!r}."
    cases = {
        "1二": "'1二' is not Chinese number words: '1' is neither a digit (零一二三四五六七八九) nor a unit (十百千万).",
        "": "'' is not a number written the standard way.",
        "九千九千万": "'九千九千万' is not a number written the standard way.",
        "五千五千万": "'五千五千万' is not a number written the standard way.",  # exactly 10⁸
        "一十万": "'一十万' is not a number written the standard way (that would be '十万').",
        "二十零": "'二十零' is not a number written the standard way (that would be '二十').",
    }
    for text, message in cases.items():
        with pytest.raises(ValueError) as caught:
            from_chinese(text)
        assert str(caught.value) == message

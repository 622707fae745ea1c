"""What the trainer trains on (train/data.py): get_batch's windows (targets are inputs shifted by one,
rows are real windows of the data, seeds reproduce); which rows each batch source gives a trainer, in which
order, and for evaluation — the exact rows, the seeds evaluation draws with, padding and IGNORE, epoch
boundaries, the refusals; the sine waves made on the fly; the generated seq2seq tasks (the Chinese
number grammar, held-out splits, teacher-forcing batches).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import glassformer.train.data as train_data
from glassformer.config import TrainConfig
from glassformer.text.chinese import LIMIT, from_chinese, to_chinese
from glassformer.train.data import (
    IGNORE,
    SOURCES,
    PairBatches,
    TensorBatches,
    TextWindows,
    get_batch,
    pad_pairs,
    pair_source,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


# ---- get_batch: random windows of a token-id array -----------------------------------------------
@pytest.fixture
def memmap(tmp_path):
    """A prepared-style id file: uint16 on disk, opened read-only, values that identify their position."""
    ids = (np.arange(1000) * 7 % 65521).astype(np.uint16)  # (1000,) distinct values: a value names its index
    ids.tofile(tmp_path / "train.bin")
    return np.memmap(tmp_path / "train.bin", dtype=np.uint16, mode="r")


def test_shapes_dtype_and_shift(memmap):
    x, y = get_batch(memmap, batch_size=8, seq_len=16, generator=torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (8, 16)
    assert x.dtype == y.dtype == torch.int64
    assert torch.equal(y[:, :-1], x[:, 1:])


def test_rows_are_windows_of_the_data(memmap):
    x, y = get_batch(memmap, batch_size=32, seq_len=10, generator=torch.Generator().manual_seed(1))
    where = {int(v): i for i, v in enumerate(memmap)}  # value → its index (values are distinct)
    for row_x, row_y in zip(x, y, strict=False):
        s = where[int(row_x[0])]
        assert row_x.tolist() == memmap[s : s + 10].tolist()
        assert row_y.tolist() == memmap[s + 1 : s + 11].tolist()


def test_same_seed_same_batch_and_generator_advances(memmap):
    a = get_batch(memmap, 4, 8, torch.Generator().manual_seed(123))
    b = get_batch(memmap, 4, 8, torch.Generator().manual_seed(123))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    g = torch.Generator().manual_seed(123)
    first, second = get_batch(memmap, 4, 8, g), get_batch(memmap, 4, 8, g)
    assert not torch.equal(first[0], second[0])  # the generator moves on between calls


def test_every_start_is_reachable():
    data = np.arange(6, dtype=np.uint16)  # seq_len 4 → starts 0 and 1 only; 1 needs the last token
    x, y = get_batch(data, 200, 4, torch.Generator().manual_seed(0))
    assert sorted(set(x[:, 0].tolist())) == [0, 1]
    assert int(y.max()) == 5


def test_too_short():
    data = np.arange(8, dtype=np.uint16)
    x, y = get_batch(data, 2, 7, torch.Generator())  # exactly seq_len + 1 tokens is enough:
    assert x.tolist() == [list(range(7))] * 2 and y.tolist() == [list(range(1, 8))] * 2  # one window fits
    with pytest.raises(ValueError) as e:  # a UsageError
        get_batch(data, 2, 8, torch.Generator())
    assert (e.value.code, e.value.fields["need"]) == ("batch.short", 9)  # seq_len + 1


def test_the_refusal_whole_and_the_tensors_contiguous_on_the_asked_device():
    data = np.arange(8, dtype=np.uint16)
    with pytest.raises(ValueError) as caught:  # a UsageError
        get_batch(data, 2, 8, torch.Generator())
    assert (caught.value.code, caught.value.fields) == ("batch.short", {"n": 8, "need": 9})
    x, y = get_batch(data, 3, 4, torch.Generator().manual_seed(0), device=torch.device("cpu"))
    assert x.is_contiguous() and y.is_contiguous() and x.device.type == y.device.type == "cpu"
    assert x.stride() == y.stride() == (4, 1)


# ---- batch sources: which rows, in which order ---------------------------------------------------
def rows_of(batch) -> list[int]:
    return batch[0][:, 0].tolist()


def test_in_order_epochs_serve_every_row_once_with_a_short_last_batch():
    x = torch.arange(10)[:, None] * torch.ones(1, 3)  # (10, 3): row i holds i
    src = TensorBatches(x, -x, batch_size=4)
    gen = torch.Generator().manual_seed(0)
    epoch = [rows_of(src.train_batch(gen)) for _ in range(src.steps_per_epoch)]
    assert src.steps_per_epoch == 3 and epoch == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert rows_of(src.train_batch(gen)) == [0, 1, 2, 3]  # the next epoch starts again
    xb, yb = src.train_batch(gen)
    assert torch.equal(yb, -xb)  # inputs and targets stay paired


def test_shuffled_epochs_are_permutations_drawn_from_the_trainers_generator():
    x = torch.arange(12)[:, None].float()
    src = TensorBatches(x, x, batch_size=5, shuffle=True)
    gen = torch.Generator().manual_seed(3)
    epochs = [sum((rows_of(src.train_batch(gen)) for _ in range(3)), []) for _ in range(2)]
    assert all(sorted(e) == list(range(12)) for e in epochs)  # every row once per epoch
    assert epochs[0] != list(range(12)) and epochs[0] != epochs[1]  # shuffled, afresh each epoch
    again = TensorBatches(x, x, batch_size=5, shuffle=True)
    gen2 = torch.Generator().manual_seed(3)
    assert sum((rows_of(again.train_batch(gen2)) for _ in range(3)), []) == epochs[0]  # the seed decides
    assert epochs[0] == torch.randperm(12, generator=torch.Generator().manual_seed(3)).tolist()


def test_evaluation_batches_are_the_first_rows_every_time_and_val_is_its_own_split():
    x, vx = torch.arange(10)[:, None].float(), 100 + torch.arange(6)[:, None].float()
    src = TensorBatches(x, x, batch_size=4, val=(vx, vx), eval_iters=2)
    assert src.splits == ("train", "val")
    assert [rows_of(b) for b in src.eval_batches("train")] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [rows_of(b) for b in src.eval_batches("val")] == [[100, 101, 102, 103], [104, 105]]
    whole = TensorBatches(x, x, batch_size=4)
    assert whole.splits == ("train",) and [len(b[0]) for b in whole.eval_batches("train")] == [4, 4, 2]
    with pytest.raises(ValueError) as e:
        TensorBatches(x, x[:3], batch_size=2)
    assert (e.value.code, e.value.fields) == ("data.rows", {"inputs": len(x), "targets": 3})


def test_text_windows_evaluate_on_fixed_batches_and_train_on_the_trainers_stream():
    train, val = np.arange(200, dtype=np.uint16), np.arange(1000, 1100, dtype=np.uint16)
    src = TextWindows(train, val, batch_size=3, seq_len=5, eval_iters=2, seed=7)
    first = [b[0].tolist() for b in src.eval_batches("val")]
    assert len(first) == 2 and first == [b[0].tolist() for b in src.eval_batches("val")]  # same every time
    assert all(1000 <= v < 1100 for b in first for row in b for v in row)  # from val only
    assert [b[0].tolist() for b in src.eval_batches("train")] != first  # each split its own stream
    x, y = src.train_batch(torch.Generator().manual_seed(1))
    assert x.shape == y.shape == (3, 5) and torch.equal(y[:, :-1], x[:, 1:]) and int(x.max()) < 200


# ---- every batch source's output whole -----------------------------------------------------------
def test_text_windows_from_config_and_evaluation_seeded_by_split():
    train, val = np.arange(300, dtype=np.uint16), np.arange(1000, 1300, dtype=np.uint16)
    cfg = SimpleNamespace(batch_size=2, seq_len=4, eval_iters=3, seed=11, device="cpu")
    src = TextWindows.from_config(train, val, cfg)
    assert (src.batch_size, src.seq_len, src.eval_iters, src.seed, src.device) == (2, 4, 3, 11, "cpu")
    assert src.splits == ("train", "val") and src.data["train"] is train and src.data["val"] is val
    for split, offset in (("train", 1), ("val", 2)):  # seed + 1, seed + 2: each split its own fixed stream
        g = torch.Generator().manual_seed(11 + offset)
        want = [get_batch(src.data[split], 2, 4, g) for _ in range(3)]
        got = list(src.eval_batches(split))
        assert len(got) == 3
        for (x, y), (wx, wy) in zip(got, want, strict=False):
            assert torch.equal(x, wx) and torch.equal(y, wy)
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    x, y = src.train_batch(g1)
    wx, wy = get_batch(train, 2, 4, g2)
    assert torch.equal(x, wx) and torch.equal(y, wy) and x.shape == (2, 4)


def test_tensor_batches_refuse_empty_or_unequal_data_naming_both_lengths():
    for inputs, targets, n, m in (
        (torch.zeros(3, 2), torch.zeros(2, 2), 3, 2),
        (torch.zeros(0, 2), torch.zeros(0, 2), 0, 0),
    ):
        with pytest.raises(ValueError) as e:
            TensorBatches(inputs, targets, 2)
        assert (e.value.code, e.value.fields) == ("data.rows", {"inputs": n, "targets": m})


def test_tensor_batches_epochs_in_order_and_the_evaluation_limits():
    x = torch.arange(5).float()[:, None]  # (5, 1)
    y = x * 10
    src = TensorBatches(x, y, 2)
    assert src.splits == ("train",) and src.val is None and not src.shuffle and src.eval_iters is None
    assert src.steps_per_epoch == 3 and TensorBatches(x, y, 5).steps_per_epoch == 1
    g = torch.Generator().manual_seed(0)
    seen = [src.train_batch(g)[0][:, 0].tolist() for _ in range(4)]
    assert seen == [[0.0, 1.0], [2.0, 3.0], [4.0], [0.0, 1.0]]  # a short last batch, then a new epoch
    xb, yb = src.train_batch(g)
    assert torch.equal(yb, xb * 10)
    assert [b[0][:, 0].tolist() for b in src.eval_batches("train")] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    val = (torch.arange(100, 103).float()[:, None], torch.zeros(3, 1))
    limited = TensorBatches(x, y, 2, val=val, eval_iters=1)
    assert limited.splits == ("train", "val")
    got = list(limited.eval_batches("val"))
    assert len(got) == 1 and got[0][0][:, 0].tolist() == [100.0, 101.0] and got[0][1].tolist() == [[0.0], [0.0]]
    assert [b[0][:, 0].tolist() for b in limited.eval_batches("train")] == [[0.0, 1.0]]


def test_shuffled_tensor_batches_draw_each_epoch_from_the_generator():
    x = torch.arange(6).float()[:, None]
    src = TensorBatches(x, x, 4, shuffle=True)
    g, ref = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    first = torch.randperm(6, generator=ref)
    second = torch.randperm(6, generator=ref)
    got = [src.train_batch(g)[0][:, 0].long().tolist() for _ in range(3)]
    assert got == [first[:4].tolist(), first[4:].tolist(), second[:4].tolist()]


def test_pad_pairs_frames_targets_with_bos_and_eos_and_pads_both():
    src, tgt = pad_pairs([([5, 6, 7], [8]), ([9], [10, 11])], bos_id=2, eos_id=3, pad_id=0)
    assert src.dtype == torch.long and tgt.dtype == torch.long
    assert src.tolist() == [[5, 6, 7], [9, 0, 0]]
    assert tgt.tolist() == [[2, 8, 3, 0], [2, 10, 11, 3]]


def test_pair_batches_refuse_missing_splits_by_code():
    with pytest.raises(ValueError) as e:
        PairBatches([([1], [2])], [], 2, 2, 3, 0)
    assert (e.value.code, e.value.fields) == ("data.no_pairs", {})
    with pytest.raises(ValueError) as e:
        PairBatches([], [([1], [2])], 2, 2, 3, 0)
    assert (e.value.code, e.value.fields) == ("data.no_pairs", {})
    with pytest.raises(ValueError) as e:
        PairBatches([([1], [2])], [([1], [])], 2, 2, 3, 0)
    assert (e.value.code, e.value.fields) == ("data.blank_pair", {})


def test_pair_batches_cut_each_batch_to_its_longest_row_and_ignore_padding():
    train = [([5, 6, 7], [8]), ([9], [10, 11]), ([12], [13]), ([14, 15], [16, 17, 18])]
    val = [([20], [21]), ([22, 23], [24]), ([25], [26, 27])]
    pb = PairBatches(train, val, 2, bos_id=2, eos_id=3, pad_id=0, eval_rows=3)
    assert pb.splits == ("train", "val") and pb.steps_per_epoch == 2 and pb.eval_rows == 3 and pb.device == "cpu"
    assert (
        PairBatches(train, val, 3, 2, 3, 0).steps_per_epoch == 2
        and PairBatches(train, val, 3, 2, 3, 0).eval_rows == 512
    )
    (s, t_in), t_out = pb.batch("train", torch.tensor([2]))  # one short row: cut to its own length
    assert s.tolist() == [[12]] and t_in.tolist() == [[2, 13]] and t_out.tolist() == [[13, 3]]
    (s, t_in), t_out = pb.batch("train", torch.tensor([0, 1]))
    assert s.tolist() == [[5, 6, 7], [9, 0, 0]]
    assert t_in.tolist() == [[2, 8, 3], [2, 10, 11]]
    assert t_out.tolist() == [[8, 3, IGNORE], [10, 11, 3]] and IGNORE == -100
    evals = list(pb.eval_batches("val"))  # the first eval_rows=3 rows, in batches of 2, in order
    assert [e[0][0].tolist() for e in evals] == [[[20, 0], [22, 23]], [[25]]]
    assert [e[1].tolist() for e in evals] == [[[21, 3], [24, 3]], [[26, 27, 3]]]  # cut per batch
    two = PairBatches(train, val, 2, 2, 3, 0, eval_rows=2)
    assert len(list(two.eval_batches("val"))) == 1 and len(list(two.eval_batches("train"))) == 1


def test_pair_batches_reshuffle_each_epoch_with_the_trainers_generator():
    train = [([i], [i + 50]) for i in range(1, 6)]
    pb = PairBatches(train, train, 2, 2, 3, 0)
    g, ref = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    first, second = torch.randperm(5, generator=ref), torch.randperm(5, generator=ref)
    got = [pb.train_batch(g)[0][0][:, 0].tolist() for _ in range(4)]
    want = [(first[:2] + 1).tolist(), (first[2:4] + 1).tolist(), (first[4:] + 1).tolist(), (second[:2] + 1).tolist()]
    assert got == want


# ---- sine waves ----------------------------------------------------------------------------------
def test_sine_waves_follow_the_tutorials_recipe():
    s = train_data.make(400, np.random.default_rng(3))
    assert s.x.shape == s.y.shape == (400, 50)
    np.testing.assert_allclose(s.x[:, -1] - s.x[:, 0], 2 * math.pi, rtol=0, atol=1e-12)  # one 2π span
    np.testing.assert_allclose(np.diff(s.x, axis=1), 2 * math.pi / 49, rtol=0, atol=1e-12)  # 50 even points
    np.testing.assert_allclose(s.x[:, 0], s.start)
    assert 0 <= s.start.min() and s.start.max() < 2 * math.pi and s.start.max() - s.start.min() > 5
    assert 0.5 <= s.freq.min() and s.freq.max() < 2.0 and s.freq.max() - s.freq.min() > 1.3
    noise = s.y - np.sin(s.freq[:, None] * s.x)
    assert abs(noise.std() - 0.01) < 0.001 and abs(noise.mean()) < 0.001  # N(0, 0.01²)
    np.testing.assert_allclose(s.period_steps(), 2 * math.pi / (s.freq * (2 * math.pi / 49)))
    again = train_data.make(400, np.random.default_rng(3))
    assert np.array_equal(again.y, s.y)  # the seed decides everything
    rng = np.random.default_rng(3)  # the recipe replayed draw by draw: start, freq, then the noise, added
    start, freq = rng.uniform(0, 2 * math.pi, 400), rng.uniform(0.5, 2.0, 400)
    np.testing.assert_array_equal(s.start, start)
    np.testing.assert_array_equal(s.freq, freq)
    np.testing.assert_allclose(noise, rng.normal(0, 0.01, (400, 50)), rtol=0, atol=1e-12)


def test_forecast_windows_predict_the_next_ten_values():
    y = np.arange(3 * 50, dtype=np.float64).reshape(3, 50)
    x, t = train_data.forecast_windows(y)
    assert x.shape == (3, 40, 1) and t.shape == (3, 40, 10) and x.dtype == torch.float32
    assert x[1, :, 0].tolist() == y[1, :40].tolist()
    assert t[2, 7].tolist() == y[2, 8:18].tolist()  # position 7 predicts values 8..17
    assert t[0, 39].tolist() == y[0, 40:50].tolist()  # the last position predicts the held-back ten


def test_wave_source_framings_shapes_and_a_fixed_data_seed():
    tutorial, forecast = train_data.wave_source("sine"), train_data.wave_source("sine:forecast")
    assert tutorial.x_train.shape == (5000, 50, 1) and tutorial.y_val.shape == (1000, 50, 1)
    assert forecast.x_train.shape == (5000, 40, 1) and forecast.y_train.shape == (5000, 40, 10)
    assert forecast.x_val.shape == (1000, 40, 1)
    assert not torch.equal(tutorial.y_train[:1000], tutorial.y_val)  # val is drawn after train
    assert torch.equal(forecast.x_train[..., 0], tutorial.y_train[:, :40, 0])  # the same waves, reframed
    assert tutorial.identity == train_data.wave_source("sine").identity  # same data every time
    assert tutorial.identity != forecast.identity and len(tutorial.identity["data_sha256"]) == 64
    with pytest.raises(ValueError) as e:
        train_data.wave_source("sin")
    assert e.value.code == "data.wave_source" and e.value.fields["source"] == "sin"


def test_a_wave_sources_data_are_the_seeded_recipe_and_its_fingerprint_covers_all_four_tensors():
    import hashlib

    data = train_data.wave_source("sine")
    rng = np.random.default_rng(0)  # DATA_SEED: train first, then val, from one stream
    train, val = train_data.make(5000, rng), train_data.make(1000, rng)
    assert torch.equal(data.x_train[..., 0], torch.tensor(train.x, dtype=torch.float32))
    assert torch.equal(data.y_val[..., 0], torch.tensor(val.y, dtype=torch.float32))
    assert data.x_train.dtype == torch.float32 and data.source == "sine" and data.tokenizer is None
    h = hashlib.sha256()
    for t in (data.x_train, data.y_train, data.x_val, data.y_val):
        h.update(t.numpy().tobytes())
    assert data.identity == {"data_sha256": h.hexdigest()}
    with pytest.raises(ValueError) as e:
        train_data.wave_source("cosine")
    assert e.value.code == "data.wave_source"
    assert e.value.fields == {"source": "cosine", "choices": ["sine", "sine:forecast"]}


# ---- generated seq2seq tasks ---------------------------------------------------------------------
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
    "text, code, fields",
    [
        ("一十五", "zh_number.form_as", {"standard": "十五"}),  # the standard form offered
        ("五千零零五", "zh_number.form_as", {"standard": "五千零五"}),
        ("零五", "zh_number.form_as", {"standard": "五"}),
        ("12", "zh_number.char", {"ch": "1"}),  # the first character that is neither digit nor unit
        ("", "zh_number.form", {}),
    ],
)
def test_non_standard_words_are_refused(text, code, fields):
    with pytest.raises(ValueError) as e:  # a UsageError
        from_chinese(text)
    assert e.value.code == code and e.value.fields["text"] == text
    assert {k: e.value.fields[k] for k in fields} == fields


def test_to_chinese_range():
    with pytest.raises(ValueError) as e:
        to_chinese(10**8)
    assert (e.value.code, e.value.fields) == ("zh_number.range", {"limit": 10**8, "n": 10**8})  # 0 <= n < limit


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
    with pytest.raises(ValueError) as e:
        pair_source("numbers:zh2en")
    assert e.value.code == "data.pair_source" and e.value.fields["source"] == "numbers:zh2en"
    assert "numbers:zh2num" in e.value.fields["choices"]


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
    with pytest.raises(ValueError) as e:
        PairBatches([([5], [])], [([5], [6])], 2, 2, 3, 0)
    assert (e.value.code, e.value.fields) == ("data.blank_pair", {})


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
    assert e.value.code == "data.digit_capacity"
    assert e.value.fields == {"capacity": 110, "max_digits": 2, "n": 111}
    with pytest.raises(ValueError) as e:
        pair_source("digits:shuffle")
    assert e.value.code == "data.pair_source"
    assert e.value.fields == {
        "source": "digits:shuffle",
        "choices": ["digits:copy", "digits:reverse", "digits:sort", "numbers:zh2num", "numbers:num2zh"],
    }
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


def test_chinese_number_refusals_by_key_and_fields():
    """Both functions' refusals at the edges: n = −1 and 10⁸, a float; a non-digit; empty text; a
    number ≥ 10⁸ (no standard form to offer: form, not form_as); a non-standard spelling."""
    assert to_chinese(LIMIT - 1) == EXAMPLES[9999] + "万" + EXAMPLES[9999]  # the largest: 9999 myriads and 9999
    for bad in (-1, LIMIT, 1.0):
        with pytest.raises(ValueError) as caught:  # a UsageError
            to_chinese(bad)
        assert (caught.value.code, caught.value.fields) == ("zh_number.range", {"limit": LIMIT, "n": bad})
    cases = {
        "1二": ("zh_number.char", {"ch": "1", "digits": "零一二三四五六七八九", "units": "十百千万"}),
        "": ("zh_number.form", {}),
        "九千九千万": ("zh_number.form", {}),
        "五千五千万": ("zh_number.form", {}),  # exactly 10⁸
        "一十万": ("zh_number.form_as", {"standard": "十万"}),
        "二十零": ("zh_number.form_as", {"standard": "二十"}),
    }
    for text, (key, fields) in cases.items():
        with pytest.raises(ValueError) as caught:
            from_chinese(text)
        assert (caught.value.key, caught.value.fields) == (key, {"text": text, **fields})


def test_the_default_sizes_of_the_tasks():
    """What a run's data identity rests on (a resume refuses changed data): 20,000 digit strings of
    up to 8 digits, and the numbers 0 … 9,999 (sample O's survivor: 20,001 pairs by default)."""
    digits, numbers = pair_source("digits:copy"), pair_source("numbers:zh2num")
    assert sum(len(getattr(digits, split)) for split in ("train", "val", "test")) == 20_000
    assert max(len(s) for split in ("train", "val", "test") for s, _ in getattr(digits, split)) == 8
    assert sorted(int(t) for split in ("train", "val", "test") for _, t in getattr(numbers, split)) == list(
        range(10_000)
    )

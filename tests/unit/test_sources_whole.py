"""Every batch source's output whole (train/sources.py): the exact rows, the seeds evaluation draws
with, padding and IGNORE, epoch boundaries, and the refusals word for word."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from glassformer.text.batches import get_batch
from glassformer.train.data import IGNORE, PairBatches, TensorBatches, TextWindows, pad_pairs


def test_text_windows_from_config_and_evaluation_seeded_by_split():
    train, val = np.arange(300, dtype=np.uint16), np.arange(1000, 1300, dtype=np.uint16)
    cfg = SimpleNamespace(batch_size=2, block_size=4, eval_iters=3, seed=11, device="cpu")
    src = TextWindows.from_config(train, val, cfg)
    assert (src.batch_size, src.block_size, src.eval_iters, src.seed, src.device) == (2, 4, 3, 11, "cpu")
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
        assert str(e.value) == (f"inputs ({n} rows) and targets ({m} rows) must be non-empty and the same length.")


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


def test_pair_batches_refuse_missing_splits_word_for_word():
    with pytest.raises(ValueError) as e:
        PairBatches([([1], [2])], [], 2, 2, 3, 0)
    assert str(e.value) == "PairBatches needs training and validation pairs; one of them is empty."
    with pytest.raises(ValueError) as e:
        PairBatches([], [([1], [2])], 2, 2, 3, 0)
    assert str(e.value) == "PairBatches needs training and validation pairs; one of them is empty."
    with pytest.raises(ValueError) as e:
        PairBatches([([1], [2])], [([1], [])], 2, 2, 3, 0)
    assert str(e.value) == "every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>)."


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

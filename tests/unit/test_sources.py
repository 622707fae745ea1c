"""Batch sources (train/sources.py): which rows a trainer sees, in which order, and for evaluation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from glassformer.train.data import TensorBatches, TextWindows


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
    with pytest.raises(ValueError, match="non-empty and the same length"):
        TensorBatches(x, x[:3], batch_size=2)


def test_text_windows_evaluate_on_fixed_batches_and_train_on_the_trainers_stream():
    train, val = np.arange(200, dtype=np.uint16), np.arange(1000, 1100, dtype=np.uint16)
    src = TextWindows(train, val, batch_size=3, block_size=5, eval_iters=2, seed=7)
    first = [b[0].tolist() for b in src.eval_batches("val")]
    assert len(first) == 2 and first == [b[0].tolist() for b in src.eval_batches("val")]  # same every time
    assert all(1000 <= v < 1100 for b in first for row in b for v in row)  # from val only
    assert [b[0].tolist() for b in src.eval_batches("train")] != first  # each split its own stream
    x, y = src.train_batch(torch.Generator().manual_seed(1))
    assert x.shape == y.shape == (3, 5) and torch.equal(y[:, :-1], x[:, 1:]) and int(x.max()) < 200

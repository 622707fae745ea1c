"""run.batches_for: the batch source each kind of data trains from, with every setting it passes on
(batch size, evaluation rows or batches, shuffling, the validation split, <BOS>/<EOS>/<PAD>)."""

from __future__ import annotations

import torch

from glassformer.config import TrainConfig
from glassformer.train.data import PairBatches, TensorBatches, TextWindows
from glassformer.train.run import batches_for, open_data


def test_pairs_become_padded_bos_eos_batches_with_eval_iters_times_batch_size_rows():
    data = open_data("digits:copy", "token pairs")
    tok = data.tokenizer
    b = batches_for(data, TrainConfig(batch_size=3, eval_iters=2))
    assert isinstance(b, PairBatches) and (b.batch_size, b.eval_rows, b.pad_id, b.device) == (3, 6, tok.pad_id, "cpu")
    for split in ("train", "val"):
        (s0, t0), (src, tgt) = data.encoded(split)[0], b.data[split]
        assert len(src) == len(data.encoded(split))
        assert src[0, : len(s0)].tolist() == list(s0) and tgt[0, : len(t0) + 2].tolist() == [
            tok.bos_id,
            *t0,
            tok.eos_id,
        ]
        assert (tgt[0, len(t0) + 2 :] == tok.pad_id).all()


def test_numbers_become_shuffled_tensor_batches_with_their_own_val_split():
    data = open_data("sine", "numbers")
    b = batches_for(data, TrainConfig(batch_size=5, eval_iters=3))
    assert isinstance(b, TensorBatches) and (b.batch_size, b.shuffle, b.eval_iters) == (5, True, 3)
    assert torch.equal(b.inputs, data.x_train) and torch.equal(b.targets, data.y_train)
    assert torch.equal(b.val[0], data.x_val) and torch.equal(b.val[1], data.y_val) and b.splits == ("train", "val")


def test_text_becomes_windows_of_the_configured_size(tmp_path):
    data = open_data("builtin:seed", "tokens", tmp_path)
    b = batches_for(data, TrainConfig(batch_size=4, block_size=6, eval_iters=2))
    x, y = b.train_batch(torch.Generator().manual_seed(0))
    assert isinstance(b, TextWindows) and x.shape == y.shape == (4, 6) and torch.equal(x[:, 1:], y[:, :-1])
    assert len(list(b.eval_batches("val"))) == 2

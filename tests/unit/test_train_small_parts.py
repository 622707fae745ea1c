"""The trainer's small parts whole: the cosine schedule at each edge (schedules.py), the checksums
written out independently (integrity.py), Ctrl-C as a flag (interrupt.py), early stopping's key,
message and restore (early_stop.py)."""

from __future__ import annotations

import hashlib
import math
import os
import signal
import threading
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from glassformer.train.checkpoint import sha256_file, weights_sha256
from glassformer.train.loop import EarlyStopping, sigint_as_flag
from glassformer.train.optim import constant, cosine, lr_at


def test_cosine_warms_up_from_lr_over_w_plus_1_then_decays_to_min_lr_at_max_steps():
    lr, lo, w, n = 1.0, 0.1, 4, 14
    assert [cosine(s, lr, lo, w, n) for s in range(w)] == pytest.approx([0.2, 0.4, 0.6, 0.8])
    assert cosine(w, lr, lo, w, n) == pytest.approx(1.0)  # warmup done: the full rate
    assert cosine(9, lr, lo, w, n) == pytest.approx(lo + 0.5 * (lr - lo))  # half way: the mean
    assert cosine(11, lr, lo, w, n) == pytest.approx(lo + 0.5 * (1 + math.cos(math.pi * 0.7)) * (lr - lo))
    assert cosine(n, lr, lo, w, n) == lo and cosine(n + 5, lr, lo, w, n) == lo
    assert cosine(n - 1, lr, lo, w, n) > lo
    assert cosine(3, lr, lo, 3, 3) == lo and cosine(2, lr, lo, 3, 3) == pytest.approx(0.75)
    assert cosine(0, lr, lo, 0, 0) == lo  # nothing to decay over: no division by zero


def test_lr_at_follows_the_configs_schedule():
    cfg = SimpleNamespace(lr_schedule="cosine", lr=1.0, min_lr=0.1, warmup_steps=4, max_steps=14)
    assert lr_at(0, cfg) == pytest.approx(0.2) and lr_at(14, cfg) == 0.1
    flat = SimpleNamespace(lr_schedule="constant", lr=0.3, min_lr=0.1, warmup_steps=4, max_steps=14)
    assert lr_at(0, flat) == 0.3 and lr_at(100, flat) == 0.3 and constant(7, 0.5) == 0.5


def test_weights_sha256_covers_step_names_dtypes_shapes_and_bytes_in_name_order():
    a, b = torch.arange(6, dtype=torch.float32).reshape(2, 3), torch.tensor([1, 2], dtype=torch.int64)
    h = hashlib.sha256(b"step=7\n")
    for name, tensor in (("a", a), ("b", b)):
        h.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}\n".encode())
        h.update(tensor.numpy().tobytes())
    assert weights_sha256({"b": b, "a": a}, 7) == h.hexdigest()
    assert weights_sha256({"a": a.t(), "b": b}, 7) == weights_sha256({"a": a.t().contiguous(), "b": b}, 7)
    assert weights_sha256({"a": a, "b": b}, 8) != h.hexdigest()
    assert weights_sha256({"a": a.reshape(3, 2), "b": b}, 7) != h.hexdigest()  # same bytes, other shape


def test_sha256_file_reads_in_blocks_the_whole_file(tmp_path):
    data = bytes(range(256)) * 10
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f", block=7) == sha256_file(str(tmp_path / "f")) == hashlib.sha256(data).hexdigest()
    (tmp_path / "e").write_bytes(b"")
    assert sha256_file(tmp_path / "e") == hashlib.sha256(b"").hexdigest()


def test_the_first_ctrl_c_becomes_a_flag_and_a_message_the_second_goes_to_the_previous_handler(capsys):
    outer = []
    original = signal.signal(signal.SIGINT, lambda signum, frame: outer.append(signum))
    try:
        previous = signal.getsignal(signal.SIGINT)
        with sigint_as_flag() as interrupted:
            assert not interrupted()
            os.kill(os.getpid(), signal.SIGINT)
            assert interrupted() and outer == []
            assert capsys.readouterr().err == "\nCtrl-C: stopping after this step (press again to stop at once) ...\n"
            os.kill(os.getpid(), signal.SIGINT)  # the handler put the previous one back
            assert outer == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is previous
    finally:
        signal.signal(signal.SIGINT, original)


def test_outside_the_main_thread_ctrl_c_is_left_alone():
    seen = []

    def run():
        with sigint_as_flag() as interrupted:
            seen.append((interrupted(), signal.getsignal(signal.SIGINT)))

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [(False, before)]


class FakeTrainer:
    def __init__(self):
        self.model, self.step, self.last_eval, self.stops = nn.Linear(1, 1, bias=False), 0, {}, []

    def request_stop(self, reason):
        self.stops.append(reason)

    def evaluate(self, step, **losses):
        self.step, self.last_eval = step, losses
        self.model.weight.data.fill_(float(step))


def test_early_stopping_watches_its_key_and_says_so_when_it_stops():
    stop = EarlyStopping(patience=2, key="train_loss")
    trainer = FakeTrainer()
    trainer.evaluate(0, train_loss=0.1)  # the untrained evaluation is no candidate
    stop("eval", trainer)
    assert stop.best is None and stop.evals == 0
    for step, loss in ((1, 3.0), (2, 2.0), (3, 2.0), (4, 2.5)):
        trainer.evaluate(step, train_loss=loss, val_loss=0.0)
        stop("eval", trainer)
    assert stop.best == 2.0 and stop.best_eval == 1 and stop.evals == 4 and stop.stopped
    assert trainer.stops == ["no better train_loss for 2 evaluations"]
    stop("step", trainer)
    assert trainer.model.weight.item() == 4.0
    stop("end", trainer)
    assert trainer.model.weight.item() == 2.0  # the best weights put back


def test_early_stopping_with_patience_1_stops_at_the_first_evaluation_that_is_not_better():
    stop = EarlyStopping(1)
    trainer = FakeTrainer()
    trainer.evaluate(1, val_loss=1.0)
    stop("eval", trainer)
    assert trainer.stops == []
    trainer.evaluate(2, val_loss=1.0)
    stop("eval", trainer)
    assert trainer.stops == ["no better val_loss for 1 evaluations"]
    watcher = EarlyStopping()
    trainer = FakeTrainer()
    trainer.evaluate(1, val_loss=1.0)
    watcher("eval", trainer)
    trainer.evaluate(2, val_loss=2.0)
    watcher("eval", trainer)
    watcher("end", trainer)
    assert trainer.stops == [] and trainer.model.weight.item() == 2.0 and not watcher.stopped

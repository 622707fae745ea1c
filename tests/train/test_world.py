"""The pieces of distributed.py that need no second process: one process is untouched (SINGLE),
rank slices tile the global batch, dropout seeds differ by rank and step, no_sync on all micro-batches
but the last, devices per LOCAL_RANK, and the refusals."""

from __future__ import annotations

import contextlib

import pytest
import torch

from glassformer.config import TrainConfig
from glassformer.errors import GlassformerError, UsageError
from glassformer.train import distributed
from glassformer.train.data import TensorBatches, TextWindows
from glassformer.train.distributed import SINGLE, ProcessWorld, RankSlice
from glassformer.train.record import ReadOnlyRunFiles, RunFiles


def test_one_process_gets_the_trivial_world(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setattr(distributed, "_world", None)
    assert distributed.current() is SINGLE and SINGLE.is_main and SINGLE.size == 1
    model, cfg, source, t = torch.nn.Linear(2, 2), TrainConfig(), object(), torch.ones(())
    assert SINGLE.wrap(model) is model and SINGLE.share(source) is source and SINGLE.mean(t) is t
    assert SINGLE.whole_batch(cfg) is cfg and SINGLE.for_rank(cfg) is cfg
    state = torch.get_rng_state()
    SINGLE.seed_dropout(1, 5)
    assert torch.equal(state, torch.get_rng_state())  # the one global stream is left alone


def test_rank_slices_are_disjoint_and_tile_the_global_batch():
    ids = torch.arange(10_000)
    whole = TextWindows(ids, ids, batch_size=8, seq_len=5, eval_iters=1, seed=0)
    x_all, y_all = whole.train_batch(torch.Generator().manual_seed(3))  # (8, 5) x2
    parts = [RankSlice(whole, r, 4).train_batch(torch.Generator().manual_seed(3)) for r in range(4)]
    assert [p[0].shape for p in parts] == [torch.Size([2, 5])] * 4
    assert torch.equal(torch.cat([p[0] for p in parts]), x_all) and torch.equal(torch.cat([p[1] for p in parts]), y_all)


def test_dropout_seeds_differ_by_rank_and_step_and_repeat():
    def draw(rank, step):
        ProcessWorld(rank, rank, 2).seed_dropout(1337, step)
        return torch.rand(4)

    assert not torch.equal(draw(0, 3), draw(1, 3)) and not torch.equal(draw(0, 3), draw(0, 4))
    assert torch.equal(draw(1, 7), draw(1, 7))  # a resumed job computes the same seed again


def test_no_sync_on_every_micro_batch_but_the_last():
    class FakeDDP:
        def no_sync(self):
            return contextlib.nullcontext("kept-local")

    world = ProcessWorld(0, 0, 2)
    with world.accumulating(FakeDDP(), last=False) as first, world.accumulating(FakeDDP(), last=True) as last:
        assert first == "kept-local" and last is None  # no_sync's context on all but the last


def test_ranks_take_their_own_gpu_and_files():
    w = ProcessWorld(3, 1, 4)
    assert w.for_rank(TrainConfig()).device == "cpu"
    if torch.cuda.device_count() >= 2:
        assert w.for_rank(TrainConfig(device="cuda")).device == "cuda:1"
    else:
        with pytest.raises(UsageError) as e:
            w.for_rank(TrainConfig(device="cuda"))
        assert (e.value.code, e.value.fields) == ("world.gpus", {"gpus": torch.cuda.device_count(), "local_rank": 1})
    with pytest.raises(UsageError) as e:
        w.for_rank(TrainConfig(device="cuda:0"))
    assert (e.value.code, e.value.fields) == ("world.device", {"device": "cuda:0"})
    assert w.whole_batch(TrainConfig(batch_size=4)).batch_size == 16
    assert type(w.run_files("r")) is ReadOnlyRunFiles and type(ProcessWorld(0, 0, 4).run_files("r")) is RunFiles


def test_refusals_name_the_fix(monkeypatch):
    with pytest.raises(UsageError) as e:
        ProcessWorld(0, 0, 2).share(TensorBatches(torch.zeros(4, 2), torch.zeros(4, 2), 2))
    assert (e.value.code, e.value.fields) == ("world.source", {"source": "TensorBatches"})
    monkeypatch.setenv("WORLD_SIZE", "2")
    for name in ("RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(distributed, "_world", None)
    with pytest.raises(UsageError) as e:
        distributed.current()
    assert e.value.code == "world.env"
    assert e.value.fields["size"] == "2" and e.value.fields.keys() == {"size", "missing"}
    assert e.value.fields["missing"].split(", ") == ["RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"]


def test_a_peer_that_ended_is_one_clear_line_not_a_bug():
    lost = RuntimeError("[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:25749.")
    with pytest.raises(GlassformerError) as e:
        with ProcessWorld(1, 1, 2).together():
            raise lost
    assert (e.value.code, e.value.fields) == ("world.peer_stopped", {"rank": 1})
    bug = RuntimeError("a bug of our own")
    with pytest.raises(RuntimeError) as e:  # anything else is left as it is
        with ProcessWorld(1, 1, 2).together():
            raise bug
    assert e.value is bug
    with pytest.raises(RuntimeError) as e, SINGLE.together():  # one process: no peer to blame
        raise lost
    assert e.value is lost

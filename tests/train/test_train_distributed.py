"""ProcessWorld's methods as rank r of a world of n sees them, in this process.

torch.distributed is replaced by `Wire`, which answers each collective call the way the other ranks
would: an all_reduce adds what they hold, a broadcast fills in what rank `src` sent. So each test
plays one rank and asserts what that rank does and receives — which rank evaluates and writes, what
is shared, the mean's operation and divisor, the seeds, the setup of `_join`, and the refusals word for
word. (tests/e2e/distributed/test_torchrun.py runs two real processes; mutmut cannot see into those.)"""

from __future__ import annotations

import codecs
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from glassformer.config import TrainConfig
from glassformer.errors import GlassformerError, UsageError
from glassformer.train import distributed
from glassformer.train.data import TensorBatches, TextWindows
from glassformer.train.distributed import NO_BUFFER_SYNC, SINGLE, ProcessWorld, RankSlice


class Wire:
    """torch.distributed as seen by rank `rank` (settable: a test may play rank 0, then rank 1)."""

    def __init__(self, rank: int, others=()) -> None:
        self.rank = rank
        self.others = list(others)  # what the other ranks hold when an all_reduce comes
        self.sent: dict[int, list] = {}  # src rank -> the object list it broadcast
        self.events: list = []

    def all_reduce(self, tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
        if op != dist.ReduceOp.SUM:
            raise ValueError(f"this fake sums only, got op={op!r}")
        self.events.append(("all_reduce", tuple(tensor.shape)))
        for other in self.others:
            tensor.add_(other)

    def broadcast_object_list(self, object_list, src=None, group=None, device=None, group_src=None):
        if not isinstance(src, int):
            raise ValueError(f"src must name a rank, got {src!r}")
        if device is None or torch.device(device).type != "cpu":  # a GPU job's objects would go through NCCL
            raise ValueError(f"objects travel on the CPU (gloo), got device={device!r}")
        self.events.append(("broadcast", src))
        if src == self.rank:
            self.sent[src] = list(object_list)
        else:
            object_list[:] = self.sent[src]


@pytest.fixture
def wire(monkeypatch):
    w = Wire(rank=0)
    monkeypatch.setattr(dist, "all_reduce", w.all_reduce)
    monkeypatch.setattr(dist, "broadcast_object_list", w.broadcast_object_list)
    return w


def test_mean_sums_over_the_ranks_in_place_and_divides_by_the_world_size(wire):
    wire.rank, wire.others = 1, [torch.tensor([4.0, 0.0]), torch.tensor([7.0, 3.0])]  # ranks 0 and 2
    t = torch.tensor([1.0, 6.0])
    out = ProcessWorld(1, 1, 3).mean(t)
    assert out is t and torch.equal(t, torch.tensor([4.0, 3.0]))  # (1+4+7)/3, (6+0+3)/3
    assert wire.events == [("all_reduce", (2,))]


def test_rank_0_evaluates_and_every_rank_gets_its_numbers(wire):
    calls = []

    def evaluate():
        calls.append("evaluated")
        return {"val_loss": 1.25, "train_loss": 1.5}

    assert ProcessWorld(0, 0, 2).shared(evaluate)() == {"val_loss": 1.25, "train_loss": 1.5}
    assert calls == ["evaluated"] and wire.sent == {0: [{"val_loss": 1.25, "train_loss": 1.5}]}
    wire.rank = 1
    assert ProcessWorld(1, 1, 2).shared(evaluate)() == {"val_loss": 1.25, "train_loss": 1.5}
    assert calls == ["evaluated"]  # rank 1 never evaluated: it received rank 0's numbers
    assert wire.events == [("broadcast", 0), ("broadcast", 0)]
    assert ProcessWorld(1, 1, 2).shared(None) is None  # no evaluation: nothing to share


def test_rank_0_announces_the_run_and_the_others_hear_it(wire, tmp_path):
    ProcessWorld(0, 0, 2).announce(tmp_path / "run", resumed=True)
    assert wire.sent == {0: [str(tmp_path / "run"), True]}  # a str: any rank can unpickle it
    wire.rank = 1
    heard = ProcessWorld(1, 1, 2).hear()
    assert heard == (tmp_path / "run", True) and isinstance(heard[0], Path)
    wire.rank = 0
    ProcessWorld(0, 0, 2).announce("runs/x", resumed=False)
    wire.rank = 1
    assert ProcessWorld(1, 1, 2).hear() == (Path("runs/x"), False)


def test_rank_0_goes_first_and_the_others_wait_at_a_barrier(wire):
    for rank, expected in ((0, ["block", ("all_reduce", (1,))]), (1, [("all_reduce", (1,)), "block"])):
        wire.rank, wire.events = rank, []
        with ProcessWorld(rank, rank, 2).main_first():
            wire.events.append("block")
        assert wire.events == expected, rank


def test_wrap_puts_the_model_in_ddp_with_this_ranks_gpu_and_no_buffer_sync(monkeypatch):
    made = []
    monkeypatch.setattr(distributed, "DistributedDataParallel", lambda model, **kw: made.append((model, kw)) or "ddp")
    cpu_model = torch.nn.Linear(2, 2)
    assert ProcessWorld(3, 1, 4).wrap(cpu_model) == "ddp"
    assert made[-1] == (cpu_model, {"device_ids": None, **NO_BUFFER_SYNC})

    class OnGPU(torch.nn.Module):
        def parameters(self, recurse=True):
            return iter([SimpleNamespace(is_cuda=True)])

    gpu_model = OnGPU()
    ProcessWorld(3, 1, 4).wrap(gpu_model)
    assert made[-1] == (gpu_model, {"device_ids": [1], **NO_BUFFER_SYNC})  # LOCAL_RANK's GPU, not RANK's
    import inspect

    ((key, value),) = NO_BUFFER_SYNC.items()
    assert value is False and key in inspect.signature(torch.nn.parallel.DistributedDataParallel).parameters


def test_dropout_seed_of_a_rank_and_step_is_fixed_and_below_2_to_the_63():
    state = torch.get_rng_state()
    try:
        seeds = {}
        for rank, step in ((0, 0), (1, 0), (1, 7), (3, 250)):
            ProcessWorld(rank, 0, 4).seed_dropout(1337, step)
            seeds[rank, step] = torch.initial_seed()
    finally:
        torch.set_rng_state(state)
    # golden values: a resumed job (or another version) must draw the same masks at the same step
    assert seeds == {
        (0, 0): 8403441185944864445,
        (1, 0): 2212336011653546302,
        (1, 7): 8159379736711338650,
        (3, 250): 4835305672422485288,
    }
    assert all(0 <= s < 2**63 for s in seeds.values())


def test_share_gives_the_rank_its_slice_of_a_text_source_and_refuses_others():
    ids = torch.arange(1000)
    source = TextWindows(ids, ids, batch_size=6, seq_len=4, eval_iters=1, seed=0)
    part = ProcessWorld(2, 0, 3).share(source)
    assert isinstance(part, RankSlice) and (part.source, part.rank, part.size) == (source, 2, 3)
    assert part.splits == source.splits == ("train", "val")
    x_all, _ = source.train_batch(torch.Generator().manual_seed(1))  # (6, 4)
    x, y = part.train_batch(torch.Generator().manual_seed(1))  # (2, 4) x2
    assert torch.equal(x, x_all[4:6]) and torch.equal(y, x_all[4:6] + 1)
    for split in ("train", "val"):  # evaluation reads the whole global batches, as the source does
        assert [b[0].tolist() for b in part.eval_batches(split)] == [b[0].tolist() for b in source.eval_batches(split)]
    with pytest.raises(UsageError) as e:
        ProcessWorld(0, 0, 2).share(TensorBatches(torch.zeros(4, 2), torch.zeros(4, 2), 2))
    assert (e.value.code, e.value.fields) == ("world.source", {"source": "TensorBatches"})


def test_the_global_batch_is_an_int_times_the_world_size():
    cfg = ProcessWorld(0, 0, 3).whole_batch(TrainConfig(batch_size=4, lr=0.5))
    assert cfg.batch_size == 12 and type(cfg.batch_size) is int and cfg.lr == 0.5


def test_each_rank_takes_the_gpu_of_its_local_rank(monkeypatch):
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    cuda = TrainConfig(device="cuda", lr=0.5)
    got = ProcessWorld(3, 1, 4).for_rank(cuda)
    assert got.device == "cuda:1" and got.lr == 0.5 and cuda.device == "cuda"
    assert ProcessWorld(0, 0, 4).for_rank(cuda).device == "cuda:0"
    with pytest.raises(UsageError) as e:
        ProcessWorld(2, 2, 4).for_rank(cuda)  # LOCAL_RANK 2 of GPUs 0 and 1
    assert (e.value.code, e.value.fields) == ("world.gpus", {"gpus": 2, "local_rank": 2})
    cpu = TrainConfig(device="cpu")
    assert ProcessWorld(1, 1, 2).for_rank(cpu) is cpu
    for device in ("cuda:0", "mps"):
        with pytest.raises(UsageError) as e:
            ProcessWorld(1, 1, 2).for_rank(TrainConfig(device=device))
        assert (e.value.code, e.value.fields) == ("world.device", {"device": device})


def test_a_collective_that_failed_because_a_peer_ended_names_this_rank():
    for lost in (dist.DistError("Connection reset"), RuntimeError("[../gloo/transport/tcp/pair.cc] closed")):
        with pytest.raises(GlassformerError) as e, ProcessWorld(2, 0, 3).together():
            raise lost
        assert (e.value.code, e.value.fields) == ("world.peer_stopped", {"rank": 2})
        assert e.value.__cause__ is None


@pytest.fixture
def torchrun_env(monkeypatch, tmp_path):
    """torchrun's environment for rank 2 of 3 (LOCAL_RANK 1), a fake process group, 2 fake GPUs."""
    monkeypatch.chdir(tmp_path)
    for key, value in {
        "WORLD_SIZE": "3",
        "RANK": "2",
        "LOCAL_RANK": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "29500",
    }.items():
        monkeypatch.setenv(key, value)
    got = SimpleNamespace(backends=[], gpus=[], atexit=[])
    monkeypatch.setattr(dist, "init_process_group", lambda backend: got.backends.append(backend))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "set_device", got.gpus.append)
    monkeypatch.setattr(distributed, "atexit", SimpleNamespace(register=got.atexit.append))
    monkeypatch.setattr(distributed, "_world", None)
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # restored after the test
    return got


def test_join_sets_up_a_rank_above_0_and_silences_its_stdout(torchrun_env, monkeypatch):
    before = sys.stdout
    world = distributed.current()
    try:
        assert isinstance(world, ProcessWorld) and (world.rank, world.local_rank, world.size) == (2, 1, 3)
        assert torchrun_env.backends == ["gloo"] and torchrun_env.gpus == [1]
        assert torchrun_env.atexit == [dist.destroy_process_group]
        assert sys.stdout is not before and sys.stdout.name == os.devnull and sys.stdout.mode == "w"
        assert codecs.lookup(sys.stdout.encoding).name == "utf-8"
        assert distributed.current() is world and torchrun_env.backends == ["gloo"]  # joined once
    finally:
        if sys.stdout is not before:
            sys.stdout.close()


def test_join_keeps_rank_0s_stdout_and_uses_nccl_for_gpus(torchrun_env, monkeypatch):
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("LOCAL_RANK", "2")  # beyond the 2 GPUs: trains on the CPU, no set_device
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    before = sys.stdout
    world = distributed.current()
    assert (world.rank, world.local_rank, world.size) == (0, 2, 3) and world.is_main
    assert sys.stdout is before and torchrun_env.gpus == [] and torchrun_env.backends == ["cpu:gloo,cuda:nccl"]


def test_world_size_1_is_one_process(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setattr(distributed, "_world", None)
    assert distributed.current() is SINGLE


def test_missing_torchrun_variables_are_named(torchrun_env, monkeypatch):
    monkeypatch.delenv("MASTER_ADDR")
    monkeypatch.delenv("MASTER_PORT")
    with pytest.raises(UsageError) as e:
        distributed.current()
    assert (e.value.code, e.value.fields["size"]) == ("world.env", "3") and e.value.fields.keys() == {"size", "missing"}
    assert e.value.fields["missing"].split(", ") == ["MASTER_ADDR", "MASTER_PORT"]
    assert torchrun_env.backends == []


def test_python_m_glassformer_ends_a_torchrun_worker_with_os_exit_after_leaving(monkeypatch):
    """A torchrun worker leaves its group, flushes and ends with os._exit(code), skipping the C++
    static destructors where gloo was seen to abort after a finished job; any other process sys.exits."""
    from glassformer.train.distributed import exit_process

    class Ended(Exception):
        pass

    calls = []

    def os_exit(code):
        calls.append(("os._exit", code))
        raise Ended

    monkeypatch.setattr(distributed.os, "_exit", os_exit)
    monkeypatch.setattr(distributed, "_world", SINGLE)
    with pytest.raises(SystemExit) as ended:
        exit_process(3)
    assert ended.value.code == 3 and calls == []

    monkeypatch.setattr(dist, "destroy_process_group", lambda: calls.append(("destroy",)))
    monkeypatch.setattr(distributed, "_world", ProcessWorld(1, 1, 2))
    with pytest.raises(Ended):
        exit_process(0)
    assert calls == [("destroy",), ("os._exit", 0)]


def test_the_module_entry_ends_through_exit_process(monkeypatch):
    """`python -m glassformer` (how torchrun starts it) hands main's code to exit_process once a run
    has loaded the distributed module (a torchrun worker always has), and to sys.exit otherwise, so
    that `--help` never imports torch just to end."""
    import runpy

    import glassformer.cli

    ended = []
    monkeypatch.setattr(glassformer.cli, "main", lambda: 3)
    monkeypatch.setattr(distributed, "exit_process", lambda code: ended.append(code))
    with pytest.raises(SystemExit) as e:
        runpy.run_module("glassformer", run_name="__main__")
    assert ended == [3] and e.value.code == 3  # exit_process (here recorded, not ending) had it first

    monkeypatch.delitem(sys.modules, "glassformer.train.distributed")
    ended.clear()
    with pytest.raises(SystemExit) as e:
        runpy.run_module("glassformer", run_name="__main__")
    assert ended == [] and e.value.code == 3

"""Training on several processes at once: torchrun starts N copies of `glassformer train`, and
this file makes them one trainer (docs/scale.md).

    torchrun --nproc_per_node=2 -m glassformer train --preset baby --batch_size=8

torchrun puts RANK (0..N-1 over every machine), LOCAL_RANK (which GPU on this machine) and
WORLD_SIZE into each process's environment. `current()` reads them once. Without them (or with
WORLD_SIZE=1) it returns SINGLE, a World whose every method is the trivial one, so one process
trains exactly as before; with them it joins the process group (gloo for CPU tensors, NCCL for
CUDA ones) and returns this process's ProcessWorld.

What the trainer (loop.py) and the runs (run.py) ask of the world:

    wrap(model)               DistributedDataParallel: backward averages the gradients over ranks
    accumulating(ddp, last)   no_sync() on every micro-batch but the last: one all-reduce per step
    mean(loss)                the step's loss averaged over ranks: the loss of the global batch
    shared(evaluate)          rank 0 evaluates and sends its numbers; every rank decides the same
    seed_dropout(seed, step)  rank r's dropout masks at step s come from seed (seed, r, s)
    run_files(dir)            rank 0 writes the run's files; the others only read the checkpoint
    share(source)             each rank's rows of the global batch
    whole_batch(cfg), for_rank(cfg)   the global batch's size; this rank's GPU
    announce / hear           rank 0 sets up the run directory, then tells the others where it is

The global batch. Every rank runs its own copy of the seeded batch stream, so all of them draw
the same global batch — batch_size × WORLD_SIZE windows — and rank r keeps rows [r·B, (r+1)·B):
disjoint slices of one draw. The global batch does not depend on how many processes share it: 2
processes × batch_size 4 train on the windows 1 process × batch_size 8 trains on, and log its
losses (tests/e2e/distributed/). The stream is in the same state on every rank, so rank 0's
checkpoint holds it for all of them, and a resumed job continues it.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import inspect
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, cast

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from glassformer.errors import GlassformerError, UsageError
from glassformer.train.data import TextWindows
from glassformer.train.record import ReadOnlyRunFiles, RunFiles

CPU = torch.device("cpu")  # where small Python objects travel (gloo), whatever device trains
# torch 2.13 renamed broadcast_buffers=False to forward_sync_buffers=False (which still syncs once, at init)
NO_BUFFER_SYNC = (
    {"forward_sync_buffers": False}
    if "forward_sync_buffers" in inspect.signature(DistributedDataParallel).parameters
    else {"broadcast_buffers": False}
)


class World:
    """One process: the world of every run that torchrun did not start."""

    rank, local_rank, size = 0, 0, 1

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that evaluates, prints and writes."""
        return self.rank == 0

    def wrap(self, model):
        return model

    def accumulating(self, parallel, last: bool):
        return contextlib.nullcontext()

    def mean(self, t: torch.Tensor) -> torch.Tensor:
        return t

    def shared(self, evaluate):
        return evaluate

    def seed_dropout(self, seed: int, step: int) -> None:
        pass  # one process keeps the one global stream, saved in its checkpoints

    def run_files(self, run_dir) -> RunFiles:
        return RunFiles(run_dir)

    def share(self, source):
        return source

    def whole_batch(self, cfg):
        return cfg

    def for_rank(self, cfg):
        return cfg

    @contextlib.contextmanager
    def main_first(self):
        yield

    @contextlib.contextmanager
    def together(self):
        yield

    def announce(self, run_dir, resumed: bool) -> None:
        pass


SINGLE = World()


class ProcessWorld(World):
    """One of WORLD_SIZE processes started by torchrun, all in one process group."""

    def __init__(self, rank: int, local_rank: int, size: int) -> None:
        self.rank, self.local_rank, self.size = rank, local_rank, size

    def wrap(self, model):
        """DDP broadcasts rank 0's weights now and averages gradients in every backward. Buffers are
        not synced at each forward: glassformer's are constant tables (masks, positions), never running
        statistics, and that keeps rank 0's evaluation (no gradients) free of collective calls."""
        on_gpu = next(model.parameters()).is_cuda
        return DistributedDataParallel(model, device_ids=[self.local_rank] if on_gpu else None, **NO_BUFFER_SYNC)

    def accumulating(self, parallel, last: bool):
        """Micro-batches before the last keep their gradients local; the last one's backward
        all-reduces the sum, once (DDP's no_sync)."""
        return contextlib.nullcontext() if last else parallel.no_sync()

    def mean(self, t: torch.Tensor) -> torch.Tensor:
        """t averaged over ranks, in place, on its device (queued: no host sync). Every rank grades
        B·T tokens, so the mean of the ranks' mean losses is the global batch's mean loss."""
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.div_(self.size)

    def shared(self, evaluate):
        """Rank 0 runs `evaluate`; every rank gets its numbers, so best weights, early stopping and
        the non-finite check decide the same everywhere."""
        if evaluate is None:
            return None

        def evaluate_on_rank_0() -> dict:
            box = [evaluate() if self.is_main else None]
            dist.broadcast_object_list(box, src=0, device=CPU)
            return cast(dict, box[0])

        return evaluate_on_rank_0

    def seed_dropout(self, seed: int, step: int) -> None:
        """Each rank draws other dropout masks (one global stream would repeat rank 0's masks on
        every rank's rows), from a seed a resumed job computes again: exact at any step."""
        digest = hashlib.sha256(f"{seed}:{self.rank}:{step}".encode()).digest()
        torch.manual_seed(int.from_bytes(digest[:8], "little") >> 1)  # < 2**63

    def run_files(self, run_dir) -> RunFiles:
        return RunFiles(run_dir) if self.is_main else ReadOnlyRunFiles(run_dir)

    def share(self, source):
        if not isinstance(source, TextWindows):
            raise UsageError(
                "world.source",
                "multi-process training splits windows of a text corpus "
                "(token models); {source} (generated numbers or pairs) is "
                "small: train it in one process, without torchrun.",
                source=type(source).__name__,
            )
        return RankSlice(source, self.rank, self.size)

    def whole_batch(self, cfg):
        return replace(cfg, batch_size=cfg.batch_size * self.size)

    def for_rank(self, cfg):
        """Each process trains on the GPU of its LOCAL_RANK (or on the CPU)."""
        if cfg.device == "cuda":
            if self.local_rank >= torch.cuda.device_count():
                raise UsageError(
                    "world.gpus",
                    "--device=cuda: this machine has {gpus} GPU(s), but torchrun "
                    "started a process with LOCAL_RANK {local_rank}. Pass "
                    "--nproc_per_node at most the number of GPUs.",
                    gpus=torch.cuda.device_count(),
                    local_rank=self.local_rank,
                )
            return replace(cfg, device=f"cuda:{self.local_rank}")
        if cfg.device != "cpu":
            raise UsageError(
                "world.device",
                "--device={device} under torchrun: each process takes the "
                "GPU of its LOCAL_RANK by itself. Pass --device=cuda (or "
                "--device=cpu).",
                device=cfg.device,
            )
        return cfg

    @contextlib.contextmanager
    def main_first(self):
        """Rank 0 runs the block, then the others (it may repair what they read)."""
        if not self.is_main:
            self._barrier()
        yield
        if self.is_main:
            self._barrier()

    @contextlib.contextmanager
    def together(self):
        """A collective call that failed because another process of the job ended becomes one clear
        line: that process printed why (and torchrun reports it); this one only says it stops too."""
        try:
            yield
        except RuntimeError as e:
            if isinstance(e, dist.DistError) or "gloo" in str(e):
                raise GlassformerError(
                    "world.peer_stopped",
                    "another process of this torchrun job stopped (its own message says why); rank {rank} stops too.",
                    rank=self.rank,
                ) from None
            raise

    def announce(self, run_dir, resumed: bool) -> None:
        """Rank 0: the run directory is ready (config.json, tokenizer.json, the checkpoint to resume)."""
        dist.broadcast_object_list([str(run_dir), resumed], src=0, device=CPU)

    def hear(self) -> tuple[Path, bool]:
        """The other ranks: wait for rank 0's announcement; (run directory, resumed?)."""
        box: list[Any] = [None, None]
        dist.broadcast_object_list(box, src=0, device=CPU)
        return Path(box[0]), box[1]

    def _barrier(self) -> None:
        dist.all_reduce(torch.zeros(1))  # a CPU tensor: gloo, whichever device trains


def exit_process(code: int) -> NoReturn:
    """How `python -m glassformer` ends. A torchrun worker leaves its process group, flushes its
    output and ends with os._exit, skipping the C++ libraries' static destructors, where gloo was
    seen to abort after a job that had finished (exit -6, "terminate called without an active
    exception"), so torchrun reported the job as failed. Every file glassformer writes is closed
    (and renamed into place) before this. Any other process ends with sys.exit."""
    if not isinstance(_world, ProcessWorld):
        sys.exit(code)
    dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


class RankSlice:
    """Rank r's rows of the global batch (which every rank draws alike): [r·B, (r+1)·B)."""

    def __init__(self, source, rank: int, size: int) -> None:
        self.source, self.rank, self.size, self.splits = source, rank, size, source.splits

    def train_batch(self, generator: torch.Generator):
        x, y = self.source.train_batch(generator)  # (B·W, T) x2: the global batch
        B = x.size(0) // self.size
        return x[self.rank * B : (self.rank + 1) * B], y[self.rank * B : (self.rank + 1) * B]  # (B, T) x2

    def eval_batches(self, split: str):
        return self.source.eval_batches(split)  # rank 0 evaluates the whole global batches


_world: World | None = None


def current() -> World:
    """This process's world: SINGLE, or (started by torchrun) its place in the process group."""
    global _world
    if _world is None:
        _world = _join() if int(os.environ.get("WORLD_SIZE", "1")) > 1 else SINGLE
    return _world


def _join() -> ProcessWorld:
    missing = [k for k in ("RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
    if missing:
        raise UsageError(
            "world.env",
            "WORLD_SIZE={size} but {missing} not set: start several "
            "processes with torchrun (docs/scale.md), or unset "
            "WORLD_SIZE.",
            size=os.environ["WORLD_SIZE"],
            missing=", ".join(missing),
        )
    rank, local_rank, size = (int(os.environ[k]) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE"))
    if local_rank < torch.cuda.device_count():  # (processes beyond the GPUs can still train on the CPU)
        torch.cuda.set_device(local_rank)
    dist.init_process_group("cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo")  # env:// from torchrun
    atexit.register(dist.destroy_process_group)  # a process that ends without exit_process (a script)
    if rank != 0:  # rank 0 speaks for the job; the others' errors still reach stderr
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    return ProcessWorld(rank, local_rank, size)

"""Batch sources: where the trainer's (input, target) batches come from.

The trainer asks a source for two things and knows nothing else about the data:

    train_batch(generator)  the next training batch, drawn with the trainer's seeded generator
                            (saved in every checkpoint, so a resumed run draws what it would have)
    eval_batches(split)     the batches of one evaluation of a split, the same ones every time,
                            drawn without touching the training stream

TextWindows   random windows of a long token-id array (a prepared corpus): x = ids[s:s+T],
              y = ids[s+1:s+T+1] — next-token prediction, nanoGPT's way.
TensorBatches a small dataset held in memory, passed over epoch after epoch in order or
              reshuffled each epoch (the tutorials' way): word rows, sine waves.
"""

from __future__ import annotations

from typing import Iterator, Protocol

import torch

from glassformer.text.batches import get_batch

Batch = tuple[torch.Tensor, torch.Tensor]


class BatchSource(Protocol):
    splits: tuple[str, ...]  # what an evaluation reports, e.g. ("train", "val")

    def train_batch(self, generator: torch.Generator) -> Batch: ...

    def eval_batches(self, split: str) -> Iterator[Batch]: ...


class TextWindows:
    """Windows of block_size tokens from two flat id arrays (train, val)."""

    splits = ("train", "val")

    def __init__(self, train, val, batch_size: int, block_size: int, eval_iters: int, seed: int,
                 device: str = "cpu") -> None:
        self.data = {"train": train, "val": val}
        self.batch_size, self.block_size, self.eval_iters = batch_size, block_size, eval_iters
        self.seed, self.device = seed, device

    @classmethod
    def from_config(cls, train, val, cfg) -> "TextWindows":
        return cls(train, val, cfg.batch_size, cfg.block_size, cfg.eval_iters, cfg.seed, cfg.device)

    def train_batch(self, generator: torch.Generator) -> Batch:
        return get_batch(self.data["train"], self.batch_size, self.block_size, generator, self.device)  # (B, T) x2

    def eval_batches(self, split: str) -> Iterator[Batch]:
        offset = self.splits.index(split) + 1
        generator = torch.Generator().manual_seed(self.seed + offset)  # same batches at every evaluation
        for _ in range(self.eval_iters):
            yield get_batch(self.data[split], self.batch_size, self.block_size, generator, self.device)


class TensorBatches:
    """(inputs, targets) tensors, split into batches of batch_size; a new epoch starts when the
    last (possibly smaller) batch has been served. shuffle: a fresh order each epoch, drawn with
    the trainer's generator; else the rows in order, as stored."""

    def __init__(self, inputs: torch.Tensor, targets: torch.Tensor, batch_size: int, shuffle: bool = False,
                 val: Batch | None = None, device: str = "cpu", eval_iters: int | None = None) -> None:
        if len(inputs) != len(targets) or not len(inputs):
            raise ValueError(f"inputs ({len(inputs)} rows) and targets ({len(targets)} rows) must be "
                             "non-empty and the same length.")
        self.inputs, self.targets = inputs.to(device), targets.to(device)
        self.val = tuple(t.to(device) for t in val) if val is not None else None
        self.splits = ("train", "val") if val is not None else ("train",)
        self.batch_size, self.shuffle = batch_size, shuffle
        self.eval_iters = eval_iters  # at most this many batches per evaluation (None: the whole split)
        self.order: torch.Tensor | None = None  # this epoch's row order
        self.cursor = 0

    @property
    def steps_per_epoch(self) -> int:
        return -(-len(self.inputs) // self.batch_size)  # ceil

    def train_batch(self, generator: torch.Generator) -> Batch:
        n = len(self.inputs)
        if self.order is None or self.cursor >= n:  # a new epoch
            self.order = torch.randperm(n, generator=generator) if self.shuffle else torch.arange(n)  # (N,)
            self.cursor = 0
        idx = self.order[self.cursor: self.cursor + self.batch_size]  # (b,)
        self.cursor += self.batch_size
        return self.inputs[idx], self.targets[idx]

    def eval_batches(self, split: str) -> Iterator[Batch]:
        data = self.val if split == "val" else (self.inputs, self.targets)
        starts = range(0, len(data[0]), self.batch_size)
        for i in starts[: self.eval_iters]:  # the first rows: the same ones at every evaluation
            yield data[0][i: i + self.batch_size], data[1][i: i + self.batch_size]

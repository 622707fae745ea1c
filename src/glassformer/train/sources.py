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
PairBatches   (source, target) pairs for an encoder-decoder, with teacher forcing: the input is
              a tuple (src, tgt_in), which the trainer passes on as model(src, tgt_in).
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

    def __init__(
        self, train, val, batch_size: int, block_size: int, eval_iters: int, seed: int, device: str = "cpu"
    ) -> None:
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

    def __init__(
        self,
        inputs: torch.Tensor,
        targets: torch.Tensor,
        batch_size: int,
        shuffle: bool = False,
        val: Batch | None = None,
        device: str = "cpu",
        eval_iters: int | None = None,
    ) -> None:
        if len(inputs) != len(targets) or not len(inputs):
            raise ValueError(
                f"inputs ({len(inputs)} rows) and targets ({len(targets)} rows) must be non-empty and the same length."
            )
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
        idx = self.order[self.cursor : self.cursor + self.batch_size]  # (b,)
        self.cursor += self.batch_size
        return self.inputs[idx], self.targets[idx]

    def eval_batches(self, split: str) -> Iterator[Batch]:
        data = self.val if split == "val" else (self.inputs, self.targets)
        starts = range(0, len(data[0]), self.batch_size)
        for i in starts[: self.eval_iters]:  # the first rows: the same ones at every evaluation
            yield data[0][i : i + self.batch_size], data[1][i : i + self.batch_size]


IGNORE = -100  # a target position with nothing to predict (padding): the losses skip it


def pad_pairs(pairs, bos_id: int, eos_id: int, pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Id pairs -> src (N, S) and tgt (N, T+2) = [<BOS>] + target + [<EOS>], both right-padded."""
    S = max(len(s) for s, _ in pairs)
    T = max(len(t) for _, t in pairs) + 2
    src = torch.full((len(pairs), S), pad_id, dtype=torch.long)  # (N, S)
    tgt = torch.full((len(pairs), T), pad_id, dtype=torch.long)  # (N, T+2)
    for i, (s, t) in enumerate(pairs):
        src[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        tgt[i, : len(t) + 2] = torch.tensor([bos_id, *t, eos_id], dtype=torch.long)
    return src, tgt


class PairBatches:
    """Teacher forcing for an encoder-decoder. From (source ids, target ids) pairs, each batch is

        x = (src, tgt_in)   src (B, S): the source, padded;  tgt_in (B, T): [<BOS>, y₁ … y_{T-1}]
        y = tgt_out         (B, T): [y₁ … y_T, <EOS>], IGNORE where there is only padding

    so at position t the decoder reads the true target tokens before t and is graded on token t
    (it never has to live with its own mistakes while training). A batch is cut to its longest
    row. Epochs are reshuffled with the trainer's generator; evaluation reads the first
    `eval_rows` pairs of each split, in order, the same ones every time.
    """

    def __init__(
        self,
        train_pairs,
        val_pairs,
        batch_size: int,
        bos_id: int,
        eos_id: int,
        pad_id: int,
        eval_rows: int = 512,
        device: str = "cpu",
    ) -> None:
        if not train_pairs or not val_pairs:
            raise ValueError("PairBatches needs training and validation pairs; one of them is empty.")
        if any(not s or not t for s, t in list(train_pairs) + list(val_pairs)):
            raise ValueError("every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>).")
        self.pad_id, self.batch_size, self.device = pad_id, batch_size, device
        self.data = {
            split: pad_pairs(pairs, bos_id, eos_id, pad_id)
            for split, pairs in (("train", train_pairs), ("val", val_pairs))
        }  # split -> (src (N, S), tgt (N, T+2))
        self.splits = ("train", "val")
        self.eval_rows = eval_rows
        self.order: torch.Tensor | None = None
        self.cursor = 0

    @property
    def steps_per_epoch(self) -> int:
        return -(-len(self.data["train"][0]) // self.batch_size)  # ceil

    def batch(self, split: str, rows: torch.Tensor):
        src, tgt = (t[rows] for t in self.data[split])  # (b, S), (b, T+2)
        src = src[:, : int((src != self.pad_id).sum(1).max())]  # (b, S') cut to the longest source
        tgt = tgt[:, : int((tgt != self.pad_id).sum(1).max())]  # (b, T'+2)
        tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:].masked_fill(tgt[:, 1:] == self.pad_id, IGNORE)  # (b, T'+1) each
        return (src.to(self.device), tgt_in.to(self.device)), tgt_out.to(self.device)

    def train_batch(self, generator: torch.Generator):
        n = len(self.data["train"][0])
        if self.order is None or self.cursor >= n:  # a new epoch
            self.order = torch.randperm(n, generator=generator)  # (N,)
            self.cursor = 0
        rows = self.order[self.cursor : self.cursor + self.batch_size]  # (b,)
        self.cursor += self.batch_size
        return self.batch("train", rows)

    def eval_batches(self, split: str):
        n = min(self.eval_rows, len(self.data[split][0]))
        for start in range(0, n, self.batch_size):
            yield self.batch(split, torch.arange(start, min(start + self.batch_size, n)))

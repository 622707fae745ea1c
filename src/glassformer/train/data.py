"""What the trainer trains on: batch sources, and the two kinds of data glassformer makes on the fly.

The trainer asks a source for two things and knows nothing else about the data:

    train_batch(generator)  the next training batch, drawn with the trainer's seeded generator
                            (saved in every checkpoint, so a resumed run draws what it would have)
    eval_batches(split)     the batches of one evaluation of a split, the same ones every time,
                            drawn without touching the training stream

TextWindows   random windows of a long token-id array (a prepared corpus): x = ids[s:s+T],
              y = ids[s+1:s+T+1] — next-token prediction, nanoGPT's way; `get_batch` draws
              one batch of them (one window of T+1 ids gives T training examples at once).
TensorBatches a small dataset held in memory, passed over epoch after epoch in order or
              reshuffled each epoch (the tutorials' way): word rows, sine waves.
PairBatches   (source, target) pairs for an encoder-decoder, with teacher forcing: the input is
              a tuple (src, tgt_in), which the trainer passes on as model(src, tgt_in).

Generated data (nothing to download), below the sources:

    wave_source("sine" | "sine:forecast")   noisy sine waves, the third tutorial's (WaveData)
    pair_source("numbers:zh2num" ...)       sequence-to-sequence tasks: digits, Chinese numbers (PairData)
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Iterator, Protocol, cast

import numpy as np
import torch

from glassformer.config import SINE_N_TRAIN, SINE_N_VAL
from glassformer.errors import UsageError
from glassformer.text.chinese import to_chinese
from glassformer.text.tokenizers import WordTokenizer

# ---- batch sources -------------------------------------------------------------------------------
Batch = tuple[torch.Tensor, torch.Tensor]


class BatchSource(Protocol):
    splits: tuple[str, ...]  # what an evaluation reports, e.g. ("train", "val")

    def train_batch(self, generator: torch.Generator) -> Batch: ...

    def eval_batches(self, split: str) -> Iterator[Batch]: ...


def get_batch(
    data: np.ndarray,
    batch_size: int,
    seq_len: int,
    generator: torch.Generator,
    device: str | torch.device = "cpu",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw ``batch_size`` random windows of ``seq_len`` tokens from ``data`` (e.g. a prepared memmap).

    Why this shape of code: the start offsets come from a torch.Generator (a CPU one), so a seed fixes
    the batches exactly and the caller's checkpoint can save and restore that generator's state; the
    windows are gathered with one NumPy fancy-index op, so a memmap reads only the bytes it needs and
    no Python loop copies samples one by one.

    Returns x, y: int64 tensors of shape (B, T) with y[:, t] == x[:, t + 1] for t < T - 1.
    """
    n = len(data)
    if n < seq_len + 1:
        raise UsageError(
            "batch.short",
            "data has {n} tokens but a window needs seq_len + 1 = {need}; use a longer corpus or a smaller seq_len.",
            n=n,
            need=seq_len + 1,
        )
    # 1) random start offsets; the largest start still leaves room for the shifted target
    starts = torch.randint(0, n - seq_len, (batch_size,), generator=generator)  # (B,)
    # 2) one index matrix: row b is s_b, s_b+1, ..., s_b+T
    index = starts.numpy()[:, None] + np.arange(seq_len + 1)  # (B, T+1)
    # 3) one gather from the (possibly on-disk) array, widened to int64 for nn.Embedding / cross_entropy
    windows = torch.from_numpy(np.asarray(data[index], dtype=np.int64))  # (B, T+1) int64
    # 4) input and target are the same window, offset by one
    x = windows[:, :-1].contiguous()  # (B, T)
    y = windows[:, 1:].contiguous()  # (B, T)
    return x.to(device), y.to(device)


class TextWindows:
    """Windows of seq_len tokens from two flat id arrays (train, val)."""

    splits = ("train", "val")

    def __init__(
        self, train, val, batch_size: int, seq_len: int, eval_iters: int, seed: int, device: str = "cpu"
    ) -> None:
        self.data = {"train": train, "val": val}
        self.batch_size, self.seq_len, self.eval_iters = batch_size, seq_len, eval_iters
        self.seed, self.device = seed, device

    @classmethod
    def from_config(cls, train, val, cfg) -> "TextWindows":
        return cls(train, val, cfg.batch_size, cfg.seq_len, cfg.eval_iters, cfg.seed, cfg.device)

    def train_batch(self, generator: torch.Generator) -> Batch:
        return get_batch(self.data["train"], self.batch_size, self.seq_len, generator, self.device)  # (B, T) x2

    def eval_batches(self, split: str) -> Iterator[Batch]:
        offset = self.splits.index(split) + 1
        generator = torch.Generator().manual_seed(self.seed + offset)  # same batches at every evaluation
        for _ in range(self.eval_iters):
            yield get_batch(self.data[split], self.batch_size, self.seq_len, generator, self.device)


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
            raise UsageError(
                "data.rows",
                "inputs ({inputs} rows) and targets ({targets} rows) must be non-empty and the same length.",
                inputs=len(inputs),
                targets=len(targets),
            )
        self.inputs, self.targets = inputs.to(device), targets.to(device)
        self.val: tuple[torch.Tensor, ...] | None = tuple(t.to(device) for t in val) if val is not None else None
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
        data = cast(Batch, self.val) if split == "val" else (self.inputs, self.targets)  # "val": only with val
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
            raise UsageError("data.no_pairs", "PairBatches needs training and validation pairs; one of them is empty.")
        if any(not s or not t for s, t in list(train_pairs) + list(val_pairs)):
            raise UsageError(
                "data.blank_pair", "every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>)."
            )
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


# ---- sine waves ----------------------------------------------------------------------------------
# The third tutorial's data: noisy sine waves with a random start and a random frequency,
# generated on the fly (nothing to download), as a batch source the trainer can use.
#
#     x = linspace(start, start + 2π, 50),  y = sin(freq · x) + N(0, 0.01²)
#     start ~ U(0, 2π),  freq ~ U(0.5, 2)                                  (seed 004, §5.1)
#
# Two framings of the same waves:
#     tutorial   read the 50 x values, predict the 50 y values (the tutorial's; ill-posed: freq is
#                never shown, so the error has a floor far above 0 — lessons/sine.py computes it)
#     forecast   read the first 40 noisy y values, predict the next 10 at every position (causal)
#
# `wave_source(spec, ...)` turns the source names "sine" (tutorial framing) and "sine:forecast"
# into train/val tensors for `train --preset sine`; the sine lesson uses the same generator.

SEQ_LEN, NOISE = 50, 0.01  # points per sequence, noise standard deviation
FREQ_LOW, FREQ_HIGH = 0.5, 2.0  # freq ~ U(0.5, 2)
N_TRAIN, N_VAL = SINE_N_TRAIN, SINE_N_VAL  # the tutorial's sizes (config.py: --help states them)
OBSERVED, HORIZON = 40, 10  # forecasting: read the first 40 values, predict the next 10
STEP = 2 * math.pi / (SEQ_LEN - 1)  # spacing of x


@dataclass
class SineSet:
    x: np.ndarray  # (N, 50) float64
    y: np.ndarray  # (N, 50) float64
    start: np.ndarray  # (N,)
    freq: np.ndarray  # (N,)

    def period_steps(self) -> np.ndarray:
        """Samples per period of each sequence: 2π / (freq · STEP)."""
        return 2 * math.pi / (self.freq * STEP)  # (N,)


def make(n: int, rng: np.random.Generator) -> SineSet:
    start = rng.uniform(0, 2 * math.pi, n)  # (N,)
    freq = rng.uniform(FREQ_LOW, FREQ_HIGH, n)  # (N,)
    x = start[:, None] + STEP * np.arange(SEQ_LEN)[None, :]  # (N, 50), = linspace(start, start + 2π)
    y = np.sin(freq[:, None] * x) + rng.normal(0, NOISE, x.shape)  # (N, 50)
    return SineSet(x, y, start, freq)


def as_tensor(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float32)


# the forecasting framing
def forecast_windows(y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs y[:, :40] (N, 40, 1); targets (N, 40, 10): at position t, the values y[t+1 .. t+10].

    With a causal mask, position t sees y[0..t] only, so every prefix is an honest example of
    "given what came so far, predict the next 10"; the lesson's forecast is position 39's."""
    idx = np.arange(OBSERVED)[:, None] + np.arange(1, HORIZON + 1)[None, :]  # (40, 10)
    return as_tensor(y[:, :OBSERVED, None]), as_tensor(y[:, idx])  # (N, 40, 1), (N, 40, 10)


FRAMINGS = {"sine": "tutorial", "sine:forecast": "forecast"}
DATA_SEED = 0  # the waves of a `sine` run are the same whatever the training seed


def wave_tensors(source: str, n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of a framing as (inputs, targets): tutorial (N, 50, 1) -> (N, 50, 1);
    forecast (N, 40, 1) -> (N, 40, 10)."""
    s = make(n, rng)
    if FRAMINGS[source] == "forecast":
        return forecast_windows(s.y)
    return as_tensor(s.x)[..., None], as_tensor(s.y)[..., None]  # (N, 50, 1) each


@dataclass
class WaveData:
    """A generated numeric dataset: what a regressor run trains and evaluates on."""

    source: str
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor
    tokenizer = None  # numbers need no tokenizer

    @property
    def identity(self) -> dict[str, str]:
        """What config.json records so a resumed run can check it sees the same data."""
        h = hashlib.sha256()
        for t in (self.x_train, self.y_train, self.x_val, self.y_val):
            h.update(t.numpy().tobytes())
        return {"data_sha256": h.hexdigest()}


def wave_source(source: str) -> WaveData:
    if source not in FRAMINGS:
        raise UsageError(
            "data.wave_source",
            "unknown numeric source {source!r}; choose one of {choices}.",
            source=source,
            choices=sorted(FRAMINGS),
        )
    rng = np.random.default_rng(DATA_SEED)
    x, y = wave_tensors(source, N_TRAIN, rng)
    xv, yv = wave_tensors(source, N_VAL, rng)
    return WaveData(source, x, y, xv, yv)


# ---- sequence-to-sequence tasks ------------------------------------------------------------------
# Sequence-to-sequence tasks made on the fly: nothing to download, each learnable on a CPU in minutes.
#
#     digits:copy      31415        ->  31415
#     digits:reverse   31415        ->  51413
#     digits:sort      31415        ->  11345
#     numbers:zh2num   一千二百零五  ->  1205          (text/chinese.py has the grammar)
#     numbers:num2zh   1205         ->  一千二百零五
#
# Every task uses one vocabulary (the ten digits, the Chinese number characters, and <PAD> <UNK>
# <BOS> <EOS>), one token per character, through a WordTokenizer over space-separated characters:
# source and target share it, as EncoderDecoder expects.
#
# Held out means never seen: the test pairs share no source with the training pairs. Digit strings
# (length 1 … max_digits) are drawn without repeats before they are split; for numbers, the numbers
# 0 … limit-1 are shuffled and split, so a test number's words and digits never appear as a training
# pair — the model must have learned the rules, not the answers. The split is fixed by `seed`.

VOCAB = list("0123456789") + list("零一二三四五六七八九十百千万")
DIGIT_TASKS = {"copy": lambda s: s, "reverse": lambda s: s[::-1], "sort": lambda s: "".join(sorted(s))}
NUMBER_TASKS = {"zh2num": lambda n: (to_chinese(n), str(n)), "num2zh": lambda n: (str(n), to_chinese(n))}
SOURCES = [f"digits:{t}" for t in DIGIT_TASKS] + [f"numbers:{t}" for t in NUMBER_TASKS]
SPLIT = {"val": 0.05, "test": 0.10}  # fractions held out; the rest trains

Pair = tuple[str, str]


def pair_tokenizer() -> WordTokenizer:
    """The one vocabulary of every task: <PAD>=0 <UNK>=1 <BOS>=2 <EOS>=3, then one id per character."""
    return WordTokenizer(VOCAB)


@dataclass
class PairData:
    source: str  # e.g. "numbers:zh2num"
    tokenizer: WordTokenizer
    train: list[Pair]
    val: list[Pair]
    test: list[Pair]  # held out: no source here appears in train or val

    def ids(self, text: str) -> list[int]:
        """Characters -> ids (no <BOS>/<EOS>: the batch source and the decoder add those)."""
        return self.tokenizer.encode(" ".join(text))

    def text(self, ids) -> str:
        """Ids -> characters, special tokens dropped."""
        return "".join(self.tokenizer.decode(ids, skip_special=True).split())

    def encoded(self, split: str) -> list[tuple[list[int], list[int]]]:
        return [(self.ids(s), self.ids(t)) for s, t in getattr(self, split)]

    @property
    def identity(self) -> dict[str, str]:
        """A fingerprint of every pair, so a resumed run can tell if the data changed."""
        text = json.dumps([self.train, self.val, self.test], ensure_ascii=False)
        return {"data_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}

    def longest(self) -> tuple[int, int]:
        """(source, target) lengths in tokens of the longest pair, before <BOS>/<EOS>."""
        pairs = self.train + self.val + self.test
        return max(len(s) for s, _ in pairs), max(len(t) for _, t in pairs)


def _split(items: list, rng: np.random.Generator) -> dict[str, list]:
    order = rng.permutation(len(items))
    n_val, n_test = (max(1, round(f * len(items))) for f in SPLIT.values())
    val, test, train = order[:n_val], order[n_val : n_val + n_test], order[n_val + n_test :]
    return {"train": [items[i] for i in train], "val": [items[i] for i in val], "test": [items[i] for i in test]}


def digit_strings(n: int, max_digits: int, rng: np.random.Generator) -> list[str]:
    """n distinct digit strings, lengths uniform in 1 … max_digits (as far as there are enough)."""
    seen: dict[str, None] = {}
    capacity = sum(10**k for k in range(1, max_digits + 1))
    if n > capacity:
        raise UsageError(
            "data.digit_capacity",
            "only {capacity:,} digit strings have at most {max_digits} "
            "digits; ask for fewer than {n:,} pairs or allow longer "
            "strings.",
            capacity=capacity,
            max_digits=max_digits,
            n=n,
        )
    while len(seen) < n:
        length = int(rng.integers(1, max_digits + 1))
        seen.setdefault("".join(map(str, rng.integers(0, 10, length))), None)
    return list(seen)


def pair_source(spec: str, seed: int = 0, n_pairs: int = 20_000, max_digits: int = 8, limit: int = 10_000) -> PairData:
    """The task `spec` names, with a fixed split. n_pairs and max_digits: digit tasks;
    limit: number tasks use the numbers 0 … limit-1."""
    family, _, task = spec.partition(":")
    rng = np.random.default_rng(seed)
    if family == "digits" and task in DIGIT_TASKS:
        sources = digit_strings(n_pairs, max_digits, rng)
        pairs = [(s, DIGIT_TASKS[task](s)) for s in sources]
    elif family == "numbers" and task in NUMBER_TASKS:
        pairs = [NUMBER_TASKS[task](n) for n in range(limit)]
    else:
        raise UsageError(
            "data.pair_source", "unknown pair source {source!r}; choose one of {choices}.", source=spec, choices=SOURCES
        )
    return PairData(spec, pair_tokenizer(), **_split(pairs, rng))

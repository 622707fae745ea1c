"""Sequence-to-sequence tasks made on the fly: nothing to download, each learnable on a CPU in minutes.

    digits:copy      31415        ->  31415
    digits:reverse   31415        ->  51413
    digits:sort      31415        ->  11345
    numbers:zh2num   一千二百零五  ->  1205          (text/chinese_numbers.py has the grammar)
    numbers:num2zh   1205         ->  一千二百零五

Every task uses one vocabulary (the ten digits, the Chinese number characters, and <PAD> <UNK>
<BOS> <EOS>), one token per character, through a WordTokenizer over space-separated characters:
source and target share it, as EncoderDecoder expects.

Held out means never seen: the test pairs share no source with the training pairs. Digit strings
(length 1 … max_digits) are drawn without repeats before they are split; for numbers, the numbers
0 … limit-1 are shuffled and split, so a test number's words and digits never appear as a training
pair — the model must have learned the rules, not the answers. The split is fixed by `seed`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from glassformer.text.chinese_numbers import to_chinese
from glassformer.text.tokenizers import WordTokenizer

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
        raise ValueError(
            f"only {capacity:,} digit strings have at most {max_digits} digits; ask for fewer "
            f"than {n:,} pairs or allow longer strings."
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
        raise ValueError(f"unknown pair source {spec!r}; choose one of {SOURCES}.")
    return PairData(spec, pair_tokenizer(), **_split(pairs, rng))

"""Degeneration, measured: does a generated text loop, and how repetitive is it?

Everything here reads one text's token ids (a list of whole numbers or a 1-D tensor); docs/repetition.md
gives the definitions and their sources.

    find_loop      the loop the text ends in: its period p, where it starts, the repeated span
    seq_rep_n      1 − |unique n-grams| / |n-grams|        (Welleck et al. 2019, seq-rep-n;
                                                           Su et al. 2022 call it rep-n)
    distinct_n     |unique n-grams| / |tokens|, over a set of texts       (Li et al. 2016)
    rep_l          the fraction of tokens already among the previous l   (Welleck et al. 2019, rep/l)
    measure_repetition   all of them for one text

A measure whose denominator is 0 (an empty text, one shorter than n) is undefined: NaN, so an
average over samples skips it (`math.isnan`) instead of counting it as "no repetition".

A loop, precisely. A text x_0 … x_{T−1} has a periodic tail of period p from s when x_t = x_{t−p}
for every t with s + p <= t < T; s_p is the smallest such s (the tail reaches back as far as it
can). The text loops with period p when that tail holds at least `min_repeats` copies of its span,
T − s_p >= min_repeats · p, and covers at least `min_span` tokens, T − s_p >= min_span. `find_loop`
returns the shortest such p; the span is x[s_p : s_p + p], and the last copy may be cut short.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Sequence

import torch

from glassformer.errors import UsageError, WrongType

# Two copies in a row happen in ordinary text ("the the", "ha ha", a doubled line); three are
# rare outside a loop, and Holtzman et al.'s degenerate examples run to many more.
MIN_REPEATS = 3
# A character model's ordinary text has short runs of one or two tokens ("...", "   ", "!!!"):
# a loop must cover more tokens than such a run, and fewer than a line of a looping sample.
MIN_SPAN = 8
NS = (1, 2, 3, 4)  # n-gram sizes measured: Welleck et al. report seq-rep-4, Su et al. rep-2 to rep-4
WINDOWS = (16, 32, 128)  # Welleck et al.'s rep/l windows


@dataclass(frozen=True)
class Loop:
    """The loop a text ends in."""

    start: int  # s: index of the first token of the periodic tail
    period: int  # p: tokens in one copy of the span
    span: tuple[int, ...]  # the repeated span, x[s : s + p]
    repeats: float  # (T − s) / p: copies of the span in the tail; the last one may be partial
    text: str | None = None  # the span decoded, when a tokenizer was given


@dataclass(frozen=True)
class Repetition:
    """Every measure of one text (NaN where undefined)."""

    seq_rep: dict[int, float]  # n -> seq-rep-n
    distinct: dict[int, float]  # n -> distinct-n of this text alone
    rep: dict[int, float]  # window l -> rep/l
    loop: Loop | None  # the loop the text ends in, or None


def token_ids(ids: Sequence[int] | torch.Tensor) -> list[int]:
    """One text's ids as a list of ints; anything else is refused with the thing that is wrong."""
    if isinstance(ids, torch.Tensor):
        if ids.dim() != 1 or ids.is_floating_point() or ids.is_complex():
            raise WrongType(
                "repetition.ids",
                "the repetition measures read the token ids of one text: a "
                "list of whole numbers or a 1-D tensor, got {got}",
                got=(tuple(ids.shape), ids.dtype),
            )
        return ids.tolist()
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise WrongType(
            "repetition.ids",
            "the repetition measures read the token ids of one text: a "
            "list of whole numbers or a 1-D tensor, got {got}",
            got=type(ids).__name__,
        )
    for i in ids:
        if not isinstance(i, numbers.Integral) or isinstance(i, bool):
            raise WrongType(
                "repetition.ids",
                "the repetition measures read the token ids of one text: a "
                "list of whole numbers or a 1-D tensor, got {got}",
                got=i,
            )
    return [int(i) for i in ids]


def check_size(name: str, value: int) -> None:
    if not (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1):
        raise UsageError("repetition.size", "{name} must be a whole number >= 1, got {value!r}", name=name, value=value)


def ngrams(ids: Sequence[int] | torch.Tensor, n: int) -> list[tuple[int, ...]]:
    """Every n-gram of the text, in order, overlapping: T − n + 1 of them (none if T < n)."""
    check_size("n", n)
    x = token_ids(ids)
    return [tuple(x[i : i + n]) for i in range(len(x) - n + 1)]


def seq_rep_n(ids: Sequence[int] | torch.Tensor, n: int) -> float:
    """1 − |unique n-grams| / |n-grams|: the share of the text's n-grams that repeat an earlier one.
    0 when no n-gram repeats; it approaches 1 as a loop goes on. NaN when the text has no n-gram."""
    grams = ngrams(ids, n)
    return 1 - len(set(grams)) / len(grams) if grams else math.nan


def distinct_n(texts: Sequence[Sequence[int] | torch.Tensor], n: int) -> float:
    """|unique n-grams over all the texts| / |tokens of all the texts| (Li et al. 2016 divide by the
    tokens, so long texts are not favoured). An n-gram never spans two texts. NaN with no token."""
    check_size("n", n)
    unique: set[tuple[int, ...]] = set()
    tokens = 0
    for ids in texts:
        x = token_ids(ids)
        unique.update(ngrams(x, n))
        tokens += len(x)
    return len(unique) / tokens if tokens else math.nan


def rep_l(ids: Sequence[int] | torch.Tensor, window: int) -> float:
    """rep/l with l = window: the fraction of the text's tokens that already occur among the `window`
    tokens before them. The first token has nothing before it and counts as new. NaN for an empty text."""
    check_size("window", window)
    x = token_ids(ids)
    last_seen: dict[int, int] = {}  # token -> index of its latest occurrence so far
    repeats = 0
    for t, token in enumerate(x):
        if token in last_seen and t - last_seen[token] <= window:
            repeats += 1
        last_seen[token] = t
    return repeats / len(x) if x else math.nan


def find_loop(
    ids: Sequence[int] | torch.Tensor,
    tokenizer=None,
    min_repeats: int = MIN_REPEATS,
    min_span: int = MIN_SPAN,
) -> Loop | None:
    """The loop the text ends in (module docstring: the shortest period p whose periodic tail holds at
    least min_repeats copies and min_span tokens), or None. tokenizer: decode the span into `text`."""
    if not (isinstance(min_repeats, numbers.Integral) and not isinstance(min_repeats, bool) and min_repeats >= 2):
        raise UsageError(
            "repetition.min_repeats",
            "min_repeats must be a whole number >= 2 (a loop is a span written at least twice in a row), got {value!r}",
            value=min_repeats,
        )
    check_size("min_span", min_span)
    x = token_ids(ids)
    T = len(x)
    for p in range(1, T // min_repeats + 1):
        s = T - p  # a tail of one copy is periodic with any period
        while s > 0 and x[s - 1] == x[s - 1 + p]:
            s -= 1  # one token further back still repeats the token p after it
        if T - s >= min_repeats * p and T - s >= min_span:
            span = tuple(x[s : s + p])
            text = tokenizer.decode(list(span)) if tokenizer is not None else None
            return Loop(start=s, period=p, span=span, repeats=(T - s) / p, text=text)
    return None


def measure_repetition(
    ids: Sequence[int] | torch.Tensor,
    tokenizer=None,
    ns: Sequence[int] = NS,
    windows: Sequence[int] = WINDOWS,
) -> Repetition:
    """Every measure of one generated text (pass the continuation, without its prompt)."""
    x = token_ids(ids)
    return Repetition(
        seq_rep={n: seq_rep_n(x, n) for n in ns},
        distinct={n: distinct_n([x], n) for n in ns},
        rep={w: rep_l(x, w) for w in windows},
        loop=find_loop(x, tokenizer),
    )

"""Degeneration measured (inspect/repetition.py): every measure on texts small enough to count by hand,
the edge cases (empty, shorter than n, no loop, period 1, a loop that starts mid-text, a last copy
cut short), and find_loop against its definition written as a brute-force search."""

from __future__ import annotations

import math
import random

import pytest
import torch

from glassformer.errors import UsageError, WrongType
from glassformer.inspect.repetition import (
    Loop,
    distinct_n,
    find_loop,
    measure_repetition,
    ngrams,
    rep_l,
    seq_rep_n,
)
from glassformer.text.tokenizers import CharTokenizer


def test_ngrams():
    assert ngrams([1, 2, 3], 2) == [(1, 2), (2, 3)]
    assert ngrams([1, 2, 3], 3) == [(1, 2, 3)]
    assert ngrams([1], 2) == [] and ngrams([], 1) == []


def test_seq_rep_n_by_hand():
    text = [1, 2, 1, 2, 1, 2]
    assert seq_rep_n(text, 1) == pytest.approx(1 - 2 / 6)  # 6 unigrams, 2 distinct
    assert seq_rep_n(text, 2) == pytest.approx(1 - 2 / 5)  # 12 21 12 21 12: 5 bigrams, 2 distinct
    assert seq_rep_n(text, 4) == pytest.approx(1 - 2 / 3)  # 1212 2121 1212
    assert seq_rep_n(text, 6) == 0.0  # one 6-gram: nothing repeats it
    assert seq_rep_n([1, 2, 3, 4], 1) == 0.0  # no repeat
    assert seq_rep_n([7, 7, 7, 7], 1) == pytest.approx(1 - 1 / 4)  # period 1
    assert math.isnan(seq_rep_n([1, 2], 3)) and math.isnan(seq_rep_n([], 1))  # no n-gram: undefined


def test_distinct_n_by_hand():
    texts = [[1, 2, 1, 2], [2, 1]]  # 6 tokens
    assert distinct_n(texts, 1) == pytest.approx(2 / 6)
    assert distinct_n(texts, 2) == pytest.approx(2 / 6)  # 12 21 12 | 21
    assert distinct_n(texts, 3) == pytest.approx(2 / 6)  # 121 212 | (none)
    assert distinct_n([[1], [2]], 2) == 0.0  # an n-gram never spans two texts (joined, "1 2" would count)
    assert distinct_n([[1, 2, 3]], 1) == 1.0
    assert distinct_n([[1, 2, 3]], 5) == 0.0  # shorter than n, but it has tokens: 0 of 3
    assert math.isnan(distinct_n([], 1)) and math.isnan(distinct_n([[]], 2))


def test_rep_l_by_hand():
    text = [1, 2, 1, 3, 1]
    assert rep_l(text, 1) == 0.0  # no token equals the one just before it
    assert rep_l(text, 2) == pytest.approx(2 / 5)  # positions 2 and 4: a 1 two tokens back
    assert rep_l(text, 128) == pytest.approx(2 / 5)
    assert rep_l([7, 7, 7, 7], 1) == pytest.approx(3 / 4)  # period 1: all but the first
    assert rep_l([1, 2, 3, 1], 2) == 0.0 and rep_l([1, 2, 3, 1], 3) == pytest.approx(1 / 4)  # the window's edge
    assert rep_l([5], 4) == 0.0 and math.isnan(rep_l([], 4))


def test_find_loop_edge_cases_by_hand():
    assert find_loop([]) is None and find_loop([1]) is None
    assert find_loop(list(range(20))) is None  # no loop
    assert find_loop([5] * 10) == Loop(start=0, period=1, span=(5,), repeats=10.0)  # period 1
    assert find_loop([5] * 7) is None  # 7 tokens: fewer than min_span
    assert find_loop([5] * 7, min_span=3) == Loop(start=0, period=1, span=(5,), repeats=7.0)
    # a loop that starts mid-text
    assert find_loop([9, 8, 7] + [1, 2, 3] * 4) == Loop(start=3, period=3, span=(1, 2, 3), repeats=4.0)
    # the last copy cut short
    assert find_loop([9, 8] + [1, 2, 3] * 3 + [1, 2]) == Loop(start=2, period=3, span=(1, 2, 3), repeats=11 / 3)
    # the tail reaches back as far as it repeats: here into the token before the first "1 2 3"
    assert find_loop([3] + [1, 2, 3] * 3) == Loop(start=0, period=3, span=(3, 1, 2), repeats=10 / 3)
    assert find_loop([1, 2] * 6).period == 2  # the shortest period, not 4 or 6
    # the loop the text ends in: a run of 4s after a loop of 1 2 3
    assert find_loop([1, 2, 3] * 3 + [4] * 8) == Loop(start=9, period=1, span=(4,), repeats=8.0)
    assert find_loop([1, 2, 3, 4] * 2) is None  # two copies are not enough by default
    assert find_loop([1, 2, 3, 4] * 2, min_repeats=2) == Loop(start=0, period=4, span=(1, 2, 3, 4), repeats=2.0)


def brute_force_loop(x: list[int], min_repeats: int, min_span: int) -> tuple[int, int] | None:
    """The definition, read literally: for p = 1, 2, ...: the smallest s with x[t] == x[t-p] for all
    s + p <= t < T; a loop if T - s >= min_repeats * p and T - s >= min_span."""
    T = len(x)
    for p in range(1, T + 1):
        s = min(s for s in range(T + 1) if all(x[t] == x[t - p] for t in range(s + p, T)))
        if T - s >= min_repeats * p and T - s >= min_span:
            return s, p
    return None


def test_find_loop_equals_its_definition_on_random_texts():
    rng = random.Random(0)
    found = 0
    for _ in range(400):
        x = [rng.randrange(3) for _ in range(rng.randrange(0, 16))]
        if rng.random() < 0.5:  # half of them end in a loop of a random span
            span = [rng.randrange(3) for _ in range(rng.randrange(1, 5))]
            x += span * rng.randrange(2, 5) + span[: rng.randrange(len(span))]
        k, m = rng.choice([(2, 1), (3, 1), (3, 8), (4, 5)])
        loop = find_loop(x, min_repeats=k, min_span=m)
        want = brute_force_loop(x, k, m)
        assert (None if loop is None else (loop.start, loop.period)) == want, (x, k, m)
        if loop is not None:
            found += 1
            assert loop.span == tuple(x[loop.start : loop.start + loop.period])
            assert loop.repeats == (len(x) - loop.start) / loop.period
    assert 100 < found < 400  # both outcomes were tested


def test_find_loop_reads_a_tensor_and_shows_the_text_with_a_tokenizer():
    tok = CharTokenizer("abcdefghijklmnopqrstuvwxyz ")
    ids = tok.encode("once upon a time the cat sat the cat sat the cat sat the cat sat")
    loop = find_loop(torch.tensor(ids), tokenizer=tok)
    assert (loop.text, loop.period, tok.decode(ids[: loop.start])) == (" the cat sat", 12, "once upon a time")
    assert loop.repeats == 4.0 and find_loop(ids) == Loop(loop.start, 12, loop.span, 4.0)


def test_measure_repetition_gathers_the_measures():
    text = [1, 2, 3] * 4  # 12 tokens, one loop of period 3 from the start
    m = measure_repetition(text, ns=(1, 2), windows=(2, 3))
    assert m.seq_rep == {1: pytest.approx(1 - 3 / 12), 2: pytest.approx(1 - 3 / 11)}
    assert m.distinct == {1: pytest.approx(3 / 12), 2: pytest.approx(3 / 12)}
    assert m.rep == {2: 0.0, 3: pytest.approx(9 / 12)}  # each token's twin is 3 back
    assert m.loop == Loop(start=0, period=3, span=(1, 2, 3), repeats=4.0)
    empty = measure_repetition([])
    assert empty.loop is None and all(math.isnan(v) for v in (*empty.seq_rep.values(), *empty.rep.values()))


@pytest.mark.parametrize(
    "call, error, key, fields",
    [
        (lambda: seq_rep_n([1, 2], 0), UsageError, "repetition.size", {"name": "n", "value": 0}),
        (lambda: distinct_n([[1]], -1), UsageError, "repetition.size", {"name": "n", "value": -1}),
        (lambda: rep_l([1, 2], 0), UsageError, "repetition.size", {"name": "window", "value": 0}),
        (lambda: find_loop([1], min_repeats=1), UsageError, "repetition.min_repeats", {"value": 1}),
        (lambda: find_loop([1], min_span=0), UsageError, "repetition.size", {"name": "min_span", "value": 0}),
        (
            lambda: find_loop(torch.zeros(2, 3, dtype=torch.long)),
            WrongType,
            "repetition.ids",
            {"got": ((2, 3), torch.int64)},
        ),
        (lambda: seq_rep_n([1, 2.5], 1), WrongType, "repetition.ids", {"got": 2.5}),
        (lambda: rep_l("abc", 1), WrongType, "repetition.ids", {"got": "str"}),
    ],
)
def test_bad_input_is_refused_with_a_key_and_fields(call, error, key, fields):
    with pytest.raises(error) as caught:
        call()
    assert (type(caught.value), caught.value.key, caught.value.fields) == (error, key, fields)

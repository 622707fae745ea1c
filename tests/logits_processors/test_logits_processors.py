"""The repetition knobs on hand numbers (the frequency and presence penalties have no transformers
processor to compare with: their formula is the reference), their refusals (key and fields), and
Knobs: its defaults change nothing. tests/reference/test_logits_processors_vs_hf.py compares the
others with transformers."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import torch

from glassformer.errors import UsageError
from glassformer.logits_processors import (
    Knobs,
    frequency_presence,
    min_p_filter,
    no_repeat_ngram,
    repetition_penalty,
    token_counts,
    typical_filter,
)

INF = float("inf")
pytestmark = pytest.mark.usefixtures("one_thread")  # tiny tensors: one thread is fastest


def test_frequency_and_presence_penalties_on_hand_numbers():
    logits = torch.tensor([[1.0, 2.0, -1.0, 0.5], [1.0, 2.0, -1.0, 0.5]])  # (2, 4)
    ids = torch.tensor([[1, 1, 2], [3, 3, 3]])  # counts: [0, 2, 1, 0] and [0, 0, 0, 3]
    out = frequency_presence(logits, ids, frequency=0.5, presence=0.25)
    # row 0: 2 − 0.5·2 − 0.25 = 0.75, −1 − 0.5·1 − 0.25 = −1.75; row 1: 0.5 − 0.5·3 − 0.25 = −1.25
    assert out.tolist() == [[1.0, 0.75, -1.75, 0.5], [1.0, 2.0, -1.0, -1.25]]
    # presence alone: paid once whatever the count; a negative frequency rewards repeats
    assert frequency_presence(logits, ids, 0.0, 1.0).tolist() == [[1.0, 1.0, -2.0, 0.5], [1.0, 2.0, -1.0, -0.5]]
    assert frequency_presence(logits, ids, -1.0, 0.0).tolist() == [[1.0, 4.0, 0.0, 0.5], [1.0, 2.0, -1.0, 3.5]]


def test_frequency_and_presence_equal_their_formula_on_random_rows():
    """OpenAI's formula, written token by token with a Counter: z_j − c_j·α_f − [c_j > 0]·α_p."""
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 30, generator=g, dtype=torch.float64)  # (B, V)
    logits[1, 3] = -INF
    ids = torch.randint(0, 8, (4, 25), generator=g)  # (B, T)
    out = frequency_presence(logits, ids, 0.3, 0.7)
    for b in range(4):
        counts = Counter(ids[b].tolist())
        want = [z - counts[j] * 0.3 - (counts[j] > 0) * 0.7 for j, z in enumerate(logits[b].tolist())]
        assert out[b].tolist() == pytest.approx(want, abs=1e-12)
    assert token_counts(logits, ids)[2].sum() == 25 and out[1, 3] == -INF


def test_repetition_penalty_on_hand_numbers_and_the_sign_rule():
    logits = torch.tensor([[2.0, -2.0, 1.0, -1.0]])  # (1, 4)
    ids = torch.tensor([[0, 1, 0]])
    # a seen positive logit is divided by θ, a seen negative one multiplied: both become less likely
    assert repetition_penalty(logits, ids, 2.0).tolist() == [[1.0, -4.0, 1.0, -1.0]]
    # (CTRL's text divides every seen logit: −2 / 2 = −1 would make token 1 *more* likely)
    assert repetition_penalty(logits, ids, 1.0).tolist() == logits.tolist()
    assert repetition_penalty(logits, torch.zeros(1, 0, dtype=torch.long), 2.0).tolist() == logits.tolist()


def test_no_repeat_ngram_on_hand_numbers():
    logits = torch.zeros(1, 6)  # (1, 6)
    ids = torch.tensor([[1, 2, 3, 5, 2, 4, 1, 2]])  # "2" was followed by 3 and 4, "1 2" by 3
    banned = lambda n: no_repeat_ngram(logits, ids, n)[0].isinf().nonzero().flatten().tolist()  # noqa: E731
    assert banned(1) == [1, 2, 3, 4, 5]  # every token written
    assert banned(2) == [3, 4]  # after "2"
    assert banned(3) == [3]  # after "1 2"
    assert banned(4) == []  # "4 1 2" never came before
    assert banned(9) == []  # longer than the text


def test_min_p_and_typical_on_hand_numbers():
    logits = torch.tensor([[0.0, -math.log(2), -math.log(4), -math.log(8)]], dtype=torch.float64)  # p ∝ 8:4:2:1
    kept = lambda out: out[0].isfinite().nonzero().flatten().tolist()  # noqa: E731
    assert kept(min_p_filter(logits, 0.25)) == [0, 1, 2]  # 1/8 < 0.25 · max, 2/8 is not
    assert kept(min_p_filter(logits, 0.3)) == [0, 1]
    assert kept(min_p_filter(logits, 0.0)) == [0, 1, 2, 3]
    assert kept(min_p_filter(logits, 1.0)) == [0]
    # p = 8/15, 4/15, 2/15, 1/15: H ≈ 1.137 nats; surprises −ln p ≈ 0.629, 1.322, 2.015, 2.708; their
    # distances from H ≈ 0.508, 0.185, 0.878, 1.571: the most typical token is 1 (mass so far 4/15),
    # then 0 (12/15), then 2 (14/15), then 3
    assert kept(typical_filter(logits, 0.2)) == [1]  # the most likely token is dropped
    assert kept(typical_filter(logits, 0.5)) == [0, 1]
    assert kept(typical_filter(logits, 0.79)) == [0, 1]
    assert kept(typical_filter(logits, 0.81)) == [0, 1, 2]
    assert kept(typical_filter(logits, 1.0)) == [0, 1, 2, 3]


def test_default_knobs_change_nothing_and_set_knobs_do():
    g = torch.Generator().manual_seed(1)
    logits, ids = torch.randn(3, 10, generator=g), torch.randint(0, 10, (3, 6), generator=g)
    knobs = Knobs()
    assert torch.equal(knobs.penalize(logits, ids), logits) and torch.equal(knobs.cut(logits), logits)
    assert not torch.equal(Knobs(presence_penalty=0.5).penalize(logits, ids), logits)
    assert not torch.equal(Knobs(frequency_penalty=0.5).penalize(logits, ids), logits)
    assert Knobs(no_repeat_ngram=1).penalize(logits, ids).isinf().sum() == token_counts(logits, ids).gt(0).sum()
    assert Knobs(min_p=1.0).cut(logits).isfinite().sum() == 3  # one per row


BAD = [
    (
        lambda: repetition_penalty(torch.zeros(1, 2), torch.zeros(1, 1, dtype=torch.long), 0.0),
        "sample.repetition_penalty",
        {"value": 0.0},
    ),
    (lambda: Knobs(repetition_penalty=-1.2), "sample.repetition_penalty", {"value": -1.2}),
    (lambda: Knobs(repetition_penalty=INF), "sample.repetition_penalty", {"value": INF}),
    (
        lambda: Knobs(frequency_penalty=INF),
        "sample.additive_penalty",
        {"name": "frequency_penalty", "value": INF},
    ),
    (
        lambda: Knobs(presence_penalty=-INF),
        "sample.additive_penalty",
        {"name": "presence_penalty", "value": -INF},
    ),
    (lambda: Knobs(no_repeat_ngram=0), "sample.no_repeat_ngram", {"value": 0}),
    (lambda: Knobs(no_repeat_ngram=2.5), "sample.no_repeat_ngram", {"value": 2.5}),
    (
        lambda: no_repeat_ngram(torch.zeros(1, 2), torch.zeros(1, 1, dtype=torch.long), -1),
        "sample.no_repeat_ngram",
        {"value": -1},
    ),
    (lambda: Knobs(min_p=-0.1), "sample.min_p", {"value": -0.1}),
    (lambda: min_p_filter(torch.zeros(1, 2), 1.5), "sample.min_p", {"value": 1.5}),
    (lambda: Knobs(typical_p=0.0), "sample.typical_p", {"value": 0.0}),
    (lambda: typical_filter(torch.zeros(1, 2), 1.01), "sample.typical_p", {"value": 1.01}),
]


@pytest.mark.parametrize("call, key, fields", BAD)
def test_bad_knobs_are_refused_with_a_key_and_fields(call, key, fields):
    with pytest.raises(UsageError) as caught:
        call()
    assert (caught.value.key, caught.value.fields) == (key, fields)


def test_nan_knobs_are_refused():
    for field in ("repetition_penalty", "frequency_penalty", "min_p", "typical_p"):
        with pytest.raises(UsageError) as caught:
            Knobs(**{field: math.nan})
        assert math.isnan(caught.value.fields["value"])

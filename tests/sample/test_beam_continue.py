"""A decoder-only model's beam search (sample.beam_continue): the encoder-decoder's search
(beam.search), stepped by the language model; checked against every continuation enumerated."""

from __future__ import annotations

import itertools

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.logits_processors import Knobs
from glassformer.models import GPT
from glassformer.sample import beam_continue, generate_ids

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

V = 5


def model() -> GPT:
    torch.manual_seed(0)
    return GPT(ModelConfig(vocab_size=V, d_model=16, n_heads=2, d_ff=16, n_layers=1, max_len=8, dropout=0.0)).eval()


def log_p(gpt: GPT, prompt: list[int], new: list[int]) -> float:
    """log P(new | prompt), read from one forward pass of the whole text."""
    x = torch.tensor([prompt + new])  # (1, T)
    with torch.no_grad():
        lp = gpt(x).log_softmax(-1)[0]  # (T, V)
    return sum(float(lp[len(prompt) - 1 + i, tok]) for i, tok in enumerate(new))


PROMPTS = [[0], [1], [2], [3], [4]]  # at seed 0, greedy misses the best pair after [0] and [4]


def test_a_beam_as_wide_as_the_vocabulary_finds_the_best_two_token_continuation():
    """With k = V every first token survives step 1, so step 2 sees all V² continuations."""
    gpt, missed = model(), 0
    for prompt in PROMPTS:
        found = beam_continue(gpt, torch.tensor([prompt]), 2, beam_width=V)
        greedy = [int(i) for i in generate_ids(gpt, torch.tensor([prompt]), 2, temperature=0)]
        missed += greedy != found.ids[0].tolist()
        scored = {pair: log_p(gpt, prompt, list(pair)) for pair in itertools.product(range(V), repeat=2)}
        best = max(scored, key=scored.get)
        assert found.ids[0].tolist() == list(best)
        assert float(found.log_prob[0]) == pytest.approx(scored[best], abs=1e-5)
    assert missed == 2  # the search is seen doing better than greedy decoding


def test_beam_width_one_is_greedy_decoding_and_a_wider_beam_is_never_worse():
    gpt = model()
    x = torch.tensor([[0, 4], [1, 2], [3, 3]])  # (3, 2): several rows at once
    greedy = torch.stack(list(generate_ids(gpt, x, 5, temperature=0)), dim=1)  # (3, 5)
    one = beam_continue(gpt, x, 5, beam_width=1)
    assert torch.equal(one.ids, greedy)
    wide = beam_continue(gpt, x, 5, beam_width=3)
    assert (wide.log_prob >= one.log_prob - 1e-5).all()
    for row, prompt in enumerate(x.tolist()):  # each row's log P is its own text's
        assert float(wide.log_prob[row]) == pytest.approx(log_p(gpt, prompt, wide.ids[row].tolist()), abs=1e-4)


def test_the_knobs_penalties_act_in_every_beam():
    """no-repeat-1-gram: no token may appear twice, the prompt's included."""
    found = beam_continue(model(), torch.tensor([[0]]), 4, beam_width=3, knobs=Knobs(no_repeat_ngram=1))
    assert sorted([0, *found.ids[0].tolist()]) == list(range(V))


def test_bad_settings_are_refused_with_their_fields():
    gpt, x = model(), torch.tensor([[0]])
    for width in (0, V + 1):
        with pytest.raises(UsageError) as e:
            beam_continue(gpt, x, 2, beam_width=width)
        assert (e.value.code, e.value.fields) == ("beam.width", {"low": 1, "high": V, "value": width})
    with pytest.raises(UsageError) as e:
        beam_continue(gpt, x, -1)
    assert (e.value.code, e.value.fields) == ("sample.max_new_tokens", {"value": -1})

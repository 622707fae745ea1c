"""The sampling knobs against transformers' logits processors, logit for logit: the same random
logits (some already -inf) and the same previous ids, a batch of several rows, several settings;
every output equal exactly, -inf where transformers puts -inf (helpers.assert_close, atol 0).

Ours: glassformer.logits_processors (the penalties and min-p, typical) and glassformer.sample
(temperature, top-k, top-p, unchanged). transformers has no frequency or presence penalty:
tests/logits_processors/test_logits_processors.py checks those against their formula on hand numbers.
"""

from __future__ import annotations

import pytest
import torch
from helpers import assert_close

from glassformer.logits_processors import (
    Knobs,
    min_p_filter,
    no_repeat_ngram,
    repetition_penalty,
    typical_filter,
)
from glassformer.sample import next_probs, top_k_filter, top_p_filter

transformers = pytest.importorskip("transformers")
hf = transformers.generation.logits_process
pytestmark = pytest.mark.usefixtures("one_thread")  # tiny tensors: one thread is fastest

SEEDS = range(6)
B, V, T = 5, 40, 14  # a batch of several rows; a vocabulary small enough that ids repeat


def case(seed: int, dtype: torch.dtype = torch.float32, alphabet: int = V) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, V) logits with a few -inf already (a token banned earlier), (B, T) ids from the first
    `alphabet` tokens (a small alphabet makes repeated n-grams common)."""
    g = torch.Generator().manual_seed(seed)
    logits = 3 * torch.randn(B, V, generator=g, dtype=dtype)  # (B, V) spread wide enough for both signs
    logits[0, :4] = float("-inf")
    logits[2, 7] = float("-inf")
    ids = torch.randint(0, alphabet, (B, T), generator=g)  # (B, T)
    ids[2, -1] = 7  # a seen token whose logit is -inf
    return logits, ids


def same(ours: torch.Tensor, theirs: torch.Tensor) -> None:
    assert_close("logits", ours, theirs, atol=0.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("penalty", [0.5, 1.0, 1.2, 3.0])
def test_repetition_penalty_equals_transformers(penalty, dtype):
    for seed in SEEDS:
        logits, ids = case(seed, dtype)
        ours = repetition_penalty(logits, ids, penalty)  # (B, V)
        same(ours, hf.RepetitionPenaltyLogitsProcessor(penalty)(ids, logits.clone()))
        if penalty != 1.0:  # the test can fail: the seen tokens moved, the others did not
            seen = torch.zeros(B, V, dtype=torch.bool).scatter_(1, ids, True) & logits.isfinite()
            assert (ours != logits)[seen].all() and (ours == logits)[~seen].all()


@pytest.mark.parametrize("n", [1, 2, 3, 4, T, T + 1])
def test_no_repeat_ngram_equals_transformers(n):
    banned = 0
    for seed in SEEDS:
        logits, ids = case(seed, alphabet=3)
        ours = no_repeat_ngram(logits, ids, n)  # (B, V)
        same(ours, hf.NoRepeatNGramLogitsProcessor(n)(ids, logits.clone()))
        banned += int((ours.isinf() & logits.isfinite()).sum())
    if n <= 4:
        assert banned > 0  # from 3 letters, a short n-gram's start recurs: the test can fail
    if n > T:
        assert banned == 0  # no n-gram is complete yet


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("min_p", [0.0, 0.02, 0.1, 0.5, 1.0])
def test_min_p_equals_transformers(min_p, dtype):
    for seed in SEEDS:
        logits, ids = case(seed, dtype)
        for scale in (0.3, 1.0, 3.0):  # flat to peaked: the floor moves with the top probability
            x = scale * logits  # (B, V)
            same(min_p_filter(x, min_p), hf.MinPLogitsWarper(min_p)(ids, x.clone()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("mass", [0.05, 0.2, 0.5, 0.9, 0.95, 0.999])
def test_typical_equals_transformers(mass, dtype):
    dropped_the_top = False
    for seed in SEEDS:
        logits, ids = case(seed, dtype)
        for scale in (0.3, 1.0, 3.0):
            x = scale * logits  # (B, V)
            ours = typical_filter(x, mass)  # (B, V)
            same(ours, hf.TypicalLogitsWarper(mass)(ids, x.clone()))
            top = x.argmax(dim=-1, keepdim=True)  # (B, 1)
            dropped_the_top |= bool(ours.gather(-1, top).isinf().any())
    if mass <= 0.2:
        assert dropped_the_top  # typical sampling may drop the most likely token (it is too unsurprising)


def test_typical_mass_one_keeps_everything_as_transformers_generate_does():
    """transformers' warper refuses mass 1; its `generate` leaves the warper out at typical_p = 1.
    Ours takes 1 and changes nothing, the same result."""
    logits, _ = case(0)
    same(typical_filter(logits, 1.0), logits)
    with pytest.raises(ValueError):
        hf.TypicalLogitsWarper(1.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("k", [1, 2, 5, V - 1, V, V + 3])
def test_sample_top_k_equals_transformers(k, dtype):
    for seed in SEEDS:
        logits, ids = case(seed, dtype)
        same(top_k_filter(logits, k), hf.TopKLogitsWarper(k)(ids, logits.clone()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("p", [0.01, 0.1, 0.5, 0.9, 0.99])
def test_sample_top_p_equals_transformers(p, dtype):
    for seed in SEEDS:
        logits, ids = case(seed, dtype)
        for scale in (0.3, 1.0, 3.0):
            x = scale * logits  # (B, V)
            same(top_p_filter(x, p), hf.TopPLogitsWarper(p)(ids, x.clone()))


@pytest.mark.parametrize("temperature", [0.5, 1.0, 1.7])
@pytest.mark.parametrize("top_k, top_p", [(None, None), (7, None), (None, 0.8), (12, 0.6)])
def test_sample_next_probs_equals_transformers_warpers_then_softmax(temperature, top_k, top_p):
    """sample.next_probs: temperature, then top-k, then top-p, then softmax: transformers' order."""
    for seed in SEEDS:
        logits, ids = case(seed)
        warped = hf.TemperatureLogitsWarper(temperature)(ids, logits.clone())  # (B, V)
        if top_k is not None:
            warped = hf.TopKLogitsWarper(top_k)(ids, warped)  # (B, V)
        if top_p is not None:
            warped = hf.TopPLogitsWarper(top_p)(ids, warped)  # (B, V)
        assert_close("probs", next_probs(logits, temperature, top_k, top_p), warped.softmax(dim=-1), atol=0.0)


@pytest.mark.parametrize(
    "knobs, temperature, top_k, top_p",
    [
        (Knobs(repetition_penalty=1.3, no_repeat_ngram=2, min_p=0.05, typical_p=0.9), 0.8, 20, 0.95),
        (Knobs(repetition_penalty=0.7, no_repeat_ngram=1, min_p=0.2), 1.5, None, None),
        (Knobs(no_repeat_ngram=3, typical_p=0.5), 1.0, 5, None),
    ],
)
def test_knobs_in_generate_s_order_equal_transformers_processor_list(knobs, temperature, top_k, top_p):
    """`penalize` on the raw logits, then temperature, top-k, top-p, then `cut`: the list
    transformers' `generate` builds (GenerationMixin._get_logits_processor) for the same settings."""
    steps = [
        hf.RepetitionPenaltyLogitsProcessor(knobs.repetition_penalty),
        hf.NoRepeatNGramLogitsProcessor(knobs.no_repeat_ngram),
        hf.TemperatureLogitsWarper(temperature),
        *([hf.TopKLogitsWarper(top_k)] if top_k is not None else []),
        *([hf.TopPLogitsWarper(top_p)] if top_p is not None else []),
        hf.MinPLogitsWarper(knobs.min_p),
        *([hf.TypicalLogitsWarper(knobs.typical_p)] if knobs.typical_p < 1 else []),
    ]
    for seed in SEEDS:
        logits, ids = case(seed, alphabet=6)
        theirs = hf.LogitsProcessorList(steps)(ids, logits.clone())  # (B, V)
        ours = knobs.penalize(logits, ids) / temperature  # (B, V)
        ours = top_k_filter(ours, top_k) if top_k is not None else ours  # (B, V)
        ours = top_p_filter(ours, top_p) if top_p is not None else ours  # (B, V)
        same(knobs.cut(ours), theirs)


# ---- wired into generation: every step of `generate_ids` is transformers' processor list -------------
def hf_steps(knobs: Knobs, temperature: float, top_k: int | None, top_p: float | None) -> list:
    """The processors transformers' `generate` builds for these settings (greedy: no warpers)."""
    steps = [
        *([hf.RepetitionPenaltyLogitsProcessor(knobs.repetition_penalty)] if knobs.repetition_penalty != 1 else []),
        *([hf.NoRepeatNGramLogitsProcessor(knobs.no_repeat_ngram)] if knobs.no_repeat_ngram else []),
    ]
    if temperature == 0:
        return steps
    return [
        *steps,
        hf.TemperatureLogitsWarper(temperature),
        *([hf.TopKLogitsWarper(top_k)] if top_k is not None else []),
        *([hf.TopPLogitsWarper(top_p)] if top_p is not None else []),
        *([hf.MinPLogitsWarper(knobs.min_p)] if knobs.min_p > 0 else []),
        *([hf.TypicalLogitsWarper(knobs.typical_p)] if knobs.typical_p < 1 else []),
    ]


@pytest.mark.parametrize(
    "knobs, temperature, top_k, top_p",
    [
        (Knobs(repetition_penalty=1.5), 0.0, None, None),
        (Knobs(no_repeat_ngram=2), 0.0, None, None),
        (Knobs(repetition_penalty=0.6, no_repeat_ngram=3), 0.0, None, None),
        (Knobs(repetition_penalty=1.3, min_p=0.1), 0.9, None, None),
        (Knobs(no_repeat_ngram=2, typical_p=0.8), 1.2, 8, 0.95),
        (Knobs(min_p=0.05, typical_p=0.9), 0.7, None, 0.9),
    ],
)
def test_generate_ids_with_knobs_writes_what_transformers_processors_pick(knobs, temperature, top_k, top_p):
    """A small random GPT: our generation with the knobs, and a loop that feeds the same model's
    logits through transformers' processor list and takes the argmax (greedy) or draws from the
    softmax with the same generator (sampling) — the same tokens, step for step."""
    from glassformer.config import ModelConfig
    from glassformer.models import GPT
    from glassformer.sample import generate_ids, next_logits

    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=7, max_len=64, d_model=16, n_layers=2, n_heads=2)).eval()
    prompt = torch.tensor([[1, 2, 3, 1], [4, 4, 5, 6]])  # (2, 4)
    g = torch.Generator().manual_seed(1)
    ours = torch.stack(list(generate_ids(model, prompt, 30, temperature, top_k, top_p, g, False, knobs)), 1)
    processors, ids = hf.LogitsProcessorList(hf_steps(knobs, temperature, top_k, top_p)), prompt
    g.manual_seed(1)
    for _ in range(30):
        with torch.no_grad():
            scores = processors(ids, next_logits(model, ids))  # (2, V)
        if temperature == 0:
            nxt = scores.argmax(dim=-1, keepdim=True)  # (2, 1)
        else:
            nxt = torch.multinomial(scores.softmax(dim=-1), 1, generator=g)  # (2, 1)
        ids = torch.cat([ids, nxt], dim=1)  # (2, T + 1)
    assert ours.tolist() == ids[:, 4:].tolist()
    plain = torch.stack(list(generate_ids(model, prompt, 30, temperature, top_k, top_p, g.manual_seed(1), False)), 1)
    assert not torch.equal(ours, plain)  # the knobs changed the text: the comparison can fail

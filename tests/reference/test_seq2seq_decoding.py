"""Decoding: the cache changes how much is computed, never what; beam width 1 is greedy search; the
length penalty does what its formula says on a hand-made model whose probabilities we chose."""

from __future__ import annotations

import math

import pytest
import torch

from glassformer.beam import length_penalty
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models import EncoderDecoder
from glassformer.translate import beam_search, greedy_decode

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

V, PAD, BOS, EOS, MAX_LEN = 13, 0, 2, 3, 10


def random_model(**changes) -> EncoderDecoder:
    torch.manual_seed(0)
    cfg = ModelConfig(
        kind="seq2seq",
        vocab_size=V,
        d_model=16,
        n_heads=4,
        d_ff=32,
        n_layers=2,
        max_len=MAX_LEN,
        pad_id=PAD,
        dropout=0.1,
        **{"position": "sinusoidal", "norm": "post", **changes},
    )
    model = EncoderDecoder(cfg).double().eval()
    with torch.no_grad():
        model.head.bias[EOS] += 0.5  # some rows finish early, others run to max_len: both cases are met
    return model


def sources() -> torch.Tensor:
    src = torch.randint(4, V, (6, 7), generator=torch.Generator().manual_seed(1))
    src[1, 3:] = PAD
    src[4, 1:] = PAD
    return src


# the modern decoder's choices reach the encoder-decoder's blocks too (models/gpt.py's builders)
MODERN = {"norm": "pre", "norm_type": "rms", "ffn": "swiglu", "position": "rope", "n_kv_heads": 2, "head_dim": 6}


@pytest.mark.parametrize("changes", [{}, MODERN, {**MODERN, "qk_norm": True, "sliding_window": 3}], ids=str)
def test_decoding_with_a_cache_equals_the_full_forward(changes):
    model = random_model(**changes)
    src, tgt = sources(), torch.randint(4, V, (6, MAX_LEN), generator=torch.Generator().manual_seed(2))
    full = model(src, tgt)  # (B, T, V)
    memory, cache = model.encode(src), model.new_cache(6)
    pieces = [model.decode(tgt[:, :4], memory, src, cache)]  # a prefill of 4 tokens, then one at a time
    pieces += [model.decode(tgt[:, t : t + 1], memory, src, cache) for t in range(4, MAX_LEN)]
    assert cache.length == MAX_LEN
    D = model.cfg.d_head
    assert all(layer.source[0].shape == (6, 4, 7, D) for layer in cache.layers)  # (B, H, S, D), made once
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_greedy_cached_equals_uncached(attention):
    model = random_model(attention=attention)
    runs = {flag: greedy_decode(model, sources(), BOS, EOS, use_cache=flag) for flag in (True, False)}
    assert torch.equal(runs[True].ids, runs[False].ids)
    assert (runs[True].log_prob - runs[False].log_prob).abs().max() <= 1e-10
    ended = (runs[True].ids == EOS).any(dim=1)
    assert ended.any() and not ended.all()  # the test met both kinds of row
    assert not ((runs[True].ids == BOS).any() or (runs[True].ids[~ended] == PAD).any())  # never written


@pytest.mark.parametrize("alpha", [0.0, 0.6])
def test_beam_search_cached_equals_uncached(alpha):
    model = random_model()
    runs = {
        flag: beam_search(model, sources(), BOS, EOS, beam_width=3, length_penalty_alpha=alpha, use_cache=flag)
        for flag in (True, False)
    }
    assert torch.equal(runs[True].beams, runs[False].beams)
    assert (runs[True].beam_scores - runs[False].beam_scores).abs().max() <= 1e-10


def test_beam_width_one_is_greedy_search():
    model = random_model()
    greedy = greedy_decode(model, sources(), BOS, EOS)
    beam = beam_search(model, sources(), BOS, EOS, beam_width=1, length_penalty_alpha=0.6)
    width = greedy.ids.size(1)
    assert torch.equal(beam.ids[:, :width], greedy.ids) and (beam.ids[:, width:] == PAD).all()
    assert (beam.log_prob - greedy.log_prob).abs().max() <= 1e-10


def test_a_wider_beam_never_finds_a_worse_score():
    model = random_model()
    scores = [beam_search(model, sources(), BOS, EOS, beam_width=k, length_penalty_alpha=0.0).score for k in (1, 4)]
    assert (scores[1] >= scores[0] - 1e-12).all() and (scores[1] > scores[0]).any()


def test_an_unmasked_decoder_is_decoded_without_a_cache():
    """Without the causal mask every new token changes the earlier positions: a cache would be stale."""
    model = random_model(causal=False)
    with pytest.raises(ValueError) as e:  # no causal mask: decode with use_cache=False
        greedy_decode(model, sources(), BOS, EOS, use_cache=True)
    assert (e.value.code, e.value.fields) == ("seq2seq.cache_not_causal", {})
    default = greedy_decode(model, sources(), BOS, EOS)  # use_cache=None: the cache only when exact
    assert torch.equal(default.ids, greedy_decode(model, sources(), BOS, EOS, use_cache=False).ids)


def test_beam_search_refuses_bad_settings():
    model = random_model()
    with pytest.raises(UsageError) as e:
        beam_search(model, sources(), BOS, EOS, beam_width=12)
    assert (e.value.code, e.value.fields) == ("beam.width", {"low": 1, "high": V - 2, "value": 12})
    with pytest.raises(UsageError) as e:
        beam_search(model, sources(), BOS, EOS, length_penalty_alpha=-1)
    assert (e.value.code, e.value.fields) == ("beam.length_penalty", {"low": 0, "value": -1})
    for search in (greedy_decode, beam_search):
        for n in (0, MAX_LEN + 1):
            with pytest.raises(UsageError) as e:
                search(model, sources(), BOS, EOS, max_new_tokens=n)
            assert (e.value.code, e.value.fields) == (
                "translate.max_new_tokens",
                {"low": 1, "high": MAX_LEN, "value": n},
            )
    assert isinstance(e.value, ValueError)  # a caller's `except ValueError` still catches it


# ---- a hand-made model: the next token depends only on the last one, with chosen probabilities ------

A = 4  # a word


class MarkovModel(torch.nn.Module):
    """P(next | last): after <BOS>, <EOS> 0.52 and "a" 0.48; after "a", <EOS> 0.98 and "a" 0.02."""

    def __init__(self) -> None:
        super().__init__()
        self.cfg = ModelConfig(kind="seq2seq", vocab_size=5, d_model=4, n_heads=1, max_len=6, pad_id=PAD)
        table = torch.full((5, 5), 1e-30, dtype=torch.float64)
        table[BOS, EOS], table[BOS, A] = 0.52, 0.48
        table[A, EOS], table[A, A] = 0.98, 0.02
        table[EOS, EOS] = table[PAD, EOS] = 1.0
        self.register_buffer("log_table", table.log())
        self.dummy = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))

    def encode(self, src):
        return torch.zeros(src.size(0), src.size(1), 4, dtype=torch.float64)  # (B, S, C): unused

    def decode(self, ids, memory, src, cache=None):
        return self.log_table[ids]  # (B, T, V): the row of each position's token

    def new_cache(self, batch_size):
        return type("NoCache", (), {"reorder": lambda self, rows: None})()


def hand_made(alpha: float, k: int):
    src = torch.ones(1, 2, dtype=torch.long)
    return beam_search(MarkovModel(), src, BOS, EOS, beam_width=k, length_penalty_alpha=alpha)


def test_length_penalty_on_a_hand_made_case():
    short, longer = math.log(0.52), math.log(0.48) + math.log(0.98)  # "<EOS>" vs "a <EOS>"
    assert short > longer  # by raw log-probability the short output wins ...
    assert longer / length_penalty(torch.tensor(2.0), 1.0) > short / length_penalty(torch.tensor(1.0), 1.0)
    # ... and with α = 1 the longer one does: lp(2) = 7/6 forgives its extra token
    greedy = greedy_decode(MarkovModel(), torch.ones(1, 2, dtype=torch.long), BOS, EOS)
    assert greedy.ids[0, :1].tolist() == [EOS]
    no_penalty = hand_made(alpha=0.0, k=2)
    assert no_penalty.ids[0, :1].tolist() == [EOS] and no_penalty.score.item() == pytest.approx(short)
    penalised = hand_made(alpha=1.0, k=2)
    assert penalised.ids[0, :2].tolist() == [A, EOS]
    assert penalised.log_prob.item() == pytest.approx(longer)
    assert penalised.score.item() == pytest.approx(longer / (7 / 6))
    assert hand_made(alpha=1.0, k=1).ids[0, :1].tolist() == [EOS]  # width 1 cannot look past the first token


# ---- the length limit: a model that never writes <EOS> ----------------------------------------------


def never_ends() -> EncoderDecoder:
    model = random_model()
    with torch.no_grad():
        model.head.bias[EOS] = float("-inf")  # <EOS> is never the argmax, nor in any beam
    return model


@pytest.mark.parametrize("max_new", [None, 4, MAX_LEN])  # None: the default, the model's max_len
@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_a_model_that_never_ends_writes_exactly_the_allowed_number_of_tokens(search, use_cache, max_new):
    """Issue 29: an off-by-one in the limit (stopping at max_len - 1) passed every decoding test;
    only the wording of a refusal caught it. Every row must run to the limit: max_len tokens by
    default (the last step reads <BOS> + max_len - 1 tokens, all the decoder can read), or
    max_new_tokens."""
    model, src = never_ends(), sources()
    if search == "greedy":
        found = greedy_decode(model, src, BOS, EOS, max_new_tokens=max_new, use_cache=use_cache)
    else:
        found = beam_search(model, src, BOS, EOS, beam_width=3, max_new_tokens=max_new, use_cache=use_cache)
        assert found.beams.shape == (6, 3, MAX_LEN if max_new is None else max_new)
    assert found.ids.shape == (6, MAX_LEN if max_new is None else max_new)
    assert not ((found.ids == EOS) | (found.ids == PAD) | (found.ids == BOS)).any()  # words only, to the end

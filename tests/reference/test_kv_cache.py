"""The KV cache changes how much is computed, never what: cached and uncached sampling agree.

Covers prompts shorter than, equal to and longer than max_len, and generation far past max_len
(the sliding-window case, where the cache must be rebuilt), on both attention paths.
"""

from dataclasses import replace

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import GPT
from glassformer.nn.kv_cache import KVCache
from glassformer.sample import generate_ids

MAX_LEN = 12


def model(attention: str, dtype=torch.float32) -> GPT:
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=23, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=MAX_LEN,
                      attention=attention, dropout=0.1)
    return GPT(cfg).to(dtype).eval()


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_chunked_forward_with_cache_equals_full_forward(attention):
    m = model(attention, torch.float64)
    ids = torch.randint(0, 23, (3, MAX_LEN))
    full = m(ids)  # (3, T, V)
    cache = m.new_cache(3)
    pieces = [m(ids[:, :5], cache=cache), m(ids[:, 5:8], cache=cache)]
    pieces += [m(ids[:, t:t + 1], cache=cache) for t in range(8, MAX_LEN)]
    assert cache.length == MAX_LEN
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


@pytest.mark.parametrize("attention", ["glass", "fused"])
@pytest.mark.parametrize("prompt_len", [3, MAX_LEN, MAX_LEN + 5])
def test_greedy_tokens_and_logits_identical_with_and_without_cache(attention, prompt_len):
    m = model(attention)
    prompt = torch.randint(0, 23, (2, prompt_len))
    logits = {True: [], False: []}

    def record(flag):
        def hook(t, name):
            logits[flag].append(t[:, -1].clone())  # (B, V): the position that is sampled from
        return hook

    out = {}
    for flag in (True, False):
        m._hooks["logits"].fns.append(record(flag))
        try:  # 3·max_len new tokens: the window slides many times
            out[flag] = torch.stack(list(generate_ids(m, prompt, 3 * MAX_LEN, temperature=0,
                                                      use_cache=flag)), dim=1)
        finally:
            m._hooks["logits"].fns.clear()
    assert torch.equal(out[True], out[False])
    diff = max((a - b).abs().max().item() for a, b in zip(logits[True], logits[False]))
    assert len(logits[True]) == 3 * MAX_LEN and diff <= 1e-5


def test_sampling_with_a_seed_is_identical_with_and_without_cache():
    m = model("glass")
    prompt = torch.randint(0, 23, (2, 4))
    runs = [torch.stack(list(generate_ids(m, prompt, 30, temperature=1.0, top_k=5, use_cache=flag,
                                          generator=torch.Generator().manual_seed(7))), dim=1)
            for flag in (True, False)]
    assert torch.equal(*runs)


def test_full_cache_refuses_more_tokens_and_says_what_to_do():
    m = model("glass")
    cache = KVCache.for_model(m, 1)
    m(torch.zeros(1, MAX_LEN, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match=f"T={MAX_LEN + 1} exceeds max_len {MAX_LEN}"):
        m(torch.zeros(1, 1, dtype=torch.long), cache=cache)  # the positions refuse first
    with pytest.raises(ValueError, match="KV cache is full.*prefill the last max_len"):
        cache.layers[0].append(torch.zeros(1, 4, 1, 4), torch.zeros(1, 4, 1, 4))


def test_models_without_a_cache_say_so():
    from glassformer.models import Encoder

    enc = Encoder(replace(model("glass").cfg, causal=False))
    with pytest.raises(ValueError, match="no KV cache"):
        next(generate_ids(enc, torch.zeros(1, 2, dtype=torch.long), 1, use_cache=True))

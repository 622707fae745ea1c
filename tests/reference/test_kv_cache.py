"""The KV cache changes how much is computed, never what: cached and uncached sampling agree.

For every position scheme, on both attention paths, with prompts shorter than, equal to and longer
than max_len, and generation far past max_len. Table schemes (learned, sinusoidal) slide a
max_len window and rebuild the cache; the others (rotary, alibi, none) read every token and the
cache grows (nn/kv_cache.py explains the choice).
"""

from dataclasses import replace

import pytest
import torch
from helpers import keyed

from glassformer.config import ModelConfig
from glassformer.models import GPT
from glassformer.nn.kv_cache import KVCache
from glassformer.nn.position import POSITION_SCHEMES, position_scheme
from glassformer.sample import generate_ids

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

MAX_LEN = 12
POSITIONS = sorted(POSITION_SCHEMES)  # every registered scheme
NO_TABLE = [name for name in POSITIONS if not position_scheme(name).table]


def model(attention: str, dtype=torch.float32, position: str = "learned") -> GPT:
    torch.manual_seed(0)
    cfg = ModelConfig(
        vocab_size=23,
        d_model=16,
        n_heads=4,
        d_ff=32,
        n_layers=2,
        max_len=MAX_LEN,
        attention=attention,
        dropout=0.1,
        position=position,
    )
    return GPT(cfg).to(dtype).eval()


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_chunked_forward_with_cache_equals_full_forward(attention, position):
    m = model(attention, torch.float64, position)
    T = MAX_LEN if position_scheme(position).table else 2 * MAX_LEN + 3  # no table: go past max_len
    ids = torch.randint(0, 23, (3, T))
    full = m(ids)  # (3, T, V)
    cache = m.new_cache(3)
    pieces = [m(ids[:, :5], cache=cache), m(ids[:, 5:8], cache=cache)]
    pieces += [m(ids[:, t : t + 1], cache=cache) for t in range(8, T)]
    assert cache.length == T
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("attention", ["glass", "fused"])
@pytest.mark.parametrize("prompt_len", [3, MAX_LEN, MAX_LEN + 5])
def test_greedy_tokens_and_logits_identical_with_and_without_cache(attention, prompt_len, position):
    m = model(attention, position=position)
    prompt = torch.randint(0, 23, (2, prompt_len))
    logits = {True: [], False: []}

    def record(flag):
        def hook(t, name):
            logits[flag].append(t[:, -1].clone())  # (B, V): the position that is sampled from

        return hook

    out = {}
    for flag in (True, False):
        m._hooks["logits"].fns.append(record(flag))
        try:  # 3·max_len new tokens: the window slides many times, or the text outgrows max_len
            out[flag] = torch.stack(list(generate_ids(m, prompt, 3 * MAX_LEN, temperature=0, use_cache=flag)), dim=1)
        finally:
            m._hooks["logits"].fns.clear()
    assert torch.equal(out[True], out[False])
    diff = max((a - b).abs().max().item() for a, b in zip(logits[True], logits[False], strict=False))
    assert len(logits[True]) == 3 * MAX_LEN and diff <= 1e-5


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("prompt_len", [4, MAX_LEN, MAX_LEN + 5])
def test_sampling_with_a_seed_is_identical_with_and_without_cache(position, prompt_len):
    m = model("glass", position=position)
    prompt = torch.randint(0, 23, (2, prompt_len))
    runs = [
        torch.stack(
            list(
                generate_ids(
                    m, prompt, 30, temperature=1.0, top_k=5, use_cache=flag, generator=torch.Generator().manual_seed(7)
                )
            ),
            dim=1,
        )
        for flag in (True, False)
    ]
    assert torch.equal(*runs)


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("use_cache", [True, False])
def test_what_the_model_reads_past_max_len(position, use_cache):
    """Table schemes read the last max_len tokens; the others read the whole text. Recorded at
    the embedding hook: how many tokens each model call is given."""
    m = model("glass", position=position)
    fed = []
    m._hooks["embed"].fns.append(lambda t, name: fed.append(t.size(1)))
    try:
        list(generate_ids(m, torch.randint(0, 23, (1, MAX_LEN - 2)), 2 * MAX_LEN, temperature=0, use_cache=use_cache))
    finally:
        m._hooks["embed"].fns.clear()
    text_len = [MAX_LEN - 2 + step for step in range(2 * MAX_LEN)]  # tokens before each step
    if not use_cache:
        limit = MAX_LEN if position not in NO_TABLE else None
        assert fed == [min(n, limit) if limit else n for n in text_len]
    elif position in NO_TABLE:
        assert fed == [MAX_LEN - 2] + [1] * (2 * MAX_LEN - 1)  # one prefill, then one token a step
    else:  # prefill, one token a step until the window is full, then prefill the last max_len again
        assert fed[0] == MAX_LEN - 2 and fed.count(MAX_LEN) > 1 and max(fed) == MAX_LEN


def test_a_cache_without_a_table_grows_and_keeps_what_it_holds():
    m = model("glass", torch.float64, "rotary")
    cache = m.new_cache(1)
    ids = torch.randint(0, 23, (1, 3 * MAX_LEN))
    m(ids[:, :MAX_LEN], cache=cache)
    first_keys = cache.layers[0].k[:, :, :MAX_LEN].clone()
    for t in range(MAX_LEN, 3 * MAX_LEN):
        m(ids[:, t : t + 1], cache=cache)
    layer = cache.layers[0]
    assert cache.length == 3 * MAX_LEN and layer.k.size(2) == 4 * MAX_LEN  # doubled twice: 12 -> 24 -> 48
    assert torch.equal(layer.k[:, :, :MAX_LEN], first_keys)


def test_full_cache_refuses_more_tokens_and_says_what_to_do():
    m = model("glass")
    cache = KVCache.for_model(m, 1)
    m(torch.zeros(1, MAX_LEN, dtype=torch.long), cache=cache)
    assert keyed(ValueError, m, torch.zeros(1, 1, dtype=torch.long), cache=cache) == (  # the positions refuse first
        "position.too_long",
        {"T": MAX_LEN + 1, "max_len": MAX_LEN},
    )
    assert keyed(ValueError, cache.layers[0].append, torch.zeros(1, 4, 1, 4), torch.zeros(1, 4, 1, 4)) == (
        "kv_cache.full",
        {"cached": MAX_LEN, "new": 1, "max_len": MAX_LEN},
    )


def test_models_without_a_cache_say_so():
    from glassformer.models import Encoder

    enc = Encoder(replace(model("glass").cfg, causal=False))
    with pytest.raises(ValueError) as e:
        next(generate_ids(enc, torch.zeros(1, 2, dtype=torch.long), 1, use_cache=True))
    assert (e.value.code, e.value.fields) == ("sample.no_cache", {"model": "Encoder"})


def test_a_layer_cache_is_fixed_size_unless_told_to_grow():
    from glassformer.nn.kv_cache import LayerCache

    fixed = LayerCache(1, 2, 3, 4)  # the default: a table of positions caps the cache at max_len
    fixed.append(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    assert keyed(ValueError, fixed.append, torch.ones(1, 2, 1, 4), torch.ones(1, 2, 1, 4)) == (
        "kv_cache.full",
        {"cached": 3, "new": 1, "max_len": 3},
    )
    growing = LayerCache(1, 2, 3, 4, grows=True)
    growing.append(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    k, v = growing.append(2 * torch.ones(1, 2, 1, 4), torch.zeros(1, 2, 1, 4))
    assert k.shape == (1, 2, 4, 4) and k[0, 0, :, 0].tolist() == [1, 1, 1, 2] and growing.length == 4

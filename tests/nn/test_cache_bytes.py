"""A real cache's bytes (nn/kv_cache.py's nbytes): the keys and values held, not the buffers' spare
room, so that bytes per token measured from a cache equal nn/mla.py's kv_cache_bytes_per_token, and a
sliding window's cache stops growing at W - 1 keys."""

from __future__ import annotations

import torch

from glassformer.config import ModelConfig
from glassformer.models import build_model
from glassformer.nn.kv_cache import KVCache
from glassformer.nn.mla import kv_cache_bytes_per_token

MODERN = {"norm_type": "rms", "ffn": "swiglu", "position": "rope", "bias": False}
SIZES = {"vocab_size": 11, "d_model": 32, "n_heads": 4, "d_ff": 48, "n_layers": 2, "max_len": 16}


def cache_after(cfg: ModelConfig, tokens: int, batch: int = 2) -> KVCache:
    torch.manual_seed(0)
    model = build_model(cfg).eval()
    cache = model.new_cache(batch)
    with torch.no_grad():
        model(torch.randint(0, 11, (batch, tokens)), cache=cache)  # (B, tokens, V)
    return cache


def test_a_caches_bytes_are_the_tokens_it_holds_times_the_formulas_bytes_per_token():
    gqa = ModelConfig(**SIZES, **MODERN, n_kv_heads=2)
    per_token = kv_cache_bytes_per_token("gqa", 2, n_heads=4, n_kv_heads=2, d_head=8)
    assert per_token == 2 * 2 * 2 * 8 * 4  # layers × (K, V) × H_kv × D × float32
    for tokens in (1, 5, 16):  # the buffers hold max_len 16 positions whatever is filled
        assert cache_after(gqa, tokens).nbytes() == 2 * tokens * per_token  # batch of 2
    mla = ModelConfig(**SIZES, **MODERN, mla_kv_rank=12, mla_d_nope=8, mla_d_rope=4, mla_d_v=8)
    per_token = kv_cache_bytes_per_token("mla", 2, kv_rank=12, d_rope=4)
    assert cache_after(mla, 7).nbytes() == 2 * 7 * per_token == 2 * 7 * 2 * 16 * 4


def test_a_sliding_windows_cache_holds_w_minus_one_keys_at_most():
    cfg = ModelConfig(**SIZES, **MODERN, sliding_window=4)
    per_token = kv_cache_bytes_per_token("mha", 2, n_heads=4, d_head=8)
    assert cache_after(cfg, 2, batch=1).nbytes() == 2 * per_token
    assert cache_after(cfg, 10, batch=1).nbytes() == 3 * per_token  # W - 1 = 3 keys kept

"""Cached decoding is the model's own forward, one token at a time (issue 42: one forward for
training, prefill and cached decoding; models/gpt.py).

Checked like any second use of the model's function: logits of cache-fed steps against the full
forward in float64 (≤ 1e-10) for every norm placement, both MHA styles, with and without biases,
every activation and every position scheme (past max_len too, where a scheme without a table lets
the cache grow); greedy and seeded tokens against the uncached loop, with the window sliding; and
what the sampler's inference mode grows (a KV cache that doubles, the rotary tables) stays usable
for training and for a later forward.
"""

from __future__ import annotations

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import GPT
from glassformer.nn.position import POSITION_SCHEMES, position_scheme
from glassformer.sample import generate_ids

MAX_LEN = 12
VARIANTS = {
    "pre-norm": {},
    "post-norm": {"norm": "post", "final_norm": False},
    "no norm": {"norm": "none"},
    "heads style": {"mha_style": "heads"},
    "heads style, no bias": {"mha_style": "heads", "bias": False},
    "nanoGPT-like": {"bias": False, "activation": "gelu", "tie_weights": True},
    "gelu_tanh": {"activation": "gelu_tanh"},
    "sinusoidal": {"position": "sinusoidal"},
    "no positions": {"position": "none"},
    "rotary": {"position": "rotary"},
    "alibi": {"position": "alibi"},
    "fused attention": {"attention": "fused"},
    # the modern decoder (docs/modern.md): RMSNorm, SwiGLU, half-split RoPE with a base, no biases
    "llama-like, GQA": {
        **(LLAMA := {"norm_type": "rms", "ffn": "swiglu", "bias": False, "position": "rope"}),
        "n_kv_heads": 2,
    },
    "qwen3-like, MQA, QK-norm, YaRN": {
        **LLAMA,
        **{"n_kv_heads": 1, "qk_norm": True, "head_dim": 6, "rope_base": 1e6},
        **{"rope_scaling": "yarn", "rope_factor": 4.0, "rope_original_max_len": 4},
    },
    "alibi, sliding window": {"position": "alibi", "sliding_window": 4},
    "learned, sliding window": {"sliding_window": 5},
    "mistral-like, sliding window": {**LLAMA, "n_kv_heads": 2, "sliding_window": 3, "ffn": "geglu"},
}
MODERN = [v for v in VARIANTS if "-like," in v]
WINDOWS = ["alibi, sliding window", "learned, sliding window"]


def model(dtype=torch.float32, **kwargs) -> GPT:
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=23, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=MAX_LEN, dropout=0.1, **kwargs)
    return GPT(cfg).to(dtype).eval()


def step(m: GPT, ids: torch.Tensor, cache) -> torch.Tensor:
    """What the sampler runs for every token: the model's forward, under inference mode."""
    with torch.inference_mode():
        return m(ids, cache=cache)  # (B, T, V)


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_token_steps_equal_the_full_forward(variant):
    m = model(torch.float64, **VARIANTS[variant])
    ids = torch.randint(0, 23, (3, MAX_LEN))
    with torch.no_grad():
        full = m(ids)  # (3, T, V)
    cache = m.new_cache(3)
    pieces = [step(m, ids[:, :4], cache)] + [step(m, ids[:, t : t + 1], cache) for t in range(4, MAX_LEN)]
    assert cache.length == MAX_LEN
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


@pytest.mark.parametrize(
    "variant",
    ["pre-norm", "post-norm", "nanoGPT-like", "heads style", "rotary", "alibi", "no positions", *WINDOWS, *MODERN],
)
@pytest.mark.parametrize("prompt_len", [1, 5, MAX_LEN + 3])
def test_greedy_tokens_identical_to_the_uncached_loop(variant, prompt_len):
    m = model(**VARIANTS[variant])
    prompt = torch.randint(0, 23, (2, prompt_len))
    runs = [
        torch.stack(list(generate_ids(m, prompt, 3 * MAX_LEN, temperature=0, use_cache=flag)), dim=1)
        for flag in (True, False)
    ]  # 3·max_len: the window slides and the cache is rebuilt
    assert torch.equal(*runs)  # (without a position table nothing slides: the cache grows instead)


@pytest.mark.parametrize(
    "variant", [v for v, kw in VARIANTS.items() if not position_scheme(kw.get("position", ModelConfig.position)).table]
)
def test_past_max_len_without_a_table_cached_steps_equal_the_full_forward(variant):
    """Rotary, ALiBi and none read every token: the cache grows past max_len, and each step's
    logits still equal the model's forward over the whole text (positions beyond the training length)."""
    m = model(torch.float64, **VARIANTS[variant])
    T = 3 * MAX_LEN
    ids = torch.randint(0, 23, (2, T))
    with torch.no_grad():
        full = m(ids)  # (2, T, V)
    cache = m.new_cache(2)
    pieces = [step(m, ids[:, :2], cache)] + [step(m, ids[:, t : t + 1], cache) for t in range(2, T)]
    assert cache.length == T
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


def test_seeded_sampling_identical_to_the_uncached_loop():
    m = model()
    prompt = torch.zeros(4, 3, dtype=torch.long)  # four identical rows: only the draws tell them apart
    runs = [
        torch.stack(
            list(
                generate_ids(
                    m,
                    prompt,
                    2 * MAX_LEN,
                    temperature=0.9,
                    top_k=7,
                    top_p=0.95,
                    use_cache=flag,
                    generator=torch.Generator().manual_seed(3),
                )
            ),
            dim=1,
        )
        for flag in (True, False)
    ]
    assert torch.equal(*runs)
    assert len({tuple(row) for row in runs[0].tolist()}) > 1  # the draws really were random


def test_batched_sample_texts_identical_to_uncached_and_to_streaming():
    """sample() of several rows in one batch: the cached forward gives the texts of the uncached loop,
    and decoding once at the end gives the text that streaming shows piece by piece."""
    from glassformer.sample import sample
    from glassformer.text.tokenizers import CharTokenizer

    m = model()
    tok = CharTokenizer([chr(97 + i) for i in range(23)])
    fast = sample(m, tok, "abc", 2 * MAX_LEN, temperature=1.0, num_samples=5, seed=11)
    plain = sample(m, tok, "abc", 2 * MAX_LEN, temperature=1.0, num_samples=5, seed=11, use_cache=False)
    pieces = [[] for _ in range(5)]
    streamed = sample(
        m,
        tok,
        "abc",
        2 * MAX_LEN,
        temperature=1.0,
        num_samples=5,
        seed=11,
        on_text=lambda i, piece: pieces[i].append(piece),
    )
    assert fast == plain == streamed == ["".join(p) for p in pieces]
    assert len(set(fast)) > 1 and all(len(t) == 2 * MAX_LEN for t in fast)


def test_every_registered_position_scheme_is_among_the_variants():
    """A scheme added later (nn/position.py's registry) must be checked here too: add a variant."""
    covered = {v.get("position", ModelConfig.position) for v in VARIANTS.values()}
    assert set(POSITION_SCHEMES) <= covered, f"add a variant for {sorted(set(POSITION_SCHEMES) - covered)}"


@pytest.mark.parametrize("position", sorted(POSITION_SCHEMES))
def test_training_after_sampling_past_max_len_still_works(position):
    """What the sampler's inference mode grows and keeps (the rotary table, a KV cache that doubles) must stay ordinary
    tensors: training samples mid-run, then takes the next step through them."""
    from glassformer.nn.loss import next_token_loss

    m = model(**VARIANTS.get(position, {"position": position}))
    list(generate_ids(m, torch.randint(0, 23, (2, 3)), 3 * MAX_LEN, temperature=0))  # past max_len
    m.train()
    ids = torch.randint(0, 23, (2, MAX_LEN))
    next_token_loss(m(ids), ids).backward()  # raised "Inference tensors cannot be saved for backward"
    assert all(p.grad is not None for p in m.parameters() if p.requires_grad)


def test_a_cache_grown_under_inference_mode_takes_the_next_token_outside_it():
    """A cache that doubled while the sampler ran under inference mode stays writable outside it:
    a forward with autograd on appends to it next."""
    m = model(position="rotary")
    ids = torch.randint(0, 23, (1, MAX_LEN + 4))
    cache = m.new_cache(1)
    step(m, ids[:, :2], cache)
    for t in range(2, MAX_LEN + 3):
        step(m, ids[:, t : t + 1], cache)  # past max_len: the buffers double inside inference mode
    last = m(ids[:, -1:], cache=cache)  # (1, 1, V) written outside inference mode
    assert torch.allclose(last[:, 0], m(ids)[:, -1], atol=1e-5)


class ScaledGPT(GPT):
    """docs/architecture.md's kind: a GPT whose logits are divided by √C (its own forward)."""

    def forward(self, ids, cache=None):
        return super().forward(ids, cache) / self.cfg.d_model**0.5  # (B, T, V)


def test_a_kind_with_its_own_forward_samples_what_its_uncached_forward_samples():
    """Issue 24, bug 1 could not return: there is no second spelling of the step to miss an override."""
    torch.manual_seed(0)
    m = ScaledGPT(model().cfg).eval()
    prompt = torch.zeros(3, 2, dtype=torch.long)
    runs = [
        torch.stack(
            list(
                generate_ids(
                    m, prompt, MAX_LEN, temperature=1.0, generator=torch.Generator().manual_seed(5), use_cache=c
                )
            ),
            dim=1,
        )
        for c in (True, False)
    ]
    assert torch.equal(*runs)


def test_the_sampler_decodes_under_inference_mode_and_hooks_see_every_token():
    """The one forward runs every token, so a hook attached while sampling sees the prompt and each
    new token; and the sampler runs it without autograd's bookkeeping (inference mode)."""
    m = model()
    seen: list[tuple[int, bool]] = []
    m.hook_points()["logits"].fns.append(lambda t, n: seen.append((t.size(1), torch.is_inference_mode_enabled())))
    list(generate_ids(m, torch.zeros(1, 3, dtype=torch.long), 4, temperature=0))
    assert seen == [(3, True), (1, True), (1, True), (1, True)]

"""The decode step (models/decode.py) computes what the model computes, one token at a time.

It is a third spelling of the model's function (after the glass path and the fused kernel), so it
is checked like them: logits against the model's own forward in float64 (≤ 1e-10) for every norm
placement, both MHA styles, with and without biases, every activation and every position scheme
(past max_len too, where a scheme without a table lets the cache grow); then greedy and seeded
tokens against the uncached loop, with the window sliding.
"""

from __future__ import annotations

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import GPT
from glassformer.models.decode import DecodeStep, decode_step
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
}


def model(dtype=torch.float32, **kwargs) -> GPT:
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=23, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=MAX_LEN, dropout=0.1, **kwargs)
    return GPT(cfg).to(dtype).eval()


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_token_steps_equal_the_full_forward(variant):
    m = model(torch.float64, **VARIANTS[variant])
    step = decode_step(m)
    assert isinstance(step, DecodeStep)
    ids = torch.randint(0, 23, (3, MAX_LEN))
    with torch.no_grad():
        full = m(ids)  # (3, T, V)
        cache = m.new_cache(3)
        pieces = [step(ids[:, :4], cache)] + [step(ids[:, t : t + 1], cache) for t in range(4, MAX_LEN)]
    assert cache.length == MAX_LEN
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


@pytest.mark.parametrize(
    "variant", ["pre-norm", "post-norm", "nanoGPT-like", "heads style", "rotary", "alibi", "no positions"]
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
def test_past_max_len_without_a_table_the_step_equals_the_full_forward(variant):
    """Rotary, ALiBi and none read every token: the cache grows past max_len, and each step's
    logits still equal the model's forward over the whole text (positions beyond the training length)."""
    m = model(torch.float64, **VARIANTS[variant])
    step = decode_step(m)
    T = 3 * MAX_LEN
    ids = torch.randint(0, 23, (2, T))
    with torch.no_grad():
        full = m(ids)  # (2, T, V)
        cache = m.new_cache(2)
        pieces = [step(ids[:, :2], cache)] + [step(ids[:, t : t + 1], cache) for t in range(2, T)]
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


def test_float32_logits_match_the_model_step():
    m = model(**VARIANTS["nanoGPT-like"])
    step = decode_step(m)
    ids = torch.randint(0, 23, (2, MAX_LEN))
    with torch.no_grad():
        ours, theirs = m.new_cache(2), m.new_cache(2)
        step(ids[:, :3], ours), m(ids[:, :3], cache=theirs)
        for t in range(3, MAX_LEN):
            a, b = step(ids[:, t : t + 1], ours), m(ids[:, t : t + 1], cache=theirs)
            assert a.shape == b.shape == (2, 1, 23)
            assert (a - b).abs().max() <= 1e-5


@pytest.mark.parametrize("enabled", [True, False])
def test_the_step_leaves_the_onednn_switch_as_it_found_it_and_runs_gelu_with_it_off(enabled):
    """GELU runs with oneDNN off (its per-call cost dwarfs a one-token tensor, models/decode.py);
    the process-wide switch is put back as it was, on or off, and nothing else runs with it off."""
    m = model(**VARIANTS["nanoGPT-like"])  # gelu
    step = decode_step(m)
    assert isinstance(step, DecodeStep)
    seen = []  # the switch as each GELU saw it
    for layer in step.layers:
        assert layer.native_act
        act = layer.act
        layer.act = lambda x, act=act: seen.append(torch._C._get_mkldnn_enabled()) or act(x)
    before = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(enabled)
    try:
        with torch.no_grad():
            cache = m.new_cache(1)
            step(torch.zeros(1, 3, dtype=torch.long), cache)  # prefill: the model, GELU untouched
            assert torch._C._get_mkldnn_enabled() is enabled and seen == []
            step(torch.zeros(1, 1, dtype=torch.long), cache)  # one token: the short way
            assert torch._C._get_mkldnn_enabled() is enabled
    finally:
        torch._C._set_mkldnn_enabled(before)
    assert seen == [False] * len(step.layers)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_onednn_switch_is_put_back_when_the_activation_raises(enabled):
    m = model(activation="gelu")
    step = decode_step(m)
    assert isinstance(step, DecodeStep)

    def broken(x):
        raise RuntimeError("broken activation")

    step.layers[-1].act = broken
    before = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(enabled)
    try:
        with torch.no_grad():
            cache = m.new_cache(1)
            step(torch.zeros(1, 3, dtype=torch.long), cache)
            with pytest.raises(RuntimeError, match="broken activation"):
                step(torch.zeros(1, 1, dtype=torch.long), cache)
        assert torch._C._get_mkldnn_enabled() is enabled
    finally:
        torch._C._set_mkldnn_enabled(before)


def test_only_gelu_runs_with_onednn_off():
    for activation, native in [("gelu", True), ("gelu_tanh", True), ("relu", False)]:
        step = decode_step(model(activation=activation))
        assert isinstance(step, DecodeStep)
        assert all(layer.native_act is native for layer in step.layers)


def test_float32_gelu_greedy_tokens_identical_to_the_models_own_at_the_benchmarks_shape():
    """The native GELU agrees with oneDNN's to a float32 rounding, not bit for bit: at the
    benchmarks' shape (baby, gelu, float32, oneDNN on as by default) the decode step writes the
    same greedy tokens as the model's own cached step and as the uncached loop."""
    from dataclasses import replace

    from glassformer.config import get_preset

    torch.manual_seed(0)
    cfg = replace(get_preset("baby").model, vocab_size=84, max_len=128, attention="fused")
    assert cfg.activation == "gelu"
    m = GPT(cfg).eval()
    prompt = torch.randint(0, 84, (2, 16), generator=torch.Generator().manual_seed(1))
    hook = m.hook_points()["logits"]

    def greedy(use_cache: bool, model_step: bool = False) -> torch.Tensor:
        if model_step:
            hook.fns.append(lambda t, name: None)  # a hook attached: every token through the model
        try:
            return torch.stack(list(generate_ids(m, prompt, 96, temperature=0, use_cache=use_cache)), dim=1)
        finally:
            hook.fns.clear()

    assert torch._C._get_mkldnn_enabled()  # the default: the model's GELU is oneDNN's
    fast = greedy(True)  # (2, 96)
    assert torch.equal(fast, greedy(True, model_step=True))
    assert torch.equal(fast, greedy(False))


def test_a_hook_gets_every_token_because_the_step_hands_over_to_the_model():
    m = model()
    seen = []
    prompt = torch.randint(0, 23, (1, 3))
    m.hook_points()["blocks.0.attn.weights"].fns.append(  # attached for the whole loop
        lambda t, name: seen.append(t.shape) or None
    )
    try:
        tokens = list(generate_ids(m, prompt, 5, temperature=0))
    finally:
        m.hook_points()["blocks.0.attn.weights"].fns.clear()
    assert len(tokens) == 5
    assert seen == [(1, 4, 3, 3)] + [(1, 4, 1, 3 + i) for i in range(1, 5)]  # prefill, then 4 steps


def test_training_mode_and_prefill_go_through_the_model():
    m = model()
    step = decode_step(m)
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(args[0].shape))
    with torch.no_grad():
        cache = m.new_cache(1)
        step(torch.zeros(1, 3, dtype=torch.long), cache)  # prefill: the model
        step(torch.zeros(1, 1, dtype=torch.long), cache)  # one token: the short way
        m.train()
        step(torch.zeros(1, 1, dtype=torch.long), cache)  # dropout on: the model
    assert calls == [(1, 3), (1, 1)]


def test_models_it_does_not_know_get_their_own_forward():
    from glassformer.models import Encoder

    enc = Encoder(ModelConfig(vocab_size=23, d_model=16, n_heads=4, d_ff=32, n_layers=1, max_len=8, causal=False))
    assert not isinstance(decode_step(enc), DecodeStep)


def test_batched_sample_texts_identical_to_uncached_and_to_streaming():
    """sample() of several rows in one batch: the decode step gives the texts of the uncached loop,
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
    """What a step grows and keeps (the rotary table, a KV cache that doubles) must stay ordinary
    tensors: training samples mid-run, then takes the next step through them."""
    from glassformer.nn.loss import next_token_loss

    m = model(**VARIANTS.get(position, {"position": position}))
    list(generate_ids(m, torch.randint(0, 23, (2, 3)), 3 * MAX_LEN, temperature=0))  # past max_len
    m.train()
    ids = torch.randint(0, 23, (2, MAX_LEN))
    next_token_loss(m(ids), ids).backward()  # raised "Inference tensors cannot be saved for backward"
    assert all(p.grad is not None for p in m.parameters() if p.requires_grad)


def test_a_cache_grown_by_the_step_takes_the_models_next_token():
    """A cache that doubled during a fast step stays writable outside it: the model's own step (the
    one a hook attached mid-generation gets) appends to it next."""
    m = model(position="rotary")
    step = decode_step(m)
    ids = torch.randint(0, 23, (1, MAX_LEN + 4))
    with torch.no_grad():
        cache = m.new_cache(1)
        step(ids[:, :2], cache)
        for t in range(2, MAX_LEN + 3):
            step(ids[:, t : t + 1], cache)  # past max_len: the buffers double inside the fast step
        last = m(ids[:, -1:], cache=cache)  # (1, 1, V) written by the model, outside inference mode
        assert torch.allclose(last[:, 0], m(ids)[:, -1], atol=1e-5)


def test_past_a_position_table_the_step_refuses_as_the_model_does():
    """Learned positions have max_len rows: a token at position max_len gets the model's own error,
    from the position module, never a wrong row."""
    m = model(torch.float64)
    step = decode_step(m)
    ids = torch.randint(0, 23, (1, MAX_LEN))
    with torch.no_grad():
        cache = m.new_cache(1)
        step(ids, cache)
        with pytest.raises(ValueError) as theirs:
            m(ids[:, :1], cache=cache)
        with pytest.raises(ValueError) as ours:
            step(ids[:, :1], cache)
    assert str(ours.value) == str(theirs.value) and f"{MAX_LEN + 1}" in str(ours.value)


def test_only_gpts_of_plain_blocks_and_known_activations_get_the_short_way():
    """Blocks must all be plain Blocks with an activation decode.py knows; otherwise the model's own
    forward, whose logits come back unchanged."""
    from glassformer.models.gpt import Block

    assert isinstance(decode_step(model()), DecodeStep)
    odd_activation = model()
    odd_activation.blocks[1].ffn.act = torch.nn.functional.silu

    class MyBlock(Block):
        pass

    odd_block = model()
    odd_block.blocks[0].__class__ = MyBlock
    for m in (odd_activation, odd_block):
        step = decode_step(m)
        assert not isinstance(step, DecodeStep)
        ids = torch.randint(0, 23, (2, 3))
        with torch.no_grad():
            assert torch.equal(step(ids, m.new_cache(2)), m(ids, cache=m.new_cache(2)))


@pytest.mark.parametrize("variant", ["pre-norm", "post-norm"])
def test_layer_norm_gains_and_shifts_are_used_not_only_their_initial_values(variant):
    """A fresh LayerNorm has gain 1 and shift 0, which a step that dropped either would also
    compute: here every parameter, the norms' included, is drawn at random first."""
    m = model(torch.float64, **VARIANTS[variant])
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn_like(p) * 0.5)
    step = decode_step(m)
    ids = torch.randint(0, 23, (2, 6))
    with torch.no_grad():
        full = m(ids)
        cache = m.new_cache(2)
        pieces = [step(ids[:, :3], cache)] + [step(ids[:, t : t + 1], cache) for t in range(3, 6)]
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-10


class ScaledGPT(GPT):
    """docs/architecture.md's example: a GPT whose forward divides the logits by √C."""

    def forward(self, ids, cache=None):
        return super().forward(ids, cache) / self.cfg.d_model**0.5  # (B, T, V)


def _overridden(part: str) -> GPT:
    """A GPT with one method the decode step copies changed in a subclass (the model's own class or
    one of its parts'): the step must hand every token to the model's own forward."""
    from glassformer.models.gpt import Block, FeedForward
    from glassformer.nn.attention import MultiHeadAttention
    from glassformer.nn.embedding import TokenEmbedding

    if part == "GPT.forward":
        torch.manual_seed(0)
        return ScaledGPT(model().cfg).eval()
    if part == "GPT.run_from":  # the blocks-onward half of forward (causal patching starts there)
        m, gpt = model(), GPT

        def doubled_rest(self, *args, **kwargs):
            return 2 * gpt.run_from(self, *args, **kwargs)  # (B, T, V)

        m.__class__ = type("MyGPT", (gpt,), {"run_from": doubled_rest})
        return m
    m = model()
    owner = {"Block": Block, "MultiHeadAttention": MultiHeadAttention, "FeedForward": FeedForward}
    owner["TokenEmbedding"] = TokenEmbedding
    name, method = part.split(".")
    base = owner[name]

    def doubled(self, *args, **kwargs):
        return 2 * getattr(base, method)(self, *args, **kwargs)

    sub = type(f"My{name}", (base,), {method: doubled})
    for module in m.modules():
        if type(module) is base:
            module.__class__ = sub
    return m


OVERRIDES = [
    "GPT.forward",
    "GPT.run_from",
    "Block.forward",
    "MultiHeadAttention.forward",
    "MultiHeadAttention.attend",
    "FeedForward.forward",
    "TokenEmbedding.forward",
]


@pytest.mark.parametrize("part", OVERRIDES)
def test_a_model_whose_forward_differs_from_the_step_gets_its_own_forward(part):
    """Issue 24, bug 1: the step was used whenever a model looked like a GPT, so ScaledGPT's prompt
    went through its own forward and every later token through the flat step (logits 4× too large)."""
    m = _overridden(part)
    ids = torch.randint(0, 23, (2, MAX_LEN))
    with torch.no_grad():
        full = m(ids)  # (2, T, V): the model's own function, uncached
        step, cache = decode_step(m), m.new_cache(2)
        pieces = [step(ids[:, :3], cache)] + [step(ids[:, t : t + 1], cache) for t in range(3, MAX_LEN)]
    assert (torch.cat(pieces, dim=1) - full).abs().max() <= 1e-5


def test_scaled_gpt_samples_what_its_own_uncached_forward_samples():
    m = _overridden("GPT.forward")
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

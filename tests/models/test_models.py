"""The models: parameter counts against a closed-form formula, what each model promises, and the
weights it starts from: the initialisation schemes (models/kinds.py) do what they say, checked
statistically on wide layers."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from glassformer.config import ModelConfig, get_preset, with_kind
from glassformer.errors import UsageError
from glassformer.models import GPT, MODEL_KINDS, Encoder, SequenceRegressor

BASE = ModelConfig(vocab_size=23, d_model=12, n_heads=3, d_ff=20, n_layers=2, max_len=9)


def expected_params(cfg: ModelConfig, kind: str) -> int:
    """Count by hand, layer by layer. b = 1 when biases are on."""
    C, F, V, b = cfg.d_model, cfg.d_ff, cfg.vocab_size, int(cfg.bias)
    norm = (C + b * C) if cfg.norm != "none" else 0  # one LayerNorm: gain (+ shift)
    attn = (3 * C * C + b * 3 * C) + (C * C + b * C)  # q, k, v for all heads; output projection
    ffn = (C * F + b * F) + (F * C + b * C)
    block = attn + ffn + 2 * norm
    n = cfg.n_layers * block
    n += cfg.max_len * C if cfg.position == "learned" else 0  # sinusoidal: a buffer, not a weight
    n += norm if cfg.final_norm else 0
    if kind == "regressor":
        return n + (cfg.d_in * C + b * C) + (C * cfg.d_out + b * cfg.d_out)
    n += V * C  # token embedding
    if not cfg.tie_weights:
        n += V * C + b * V  # a separate head (a tied head has no bias)
    return n


CONFIGS = {
    "default": BASE,
    "no-bias": replace(BASE, bias=False),
    "tied": replace(BASE, tie_weights=True),
    "tied-no-bias": replace(BASE, tie_weights=True, bias=False),
    "no-norm": replace(BASE, norm="none", final_norm=True),  # final_norm is ignored without norms
    "post-no-final": replace(BASE, norm="post", final_norm=False),
    "sinusoidal": replace(BASE, position="sinusoidal"),
    "no-position": replace(BASE, position="none"),
    "heads-style": replace(BASE, mha_style="heads"),
    "regressor-io": replace(BASE, kind="regressor", vocab_size=0, d_in=3, d_out=2),  # only the regressor reads them
}


@pytest.mark.parametrize("kind", ["gpt", "encoder", "regressor"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_num_params_matches_the_formula(name, kind):
    cfg = with_kind(CONFIGS[name], kind)
    model = MODEL_KINDS[kind](cfg)
    assert model.num_params() == expected_params(cfg, kind)


@pytest.mark.parametrize("name", sorted(["seed000", "baby", "seed002", "sine"]))
def test_num_params_of_the_presets(name):
    kind = "regressor" if name == "sine" else "encoder"
    cfg = with_kind(get_preset(name).model, kind)
    assert MODEL_KINDS[kind](cfg).num_params() == expected_params(cfg, kind)


def test_num_params_excluding_positions():
    model = GPT(BASE)
    assert model.num_params(exclude_positions=True) == model.num_params() - BASE.max_len * BASE.d_model
    sin = GPT(replace(BASE, position="sinusoidal"))
    assert sin.num_params(exclude_positions=True) == sin.num_params()


def test_tied_head_shares_one_matrix():
    model = GPT(replace(BASE, tie_weights=True))
    assert model.head.weight is model.tok_embed.weight and model.head.bias is None
    model(torch.randint(0, 23, (2, 5))).sum().backward()
    assert model.tok_embed.weight.grad is model.head.weight.grad  # one gradient, both uses summed


def test_output_shapes():
    ids = torch.randint(0, 23, (2, 7))
    assert GPT(BASE)(ids).shape == (2, 7, 23)
    assert Encoder(replace(BASE, causal=False))(ids).shape == (2, 7, 23)
    assert SequenceRegressor(replace(BASE, kind="regressor", vocab_size=0, d_in=3, d_out=2))(
        torch.randn(2, 7, 3)
    ).shape == (2, 7, 2)


def test_encoder_is_bidirectional_and_gpt_is_not():
    """Changing the last token moves the Encoder's first position; never GPT's."""
    ids = torch.randint(0, 23, (1, 6))
    changed = ids.clone()
    changed[0, -1] = (ids[0, -1] + 1) % 23
    enc, gpt = Encoder(replace(BASE, causal=False)).eval(), GPT(BASE).eval()
    assert not torch.equal(enc(ids)[0, 0], enc(changed)[0, 0])
    assert torch.equal(gpt(ids)[0, 0], gpt(changed)[0, 0])


def test_encoder_padding_keys_are_ignored():
    """With pad_id set, what sits in padded slots never reaches the real tokens."""
    model = Encoder(replace(BASE, kind="encoder", causal=False, pad_id=0)).eval()
    a = torch.tensor([[5, 6, 7, 0, 0]])
    out = model(a)
    # same real tokens, more padding after them: the real positions' logits are unchanged
    b = torch.tensor([[5, 6, 7, 0, 0, 0, 0]])
    torch.testing.assert_close(model(b)[:, :3], out[:, :3], atol=1e-6, rtol=0)


def test_one_causal_mask_serves_every_model_and_every_cache_offset():
    """nn/attention.causal_mask is the only place a causal mask is built: the GPT's and the seq2seq
    decoder's masks are it, with and without tokens already cached."""
    from glassformer.models import EncoderDecoder
    from glassformer.nn.attention import causal_mask

    assert torch.equal(
        causal_mask(3, offset=2), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]).bool()
    )
    assert torch.equal(causal_mask(4), torch.tril(torch.ones(4, 4, dtype=torch.bool)))
    cfg = ModelConfig(vocab_size=11, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8)
    gpt, s2s = GPT(cfg), EncoderDecoder(replace(cfg, kind="seq2seq", pad_id=0))
    ids = torch.ones(2, 3, dtype=torch.long)
    for offset in (0, 2):
        assert torch.equal(gpt.attention_mask(ids, offset), causal_mask(3, offset=offset))
    assert torch.equal(s2s.target_mask(ids, 2), causal_mask(3, offset=2))
    assert torch.equal(s2s.target_mask(ids)[0, 0], causal_mask(3))  # (no padding in these ids)
    assert gpt.attention_mask(ids[:, :1], 5) is None and s2s.target_mask(ids[:, :1], 5) is None


def test_the_causal_mask_is_built_once_and_a_models_own_mask_is_not_rechecked(monkeypatch):
    """Issue 42, the forward span: a forward slices the causal mask an earlier one kept (the same
    numbers causal_mask gives, window and offset included), and the attention checks only a mask
    that is not the model's own (T_q, T_k) boolean one, which a user's 3-D mask still meets."""
    from glassformer.models import gpt as gpt_module
    from glassformer.nn import attention
    from glassformer.nn.attention import causal_mask

    built, checked = [], []
    monkeypatch.setattr(gpt_module, "causal_mask", lambda *a, **k: built.append(a) or causal_mask(*a, **k))
    real_check = attention.check_mask
    monkeypatch.setattr(attention, "check_mask", lambda m, s: checked.append(m.shape) or real_check(m, s))
    model = GPT(replace(BASE, sliding_window=3)).eval()
    ids = torch.ones(1, 5, dtype=torch.long)
    with torch.no_grad():
        model(ids)
        model(ids[:, :4])
    assert len(built) == 1 and checked == []  # one mask for both forwards; none of it rechecked
    for T, offset in ((5, 0), (2, 3), (1, 4)):  # (1, 4): one query, and keys past the window
        assert torch.equal(model.attention_mask(ids[:, :T], offset), causal_mask(T, offset=offset, window=3))
    model.attention_mask(torch.ones(1, 12, dtype=torch.long))  # longer than kept: built again, larger
    assert len(built) == 2 and model.kept_mask.shape == (12, 12)
    q = k = torch.randn(2, 3, 4, 8)  # (B, H, T, D)
    attention.attention_scores(q, k, causal_mask(4).expand(2, 4, 4))  # a (B, T, T) mask: checked
    assert checked == [(2, 4, 4)]


# ---- the weights a model starts from (init_weights) -------------------------------------------
WIDE = ModelConfig(vocab_size=300, d_model=256, n_heads=4, d_ff=512, n_layers=3, max_len=64)


def matrices(model):
    return {n: p for n, p in model.named_parameters() if p.dim() == 2}


def test_xavier_weights_lie_within_the_glorot_bound_and_fill_it():
    model = GPT(replace(WIDE, init="xavier"))
    for name, w in matrices(model).items():
        fan_out, fan_in = w.shape
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        assert w.abs().max() <= bound, name
        assert w.abs().max() > 0.99 * bound, name  # uniform over the whole range, not narrower
        # U(-a, a) has variance a²/3
        assert abs(w.var().item() / (bound**2 / 3) - 1) < 0.05, name


def test_xavier_zeroes_linear_biases_and_keeps_layernorm():
    model = GPT(replace(WIDE, init="xavier"))
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            assert (p == 0).all(), name
        if ".ln" in name and name.endswith("weight"):
            assert (p == 1).all(), name


def test_gpt2_init_std_and_scaled_residual_projections():
    model = GPT(replace(WIDE, init="gpt2"))
    residual_std = 0.02 / math.sqrt(2 * WIDE.n_layers)
    seen_residual = 0
    for name, w in matrices(model).items():
        is_residual = name.endswith(("attn.proj.weight", "ffn.fc2.weight"))
        expected = residual_std if is_residual else 0.02
        seen_residual += is_residual
        assert abs(w.mean().item()) < 0.1 * expected, name
        assert abs(w.std().item() / expected - 1) < 0.05, (name, w.std().item(), expected)
    assert seen_residual == 2 * WIDE.n_layers
    assert all((p == 0).all() for n, p in model.named_parameters() if n.endswith("bias") and ".ln" not in n)


def test_torch_init_is_left_alone():
    model = GPT(replace(WIDE, init="torch"))
    # nn.Embedding's default is N(0, 1); Linear's is Kaiming-uniform, bound 1/√fan_in
    assert abs(model.tok_embed.weight.std().item() - 1) < 0.05
    fc1 = model.blocks[0].ffn.fc1.weight
    assert fc1.abs().max() <= 1 / math.sqrt(WIDE.d_model)


@pytest.mark.parametrize("init", ["torch", "xavier", "gpt2"])
def test_tied_head_stays_tied_under_every_init(init):
    model = GPT(replace(WIDE, init=init, tie_weights=True))
    assert model.head.weight is model.tok_embed.weight


@pytest.mark.parametrize("preset", ["baby", "seed000", "seed002", "sine"])
def test_the_activation_estimate_is_near_what_autograd_really_keeps(preset):
    """check_fits refuses a run by `activation_bytes`, a rough count: for each kind it stays within
    0.75-1.5× of the bytes autograd saves for backward in one training forward of the preset's own
    batch (measured 1.18×, 1.02×, 1.34×, 0.86×: the count adds the logits' softmax and gradient)."""
    from glassformer.models import build_model
    from glassformer.models.kinds import activation_bytes

    p = get_preset(preset)
    B, T = p.train.batch_size, p.train.seq_len
    model = build_model(p.model).train()
    weights = {w.data_ptr() for w in model.parameters()}
    saved: dict[tuple, int] = {}

    def keep(t):
        if t.data_ptr() not in weights:
            saved[(t.data_ptr(), t.dtype, tuple(t.shape))] = t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
        model(model.example_input(B, T))
    assert 0.75 <= activation_bytes(p.model, B, T) / sum(saved.values()) <= 1.5


def test_every_dropout_is_the_one_that_is_free_where_it_does_nothing():
    """nn/attention.py's Dropout: nn.Dropout's numbers and random draws in training, the input itself
    (no call machinery) in evaluation or at p = 0; every kind builds only this one."""
    from torch import nn

    from glassformer.nn.attention import Dropout

    for kind in sorted(MODEL_KINDS):
        cfg = with_kind(replace(get_preset("seq2seq" if kind == "seq2seq" else "baby").model, dropout=0.1), kind)
        drops = [m for m in MODEL_KINDS[kind](cfg).modules() if isinstance(m, nn.Dropout)]
        assert drops and all(type(m) is Dropout for m in drops), kind
    x = torch.randn(4, 5, 6)
    ours, theirs = Dropout(0.3), nn.Dropout(0.3)
    torch.manual_seed(1)
    a = ours(x)
    torch.manual_seed(1)
    assert torch.equal(a, theirs(x)) and not torch.equal(a, x)  # the same mask, drawn the same way
    assert ours.eval()(x) is x and Dropout(0.0)(x) is x  # evaluation, or nothing to drop
    seen = []
    ours.register_forward_pre_hook(lambda *args: seen.append(1))
    assert ours(x) is x and seen == [1]  # a module hook still sees the call (inspect/params.py's first use)


def test_a_cache_of_another_depth_is_refused_not_run_on_fewer_blocks():
    """run_from walks the blocks and the cache's layers together, strictly: a KVCache made for a
    shallower model stops the forward instead of running only the blocks it has layers for."""
    torch.manual_seed(0)
    model, shallow = GPT(BASE).eval(), GPT(replace(BASE, n_layers=1))
    with torch.no_grad(), pytest.raises(ValueError):
        model(torch.tensor([[1, 2]]), cache=shallow.new_cache(1))


def test_a_callers_mask_is_kept_with_the_models_own_on_both_attention_paths():
    """GPT(ids, mask=...): a key is read only where the caller's (B, T, T) mask and the causal mask
    both allow it. Hiding everything before position 3 makes positions 3.. the model run on ids[3:]
    alone (no positions in the stream), on the glass path and the fused one; a mask that is not
    boolean, or of another shape, is refused by attention's own check."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=11, n_layers=2, d_model=16, n_heads=2, d_ff=32, position="none")).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5, 6]])  # (1, 6)
    keep = torch.ones(1, 6, 6, dtype=torch.bool)  # (1, 6, 6)
    keep[:, 3:, :3] = False  # positions 3.. do not read 0..2
    for attention in ("glass", "fused"):
        model.set_attention(attention)
        torch.testing.assert_close(model(ids, mask=keep)[:, 3:], model(ids[:, 3:]), rtol=0, atol=1e-5)
        torch.testing.assert_close(model(ids, mask=torch.ones_like(keep)), model(ids))  # causal still holds
    with pytest.raises(UsageError) as e:
        model(ids, mask=keep.float())
    assert e.value.code == "mask.dtype"
    with pytest.raises(UsageError) as e:
        model(ids, mask=torch.ones(2, 5, 5, dtype=torch.bool))
    assert e.value.code == "mask.shape" and e.value.fields["mask"] == (2, 1, 5, 5)  # with its head axis


@pytest.mark.parametrize("ffn", ["swiglu", "geglu"])
@pytest.mark.parametrize("bias", [True, False])
def test_a_gated_feed_forward_has_biases_exactly_when_the_config_asks(ffn, bias):
    from glassformer.models.gpt import feed_forward

    ff = feed_forward(ModelConfig(vocab_size=11, max_len=8, d_model=8, n_heads=2, n_layers=1, ffn=ffn, bias=bias))
    assert ff.bias == bias and [m.bias is not None for m in (ff.gate, ff.up, ff.down)] == [bias] * 3

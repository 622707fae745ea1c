"""Every function of the NumPy twin (glassformer.numpy_ref) against the PyTorch module it mirrors.

Two independent writings of the same equations, one in NumPy, one in torch; weights go from
the torch module's state_dict to NumPy through state_to_numpy. float64 throughout: 1e-10.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from helpers import assert_close, assert_matches, numpy_fn, randomize_

from glassformer import numpy_ref as ref
from glassformer.config import ModelConfig, get_preset
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.gpt import Block, FeedForward, TokenEmbedding
from glassformer.models.gpt import layer_norm as make_layer_norm
from glassformer.nn import attention as nn_attention
from glassformer.nn.attention import MultiHeadAttention, causal_mask
from glassformer.nn.kv_cache import LayerCache
from glassformer.nn.position import POSITION_SCHEMES, sinusoidal_table
from glassformer.numpy_ref.forward import AttentionTouch

ATOL = 1e-10
B, T, C, H, FF, V = 2, 6, 12, 3, 20, 17


def params_of(module: torch.nn.Module) -> dict:
    return ref.state_to_numpy(module.state_dict())


def forward_only(ours, twin, inputs):
    return assert_matches(ours, numpy_fn(twin), inputs, atol=ATOL, grad=False)


# ---- the pieces ----------------------------------------------------------------------------------


def test_the_twin_never_imports_torch():
    code = "import sys, glassformer.numpy_ref; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_state_to_numpy_is_float64_and_complete():
    model = GPT(ModelConfig(vocab_size=V, d_model=C, n_heads=H, d_ff=FF, n_layers=1))
    params = params_of(model)
    assert set(params) == set(model.state_dict())
    assert all(a.dtype == np.float64 for a in params.values())
    assert ref.scope(params, "blocks.0.attn.").keys() == {"qkv.weight", "qkv.bias", "proj.weight", "proj.bias"}


@pytest.mark.parametrize("name", ["relu", "gelu", "gelu_tanh"])
def test_activations(name):
    x = torch.linspace(-6, 6, 241, dtype=torch.float64)
    torch_fn = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}[name]
    forward_only(torch_fn, ref.ACTIVATIONS[name], x)


def test_masks():
    ids = torch.tensor([[3, 1, 0, 0], [0, 2, 2, 0]])
    assert np.array_equal(ref.causal_mask(5), causal_mask(5).numpy())
    assert np.array_equal(ref.padding_mask(ids.numpy(), 0), padding_mask(ids, 0).numpy())


def test_token_embedding():
    emb = TokenEmbedding(V, C).double()
    ids = torch.randint(0, V, (B, T))
    assert_close(
        "embedding", torch.from_numpy(ref.token_embedding(ids.numpy(), params_of(emb)["table.weight"])), emb(ids), 0.0
    )


@pytest.mark.parametrize("d_model", [8, 7])  # an odd width has one more sine than cosine column
def test_sinusoidal_table(d_model):
    assert_close(
        "table",
        torch.from_numpy(ref.sinusoidal_table(50, d_model)),
        sinusoidal_table(50, d_model, torch.float64),
        1e-12,
    )


@pytest.mark.parametrize("masking", ["none", "causal", "causal+padding with dead rows"])
def test_attention_functions(masking):
    q = torch.randn(B, H, T, C // H, dtype=torch.float64)
    k, v = torch.randn_like(q), torch.randn_like(q)
    mask = None if masking == "none" else causal_mask(T)
    if masking.endswith("dead rows"):
        ids = torch.ones(B, T, dtype=torch.long)
        ids[1] = 0  # row 1 all padding: every query there has no visible key
        mask = combine_masks(mask, padding_mask(ids, 0))
    m = None if mask is None else mask.numpy()
    scores = nn_attention.attention_scores(q, k, mask)
    forward_only(lambda: scores, lambda: ref.attention_scores(q.numpy(), k.numpy(), m), ())
    forward_only(
        lambda: nn_attention.attention_weights(scores, mask), lambda: ref.attention_weights(scores.numpy()), ()
    )
    forward_only(
        lambda: nn_attention.scaled_dot_product_attention(q, k, v, mask),
        lambda: ref.scaled_dot_product_attention(q.numpy(), k.numpy(), v.numpy(), m),
        (),
    )


def test_every_registered_scheme_has_a_twin():
    assert set(ref.NUMPY_POSITIONS) == set(POSITION_SCHEMES), "write the new scheme's twin in numpy_ref/"


@pytest.mark.parametrize("position", ["rotary", "alibi"])
def test_multi_head_attention_with_positions_and_a_cache_offset(position):
    """The attention touch points with an offset: 4 cached tokens, then 3 new ones, against the
    twin run on all 7 (whose last 3 rows are what the cached call computes)."""
    cfg = dataclasses.replace(BASE, position=position)
    blk = randomize_(Block(cfg).double()).eval()
    mha, p = blk.attn, params_of(blk.attn)
    x = torch.randn(B, 7, C, dtype=torch.float64)
    cache = LayerCache(B, H, 8, C // H, dtype=torch.float64)
    mha(x[:, :4], causal_mask(4), cache)
    later = mha(x[:, 4:], torch.tril(torch.ones(3, 7, dtype=torch.bool), diagonal=4), cache)  # (B, 3, C)
    touch = AttentionTouch(ref.NUMPY_POSITIONS[position], cfg)
    twin = ref.multi_head_attention(x.numpy(), p, H, causal_mask(7).numpy(), touch)[:, 4:]
    assert_close("cached rows", later, torch.from_numpy(twin), ATOL)


@pytest.mark.parametrize("style", ["packed", "heads"])
@pytest.mark.parametrize("bias", [True, False])
def test_multi_head_attention(style, bias):
    mha = randomize_(MultiHeadAttention(C, H, bias=bias, style=style).double()).eval()
    p, mask = params_of(mha), causal_mask(T)
    forward_only(
        lambda x: mha(x, mask),
        lambda x: ref.multi_head_attention(x, p, H, mask.numpy()),
        torch.randn(B, T, C, dtype=torch.float64),
    )


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh"])
def test_feed_forward(activation):
    ffn = randomize_(FeedForward(C, FF, activation).double())
    p = params_of(ffn)
    forward_only(ffn, lambda x: ref.feed_forward(x, p, activation), torch.randn(B, T, C, dtype=torch.float64))


@pytest.mark.parametrize("bias", [True, False])
def test_layer_norm(bias):
    cfg = ModelConfig(d_model=C, n_heads=H, bias=bias, ln_eps=1e-3)  # a visible eps
    ln = randomize_(make_layer_norm(cfg).double())
    p = params_of(ln)
    x = 3.0 + 2.0 * torch.randn(B, T, C, dtype=torch.float64)
    forward_only(ln, lambda x: ref.layer_norm(x, p, cfg.ln_eps), x)


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh"])
def test_block(norm, activation):
    cfg = ModelConfig(d_model=C, n_heads=H, d_ff=FF, norm=norm, activation=activation)
    blk = randomize_(Block(cfg).double()).eval()
    p, mask = params_of(blk), causal_mask(T)
    forward_only(
        lambda x: blk(x, mask), lambda x: ref.block(x, p, cfg, mask.numpy()), torch.randn(B, T, C, dtype=torch.float64)
    )


# ---- whole models --------------------------------------------------------------------------------

BASE = ModelConfig(vocab_size=V, d_model=C, n_heads=H, d_ff=FF, n_layers=2, max_len=8)
POSITIONS = tuple(POSITION_SCHEMES)  # every registered scheme
GPT_CONFIGS = {  # every norm × position pair, activations and switches spread across them
    f"{norm}-{position}-{act}": dataclasses.replace(BASE, norm=norm, position=position, activation=act)
    for (norm, position), act in zip(
        [(n, p) for n in ("pre", "post", "none") for p in POSITIONS],
        ["relu", "gelu", "gelu_tanh"] * len(POSITIONS),
        strict=False,
    )
}
GPT_CONFIGS["tied-nobias"] = dataclasses.replace(BASE, tie_weights=True, bias=False, activation="gelu")
GPT_CONFIGS["heads-style"] = dataclasses.replace(BASE, mha_style="heads")
GPT_CONFIGS["heads-style-rotary"] = dataclasses.replace(BASE, mha_style="heads", position="rotary")
GPT_CONFIGS["alibi-6-heads"] = dataclasses.replace(BASE, n_heads=6, d_model=24, position="alibi")  # 4 + 2 slopes
GPT_CONFIGS["post-final-norm-off"] = dataclasses.replace(BASE, norm="post", final_norm=False)
# the modern decoder (docs/modern.md): RMSNorm, gated FFNs, key-value heads shared, QK-norm, RoPE with
# its scalings (past the original length), the sliding window (T = 7 > W = 3), each as its family sets it
MODERN = dataclasses.replace(
    BASE, d_model=16, n_heads=4, n_kv_heads=2, bias=False, norm_type="rms", ffn="swiglu", position="rope"
)
GPT_CONFIGS["llama-like"] = dataclasses.replace(
    MODERN, rope_base=500000.0, rope_scaling="llama3", rope_factor=8.0, rope_original_max_len=4
)
GPT_CONFIGS["qwen3-like"] = dataclasses.replace(
    MODERN, head_dim=6, qk_norm=True, rope_base=1e6, tie_weights=True, ln_eps=1e-6
)
GPT_CONFIGS["mistral-like"] = dataclasses.replace(MODERN, sliding_window=3)
GPT_CONFIGS["mqa-geglu-yarn"] = dataclasses.replace(
    MODERN, n_kv_heads=1, ffn="geglu", rope_scaling="yarn", rope_factor=2.0, rope_original_max_len=4
)
GPT_CONFIGS["gqa-layernorm-learned-bias"] = dataclasses.replace(
    MODERN, norm_type="layer", position="learned", bias=True, qk_norm=True, sliding_window=2
)


@pytest.mark.parametrize("name", list(GPT_CONFIGS))
def test_gpt_forward(name):
    cfg = GPT_CONFIGS[name]
    model = randomize_(GPT(cfg).double()).eval()
    ids = torch.randint(0, V, (B, 7))
    p = params_of(model)
    forward_only(lambda: model(ids), lambda: ref.gpt_forward(ids.numpy(), p, cfg), ())


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
def test_attention_only_gpt_forward(norm):
    cfg = dataclasses.replace(BASE, norm=norm, ffn="none")  # no FFN, no ln2 in either model
    model = randomize_(GPT(cfg).double()).eval()
    ids = torch.randint(0, V, (B, 7))
    p = params_of(model)
    assert not [k for k in p if ".ffn." in k or ".ln2." in k]
    forward_only(lambda: model(ids), lambda: ref.gpt_forward(ids.numpy(), p, cfg), ())


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("causal", [False, True])
def test_encoder_forward_with_padding(causal, position):
    cfg = dataclasses.replace(
        BASE,
        kind="encoder",
        causal=causal,
        pad_id=0,
        norm="post",
        position=position,
        activation="gelu",
        final_norm=False,
    )
    model = randomize_(Encoder(cfg).double()).eval()
    ids = torch.randint(1, V, (3, 7))
    ids[0, 4:] = 0  # trailing padding
    ids[1, 0] = 0  # a padding key first: with causal, query 0 of this row sees no key at all
    ids[2, :] = 0  # an all-padding row
    p = params_of(model)
    forward_only(lambda: model(ids), lambda: ref.encoder_forward(ids.numpy(), p, cfg), ())


@pytest.mark.parametrize(
    "causal, position", [(False, "sinusoidal"), (True, "sinusoidal"), (False, "rotary"), (True, "alibi")]
)
def test_regressor_forward(causal, position):
    cfg = dataclasses.replace(
        BASE,
        kind="regressor",
        vocab_size=0,
        causal=causal,
        d_in=2,
        d_out=3,
        position=position,
        norm="post",
        activation="gelu",
    )
    model = randomize_(SequenceRegressor(cfg).double()).eval()
    p = params_of(model)
    forward_only(model, lambda x: ref.regressor_forward(x, p, cfg), torch.randn(B, 7, 2, dtype=torch.float64))


@pytest.mark.parametrize("name", ["baby-llama", "baby-qwen3"])
def test_the_modern_presets_match_the_twin(name):
    """The Llama-style and Qwen3-style presets, exactly as they build (GQA, RMSNorm, SwiGLU, RoPE)."""
    cfg = get_preset(name).model
    model = randomize_(GPT(cfg).double()).eval()
    ids = torch.randint(0, cfg.vocab_size, (2, 9))
    p = params_of(model)
    forward_only(lambda: model(ids), lambda: ref.gpt_forward(ids.numpy(), p, cfg), ())


def test_sine_preset_regressor_matches_twin():
    """The third tutorial's model, exactly as its preset builds it."""
    cfg = get_preset("sine").model
    model = SequenceRegressor(cfg).double().eval()
    p = params_of(model)
    x = torch.sin(torch.linspace(0, 2 * math.pi, 50, dtype=torch.float64)).reshape(1, 50, 1)
    forward_only(model, lambda x: ref.regressor_forward(x, p, cfg), x)

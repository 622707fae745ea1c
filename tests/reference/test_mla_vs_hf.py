"""Multi-head latent attention (nn/mla.py) against transformers' DeepseekV3Attention (eager, copied
weights): with and without query compression, interleaved and half-split RoPE, plain and YaRN with
mscale; its cache against transformers' cache; cached decoding equal to uncached; the absorbed form
equal to the plain one; the NumPy twin, finite differences; KV-cache bytes per token against real
caches; the refusals.

float64 compares with transformers' float32 casts pointed at float64 (hf_float64.py), float32 with
transformers untouched.
"""

from __future__ import annotations

import pytest
import torch
from helpers import ATOL, assert_close, assert_matches, copy_linear, keyed, numpy_fn, randomize_
from hf_float64 import in_float64, transformers_in_float64
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.errors import UsageError
from glassformer.inspect.params import derived_parts
from glassformer.nn.mla import (
    LatentAttention,
    LatentCache,
    MLAConfig,
    deepseek_yarn,
    deinterleave,
    kv_cache_bytes_per_token,
    softmax_scale,
)
from glassformer.numpy_ref.mla import latent_attention

transformers = pytest.importorskip("transformers")
from transformers import DynamicCache, masking_utils  # noqa: E402
from transformers.models.deepseek_v3 import modeling_deepseek_v3  # noqa: E402

C, H, R_Q, R_KV, D_N, D_R, D_V, EPS = 24, 3, 10, 8, 6, 4, 5, 1e-6
YARN = {"factor": 4.0, "original_max_len": 4, "mscale": 0.8, "mscale_all_dim": 1.2}  # T = 9 > 4: YaRN bites


def mla_config(q_rank: int | None, interleaved: bool, rope: str, bias: bool = False) -> MLAConfig:
    scaling = deepseek_yarn(YARN["factor"], YARN["original_max_len"], YARN["mscale"], YARN["mscale_all_dim"])
    return MLAConfig(
        C,
        H,
        R_KV,
        D_N,
        D_R,
        D_V,
        q_rank=q_rank,
        base=10000.0,
        scaling=scaling if rope == "yarn" else MLAConfig.scaling,
        mscale_all_dim=YARN["mscale_all_dim"] if rope == "yarn" else 0.0,
        interleaved=interleaved,
        eps=EPS,
        bias=bias,
    )


def hf_config(cfg: MLAConfig):
    """The same layer as transformers' DeepseekV3Config: the configuration half of the map."""
    rope = {"rope_type": "default", "rope_theta": cfg.base}
    if cfg.scaling.kind == "yarn":
        rope |= {"rope_type": "yarn", "factor": cfg.scaling.factor}
        rope |= {"original_max_position_embeddings": cfg.scaling.original_max_len}
        rope |= {"mscale": YARN["mscale"], "mscale_all_dim": cfg.mscale_all_dim}
    return transformers.DeepseekV3Config(
        hidden_size=cfg.d_model,
        num_attention_heads=cfg.n_heads,
        num_key_value_heads=cfg.n_heads,
        q_lora_rank=cfg.q_rank,
        kv_lora_rank=cfg.kv_rank,
        qk_nope_head_dim=cfg.d_nope,
        qk_rope_head_dim=cfg.d_rope,
        v_head_dim=cfg.d_v,
        rope_interleave=cfg.interleaved,
        rope_parameters=rope,
        attention_bias=cfg.bias,
        rms_norm_eps=cfg.eps,
        max_position_embeddings=16,
        num_hidden_layers=1,
        attn_implementation="eager",
    )


WEIGHT_MAP = {  # transformers' DeepseekV3Attention -> ours: the weight half of the map
    "q_a_proj": "q_down",
    "q_a_layernorm": "q_norm",
    "q_b_proj": "q_up",
    "q_proj": "q_proj",
    "kv_a_proj_with_mqa": "kv_down",
    "kv_a_layernorm": "kv_norm",
    "kv_b_proj": "kv_up",
    "o_proj": "proj",
}


def pair(cfg: MLAConfig, dtype):
    hf_cfg = hf_config(cfg)
    hf = randomize_(modeling_deepseek_v3.DeepseekV3Attention(hf_cfg, layer_idx=0)).to(dtype).eval()
    ours = LatentAttention(cfg).to(dtype)
    for theirs, mine in WEIGHT_MAP.items():
        if getattr(hf, theirs, None) is None:
            continue
        source, target = getattr(hf, theirs), getattr(ours, mine)
        if isinstance(source, torch.nn.Linear):
            copy_linear(target, source.weight, source.bias)
        else:
            with torch.no_grad():
                target.weight.copy_(source.weight)
    return ours, hf, hf_cfg


def hf_forward(hf, hf_cfg, cache=None, offset: int = 0):
    """DeepseekV3Attention as DeepseekV3Model calls it: its rotary embedding's cos/sin and its mask."""

    def run(x):
        positions = torch.arange(offset, offset + x.size(1))[None]  # (1, T)
        cos_sin = modeling_deepseek_v3.DeepseekV3RotaryEmbedding(hf_cfg)(x, positions)
        mask = masking_utils.create_causal_mask(hf_cfg, x, None, cache, positions, allow_is_causal_skip=False)
        return hf(x, cos_sin, mask, cache=cache)[0]

    return run


CASES = {  # (q_rank, interleaved, rope, bias)
    "v3": (R_Q, True, "plain", False),
    "v3-yarn": (R_Q, True, "yarn", False),
    "half-split-bias": (R_Q, False, "plain", True),
    "no-q-lora": (None, True, "yarn", False),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_equals_deepseek_v3_attention(dtype, case):
    ours, hf, hf_cfg = pair(mla_config(*CASES[case]), dtype)
    assert softmax_scale(ours.cfg) == pytest.approx(hf.scaling, rel=1e-15)
    x = torch.randn(2, 9, C, dtype=dtype)
    reference = hf_forward(hf, hf_cfg)
    assert_matches(ours, in_float64(reference) if dtype == torch.float64 else reference, x, atol=ATOL[dtype])


def test_yarn_s_mscale_changes_the_softmax_scale_and_the_output():
    """The yarn case above could pass with mscale ignored if it changed nothing: it does."""
    cfg = mla_config(R_Q, True, "yarn")
    assert softmax_scale(cfg) != pytest.approx((D_N + D_R) ** -0.5)
    assert cfg.scaling.attention_factor != pytest.approx(1.0)


@pytest.mark.parametrize("case", ["v3", "half-split-bias"])
def test_the_cache_holds_what_transformers_cache_holds(case):
    """After a prefill, ours and transformers' cache hold the same latent (normalised) and rotary key."""
    ours, hf, hf_cfg = pair(mla_config(*CASES[case]), torch.float64)
    x = torch.randn(2, 7, C, dtype=torch.float64)
    cache, theirs = LatentCache(), DynamicCache(config=hf_cfg)
    ours(x, cache)
    with transformers_in_float64():
        hf_forward(hf, hf_cfg, theirs)(x)
    assert_close("latent", cache.latent, theirs.layers[0].keys[:, 0], 1e-10)  # (B, T, R_kv)
    assert_close("rotary key", cache.rope_key, theirs.layers[0].values, 1e-10)  # (B, 1, T, D_r)


@pytest.mark.parametrize("absorbed", [False, True], ids=["plain", "absorbed"])
@pytest.mark.parametrize("case", ["v3-yarn", "half-split-bias"])
def test_cached_decoding_equals_uncached(case, absorbed):
    """Prefill 4 tokens, then feed 3 one at a time and 2 together: each output equals the uncached
    layer's row for that position; transformers' cached layer agrees."""
    ours, hf, hf_cfg = pair(mla_config(*CASES[case]), torch.float64)
    x = torch.randn(2, 9, C, dtype=torch.float64)
    full = ours(x)
    cache, theirs = LatentCache(), DynamicCache(config=hf_cfg)
    pieces = [(0, 4), (4, 5), (5, 6), (6, 7), (7, 9)]
    for start, end in pieces:
        step = ours(x[:, start:end], cache, absorbed=absorbed)
        assert_close(f"tokens {start}..{end}", step, full[:, start:end], 1e-10)
        with transformers_in_float64():
            hf_step = hf_forward(hf, hf_cfg, theirs, offset=start)(x[:, start:end])
        assert_close(f"transformers {start}..{end}", step, hf_step, 1e-10)
    assert cache.length == 9 and cache.latent.shape == (2, 9, R_KV) and cache.rope_key.shape == (2, 1, 9, D_R)


@pytest.mark.parametrize("case", CASES)
def test_the_absorbed_form_equals_the_plain_form(case):
    ours = randomize_(LatentAttention(mla_config(*CASES[case]))).double()
    x = torch.randn(2, 9, C, dtype=torch.float64)
    assert_matches(ours, lambda x: ours(x, absorbed=True), x, atol=1e-10)


def test_the_absorbed_form_makes_no_per_head_key_or_value():
    """The plain form's q, k, v, z hook points fire; the absorbed form's do not (it never makes them),
    while both show the same attention weights."""
    ours = randomize_(LatentAttention(mla_config(R_Q, True, "plain"))).double()
    x = torch.randn(1, 5, C, dtype=torch.float64)
    seen: dict[tuple[bool, str], torch.Tensor] = {}
    for absorbed in (False, True):
        for name in ("q", "k", "v", "z", "weights", "kv_latent"):
            getattr(ours, f"hook_{name}").fns[:] = [lambda t, _, key=(absorbed, name): seen.__setitem__(key, t)]
        ours(x, absorbed=absorbed)
    assert {name for absorbed, name in seen if absorbed} == {"weights", "kv_latent"}
    assert seen[False, "k"].shape == (1, H, 5, D_N + D_R) and seen[False, "v"].shape == (1, H, 5, D_V)
    assert_close("same weights", seen[True, "weights"], seen[False, "weights"], 1e-12)


def test_interleaved_is_half_split_with_the_rotary_rows_permuted():
    """DeepSeek's neighbouring-pair layout and the half-split one are the same model, the rotary rows
    of W_UQ and W_DKV permuted (evens first): which is why transformers can turn them half-split."""
    inter = randomize_(LatentAttention(mla_config(R_Q, True, "plain"))).double()
    half = LatentAttention(mla_config(R_Q, False, "plain")).double()
    half.load_state_dict(inter.state_dict())
    perm = deinterleave(torch.arange(D_R))  # (D_R,)
    with torch.no_grad():
        q_up = half.q_up.weight.view(H, D_N + D_R, R_Q)  # (H, D_n+D_r, R_q)
        q_up[:, D_N:] = q_up[:, D_N:][:, perm]
        half.kv_down.weight[R_KV:] = half.kv_down.weight[R_KV:][perm]
    x = torch.randn(2, 6, C, dtype=torch.float64)
    assert_close("permuted", half(x), inter(x), 1e-12)
    assert (half(x) - LatentAttention(mla_config(R_Q, False, "plain")).double().eval()(x)).abs().max() > 0


@pytest.mark.parametrize("case", CASES)
def test_equals_the_numpy_twin(case):
    ours = randomize_(LatentAttention(mla_config(*CASES[case]))).double()
    params = ref.state_to_numpy(ours.state_dict())
    x = torch.randn(2, 9, C, dtype=torch.float64)
    twin = numpy_fn(lambda x: latent_attention(x, params, ours.cfg))
    assert_matches(ours, twin, x, atol=1e-10, grad=False)


def test_gradcheck_plain_and_absorbed():
    cfg = MLAConfig(6, 2, 4, 2, 2, 3, q_rank=3, scaling=deepseek_yarn(2.0, 2), mscale_all_dim=1.0)
    ours = randomize_(LatentAttention(cfg)).double()
    x = torch.randn(1, 3, 6, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x: (ours(x), ours(x, absorbed=True)), (x,))


LETTER_SIZES = {"C": C, "H": H, "R_q": R_Q, "R_kv": R_KV, "D_n": D_N, "D_r": D_R, "D_v": D_V}


@pytest.mark.parametrize("q_rank, bias", [(R_Q, True), (None, False)])
def test_the_derived_formulas_add_up(q_rank, bias):
    ours = LatentAttention(mla_config(q_rank, True, "plain", bias))
    parts = derived_parts(ours, LETTER_SIZES)  # the params view's formulas, from the Linears and the two norms
    assert sum(f.value() for _, f in parts) == sum(p.numel() for p in ours.parameters())


def test_the_derived_formulas_read_as_the_layer_s_letters():
    """Sizes no two of which add or multiply into another's, so each projection reads as it is built:
    W_UQ R_q -> H·(D_n + D_r), W_DKV C -> R_kv + D_r, W_UK and W_UV R_kv -> H·(D_n + D_v), W_O H·D_v -> C."""
    sizes = {"C": 64, "H": 4, "R_q": 24, "R_kv": 16, "D_n": 8, "D_r": 6, "D_v": 10}
    ours = LatentAttention(MLAConfig(64, 4, 16, 8, 6, 10, q_rank=24, bias=True))
    parts = derived_parts(ours, sizes)
    assert [(p, f.formula) for p, f in parts] == [
        ("q_down", "C·R_q + R_q"),
        ("q_norm", "R_q"),
        ("q_up", "R_q·(H·(D_n + D_r))"),
        ("kv_down", "C·(R_kv + D_r) + (R_kv + D_r)"),
        ("kv_norm", "R_kv"),
        ("kv_up", "R_kv·(H·(D_n + D_v))"),
        ("proj", "(H·D_v)·C + C"),
        ("rotary", "0"),
    ]
    assert [f.note for p, f in parts if p in ("q_up", "kv_down")] == ["R_q -> H·(D_n + D_r)", "C -> R_kv + D_r"]
    assert sum(f.value() for _, f in parts) == sum(p.numel() for p in ours.parameters())


# ---- what a cache costs --------------------------------------------------------------------------------------


def qwen3_cache_bytes(n_kv_heads: int, d_head: int, dtype) -> tuple[int, int]:
    """A real cache: a 2-layer Qwen3 (tiny, random) run on B·T tokens with use_cache; its bytes, and B·T."""
    cfg = transformers.Qwen3Config(
        vocab_size=32,
        hidden_size=C,
        intermediate_size=16,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=n_kv_heads,
        head_dim=d_head,
        attn_implementation="eager",
    )
    model = transformers.Qwen3ForCausalLM(cfg).to(dtype).eval()
    ids = torch.randint(0, 32, (2, 7))
    with torch.no_grad():
        cache = model(ids, use_cache=True).past_key_values
    held = sum(t.numel() * t.element_size() for layer in cache.layers for t in (layer.keys, layer.values))
    return held, ids.numel()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("kind, n_kv_heads", [("mha", 4), ("gqa", 2), ("mqa", 1)])
def test_cache_bytes_per_token_match_real_caches(kind, n_kv_heads, dtype):
    held, tokens = qwen3_cache_bytes(n_kv_heads, 6, dtype)
    sizes = {"n_heads": 4, "d_head": 6} | ({"n_kv_heads": n_kv_heads} if kind == "gqa" else {})
    assert kv_cache_bytes_per_token(kind, 2, dtype, **sizes) * tokens == held


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_mla_cache_bytes_per_token_match_ours_and_transformers(dtype):
    ours, hf, hf_cfg = pair(mla_config(R_Q, True, "plain"), dtype)
    x = torch.randn(2, 7, C, dtype=dtype)
    cache, theirs = LatentCache(), DynamicCache(config=hf_cfg)
    with torch.no_grad():
        ours(x, cache)
        hf_forward(hf, hf_cfg, theirs)(x)
    per_token = kv_cache_bytes_per_token("mla", 1, dtype, kv_rank=R_KV, d_rope=D_R)
    assert per_token * 14 == cache.nbytes()
    assert per_token * 14 == sum(t.numel() * t.element_size() for t in (theirs.layers[0].keys, theirs.layers[0].values))
    mha = kv_cache_bytes_per_token("mha", 1, dtype, n_heads=H, d_head=D_N + D_R)  # keys; values are D_v wide
    assert per_token < mha


# ---- refusals --------------------------------------------------------------------------------------------


def test_a_latent_wider_than_the_model_is_refused():
    assert keyed(UsageError, LatentAttention, MLAConfig(16, 2, 17, 4, 2, 4)) == (
        "mla.rank",
        {"name": "kv_rank", "rank": 17, "d_model": 16},
    )
    assert keyed(UsageError, LatentAttention, MLAConfig(16, 2, 8, 4, 2, 4, q_rank=32)) == (
        "mla.rank",
        {"name": "q_rank", "rank": 32, "d_model": 16},
    )
    assert keyed(UsageError, LatentAttention, MLAConfig(16, 2, 8, 0, 2, 4)) == (
        "mla.size",
        {"name": "d_nope", "value": 0},
    )
    assert keyed(UsageError, LatentAttention, MLAConfig(16, 2, 8, 4, 3, 4)) == ("rotary.odd_head", {"d_head": 3})


def test_cache_bytes_refuses_unknown_kinds_and_missing_sizes():
    assert keyed(UsageError, kv_cache_bytes_per_token, "mlx", 2) == (
        "cache_size.attention",
        {"kind": "mlx", "names": ["mha", "gqa", "mqa", "mla"]},
    )
    assert keyed(UsageError, kv_cache_bytes_per_token, "mla", 2, kv_rank=8) == (
        "cache_size.missing",
        {"kind": "mla", "names": ["kv_rank", "d_rope"], "missing": ["d_rope"]},
    )
    assert keyed(UsageError, kv_cache_bytes_per_token, "gqa", 2, n_heads=8, n_kv_heads=3, d_head=4)[0] == ("gqa.heads")

"""GQA / MQA, QK-norm and the sliding window (nn/attention_variants.py) against transformers: its
repeat_kv, its sliding-window masks, and a whole Qwen3Attention layer (eager, copied weights)
rebuilt from our pieces plus plain attention; then the NumPy twin and finite differences.

float64 compares with transformers' float32 casts pointed at float64 (hf_float64.py), float32 with
transformers untouched.
"""

from __future__ import annotations

import pytest
import torch
from helpers import ATOL, assert_close, assert_matches, copy_linear, keyed, numpy_fn, randomize_
from hf_float64 import in_float64
from torch import nn
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.errors import UsageError
from glassformer.inspect.params import derived_parts
from glassformer.nn.attention import causal_mask, scaled_dot_product_attention
from glassformer.nn.attention_variants import QKNorm, kv_groups, repeat_kv
from glassformer.nn.rope_scaling import RopeScaling, ScaledRotary
from glassformer.numpy_ref import attention_variants as twin

transformers = pytest.importorskip("transformers")
from transformers import masking_utils  # noqa: E402
from transformers.models.qwen3 import modeling_qwen3  # noqa: E402

C, H, D, EPS = 20, 4, 8, 1e-6  # H·D = 32 ≠ C: Qwen3's head_dim is its own setting


# ---- repeat_kv ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("H_kv", [1, 2, 4], ids=["mqa", "gqa", "mha"])
def test_repeat_kv_equals_transformers(H_kv):
    x = torch.randn(2, H_kv, 5, D, dtype=torch.float64)
    groups = kv_groups(H, H_kv)
    assert_matches(lambda x: repeat_kv(x, groups), lambda x: modeling_qwen3.repeat_kv(x, groups), x, atol=0.0)


def test_query_head_h_reads_key_value_head_h_over_g():
    x = torch.randn(1, 2, 3, D)
    out = repeat_kv(x, 3)  # (1, 6, 3, D)
    for h in range(6):
        assert torch.equal(out[:, h], x[:, h // 3])
    assert repeat_kv(x, 1) is x  # multi-head attention: nothing to repeat, nothing copied


def test_kv_groups_refuses_head_counts_that_do_not_divide():
    assert kv_groups(8, 2) == 4 and kv_groups(8, 1) == 8 and kv_groups(8, 8) == 1
    assert keyed(UsageError, kv_groups, 8, 3) == (
        "gqa.heads",
        {"n_heads": 8, "n_kv_heads": 3, "divisors": [1, 2, 4, 8]},
    )
    assert keyed(UsageError, kv_groups, 8, 0)[0] == "gqa.heads"


# ---- sliding window -------------------------------------------------------------------------------------


def hf_bool_mask(T: int, window: int, offset: int = 0) -> torch.Tensor:
    """transformers' sliding-window causal mask (True = may attend), queries at offset.., keys 0.."""
    return masking_utils.sdpa_mask(
        batch_size=1,
        q_length=T,
        kv_length=offset + T,
        q_offset=offset,
        mask_function=masking_utils.sliding_window_causal_mask_function(window),
        allow_is_causal_skip=False,
    )[0, 0]


@pytest.mark.parametrize("T, window, offset", [(8, 3, 0), (8, 1, 0), (6, 10, 0), (4, 3, 7), (1, 4, 20)])
def test_sliding_window_mask_equals_transformers(T, window, offset):
    ours = causal_mask(T, offset=offset, window=window)
    assert torch.equal(ours, hf_bool_mask(T, window, offset))
    assert torch.equal(ours, torch.from_numpy(twin.sliding_window_mask(T, window, offset)))


def test_sliding_window_mask_equals_mistral_s_model_mask():
    """The mask a MistralModel builds for eager attention (0 / dtype min), from its config."""
    cfg = transformers.MistralConfig(
        hidden_size=C,
        num_attention_heads=H,
        head_dim=D,
        sliding_window=3,
        attn_implementation="eager",
        num_hidden_layers=1,
    )
    x = torch.zeros(1, 9, C)
    mask = masking_utils.create_sliding_window_causal_mask(cfg, x, None, None, torch.arange(9)[None])
    assert torch.equal(causal_mask(9, window=3), mask[0, 0] == 0)


def test_each_query_sees_exactly_window_keys_once_past_the_start():
    mask = causal_mask(10, window=4)
    assert mask.sum(-1).tolist() == [1, 2, 3, 4, 4, 4, 4, 4, 4, 4]
    assert torch.equal(causal_mask(10, window=0), causal_mask(10))  # 0: no window, every earlier key
    assert keyed(UsageError, causal_mask, 5, window=-1) == ("window.size", {"window": -1})


# ---- QK-norm --------------------------------------------------------------------------------------------


def test_qk_norm_equals_qwen3_rms_norm_per_head_and_the_twin():
    norm = randomize_(QKNorm(D, EPS)).double()
    hf_q, hf_k = modeling_qwen3.Qwen3RMSNorm(D, EPS).double(), modeling_qwen3.Qwen3RMSNorm(D, EPS).double()
    with torch.no_grad():
        hf_q.weight.copy_(norm.q_norm.weight), hf_k.weight.copy_(norm.k_norm.weight)
    q, k = torch.randn(2, H, 5, D, dtype=torch.float64), torch.randn(2, 2, 5, D, dtype=torch.float64)
    assert_matches(norm, in_float64(lambda q, k: (hf_q(q), hf_k(k))), (q, k), atol=1e-10)
    params = ref.state_to_numpy(norm.state_dict())
    assert_matches(norm, numpy_fn(lambda q, k: twin.qk_norm(q, k, params, EPS)), (q, k), atol=1e-10, grad=False)


def test_qk_norm_hooks_and_formulas():
    norm = QKNorm(D)
    assert (norm.hook_q.axes, norm.hook_k.axes) == ("B H T D", "B H_kv T D")
    assert (norm.hook_q.stage, norm.hook_k.stage) == ("qk_norm", "qk_norm")
    parts = derived_parts(norm, {"C": C, "D": D})
    assert [(p, f.formula) for p, f in parts] == [("q_norm", "D"), ("k_norm", "D")]
    assert sum(f.value() for _, f in parts) == 2 * D == sum(p.numel() for p in norm.parameters())


def test_gradcheck_qk_norm_and_repeat_kv():
    norm = randomize_(QKNorm(4, EPS)).double()
    q, k = (
        torch.randn(1, 4, 3, 4, dtype=torch.float64, requires_grad=True),
        torch.randn(1, 2, 3, 4, dtype=torch.float64, requires_grad=True),
    )
    assert gradcheck(lambda q, k: (norm(q, k)[0], repeat_kv(norm(q, k)[1], 2)), (q, k))


def test_repeat_kv_equals_the_twin():
    x = torch.randn(2, 2, 3, D, dtype=torch.float64)
    assert_matches(lambda x: repeat_kv(x, 3), numpy_fn(lambda x: twin.repeat_kv(x, 3)), x, atol=0.0, grad=False)


# ---- a whole Qwen3 attention layer, from the pieces -------------------------------------------------------


class PiecesAttention(nn.Module):
    """Test-only: Qwen3's attention written with our pieces and plain attention, to show they fit.

    1) project q (H heads), k and v (H_kv heads)  2) QK-norm  3) RoPE  4) repeat k, v to H heads
    5) softmax(q·kᵀ/√D, causal or windowed) · v   6) merge heads, project back to C."""

    def __init__(self, H_kv: int, rope: ScaledRotary, window: int | None) -> None:
        super().__init__()
        self.H_kv, self.groups, self.window = H_kv, kv_groups(H, H_kv), window
        self.q = nn.Linear(C, H * D, bias=False)
        self.k = nn.Linear(C, H_kv * D, bias=False)
        self.v = nn.Linear(C, H_kv * D, bias=False)
        self.o = nn.Linear(H * D, C, bias=False)
        self.qk_norm = QKNorm(D, EPS)
        self.rope = rope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        q = self.q(x).view(B, T, H, D).transpose(1, 2)  # (B, H, T, D)
        k = self.k(x).view(B, T, self.H_kv, D).transpose(1, 2)  # (B, H_kv, T, D)
        v = self.v(x).view(B, T, self.H_kv, D).transpose(1, 2)  # (B, H_kv, T, D)
        q, k = self.rope.rotate(*self.qk_norm(q, k), offset=0)  # (B, H, T, D), (B, H_kv, T, D)
        k, v = repeat_kv(k, self.groups), repeat_kv(v, self.groups)  # 2 × (B, H, T, D)
        mask = causal_mask(T, window=self.window or 0)  # (T, T); no window: every earlier key
        z, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, D)
        return self.o(z.transpose(1, 2).reshape(B, T, H * D))  # (B, T, C)


ROPES = {"plain": (1e6, RopeScaling()), "yarn": (1e6, RopeScaling("yarn", 4.0, 4))}  # yarn: T = 10 > 4


def qwen3_pair(H_kv: int, rope: str, window: int | None, dtype):
    base, scaling = ROPES[rope]
    params = {"rope_type": "default", "rope_theta": base}
    if scaling.kind == "yarn":
        params.update(
            rope_type="yarn", factor=scaling.factor, original_max_position_embeddings=scaling.original_max_len
        )
    cfg = transformers.Qwen3Config(
        hidden_size=C,
        num_attention_heads=H,
        num_key_value_heads=H_kv,
        head_dim=D,
        rms_norm_eps=EPS,
        num_hidden_layers=1,
        max_position_embeddings=16,
        rope_parameters=params,
        use_sliding_window=window is not None,
        sliding_window=window,
        max_window_layers=0,
        attn_implementation="eager",
    )
    hf = randomize_(modeling_qwen3.Qwen3Attention(cfg, layer_idx=0)).to(dtype).eval()
    ours = PiecesAttention(H_kv, ScaledRotary(D, base, scaling), window).to(dtype)
    for mine, theirs in ((ours.q, hf.q_proj), (ours.k, hf.k_proj), (ours.v, hf.v_proj), (ours.o, hf.o_proj)):
        copy_linear(mine, theirs.weight, None)
    with torch.no_grad():
        ours.qk_norm.q_norm.weight.copy_(hf.q_norm.weight), ours.qk_norm.k_norm.weight.copy_(hf.k_norm.weight)
    return ours, hf, cfg


def hf_forward(hf, cfg, window):
    """Qwen3Attention as Qwen3Model calls it: its rotary embedding's cos/sin and its own mask."""

    def run(x):
        positions = torch.arange(x.size(1))[None]  # (1, T)
        cos_sin = modeling_qwen3.Qwen3RotaryEmbedding(cfg)(x, positions)
        make = masking_utils.create_sliding_window_causal_mask if window else masking_utils.create_causal_mask
        mask = make(cfg, x, None, None, positions, allow_is_causal_skip=False)
        return hf(x, cos_sin, mask)[0]

    return run


@pytest.mark.parametrize("window", [None, 3], ids=["causal", "window-3"])
@pytest.mark.parametrize("rope", ROPES)
@pytest.mark.parametrize("H_kv", [4, 2, 1], ids=["mha", "gqa", "mqa"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_pieces_make_qwen3_attention(dtype, H_kv, rope, window):
    ours, hf, cfg = qwen3_pair(H_kv, rope, window, dtype)
    assert cfg.layer_types == ["sliding_attention" if window else "full_attention"]
    reference = hf_forward(hf, cfg, window)
    x = torch.randn(2, 10, C, dtype=dtype)
    assert_matches(ours, in_float64(reference) if dtype == torch.float64 else reference, x, atol=ATOL[dtype])


def test_the_window_changes_the_layer_s_output():
    """The window test above could pass with the window ignored if T were short: here it is not."""
    ours, hf, cfg = qwen3_pair(2, "plain", 3, torch.float64)
    x = torch.randn(1, 10, C, dtype=torch.float64)
    full = hf_forward(hf, cfg, None)(x)
    assert (ours(x)[:, 3:] - full[:, 3:]).abs().max() > 1e-3
    assert_close("first three", ours(x)[:, :3], full[:, :3], 1e-5)  # before the window bites, the same

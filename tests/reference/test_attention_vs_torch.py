"""Our attention against PyTorch's own: F.scaled_dot_product_attention and nn.MultiheadAttention.

PyTorch is the independent reference here (micrograd's idea): the same function computed by
code we did not write. Weights are copied across; float64 must agree to 1e-10, float32 to 1e-5.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from helpers import ATOL, assert_close, assert_matches, copy_linear, randomize_
from hypothesis import given, settings
from hypothesis import strategies as st

from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.nn.attention import (
    MultiHeadAttention,
    causal_mask,
    scaled_dot_product_attention,
)

B, H, T, D = 2, 3, 5, 4


def ours(q, k, v, mask=None):
    return scaled_dot_product_attention(q, k, v, mask)[0]


def sdpa(q, k, v, mask=None):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def padding_keys(B: int, T: int) -> torch.Tensor:
    """(B, 1, 1, T): the last two keys of batch row 1 are padding; row 0 has none."""
    ids = torch.ones(B, T, dtype=torch.long)
    ids[1, -2:] = 0
    return padding_mask(ids, pad_id=0)


MASKS = {
    "none": lambda: None,
    "causal": lambda: causal_mask(T),
    "padding": lambda: padding_keys(B, T),
    "causal+padding": lambda: combine_masks(causal_mask(T), padding_keys(B, T)),
    "per-head random": lambda: (torch.rand(B, H, T, T) < 0.6) | torch.eye(T, dtype=torch.bool),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("mask_name", list(MASKS))
def test_function_matches_sdpa(mask_name, dtype):
    q, k, v = (torch.randn(B, H, T, D, dtype=dtype) for _ in range(3))
    mask = MASKS[mask_name]()
    assert_matches(
        lambda q, k, v: ours(q, k, v, mask), lambda q, k, v: sdpa(q, k, v, mask), (q, k, v), atol=ATOL[dtype]
    )


@settings(max_examples=25, deadline=None)
@given(
    b=st.integers(1, 3),
    h=st.integers(1, 4),
    t_q=st.integers(1, 7),
    t_k=st.integers(1, 7),
    d=st.integers(1, 8),
    masked=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_function_matches_sdpa_random_shapes(b, h, t_q, t_k, d, masked, seed):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, t_q, d, generator=gen, dtype=torch.float64)
    k, v = (torch.randn(b, h, t_k, d, generator=gen, dtype=torch.float64) for _ in range(2))
    mask = None
    if masked:  # random (B, 1, T_q, T_k) mask with one guaranteed visible key per query
        mask = torch.rand(b, 1, t_q, t_k, generator=gen) < 0.5
        mask[..., torch.arange(t_q), torch.randint(0, t_k, (t_q,), generator=gen)] = True
    assert_matches(lambda q, k, v: ours(q, k, v, mask), lambda q, k, v: sdpa(q, k, v, mask), (q, k, v), atol=1e-10)


def test_fully_masked_rows_are_zero_where_sdpa_is_undefined():
    q, k, v = (torch.randn(B, H, T, D, dtype=torch.float64, requires_grad=True) for _ in range(3))
    mask = torch.rand(B, H, T, T) < 0.5
    mask[0, 1, 2] = False  # one query with every key hidden
    mask[1, :, 4] = False  # the same query hidden in every head
    mask[..., 0] |= torch.rand(B, H, T) < 0.5  # keep most other rows alive
    dead = ~mask.any(dim=-1)  # (B, H, T)
    assert dead.sum() >= 1 + H
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(out).any() and not torch.isnan(weights).any()
    assert torch.equal(out[dead], torch.zeros_like(out[dead]))  # exactly 0, not merely small
    assert torch.equal(weights[dead], torch.zeros_like(weights[dead]))
    # on every row softmax defines, we agree with PyTorch
    assert_close("live rows", out[~dead], sdpa(q, k, v, mask)[~dead], 1e-10)
    out.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))


# ---- MultiHeadAttention vs nn.MultiheadAttention --------------------------------------------------


def torch_mha_from(ours_mha: MultiHeadAttention, d_model: int, n_heads: int, dtype) -> torch.nn.MultiheadAttention:
    """nn.MultiheadAttention with our packed weights: in_proj <- qkv, out_proj <- proj."""
    ref = torch.nn.MultiheadAttention(d_model, n_heads, batch_first=True, dtype=dtype)
    with torch.no_grad():
        ref.in_proj_weight.copy_(ours_mha.qkv.weight)  # (3C, C), rows [q | k | v] in both
        ref.in_proj_bias.copy_(ours_mha.qkv.bias)
    copy_linear(ref.out_proj, ours_mha.proj.weight, ours_mha.proj.bias)
    return ref.eval()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("mask_name", ["none", "causal", "padding", "causal+padding"])
def test_multi_head_attention_matches_nn_multiheadattention(mask_name, dtype):
    C = H * D
    mha = randomize_(MultiHeadAttention(C, H).to(dtype)).eval()
    ref = torch_mha_from(mha, C, H, dtype)
    mask = MASKS[mask_name]()
    # nn.MultiheadAttention's convention is the opposite of ours: True = NOT allowed.
    kwargs = {"need_weights": False}
    if mask_name in ("causal", "causal+padding"):
        kwargs["attn_mask"] = ~causal_mask(T)
    if mask_name in ("padding", "causal+padding"):
        kwargs["key_padding_mask"] = ~padding_keys(B, T)[:, 0, 0, :]  # (B, T) True = padding
    x = torch.randn(B, T, C, dtype=dtype)
    assert_matches(lambda x: mha(x, mask), lambda x: ref(x, x, x, **kwargs)[0], x, atol=ATOL[dtype])


def test_attention_weights_match_nn_multiheadattention():
    C = H * D
    mha = randomize_(MultiHeadAttention(C, H).double()).eval()
    ref = torch_mha_from(mha, C, H, torch.float64)
    seen = {}
    mha.hook_weights.fns.append(lambda t, name: seen.setdefault("w", t))
    x = torch.randn(B, T, C, dtype=torch.float64)
    mha(x, causal_mask(T))
    _, ref_weights = ref(x, x, x, attn_mask=~causal_mask(T), need_weights=True, average_attn_weights=False)
    assert_close("weights", seen["w"], ref_weights, 1e-10)  # (B, H, T, T) both


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_heads_style_equals_packed_style(dtype):
    """The first tutorial's list of heads and GPT-2's one big qkv matrix are the same function."""
    C = H * D
    packed = randomize_(MultiHeadAttention(C, H, style="packed").to(dtype)).eval()
    heads = MultiHeadAttention(C, H, style="heads").to(dtype).eval()
    W, b = packed.qkv.weight, packed.qkv.bias  # (3C, C), (3C,): rows [q | k | v], each split by head
    for h, head in enumerate(heads.heads):
        for r, role in enumerate((head.q, head.k, head.v)):
            rows = slice(r * C + h * D, r * C + (h + 1) * D)
            copy_linear(role, W[rows], b[rows])
    copy_linear(heads.proj, packed.proj.weight, packed.proj.bias)
    x = torch.randn(B, T, C, dtype=dtype)
    mask = causal_mask(T)
    # same arithmetic in a different order: equal up to rounding (float64 1e-12, float32 1e-6)
    atol = 1e-12 if dtype == torch.float64 else 1e-6
    assert_matches(lambda x: heads(x, mask), lambda x: packed(x, mask), x, atol=atol)


def test_attention_built_without_a_dropout_rate_drops_nothing_in_training_mode():
    """The default dropout is 0: a MultiHeadAttention made without one gives the same output in
    train() and eval() mode (bug guarded: a default rate that silently drops weights)."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 5, 8)  # (B, T, C)
    assert torch.equal(mha.train()(x), mha.eval()(x))


@pytest.mark.parametrize("lead", [(), (3,), (2, 3)])
def test_attention_scores_take_any_leading_axes(lead):
    """attention_scores is documented for q (..., T_q, D), k (..., T_k, D): with no leading axis, one
    (H), or two (B, H), it is q·kᵀ/√D, checked against einsum (bug guarded: a transpose that names
    axis 2, which is the key axis only for 4-D tensors)."""
    from glassformer.nn.attention import attention_scores

    torch.manual_seed(0)
    q, k = torch.randn(*lead, 4, 8, dtype=torch.float64), torch.randn(*lead, 6, 8, dtype=torch.float64)
    expected = torch.einsum("...qd,...kd->...qk", q, k) / 8**0.5  # (..., 4, 6)
    assert_close("scores", attention_scores(q, k), expected, 1e-12)

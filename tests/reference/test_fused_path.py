"""attention="fused" (nn/fused_attention.py, PyTorch's kernel) computes what attention="glass" does.

docs/architecture.md: a fast path is allowed only with a test that it agrees with the main one.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from helpers import ATOL, assert_matches, randomize_

from glassformer.config import ModelConfig
from glassformer.models import GPT, Encoder, EncoderDecoder, SequenceRegressor
from glassformer.models.encoder import padding_mask
from glassformer.nn.attention import MultiHeadAttention, causal_mask
from glassformer.nn.fused_attention import fused_attention
from glassformer.nn.position import POSITION_SCHEMES

B, T, C, H = 2, 6, 12, 3


def pair(dtype, **kwargs):
    """A glass and a fused MultiHeadAttention holding the same weights."""
    glass = randomize_(MultiHeadAttention(C, H, attention="glass", **kwargs).to(dtype)).eval()
    fused = MultiHeadAttention(C, H, attention="fused", **kwargs).to(dtype).eval()
    fused.load_state_dict(glass.state_dict())
    return glass, fused


def masks():
    ids = torch.ones(B, T, dtype=torch.long)
    ids[0, 3:] = 0  # padding at the end of row 0
    ids[1, :] = 0  # row 1 is all padding: every query in it has no visible key
    return {
        "none": None,
        "causal": causal_mask(T),
        "padding": padding_mask(ids, 0),
        "causal 3-D": causal_mask(T).expand(B, T, T),
    }


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("mask_name", ["none", "causal", "padding", "causal 3-D"])
@pytest.mark.parametrize("style", ["packed", "heads"])
def test_fused_attention_equals_glass(mask_name, style, dtype):
    glass, fused = pair(dtype, style=style)
    mask = masks()[mask_name]
    x = torch.randn(B, T, C, dtype=dtype)
    assert_matches(lambda x: fused(x, mask), lambda x: glass(x, mask), x, atol=ATOL[dtype])


def test_fused_path_gives_zero_not_nan_on_fully_masked_rows():
    glass, fused = pair(torch.float64)
    mask = masks()["padding"]
    x = torch.randn(B, T, C, dtype=torch.float64, requires_grad=True)
    out = fused(x, mask)
    out.sum().backward()
    assert torch.isfinite(out).all() and torch.isfinite(x.grad).all()
    # an all-padding row attends to nothing: z = 0, so the output is the projection's bias alone
    assert torch.equal(out[1], fused.proj.bias.expand(T, C))


@pytest.mark.parametrize("position", sorted(POSITION_SCHEMES))
@pytest.mark.parametrize("model_cls, extra", [(GPT, {}), (Encoder, {"kind": "encoder", "causal": False, "pad_id": 0})])
def test_whole_model_fused_equals_glass(model_cls, extra, position):
    cfg = ModelConfig(vocab_size=17, d_model=C, n_heads=H, d_ff=20, n_layers=2, max_len=T, position=position, **extra)
    glass = randomize_(model_cls(cfg).double()).eval()
    fused = model_cls(dataclasses.replace(cfg, attention="fused")).double().eval()
    fused.load_state_dict(glass.state_dict())
    ids = torch.randint(1, 17, (B, T))
    ids[0, -2:] = 0  # harmless for GPT (no pad_id), padding for the Encoder
    assert_matches(lambda: fused(ids), lambda: glass(ids), (), atol=1e-10, grad=False)


def twins(model_cls, **extra):
    """The same model on the glass and the fused path, float64, the same random weights."""
    sizes = {} if extra.get("kind") == "regressor" else {"vocab_size": 17}  # a regressor reads no vocabulary
    cfg = ModelConfig(d_model=C, n_heads=H, d_ff=20, n_layers=2, max_len=T, **sizes, **extra)
    glass = randomize_(model_cls(cfg).double()).eval()
    fused = model_cls(dataclasses.replace(cfg, attention="fused")).double().eval()
    fused.load_state_dict(glass.state_dict())
    return glass, fused


def test_every_other_kind_fused_equals_glass():
    """The kinds below the GPT on either path: the regressor (numbers in and out) and the
    encoder-decoder (its cross-attention too, with a padded source)."""
    glass, fused = twins(SequenceRegressor, kind="regressor", d_in=2, d_out=3)
    x = torch.randn(B, T, 2, dtype=torch.float64)  # (B, T, d_in)
    assert_matches(lambda: fused(x), lambda: glass(x), (), atol=1e-10, grad=False)
    glass, fused = twins(EncoderDecoder, kind="seq2seq", pad_id=0)
    src, tgt = torch.randint(1, 17, (B, T)), torch.randint(1, 17, (B, T))
    src[0, -2:] = 0  # source padding: cross-attention hides those keys
    assert_matches(lambda: fused(src, tgt), lambda: glass(src, tgt), (), atol=1e-10, grad=False)


@pytest.mark.parametrize("position", sorted(POSITION_SCHEMES))
def test_cached_decoding_fused_equals_glass(position):
    """The one forward with a KV cache (a prefill, then one token a step with no mask) on either path."""
    glass, fused = twins(GPT, position=position)
    ids = torch.randint(0, 17, (B, T))
    caches = glass.new_cache(B), fused.new_cache(B)
    with torch.no_grad():
        steps = [ids[:, :3]] + [ids[:, t : t + 1] for t in range(3, T)]  # (B, 3), then (B, 1) each
        for step in steps:
            want, got = glass(step, cache=caches[0]), fused(step, cache=caches[1])  # (B, T', V)
            assert (got - want).abs().max() <= 1e-10


def test_a_module_built_without_attention_is_on_the_glass_path_and_says_so():
    """The default of `MultiHeadAttention(attention=...)` is the hand-written path, named "glass" exactly:
    the name `set_attention`, the attention views and the explorer compare with (a default of "GLASS"
    computes the same but is taken for another path by all of them: sample H, 30 Nov)."""
    torch.manual_seed(0)
    default, glass = MultiHeadAttention(8, 2), MultiHeadAttention(8, 2, attention="glass")
    glass.load_state_dict(default.state_dict())
    assert (default.attention, default.style) == ("glass", "packed")
    x = torch.randn(2, 5, 8)  # (B, T, C)
    assert torch.equal(default(x, causal_mask(5)), glass(x, causal_mask(5)))


@pytest.mark.parametrize("form", ["no mask", "causal", "padding", "bias"])
def test_the_fused_kernel_applies_its_dropout_in_every_form(form):
    """dropout reaches the kernel whichever branch the mask takes (a dropped dropout_p trains the
    fused path without the regularisation the glass path applies)."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, 5, 4, generator=g) for _ in range(3))  # 3 × (B, H, T, D)
    mask = {
        "no mask": None,
        "causal": causal_mask(5),
        "padding": torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], dtype=torch.bool)[:, None, None, :],
        "bias": None,
    }[form]
    bias = torch.randn(2, 5, 5, generator=g) if form == "bias" else None  # (H, T, T)
    still = fused_attention(q, k, v, mask, 0.0, bias)  # (B, H, T, D)
    torch.manual_seed(1)
    dropped = fused_attention(q, k, v, mask, 0.5, bias)  # (B, H, T, D)
    torch.manual_seed(1)
    again = fused_attention(q, k, v, mask, 0.5, bias)  # (B, H, T, D)
    assert torch.equal(dropped, again) and not torch.allclose(dropped, still)

"""Cross-attention, the decoder block and the encoder-decoder against their NumPy twins (float64,
1e-10), and their gradients against finite differences (torch.autograd.gradcheck)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from helpers import assert_matches, numpy_fn, randomize_
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.config import ModelConfig
from glassformer.models import EncoderDecoder
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.seq2seq import CrossAttention, DecoderBlock
from glassformer.nn.attention import MultiHeadAttention, causal_mask

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

B, S, T, C, H, FF, V, PAD = 3, 6, 5, 12, 3, 20, 13, 0


def params_of(module: torch.nn.Module) -> dict:
    return ref.state_to_numpy(module.state_dict())


def padded_source() -> torch.Tensor:
    src = torch.randint(1, V, (B, S))
    src[0, 3:] = PAD
    src[2, :] = PAD  # an all-padding source: its cross-attention rows see nothing and give 0
    return src


def rand(*shape, grad=False):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=grad)


# ---- NumPy twin ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [True, False])
def test_cross_attention_twin(bias):
    cross = randomize_(CrossAttention(C, H, bias=bias).double()).eval()
    p, mask = params_of(cross), padding_mask(padded_source(), PAD)
    twin = numpy_fn(lambda x, m: ref.cross_attention(x, m, p, H, mask.numpy()))
    assert_matches(lambda x, m: cross(x, m, mask), twin, (rand(B, T, C), rand(B, S, C)), atol=1e-10, grad=False)


def test_all_padding_source_reads_nothing():
    cross = randomize_(CrossAttention(C, H).double()).eval()
    mask = padding_mask(padded_source(), PAD)
    z = {}
    cross.hook_z.fns.append(lambda t, n: z.__setitem__("z", t))
    cross(rand(B, T, C), rand(B, S, C), mask)
    assert torch.equal(z["z"][2], torch.zeros_like(z["z"][2]))  # zero, not NaN
    assert z["z"][0].abs().min() > 0


def test_self_attention_twin_still_matches_after_the_shared_steps_moved():
    mha = randomize_(MultiHeadAttention(C, H).double()).eval()
    p = params_of(mha)
    assert_matches(
        lambda x: mha(x, causal_mask(T)),
        numpy_fn(lambda x: ref.multi_head_attention(x, p, H, causal_mask(T).numpy())),
        rand(B, T, C),
        atol=1e-10,
        grad=False,
    )


@pytest.mark.parametrize("norm, activation", [("pre", "gelu"), ("post", "relu"), ("none", "gelu_tanh")])
def test_decoder_block_twin(norm, activation):
    cfg = ModelConfig(d_model=C, n_heads=H, d_ff=FF, norm=norm, activation=activation)
    block = randomize_(DecoderBlock(cfg).double()).eval()
    p = params_of(block)
    tgt = torch.randint(1, V, (B, T))
    tgt[1, 2:] = PAD
    self_mask = combine_masks(causal_mask(T), padding_mask(tgt, PAD))
    source_mask = padding_mask(padded_source(), PAD)
    twin = numpy_fn(lambda x, m: ref.decoder_block(x, m, p, cfg, self_mask.numpy(), source_mask.numpy()))
    assert_matches(
        lambda x, m: block(x, m, self_mask, source_mask), twin, (rand(B, T, C), rand(B, S, C)), atol=1e-10, grad=False
    )


BASE = ModelConfig(kind="seq2seq", vocab_size=V, d_model=C, n_heads=H, d_ff=FF, n_layers=2, max_len=8, pad_id=PAD)
TWIN_CONFIGS = {
    "post-sinusoidal-shared-tied": dataclasses.replace(
        BASE, norm="post", position="sinusoidal", share_embeddings=True, tie_weights=True
    ),
    "pre-learned-separate": dataclasses.replace(BASE, activation="gelu"),
    "none-nopos-nobias": dataclasses.replace(BASE, norm="none", position="none", bias=False),
    "unmasked-decoder": dataclasses.replace(BASE, causal=False, mha_style="heads"),
}
# the modern choices in both stacks: RMSNorm, a gated FFN, shared key-value heads, QK-norm, RoPE,
# heads set apart from C / H (the cross-attention's too)
TWIN_CONFIGS["modern"] = dataclasses.replace(
    BASE, norm_type="rms", ffn="swiglu", n_kv_heads=1, head_dim=4, qk_norm=True, position="rope", bias=False
)


@pytest.mark.parametrize("name", list(TWIN_CONFIGS))
def test_encoder_decoder_twin(name):
    cfg = TWIN_CONFIGS[name]
    model = randomize_(EncoderDecoder(cfg).double()).eval()
    src = padded_source()
    src[2, 0] = 5  # the whole model: keep one real token per source (an empty one has no translation)
    tgt = torch.randint(1, V, (B, T))
    tgt[0, 3:] = PAD
    p = params_of(model)
    assert_matches(
        lambda: model(src, tgt),
        numpy_fn(lambda: ref.seq2seq_forward(src.numpy(), tgt.numpy(), p, cfg)),
        (),
        atol=1e-10,
        grad=False,
    )


# ---- gradients against finite differences --------------------------------------------------------


def test_gradcheck_cross_attention_with_padding_and_a_dead_row():
    cross = CrossAttention(6, 2).double()
    src = torch.tensor([[3, 4, 0, 0], [0, 0, 0, 0]])  # second source: all padding
    mask = padding_mask(src, 0)
    assert gradcheck(
        lambda x, m: cross(x, m, mask), (rand(2, 3, 6, grad=True), rand(2, 4, 6, grad=True)), fast_mode=True
    )


def test_gradcheck_cross_attention_wrt_its_weights():
    cross = CrossAttention(6, 2).double()
    x, m, mask = rand(2, 3, 6), rand(2, 4, 6), padding_mask(torch.tensor([[3, 4, 5, 0], [1, 2, 0, 0]]), 0)

    def with_weights(wq, wkv):
        return torch.func.functional_call(cross, {"q.weight": wq, "kv.weight": wkv}, (x, m, mask))

    weights = (cross.q.weight.detach().clone().requires_grad_(), cross.kv.weight.detach().clone().requires_grad_())
    assert gradcheck(with_weights, weights, fast_mode=True)


@pytest.mark.parametrize("norm", ["pre", "post"])
def test_gradcheck_decoder_block(norm):
    block = DecoderBlock(ModelConfig(d_model=6, n_heads=2, d_ff=8, norm=norm)).double()
    source_mask = padding_mask(torch.tensor([[3, 4, 0], [1, 2, 3]]), 0)
    assert gradcheck(
        lambda x, m: block(x, m, causal_mask(4), source_mask),
        (rand(2, 4, 6, grad=True), rand(2, 3, 6, grad=True)),
        fast_mode=True,
    )


def test_gradcheck_encoder_decoder_wrt_both_embeddings():
    cfg = ModelConfig(
        kind="seq2seq",
        vocab_size=7,
        d_model=6,
        n_heads=2,
        d_ff=8,
        n_layers=1,
        max_len=5,
        pad_id=0,
        share_embeddings=True,
        tie_weights=True,
        norm="post",
    )
    model = EncoderDecoder(cfg).double()
    src, tgt = torch.tensor([[3, 4, 5, 0], [2, 6, 0, 0]]), torch.tensor([[1, 2, 3], [1, 4, 0]])

    def logits_from(src_vectors, tgt_vectors):  # (B, S, C), (B, T, C) replace the two embeddings
        hooks = {"src_embed": lambda t, n: src_vectors, "tgt_embed": lambda t, n: tgt_vectors}
        return model.run_with_hooks(src, tgt, hooks=hooks)

    assert gradcheck(logits_from, (rand(2, 4, 6, grad=True), rand(2, 3, 6, grad=True)), fast_mode=True)

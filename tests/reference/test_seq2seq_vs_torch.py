"""The encoder-decoder against PyTorch's own: nn.MultiheadAttention used as cross-attention,
nn.TransformerDecoderLayer, and the whole nn.Transformer, weights copied across, padding on both sides.

Name map, theirs -> ours:
    self_attn.in_proj -> attn.qkv           multihead_attn.in_proj[:C] -> cross.q, [C:] -> cross.kv
    self_attn.out_proj -> attn.proj         multihead_attn.out_proj -> cross.proj
    linear1/2 -> ffn.fc1/2 · norm1/2/3 -> ln1/2/3 · encoder.norm -> enc_ln_final · decoder.norm -> dec_ln_final
PyTorch's masks say True = NOT allowed, ours True = may attend: every mask is negated on the way.
nn.Transformer has no embeddings, positions or head; the reference adds them with plain torch ops
(table[ids]·√C + P, and x Wᵀ + b) from the same numbers.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F
from helpers import ATOL, assert_matches, copy_linear, randomize_

from glassformer.config import ModelConfig
from glassformer.models import EncoderDecoder
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.seq2seq import CrossAttention, DecoderBlock
from glassformer.nn.attention import causal_mask

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

B, S, T, C, H, FF, V, PAD = 3, 6, 5, 12, 3, 20, 11, 0


def source_ids() -> torch.Tensor:
    src = torch.randint(1, V, (B, S))
    src[0, 4:] = PAD  # trailing padding
    src[1, 2:] = PAD  # mostly padding
    return src  # row 2: none


def target_ids() -> torch.Tensor:
    tgt = torch.randint(1, V, (B, T))
    tgt[1, 3:] = PAD
    tgt[2, 1:] = PAD  # one real token
    return tgt


def copy_in_proj(mha: torch.nn.MultiheadAttention, weights: list, biases: list | None) -> None:
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat(weights))  # (3C, C): q rows, then k, then v
        if biases is not None:
            mha.in_proj_bias.copy_(torch.cat(biases))


def copy_cross(ref: torch.nn.MultiheadAttention, cross: CrossAttention, bias: bool) -> None:
    copy_in_proj(ref, [cross.q.weight, cross.kv.weight], [cross.q.bias, cross.kv.bias] if bias else None)
    copy_linear(ref.out_proj, cross.proj.weight, cross.proj.bias)


# ---- cross-attention alone -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_cross_attention_matches_multihead_attention(bias, dtype):
    cross = randomize_(CrossAttention(C, H, bias=bias).to(dtype)).eval()
    ref = torch.nn.MultiheadAttention(C, H, dropout=0.0, bias=bias, batch_first=True, dtype=dtype).eval()
    copy_cross(ref, cross, bias)
    src = source_ids()
    seen = {}
    cross.hook_weights.fns.append(lambda t, name: seen.__setitem__("w", t))

    def ours(x, memory):
        out = cross(x, memory, padding_mask(src, PAD))  # (B, T, C)
        return out, seen["w"]  # and the (B, H, T, S) weights its hook point saw

    def theirs(x, memory):
        return ref(x, memory, memory, key_padding_mask=src == PAD, need_weights=True, average_attn_weights=False)

    x, memory = torch.randn(B, T, C, dtype=dtype), torch.randn(B, S, C, dtype=dtype)
    assert_matches(ours, theirs, (x, memory), atol=ATOL[dtype])


# ---- one decoder layer ---------------------------------------------------------------------------


def reference_decoder_layer(block: DecoderBlock, cfg: ModelConfig, dtype) -> torch.nn.TransformerDecoderLayer:
    ref = torch.nn.TransformerDecoderLayer(
        cfg.d_model,
        cfg.n_heads,
        dim_feedforward=cfg.d_ff,
        dropout=0.0,
        activation=cfg.activation,
        layer_norm_eps=cfg.ln_eps,
        batch_first=True,
        norm_first=cfg.norm == "pre",
        bias=cfg.bias,
        dtype=dtype,
    )
    copy_decoder_layer(ref, block, cfg.bias)
    return ref.eval()


def copy_decoder_layer(ref: torch.nn.TransformerDecoderLayer, block: DecoderBlock, bias: bool) -> None:
    copy_in_proj(ref.self_attn, [block.attn.qkv.weight], [block.attn.qkv.bias] if bias else None)
    copy_linear(ref.self_attn.out_proj, block.attn.proj.weight, block.attn.proj.bias)
    copy_cross(ref.multihead_attn, block.cross, bias)
    copy_linear(ref.linear1, block.ffn.fc1.weight, block.ffn.fc1.bias)
    copy_linear(ref.linear2, block.ffn.fc2.weight, block.ffn.fc2.bias)
    for i in (1, 2, 3):
        ours = getattr(block, f"ln{i}")
        copy_linear(getattr(ref, f"norm{i}"), ours.weight, ours.bias)


CASES = [  # (norm, activation, bias)
    ("post", "relu", True),
    ("post", "gelu", False),
    ("pre", "relu", True),
    ("pre", "gelu", False),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("masking", ["none", "causal", "causal+padding"])
@pytest.mark.parametrize("norm, activation, bias", CASES)
def test_decoder_block_matches_transformer_decoder_layer(norm, activation, bias, masking, dtype):
    cfg = ModelConfig(d_model=C, n_heads=H, d_ff=FF, norm=norm, activation=activation, bias=bias)
    block = randomize_(DecoderBlock(cfg).to(dtype)).eval()
    ref = reference_decoder_layer(block, cfg, dtype)
    self_mask, source_mask, theirs = None, None, {}
    if masking != "none":
        self_mask = causal_mask(T)
        theirs["tgt_mask"] = ~causal_mask(T)
    if masking == "causal+padding":
        src, tgt = source_ids(), target_ids()
        self_mask = combine_masks(self_mask, padding_mask(tgt, PAD))
        source_mask = padding_mask(src, PAD)
        theirs.update(tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD)
    x, memory = torch.randn(B, T, C, dtype=dtype), torch.randn(B, S, C, dtype=dtype)
    assert_matches(
        lambda x, m: block(x, m, self_mask, source_mask),
        lambda x, m: ref(x, m, **theirs),
        (x, memory),
        atol=ATOL[dtype],
    )


# ---- the whole model -----------------------------------------------------------------------------


def reference_transformer(model: EncoderDecoder, cfg: ModelConfig, dtype) -> torch.nn.Transformer:
    kw = dict(
        dim_feedforward=cfg.d_ff,
        dropout=0.0,
        activation=cfg.activation,
        layer_norm_eps=cfg.ln_eps,
        batch_first=True,
        norm_first=cfg.norm == "pre",
        bias=cfg.bias,
        dtype=dtype,
    )
    final = cfg.final_norm

    def norm():
        return torch.nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias, dtype=dtype) if final else None

    encoder = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, **kw),
        cfg.n_layers,
        norm=norm(),
        enable_nested_tensor=False,
    )
    decoder = torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(cfg.d_model, cfg.n_heads, **kw), cfg.n_layers, norm=norm()
    )
    ref = torch.nn.Transformer(
        cfg.d_model, cfg.n_heads, custom_encoder=encoder, custom_decoder=decoder, batch_first=True, dtype=dtype
    )
    for theirs, ours in zip(ref.encoder.layers, model.encoder, strict=False):
        copy_in_proj(theirs.self_attn, [ours.attn.qkv.weight], [ours.attn.qkv.bias] if cfg.bias else None)
        copy_linear(theirs.self_attn.out_proj, ours.attn.proj.weight, ours.attn.proj.bias)
        copy_linear(theirs.linear1, ours.ffn.fc1.weight, ours.ffn.fc1.bias)
        copy_linear(theirs.linear2, ours.ffn.fc2.weight, ours.ffn.fc2.bias)
        copy_linear(theirs.norm1, ours.ln1.weight, ours.ln1.bias)
        copy_linear(theirs.norm2, ours.ln2.weight, ours.ln2.bias)
    for theirs, ours in zip(ref.decoder.layers, model.decoder, strict=False):
        copy_decoder_layer(theirs, ours, cfg.bias)
    if final:
        copy_linear(ref.encoder.norm, model.enc_ln_final.weight, model.enc_ln_final.bias)
        copy_linear(ref.decoder.norm, model.dec_ln_final.weight, model.dec_ln_final.bias)
    return ref.eval()


BASE = ModelConfig(
    kind="seq2seq", vocab_size=V, d_model=C, n_heads=H, d_ff=FF, n_layers=2, max_len=8, pad_id=PAD, position="learned"
)
MODELS = {
    "post-paper-sharing": dataclasses.replace(BASE, norm="post", share_embeddings=True, tie_weights=True),
    "post-no-final-norm": dataclasses.replace(BASE, norm="post", final_norm=False, activation="gelu"),
    "pre-separate": BASE,
    "pre-no-bias-tied": dataclasses.replace(BASE, bias=False, tie_weights=True, activation="gelu"),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("name", list(MODELS))
def test_encoder_decoder_matches_nn_transformer(name, dtype):
    cfg = MODELS[name]
    model = randomize_(EncoderDecoder(cfg).to(dtype)).eval()
    ref = reference_transformer(model, cfg, dtype)
    src_table, tgt_table = model.src_embed.weight.detach(), model.tgt_embed.weight.detach()  # (V, C)
    positions = model.pos_embed.table.weight.detach()  # (L, C)
    head_w = model.head.weight.detach()
    head_b = model.head.bias.detach() if model.head.bias is not None else None

    def theirs(src, tgt):
        def embed(ids, table):
            return table[ids] * math.sqrt(C) + positions[: ids.size(1)]  # (B, L, C)

        h = ref(
            embed(src, src_table),
            embed(tgt, tgt_table),
            tgt_mask=~causal_mask(tgt.size(1)),
            src_key_padding_mask=src == PAD,
            tgt_key_padding_mask=tgt == PAD,
            memory_key_padding_mask=src == PAD,
        )  # (B, T, C)
        return F.linear(h, head_w, head_b)  # (B, T, V)

    assert_matches(model, theirs, (source_ids(), target_ids()), atol=ATOL[dtype], grad=False)
    if cfg.share_embeddings:
        assert model.tgt_embed.weight is model.src_embed.weight
    if cfg.tie_weights:
        assert model.head.weight is model.tgt_embed.weight and model.head.bias is None

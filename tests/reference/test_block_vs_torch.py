"""Our Block against nn.TransformerEncoderLayer, PyTorch's own encoder layer.

norm="post" is the 2017 paper's layer (norm_first=False); norm="pre" is GPT-2's (norm_first=True).
Name map, theirs -> ours:  self_attn.in_proj -> attn.qkv · self_attn.out_proj -> attn.proj ·
linear1 -> ffn.fc1 · linear2 -> ffn.fc2 · norm1 -> ln1 · norm2 -> ln2.
"""

from __future__ import annotations

import pytest
import torch
from helpers import ATOL, assert_matches, copy_linear, randomize_

from glassformer.config import ModelConfig
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.gpt import Block
from glassformer.nn.attention import causal_mask

B, T = 2, 5


def reference_layer(block: Block, cfg: ModelConfig, dtype) -> torch.nn.TransformerEncoderLayer:
    ref = torch.nn.TransformerEncoderLayer(
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
    with torch.no_grad():
        ref.self_attn.in_proj_weight.copy_(block.attn.qkv.weight)
        if cfg.bias:
            ref.self_attn.in_proj_bias.copy_(block.attn.qkv.bias)
    copy_linear(ref.self_attn.out_proj, block.attn.proj.weight, block.attn.proj.bias)
    copy_linear(ref.linear1, block.ffn.fc1.weight, block.ffn.fc1.bias)
    copy_linear(ref.linear2, block.ffn.fc2.weight, block.ffn.fc2.bias)
    copy_linear(ref.norm1, block.ln1.weight, block.ln1.bias)
    copy_linear(ref.norm2, block.ln2.weight, block.ln2.bias)
    return ref.eval()


CASES = [  # (norm, activation, bias)
    ("post", "relu", True),
    ("post", "gelu", True),
    ("pre", "relu", True),
    ("pre", "gelu", True),
    ("pre", "gelu", False),
    ("post", "relu", False),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("masking", ["none", "causal", "causal+padding"])
@pytest.mark.parametrize("norm, activation, bias", CASES)
def test_block_matches_transformer_encoder_layer(norm, activation, bias, masking, dtype):
    cfg = ModelConfig(d_model=12, n_heads=3, d_ff=20, norm=norm, activation=activation, bias=bias)
    block = randomize_(Block(cfg).to(dtype)).eval()
    ref = reference_layer(block, cfg, dtype)
    ours_mask, theirs = None, {}
    if masking != "none":
        ours_mask = causal_mask(T)
        theirs["src_mask"] = ~causal_mask(T)  # PyTorch: True = NOT allowed
    if masking == "causal+padding":
        ids = torch.ones(B, T, dtype=torch.long)
        ids[1, -2:] = 0
        ours_mask = combine_masks(ours_mask, padding_mask(ids, 0))
        theirs["src_key_padding_mask"] = ids == 0
    x = torch.randn(B, T, cfg.d_model, dtype=dtype)
    assert_matches(lambda x: block(x, ours_mask), lambda x: ref(x, **theirs), x, atol=ATOL[dtype])

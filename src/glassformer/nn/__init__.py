"""The hand-written parts of a Transformer, one concept a file, in data-flow order. The token
table, the block that puts attention and the FFN together, and the models, are in glassformer.models
(models/gpt.py).

    position.py         where each token sits: the position-scheme extension point, its three
                        touch points, the registry, and the schemes other than GPT-2's learned
                        table (models/gpt.py): sinusoidal, none; "rotary" (RoPE): queries and keys
                        turned by position; "alibi": a linear distance penalty on the scores
    attention.py        who may attend to whom (the causal mask; the padding mask is the
                        encoder's, models/encoder.py), scaled dot-product attention, multi-head
                        attention
    fused_attention.py  the one separated fast path (PyTorch's fused kernel)
    kv_cache.py         keys and values kept between sampling steps (GPT's, and the decoder's)
    loss.py             next-token cross-entropy, mean squared error
    hooks.py            named points that declare what their tensor is, by id (stage, axes,
                        meaning), where activations are read or replaced; the stage ids (STAGES)
                        and the letters below (LETTERS), as data

Shape notation, used in every shape comment, hook declaration and parameter formula (the
parameter table, inspect/params.py, derives those from the leaves):
    B  batch size            T  sequence length (T_q, T_k when queries and keys differ)
    C  d_model               H  n_heads            D  d_head = C // H
    F  d_ff                  V  vocab_size         L  max_len
    activations (B, T, C); per-head tensors (B, H, T, D); attention matrices (B, H, T_q, T_k).
The modern decoder's and the experts' pieces (rmsnorm, glu, rope_scaling, attention_variants, moe,
mla) add H_kv, D_n, D_r, D_v, R_q, R_kv, E, K and N_e; the glossary's `letter.<L>` says each.
"""

from glassformer.nn.attention import (
    HeadQKV,
    MultiHeadAttention,
    attention_scores,
    attention_weights,
    causal_mask,
    scaled_dot_product_attention,
)
from glassformer.nn.fused_attention import fused_attention  # registers attention "fused"
from glassformer.nn.hooks import HookPoint
from glassformer.nn.position import (
    POSITION_SCHEMES,
    ALiBi,
    AttentionPositions,
    PositionScheme,
    RotaryPositions,
    SinusoidalPositions,
    alibi_slopes,
    position_scheme,
    register_position_scheme,
    rotary_angles,
    sinusoidal_table,
)
from glassformer.nn.rope_scaling import ScaledRotary  # registers position "rope"

__all__ = [
    "ALiBi",
    "AttentionPositions",
    "HeadQKV",
    "HookPoint",
    "MultiHeadAttention",
    "POSITION_SCHEMES",
    "PositionScheme",
    "SinusoidalPositions",
    "attention_scores",
    "attention_weights",
    "causal_mask",
    "fused_attention",
    "position_scheme",
    "register_position_scheme",
    "RotaryPositions",
    "ScaledRotary",
    "alibi_slopes",
    "rotary_angles",
    "scaled_dot_product_attention",
    "sinusoidal_table",
]

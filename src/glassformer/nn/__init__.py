"""The hand-written parts of a Transformer, one concept a file, in data-flow order.

    embedding.py   token ids -> vectors
    position.py    + where each token sits (learned or sinusoidal)
    masks.py       who may attend to whom (causal, padding)
    attention.py   scaled dot-product attention, single-head and multi-head
    feedforward.py the per-position MLP
    block.py       residual + LayerNorm around attention and FFN (pre, post or no norm)
    init.py        initialisation schemes
    loss.py        next-token cross-entropy
    hooks.py       named identity points where activations can be read or replaced

Shape notation, used in every shape comment of the package:
    B  batch size            T  sequence length (T_q, T_k when queries and keys differ)
    C  d_model               H  n_heads            D  d_head = C // H
    F  d_ff                  V  vocab_size
    activations (B, T, C); per-head tensors (B, H, T, D); attention matrices (B, H, T_q, T_k).
"""

from glassformer.nn.attention import (
    MultiHeadAttention,
    SingleHeadAttention,
    attention_scores,
    attention_weights,
    scaled_dot_product_attention,
)
from glassformer.nn.block import Block
from glassformer.nn.embedding import TokenEmbedding
from glassformer.nn.feedforward import FeedForward
from glassformer.nn.hooks import HookPoint
from glassformer.nn.masks import causal_mask, combine_masks, padding_mask
from glassformer.nn.position import LearnedPositions, SinusoidalPositions, sinusoidal_table

__all__ = [
    "Block", "FeedForward", "HookPoint", "LearnedPositions", "MultiHeadAttention",
    "SingleHeadAttention", "SinusoidalPositions", "TokenEmbedding", "attention_scores",
    "attention_weights", "causal_mask", "combine_masks", "padding_mask",
    "scaled_dot_product_attention", "sinusoidal_table",
]

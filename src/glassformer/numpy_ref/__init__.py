"""The NumPy twin: every forward pass of glassformer written again in plain NumPy, float64.

Why a second copy? The PyTorch modules in `glassformer.nn` are what we train; this package is
what we check them against, and what a reader can step through without autograd, devices or
module machinery in the way. It never imports torch: weights come in as a dict of NumPy arrays,
made from a model's state_dict by `state_to_numpy`, and every function takes its weights and
the same `ModelConfig` explicitly. tests/reference compares the two to ~1e-10.

One file, forward.py, in the order a forward pass reads it:

    linear    y = x Wᵀ + b, and `scope` to pick one module's weights out of a state dict
    position  how tokens and their positions get in: ids -> embedding rows, the learned
              table, the sinusoidal formula, RoPE as unit complex numbers, ALiBi's slopes
              (the paper's recursion) and score bias; NUMPY_POSITIONS, every scheme's twin
    attention causal and padding masks (bool, True = may attend), softmax, scores, weights,
              single- and multi-head attention, cross-attention (queries from the target,
              keys and values from the source)
    block     ReLU, exact GELU (erf), GELU-tanh, the two-layer MLP, LayerNorm, the block
              (pre, post or no norm), and the decoder block (masked self-attention,
              cross-attention, FFN)
    models    GPT, Encoder, SequenceRegressor and encoder-decoder forwards: the layers stacked

Shapes use the same letters as glassformer.nn: B, T, C, H, D, F, V.
"""

from glassformer.numpy_ref.activations import ACTIVATIONS, gelu, gelu_tanh, relu
from glassformer.numpy_ref.forward import (
    NUMPY_POSITIONS,
    alibi_bias,
    alibi_slopes,
    attention_scores,
    attention_weights,
    block,
    causal_mask,
    cross_attention,
    decoder_block,
    encoder_forward,
    feed_forward,
    gpt_forward,
    layer_norm,
    learned_positions,
    multi_head_attention,
    padding_mask,
    regressor_forward,
    rotary,
    scaled_dot_product_attention,
    seq2seq_forward,
    sinusoidal_table,
    softmax,
    token_embedding,
    trunk,
)
from glassformer.numpy_ref.linear import linear, scope, state_to_numpy

__all__ = [
    "ACTIVATIONS",
    "NUMPY_POSITIONS",
    "alibi_bias",
    "alibi_slopes",
    "attention_scores",
    "attention_weights",
    "block",
    "causal_mask",
    "cross_attention",
    "decoder_block",
    "encoder_forward",
    "feed_forward",
    "gelu",
    "gelu_tanh",
    "gpt_forward",
    "layer_norm",
    "learned_positions",
    "linear",
    "multi_head_attention",
    "padding_mask",
    "regressor_forward",
    "relu",
    "rotary",
    "scaled_dot_product_attention",
    "scope",
    "seq2seq_forward",
    "sinusoidal_table",
    "softmax",
    "state_to_numpy",
    "token_embedding",
    "trunk",
]

"""Whole-model forwards, NumPy edition: GPT, Encoder, SequenceRegressor and the encoder-decoder.

    inputs ─► embed ─► + positions ─► [block] × n_layers ─► final LN ─► head

The encoder-decoder (models/seq2seq.py):

    memory = LN(encoder blocks(E[src]·√C + P))              source padding hidden
    logits = head(LN(decoder blocks(E[tgt]·√C + P, memory))) causal ∧ target padding; source padding

A tied or shared matrix appears in the state dict under each of its names, so the twin simply
reads "src_embed", "tgt_embed" and "head" whatever the config shares.

`params` is the whole model's state_dict through `state_to_numpy`; `cfg` is the ModelConfig
the model was built with. Positions come from the scheme's twin in layers.py (the sinusoidal
table is not in a state_dict, so it is computed there from the formula).
"""

from __future__ import annotations

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.layers import (
    NUMPY_POSITIONS,
    block,
    causal_mask,
    decoder_block,
    layer_norm,
    linear,
    padding_mask,
    scope,
    token_embedding,
)


def trunk(x: np.ndarray, params: dict, cfg: ModelConfig, mask: np.ndarray | None) -> np.ndarray:
    """Embedded inputs (B, T, C) -> final hidden states (B, T, C)."""
    T = x.shape[1]
    scheme = NUMPY_POSITIONS[cfg.position]
    if scheme.stream is not None:
        x = x + scheme.stream(params, cfg, T)  # (B, T, C) + (T, C)
    for i in range(cfg.n_layers):
        x = block(x, scope(params, f"blocks.{i}."), cfg, mask)  # (B, T, C)
    return _final_norm(x, params, cfg, "ln_final")  # (B, T, C)


def _mask(cfg: ModelConfig, T: int, ids: np.ndarray | None = None) -> np.ndarray | None:
    """causal (T, T) if configured, AND padding (B, 1, 1, T) if there are ids and a pad_id."""
    mask = causal_mask(T) if cfg.causal else None  # (T, T) or None
    if ids is not None and cfg.pad_id is not None:
        pad = padding_mask(ids, cfg.pad_id)  # (B, 1, 1, T)
        mask = pad if mask is None else mask & pad  # (B, 1, T, T)
    return mask


def _token_model(ids: np.ndarray, params: dict, cfg: ModelConfig, with_padding: bool) -> np.ndarray:
    x = token_embedding(ids, params["tok_embed.table.weight"])  # (B, T, C)
    h = trunk(x, params, cfg, _mask(cfg, x.shape[1], ids if with_padding else None))  # (B, T, C)
    # a tied head's weight is the embedding table itself; the state_dict lists it under both names
    return linear(h, scope(params, "head."))  # (B, T, V)


def gpt_forward(ids: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """GPT: ids (B, T) -> next-token logits (B, T, V). Always causal, no padding mask."""
    return _token_model(ids, params, cfg, with_padding=False)  # (B, T, V)


def encoder_forward(ids: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """Encoder: ids (B, T) -> logits (B, T, V); padding keys are hidden when cfg.pad_id is set."""
    return _token_model(ids, params, cfg, with_padding=True)  # (B, T, V)


def regressor_forward(x: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """SequenceRegressor: numbers (B, T, d_in) -> numbers (B, T, d_out)."""
    h = trunk(linear(x, scope(params, "in_proj.")), params, cfg, _mask(cfg, x.shape[1]))  # (B, T, C)
    return linear(h, scope(params, "out_proj."))  # (B, T, d_out)


def _embed(ids: np.ndarray, table: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    x = token_embedding(ids, table) * np.sqrt(cfg.d_model)  # (B, L, C)
    scheme = NUMPY_POSITIONS[cfg.position]
    return x if scheme.stream is None else x + scheme.stream(params, cfg, ids.shape[1])  # (B, L, C)


def _final_norm(x: np.ndarray, params: dict, cfg: ModelConfig, which: str) -> np.ndarray:
    if cfg.final_norm and cfg.norm != "none":
        return layer_norm(x, scope(params, which + "."), cfg.ln_eps)  # (B, L, C)
    return x


def seq2seq_forward(src: np.ndarray, tgt: np.ndarray, params: dict, cfg: ModelConfig) -> np.ndarray:
    """src (B, S), tgt_in (B, T) ids -> logits (B, T, V)."""
    source_mask = padding_mask(src, cfg.pad_id)  # (B, 1, 1, S)
    x = _embed(src, params["src_embed.table.weight"], params, cfg)  # (B, S, C)
    for i in range(cfg.n_layers):
        x = block(x, scope(params, f"encoder.{i}."), cfg, source_mask)  # (B, S, C)
    memory = _final_norm(x, params, cfg, "enc_ln_final")  # (B, S, C)

    self_mask = padding_mask(tgt, cfg.pad_id)  # (B, 1, 1, T)
    if cfg.causal:
        self_mask = self_mask & causal_mask(tgt.shape[1])  # (B, 1, T, T)
    y = _embed(tgt, params["tgt_embed.table.weight"], params, cfg)  # (B, T, C)
    for i in range(cfg.n_layers):
        y = decoder_block(y, memory, scope(params, f"decoder.{i}."), cfg, self_mask, source_mask)  # (B, T, C)
    return linear(_final_norm(y, params, cfg, "dec_ln_final"), scope(params, "head."))  # (B, T, V)

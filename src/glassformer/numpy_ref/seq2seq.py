"""The encoder-decoder's forward pass, NumPy edition (models/seq2seq.py).

    memory = LN(encoder blocks(E[src]·√C + P))              source padding hidden
    logits = head(LN(decoder blocks(E[tgt]·√C + P, memory))) causal ∧ target padding; source padding

A tied or shared matrix appears in the state dict under each of its names, so the twin simply
reads "src_embed", "tgt_embed" and "head" whatever the config shares.
"""

from __future__ import annotations

import numpy as np

from glassformer.config import ModelConfig
from glassformer.numpy_ref.attention import causal_mask, padding_mask
from glassformer.numpy_ref.block import block, layer_norm
from glassformer.numpy_ref.decoder_block import decoder_block
from glassformer.numpy_ref.linear import linear, scope
from glassformer.numpy_ref.position import NUMPY_POSITIONS, token_embedding


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

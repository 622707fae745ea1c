"""Encoder: the same Transformer as GPT, bidirectional by default, with an optional padding mask.

    ids (B, T) ─► embedding + positions ─► blocks (mask = causal? ∧ not-padding) ─► head ─► (B, T, V)

The second tutorial's one-layer word model is `build_model(get_preset("seed002").model)`: no
LayerNorm, no mask (its next-token training then leaks the future; lessons/hello_world.py shows it).
"""

from __future__ import annotations

import torch

from glassformer.errors import UsageError
from glassformer.models.gpt import Transformer
from glassformer.models.kinds import register_model_kind
from glassformer.nn.attention import combine_masks, padding_mask


@register_model_kind("encoder")
class Encoder(Transformer):
    """Token ids in, per-position logits out; attention direction set by cfg.causal."""

    inputs, loss, samples = "tokens", "next_token", True

    def attention_mask(self, ids: torch.Tensor, offset: int = 0) -> torch.Tensor | None:
        if offset:
            raise UsageError("error.model.encoder_cache")
        pad = padding_mask(ids, self.cfg.pad_id) if self.cfg.pad_id is not None else None  # (B, 1, 1, T)
        return combine_masks(super().attention_mask(ids), pad)  # (T, T) ∧ (B, 1, 1, T)

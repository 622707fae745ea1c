"""What a decoder keeps between the steps of writing a translation.

Each decoder layer attends twice, so it keeps two things:

    self_attn  the keys and values of the target tokens written so far: a LayerCache (kv_cache.py)
               that grows by one token per step, exactly as in GPT sampling
    source     the keys and values of the encoder's output for cross-attention, (B, H, S, D) each.
               They depend on the source only, so they are computed at the first step and reused.

Beam search keeps k hypotheses per sentence in the batch axis and, after each step, continues
the best ones, which may come from any row: `reorder(rows)` makes row i of every stored tensor
the old row rows[i], so each hypothesis keeps the past it was built on.
"""

from __future__ import annotations

import torch

from glassformer.nn.kv_cache import LayerCache


class DecoderLayerCache:
    """One decoder layer's cache: self-attention keys/values that grow, the source's that do not."""

    def __init__(self, B: int, H: int, max_len: int, D: int, device=None, dtype=None) -> None:
        self.self_attn = LayerCache(B, H, max_len, D, device, dtype)  # 2 × (B, H, L_max, D)
        self.source: tuple[torch.Tensor, torch.Tensor] | None = None  # 2 × (B, H, S, D) after step 0

    def reorder(self, rows: torch.Tensor) -> None:
        self.self_attn.k = self.self_attn.k.index_select(0, rows)  # (B, H, L_max, D)
        self.self_attn.v = self.self_attn.v.index_select(0, rows)  # (B, H, L_max, D)
        if self.source is not None:
            k, v = self.source
            self.source = (k.index_select(0, rows), v.index_select(0, rows))  # 2 × (B, H, S, D)


class DecoderCache:
    """One DecoderLayerCache per decoder block. `length` = target tokens already processed."""

    def __init__(self, n_layers: int, B: int, n_heads: int, max_len: int, d_head: int, device=None, dtype=None) -> None:
        self.layers = [DecoderLayerCache(B, n_heads, max_len, d_head, device, dtype) for _ in range(n_layers)]

    @property
    def length(self) -> int:
        return self.layers[0].self_attn.length

    def reorder(self, rows: torch.Tensor) -> None:
        """Row i of every stored tensor becomes the old row rows[i] (beam search). rows: (B,) ids."""
        for layer in self.layers:
            layer.reorder(rows)

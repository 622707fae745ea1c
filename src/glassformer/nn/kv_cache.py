"""A key/value cache, so sampling feeds only the new token at each step.

Without a cache, generating token t+1 recomputes the keys and values of tokens 0..t, which
never change (a causal model's past does not depend on its future). The cache keeps them:

    step 0 (prefill)  ids (B, T0)  -> every layer stores k, v (B, H, T0, D)
    step n            ids (B, 1)   -> q, k, v (B, H, 1, D); keys = [cached ; new] (B, H, L+1, D)

Storage is preallocated to max_len positions per layer and filled left to right.

When the context is full. Positions are absolute (learned or sinusoidal, added at the input),
so every cached key depends on where its token sat. Sliding the window by one token moves every
token to a new position, which invalidates the whole cache: shifting the stored keys would be
wrong. glassformer therefore recomputes: `sample.py` resets the cache and prefills the last
max_len tokens, exactly what the uncached loop computes, so cached and uncached sampling agree
token for token. (Relative schemes such as RoPE with a rolling buffer avoid this; GPT-2's
absolute positions do not.)
"""

from __future__ import annotations

import torch


class LayerCache:
    """Keys and values of one attention layer: two (B, H, max_len, D) buffers and a fill level."""

    def __init__(self, B: int, H: int, max_len: int, D: int, device=None, dtype=None) -> None:
        self.k = torch.zeros(B, H, max_len, D, device=device, dtype=dtype)  # (B, H, L_max, D)
        self.v = torch.zeros(B, H, max_len, D, device=device, dtype=dtype)  # (B, H, L_max, D)
        self.length = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store new k, v (B, H, T, D); return every key and value so far (B, H, L+T, D)."""
        start, end = self.length, self.length + k.size(2)
        if end > self.k.size(2):
            raise ValueError(f"KV cache is full: {start} cached + {k.size(2)} new > max_len "
                             f"{self.k.size(2)}. Reset it and prefill the last max_len tokens.")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]  # 2 × (B, H, L+T, D)


class KVCache:
    """One LayerCache per block. `length` = tokens already processed = next token's position."""

    def __init__(self, n_layers: int, B: int, n_heads: int, max_len: int, d_head: int,
                 device=None, dtype=None) -> None:
        self.layers = [LayerCache(B, n_heads, max_len, d_head, device, dtype) for _ in range(n_layers)]

    @classmethod
    def for_model(cls, model, batch_size: int) -> "KVCache":
        cfg = model.cfg
        p = next(model.parameters())
        return cls(cfg.n_layers, batch_size, cfg.n_heads, cfg.max_len, cfg.d_head, p.device, p.dtype)

    @property
    def length(self) -> int:
        return self.layers[0].length

    def reset(self) -> None:
        for layer in self.layers:
            layer.length = 0

"""A key/value cache, so sampling feeds only the new token at each step.

Without a cache, generating token t+1 recomputes the keys and values of tokens 0..t, which
never change (a causal model's past does not depend on its future). The cache keeps them:

    step 0 (prefill)  ids (B, T0)  -> every layer stores k, v (B, H, T0, D)
    step n            ids (B, 1)   -> q, k, v (B, H, 1, D); keys = [cached ; new] (B, H, L+1, D)

When the context is full, it depends on the position scheme (nn/position.py, its `table` field).

Table schemes (learned, sinusoidal) know positions 0..max_len-1 only, and add them at the input,
so every cached key depends on where its token sat. Sliding the window by one token moves every
token to a new position, which invalidates the whole cache: shifting the stored keys would be
wrong. glassformer therefore recomputes: `sample.py` resets the cache and prefills the last
max_len tokens, exactly what the uncached loop computes. Storage: max_len positions per layer.

Schemes without a table (rotary, alibi, none) give any position a meaning, so nothing is cropped:
past max_len the model keeps reading every token, the uncached loop feeds the whole sequence and
the cache simply grows (its storage doubles when full, so appending stays cheap on average).
Both compute the same thing, full causal attention over all tokens at their true positions.
(A model with a sliding window, `sliding_window` W as Mistral, is another matter: it never reads a key
more than W - 1 tokens back, so its WindowCache keeps only those, equal to the whole forward.)
Why not a sliding window with a rolling cache, which rotary and ALiBi would allow? Because its
cached keys were computed when their tokens saw an earlier window, so it no longer equals
re-running the model on the last max_len tokens; the uncached loop would have to become a banded
attention over the whole text to match. Reading everything is the simple, exact choice, and it
shows each scheme as it is: ALiBi was built to extrapolate past its training length, rotary and
none meet distances they never trained on. The memory and time it costs grow with the text.

Either way cached and uncached sampling agree token for token
(tests/reference/test_kv_cache.py, for every scheme and prompts shorter, equal and longer than
max_len).

The encoder-decoder's cache (DecoderCache, at the end) is the same idea for translation. Each
decoder layer attends twice, so it keeps two things:

    self_attn  the keys and values of the target tokens written so far: a LayerCache that grows
               by one token per step, exactly as in GPT sampling
    source     the keys and values of the encoder's output for cross-attention, (B, H, S, D) each.
               They depend on the source only, so they are computed at the first step and reused.

Beam search keeps k hypotheses per sentence in the batch axis and, after each step, continues
the best ones, which may come from any row: `reorder(rows)` makes row i of every stored tensor
the old row rows[i], so each hypothesis keeps the past it was built on.
"""

from __future__ import annotations

import torch

from glassformer.errors import UsageError
from glassformer.nn.mla import LatentCache
from glassformer.nn.position import position_scheme


class LayerCache:
    """Keys and values of one attention layer: two (B, H, capacity, D) buffers and a fill level.

    grows=False: at most `capacity` (= max_len) positions, then an error; grows=True: the buffers
    double when full (schemes without a position table)."""

    def __init__(self, B: int, H: int, max_len: int, D: int, device=None, dtype=None, grows: bool = False) -> None:
        self.k = torch.zeros(B, H, max_len, D, device=device, dtype=dtype)  # (B, H, L_max, D)
        self.v = torch.zeros(B, H, max_len, D, device=device, dtype=dtype)  # (B, H, L_max, D)
        self.length, self.grows = 0, grows

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store new k, v (B, H, T, D); return every key and value so far (B, H, L+T, D)."""
        start, end = self.length, self.length + k.size(2)
        if end > self.k.size(2):
            if not self.grows:
                raise UsageError(
                    "kv_cache.full",
                    "KV cache is full: {cached} cached + {new} new > max_len "
                    "{max_len}. Reset it and prefill the last max_len tokens.",
                    cached=start,
                    new=k.size(2),
                    max_len=self.k.size(2),
                )
            self._grow(max(end, 2 * self.k.size(2)))
        self.k.narrow(2, start, end - start).copy_(k)  # (B, H, T, D) written in place
        self.v.narrow(2, start, end - start).copy_(v)
        self.length = end
        return self.k.narrow(2, 0, end), self.v.narrow(2, 0, end)  # 2 × (B, H, L+T, D)

    @property
    def held(self) -> int:
        """Keys kept before the next token: every one so far (WindowCache keeps fewer)."""
        return self.length

    def nbytes(self) -> int:
        """Bytes of the keys and values held (the filled part of the buffers, not their spare room)."""
        keys, values = self.k[:, :, : self.held], self.v[:, :, : self.held]  # 2 × (B, H, held, D)
        return keys.numel() * keys.element_size() + values.numel() * values.element_size()

    def _grow(self, capacity: int) -> None:
        """Move the cached keys and values into buffers with room for `capacity` positions."""
        B, H, _, D = self.k.shape
        with torch.inference_mode(False):  # ordinary buffers even when grown under inference_mode
            for name in ("k", "v"):
                old = getattr(self, name)  # (B, H, L_max, D)
                new = old.new_zeros(B, H, capacity, D)  # (B, H, capacity, D)
                new[:, :, : self.length] = old[:, :, : self.length]
                setattr(self, name, new)


class WindowCache(LayerCache):
    """The cache of a sliding-window layer (Mistral): a query at p sees keys p-W+1..p only, so of
    the past only the last W - 1 keys are ever read again; the rest are dropped. `length` still
    counts every token (the next one's position, for RoPE); `held` = min(length, W - 1) keys are
    kept, and the model's mask is built relative to them (models/gpt.py)."""

    def __init__(self, B: int, H: int, window: int, D: int, device=None, dtype=None) -> None:
        super().__init__(B, H, 0, D, device, dtype)  # (B, H, 0, D): nothing held yet
        self.window = window

    @property
    def held(self) -> int:
        return min(self.length, self.window - 1)

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store new k, v (B, H, T, D); return the keys and values a query may see (B, H, held+T, D)."""
        held = self.held
        keys = torch.cat((self.k[:, :, self.k.size(2) - held :], k), dim=2)  # (B, H, held+T, D)
        values = torch.cat((self.v[:, :, self.v.size(2) - held :], v), dim=2)  # (B, H, held+T, D)
        self.length += k.size(2)
        keep = self.held  # the last W - 1 (fewer at the start)
        self.k, self.v = keys[:, :, keys.size(2) - keep :], values[:, :, values.size(2) - keep :]  # 2 × (B, H, keep, D)
        return keys, values  # 2 × (B, H, held+T, D)


class KVCache:
    """One LayerCache per block (a WindowCache for a sliding window). `length` = tokens already
    processed = next token's position; `held` = keys kept before it (length, unless windowed)."""

    def __init__(
        self,
        n_layers: int,
        B: int,
        n_heads: int,
        max_len: int,
        d_head: int,
        device=None,
        dtype=None,
        grows: bool = False,
        window: int = 0,
        latent: bool = False,
    ) -> None:
        self.layers: list = [
            LatentCache()  # multi-head latent attention: the latent and the rotary key (nn/mla.py)
            if latent
            else WindowCache(B, n_heads, window, d_head, device, dtype)
            if window
            else LayerCache(B, n_heads, max_len, d_head, device, dtype, grows)
            for _ in range(n_layers)
        ]

    @classmethod
    def for_model(cls, model, batch_size: int) -> "KVCache":
        """Room for max_len positions; growing past them when the model's scheme has no table."""
        cfg = model.cfg
        p = next(model.parameters())
        grows = not position_scheme(cfg.position).table
        # the key-value heads only: grouped-query attention caches H_kv of the H heads (nn/attention.py)
        sizes = (cfg.n_layers, batch_size, cfg.kv_heads, cfg.max_len, cfg.d_head)
        return cls(*sizes, p.device, p.dtype, grows, cfg.sliding_window, cfg.mla_kv_rank > 0)

    @property
    def length(self) -> int:
        return self.layers[0].length

    @property
    def held(self) -> int:
        return self.layers[0].held

    def reset(self) -> None:
        for layer in self.layers:
            layer.length = 0

    def nbytes(self) -> int:
        """Bytes every layer holds: what a real cache costs (LayerCache's keys and values, or
        LatentCache's latent and rotary key), to compare with nn/mla.py's kv_cache_bytes_per_token."""
        return sum(layer.nbytes() for layer in self.layers)


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

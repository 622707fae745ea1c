"""Cross-attention: the decoder asks, the encoder's output answers.

    CrossAttention(x, m) = softmax(Q Kᵀ / √D, source padding masked) V
        Q = x W_Q      x (B, T, C): the target stream, one query per target token
        K = m W_K      m (B, S, C): the encoder's output ("memory"), one key per source token
        V = m W_V                                       (Vaswani et al. 2017, §3.2.3, first bullet)

The equation is self-attention's (attention.py); only the inputs differ. The queries come from
one sequence (T tokens) and the keys and values from another (S tokens), so the attention matrix
is T × S, not square, and needs no causal mask: the whole source is known before the first target
token is written. It does need the source's padding mask (B, 1, 1, S), so no query reads a <PAD>.

Steps 2 and 3 (attend within each head, merge the heads, project) are shared with self-attention
(`AttentionHeads`); this module adds step 1, the projections, as two Linears: `q` (C -> C) for the
target stream and `kv` (C -> 2C) for the source, packed because K and V read the same input.

Keys and values depend only on the source, so while a translation is written token by token they
are computed once (`source_kv`) and kept in the decoder's cache (decoder_cache.py).
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.nn.attention import AttentionHeads
from glassformer.nn.formula import ParamFormula, linear_formula
from glassformer.nn.hooks import hook


class CrossAttention(AttentionHeads):
    """x (B, T, C) target stream, memory (B, S, C) encoder output -> (B, T, C)."""

    def __init__(
        self, d_model: int, n_heads: int, bias: bool = True, dropout: float = 0.0, attention: str = "glass"
    ) -> None:
        super().__init__()
        self.n_heads, self.d_head, self.bias = n_heads, d_model // n_heads, bias
        self.attention, self.dropout = attention, dropout
        self.q = nn.Linear(d_model, d_model, bias=bias)
        self.kv = nn.Linear(d_model, 2 * d_model, bias=bias)
        self.proj = nn.Linear(d_model, d_model, bias=bias)
        self.resid_dropout = nn.Dropout(dropout)
        self.hook_q = hook("qkv", "B H T D", "cross.q")
        self.hook_k = hook("qkv", "B H S D", "cross.k")
        self.hook_v = hook("qkv", "B H S D", "cross.v")
        self.hook_scores = hook("scores", "B H T_q S", "cross.scores")
        self.hook_weights = hook("weights", "B H T_q S", "cross.weights")
        self.hook_z = hook("z", "B H T D", "cross.z")
        self.hook_merged = hook("merged", "B T C", "merged")
        self.hook_result = hook("result", "B T H C", "cross.result")
        self.hook_out = hook("cross_out", "B T C", "cross.out")

    def param_formulas(self) -> list[ParamFormula]:
        C = self.proj.in_features
        return [
            linear_formula("q", "C", "C", self.bias, "cross_q", C=C),
            linear_formula("kv", "C", "2C", self.bias, "cross_kv", C=C),
            linear_formula("proj", "C", "C", self.bias, "proj", C=C),
        ]

    def source_kv(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The encoder's output (B, S, C) -> keys and values (B, H, S, D): all that the source gives."""
        k, v = self.kv(memory).chunk(2, dim=-1)  # 2 × (B, S, C)
        return self.hook_k(self.split_heads(k)), self.hook_v(self.split_heads(v))  # 2 × (B, H, S, D)

    def forward(
        self, x: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor | None = None, cache=None
    ) -> torch.Tensor:
        """x (B, T, C), memory (B, S, C), mask (B, 1, 1, S) or None -> (B, T, C).

        cache: a DecoderLayerCache (decoder_cache.py). Its `source` holds the keys and values of
        the memory once computed, so later decoding steps skip step 1's source half.
        """
        # 1) queries from the target stream; keys and values from the source (or the cache)
        q = self.hook_q(self.split_heads(self.q(x)))  # (B, H, T, D)
        if cache is not None and cache.source is not None:
            k, v = cache.source  # 2 × (B, H, S, D), computed at the first step
        else:
            k, v = self.source_kv(memory)  # 2 × (B, H, S, D)
            if cache is not None:
                cache.source = (k, v)
        # 2) attend: every target query over every source key
        z = self.attend(q, k, v, mask)  # (B, H, T, D)
        # 3) merge heads back into the residual width and project
        return self.merge(z)  # (B, T, C)

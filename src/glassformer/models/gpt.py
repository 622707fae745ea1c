"""GPT: a decoder-only language model (and TokenModel, what it shares with the Encoder).

    ids (B, T) ─► token embedding (B, T, C) ─► + positions ─► causal blocks ─► LN ─► head ─► logits (B, T, V)

The first tutorial's TinyTransformer is `build_model(get_preset("seed000").model)`; GPT-2 is
`GPT(config_from_gpt2(...))` (models/gpt2_port.py). The head shares the embedding matrix when
tie_weights is set, and has a bias only when biases are on and the weights are not tied.
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.models.base import TransformerStack
from glassformer.models.kinds import register_model_kind
from glassformer.nn.embedding import TokenEmbedding
from glassformer.nn.formula import ParamFormula, linear_formula
from glassformer.nn.hooks import HookPoint
from glassformer.nn.kv_cache import KVCache


class TokenModel(TransformerStack):
    """Token ids in, a distribution over the vocabulary out, at every position."""

    inputs, loss, samples = "tokens", "next_token", True

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__(cfg)
        self.tok_embed = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=cfg.bias and not cfg.tie_weights)
        self.hook_embed = HookPoint(
            "embedding", "B T C", "token vectors looked up in the (V, C) table", "在 (V, C) 表中查到的词向量", "嵌入"
        )
        self.hook_logits = HookPoint(
            "logits", "B T V", "one score per vocabulary entry", "词表中每个词一个分数", "logits"
        )
        self.finish_init()
        if cfg.tie_weights:
            self.head.weight = self.tok_embed.table.weight  # one (V, C) matrix, two uses

    @property
    def n_outputs(self) -> int:
        return self.cfg.vocab_size

    def param_formulas(self) -> list[ParamFormula]:
        C, V = self.cfg.d_model, self.cfg.vocab_size
        if self.cfg.tie_weights:
            head = ParamFormula(
                "head",
                "0",
                {},
                "tied: reuses tok_embed's V·C matrix, 0 new parameters",
                zh="绑定：复用 tok_embed 的 V·C 矩阵，新增 0 个参数",
            )
        else:
            head = linear_formula(
                "head", "C", "V", self.cfg.bias, "C -> one score per token", zh="C -> 每个词元一个分数", C=C, V=V
            )
        return [*super().param_formulas(), head]

    def example_input(self, B: int = 1, T: int = 4) -> torch.Tensor:
        return torch.arange(B * T).reshape(B, T) % self.cfg.vocab_size  # (B, T)

    def forward(self, ids: torch.Tensor, cache=None) -> torch.Tensor:
        """(B, T) token ids -> (B, T, V) logits. With a KVCache, ids are only the new tokens."""
        offset = cache.length if cache is not None else 0
        x = self.tok_embed(ids)  # (B, T, C)
        h = self.trunk(x, self.attention_mask(ids, offset), cache)  # (B, T, C)
        return self.hook_logits(self.head(h))  # (B, T, V)


@register_model_kind("gpt")
class GPT(TokenModel):
    """Decoder-only: every block is causal, so position t only ever sees tokens 0..t."""

    def __init__(self, cfg: ModelConfig) -> None:
        if not cfg.causal:
            raise ValueError(
                "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
                "--kind=encoder) for bidirectional attention."
            )
        super().__init__(cfg)

    def new_cache(self, batch_size: int) -> KVCache:
        """An empty KV cache for sampling `batch_size` sequences (see nn/kv_cache.py)."""
        return KVCache.for_model(self, batch_size)

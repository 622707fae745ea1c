"""What every model kind shares: positions, the block stack, the final norm.

    x ─► embed ─► + pos_embed ─► dropout ─► [Block] × n_layers ─► ln_final ─► head

A subclass adds the two ends (how inputs become vectors, what the head predicts), registers
itself as a model kind (models/kinds.py) and says what it reads and how it is trained.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.nn.block import Block, layer_norm, norm_formula, norm_hook
from glassformer.nn.formula import ParamFormula
from glassformer.nn.hooks import HookedModel, HookPoint
from glassformer.nn.init import init_weights
from glassformer.nn.masks import causal_mask
from glassformer.nn.position import LearnedPositions, position_scheme


class TransformerStack(HookedModel):
    """Everything after the input embedding and before the head. Subclasses add those two."""

    kind = ""  # set by @register_model_kind
    inputs = "tokens"  # "tokens" (B, T) ids | "numbers" (B, T, d_in) floats
    loss = "next_token"  # a key of nn.loss.LOSSES
    samples = False  # writes text token by token?

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        scheme = position_scheme(cfg.position)
        self.pos_embed = scheme.stream(cfg) if scheme.stream else None
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.use_final_norm = cfg.final_norm and cfg.norm != "none"
        self.ln_final = layer_norm(cfg) if self.use_final_norm else nn.Identity()
        if self.pos_embed is not None:  # touch point 1: the scheme adds a vector to the stream
            self.hook_pos_embed = HookPoint(
                "+ position",
                "T C",
                f"position {cfg.position}: {scheme.about}; one vector per place, broadcast over B",
                f"位置 {cfg.position}：{scheme.zh}；每个位置一个向量，对 B 广播",
                "+ 位置",
            )
            resid_pre = ("embedding + position: the residual stream enters block 0", "嵌入 + 位置：残差流进入第 0 块")
        else:  # position comes in inside attention (rotary, ALiBi) or not at all
            resid_pre = (
                f"the embedding alone enters block 0 (position {cfg.position}: {scheme.about})",
                f"只有嵌入进入第 0 块（位置 {cfg.position}：{scheme.zh}）",
            )
        self.hook_resid_pre = HookPoint("+ position", "B T C", *resid_pre, "+ 位置")
        self.hook_ln_final = norm_hook(
            "final LayerNorm",
            "最终层归一化",
            "last normalisation before the head",
            "输出头之前的最后一次归一化",
            self.use_final_norm,
        )

    def param_formulas(self) -> list[ParamFormula]:
        if self.use_final_norm:
            return [norm_formula("ln_final", self.cfg, True)]
        return [ParamFormula("ln_final", "0", {}, "no final norm", zh="没有最终归一化")]

    def finish_init(self) -> None:
        """Call at the end of a subclass __init__: initialise weights, name the hook points."""
        init_weights(self, self.cfg.init, self.cfg.n_layers)
        self.name_hook_points()

    def example_input(self, B: int = 1, T: int = 4) -> torch.Tensor:
        """A deterministic input of the right kind and shape (draws no random numbers)."""
        raise NotImplementedError

    def attention_mask(self, ids_or_x: torch.Tensor, offset: int = 0) -> torch.Tensor | None:
        """The mask every block uses: causal if configured. Subclasses may add padding.

        With `offset` tokens already cached, query i sits at position offset+i and may see keys
        0..offset+i: a (T, offset+T) lower-triangular band.
        """
        T = ids_or_x.size(1)
        if not self.cfg.causal or (offset and T == 1):
            return None  # no mask, or one new query that may see every cached key and itself
        return causal_mask(T, ids_or_x.device, offset)  # (T, L+T)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor | None, cache=None) -> torch.Tensor:
        """(B, T, C) embedded inputs -> (B, T, C) final hidden states. `cache`: a KVCache."""
        offset = cache.length if cache is not None else 0
        x = self.hook_embed(x)  # (B, T, C)
        if self.pos_embed is not None:
            x = x + self.hook_pos_embed(self.pos_embed(x.size(1), offset))  # (B, T, C) + (T, C)
        x = self.hook_resid_pre(self.drop(x))  # (B, T, C)
        for i, block in enumerate(self.blocks):
            x = block(x, mask, cache.layers[i] if cache is not None else None)  # (B, T, C)
        return self.hook_ln_final(self.ln_final(x))  # (B, T, C)

    def set_attention(self, attention: str) -> None:
        """Switch every block between the glass and the fused attention path (same weights)."""
        self.cfg = replace(self.cfg, attention=attention)  # validates the name
        for block in self.blocks:
            block.attn.attention = attention

    def num_params(self, exclude_positions: bool = False) -> int:
        n = sum(p.numel() for p in self.parameters())
        if exclude_positions and isinstance(self.pos_embed, LearnedPositions):
            n -= self.pos_embed.table.weight.numel()
        return n

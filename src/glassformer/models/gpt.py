"""GPT, top to bottom: the feed-forward, the block, the Transformer every kind shares, the decoder-only model.

    ids (B, T) ─► embed ─► + position ─► dropout ─► [Block] × n_layers ─► final LN ─► head ─► (B, T, V)

A GPT forward reads nn/embedding.py, nn/attention.py, then this file, in the order the data meets them.

    FFN(x) = W₂ · act(W₁ x + b₁) + b₂   W₁: C -> F, W₂: F -> C, act ReLU | GELU | GELU-tanh  (Vaswani §3.3)
    norm="pre"   x = x + Drop(Attn(LN₁(x)));   x = x + Drop(FFN(LN₂(x)))     (GPT-2, most LLMs)
    norm="post"  x = LN₁(x + Drop(Attn(x)));   x = LN₂(x + Drop(FFN(x)))     (the 2017 paper)
    norm="none"  x = x + Attn(x);              x = x + FFN(x)                (2nd tutorial)

Every kind is one level below `Transformer`: GPT (here), Encoder (models/encoder.py), SequenceRegressor
(models/regressor.py), EncoderDecoder (models/seq2seq.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.kinds import init_weights, register_model_kind
from glassformer.nn.attention import AttentionHeads, MultiHeadAttention, causal_mask
from glassformer.nn.embedding import LearnedPositions, TokenEmbedding
from glassformer.nn.hooks import HookedModel, HookPoint, Term
from glassformer.nn.kv_cache import KVCache
from glassformer.nn.position import position_scheme


def layer_norm(cfg: ModelConfig) -> nn.Module:
    if cfg.norm == "none":
        return nn.Identity()
    return nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias)


def norm_hook(stage: str, means: str, active: bool, **fields) -> HookPoint:
    """The hook after a LayerNorm; where the config has none, it says so (same tensor as before)."""
    if active:
        return HookPoint(stage, "B T C", means, **fields)
    return HookPoint("identity", "B T C", "identity", stage=Term(f"stage.{stage}", **fields))


def self_attention(cfg: ModelConfig) -> MultiHeadAttention:
    """A block's self-attention, with the in-attention part of the config's position scheme."""
    scheme = position_scheme(cfg.position)
    positions = scheme.attention(cfg) if scheme.attention else None
    return MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.bias, cfg.dropout, cfg.mha_style, cfg.attention, positions)


ACTIVATION_FNS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


class FeedForward(nn.Module):
    """(B, T, C) -> (B, T, F) -> (B, T, C)."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        if activation not in ACTIVATION_FNS:
            raise UsageError("error.ffn.activation", activation=activation, names=list(ACTIVATION_FNS))
        self.fc1 = nn.Linear(d_model, d_ff, bias=bias)
        self.fc2 = nn.Linear(d_ff, d_model, bias=bias)
        self.act, self.bias = ACTIVATION_FNS[activation], bias
        self.hook_hidden = HookPoint("ffn_hidden", "B T F", "ffn_hidden")
        self.hook_out = HookPoint("ffn_out", "B T C", "ffn_out")

    def forward(self, x: Tensor) -> Tensor:
        hidden = self.hook_hidden(self.act(self.fc1(x)))  # (B, T, F)
        return self.hook_out(self.fc2(hidden))  # (B, T, C)


class Block(nn.Module):
    """(B, T, C) -> (B, T, C): attention, then the FFN, each added to the stream (norm as above)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg, self.norm = cfg, cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = self_attention(cfg)
        self.ln2 = layer_norm(cfg)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias)
        self.drop = nn.Dropout(cfg.dropout)  # on the FFN branch; attn drops its own output
        on, placement = cfg.norm != "none", "post" if cfg.norm == "post" else "pre"
        self.hook_ln1 = norm_hook("layer_norm", f"ln1.{placement}", on, i=1)
        self.hook_ln2 = norm_hook("layer_norm", f"ln2.{placement}", on, i=2)
        self.hook_resid_mid = HookPoint("residual", "B T C", "resid_mid")
        self.hook_resid_post = HookPoint("residual", "B T C", "resid_post")

    def forward(self, x: Tensor, mask: Tensor | None = None, cache=None) -> Tensor:
        if self.norm == "post":
            x = self.hook_resid_mid(x + self.attn(x, mask, cache))  # (B, T, C)
            x = self.hook_ln1(self.ln1(x))  # (B, T, C)
            x = self.hook_resid_post(x + self.drop(self.ffn(x)))  # (B, T, C)
            return self.hook_ln2(self.ln2(x))  # (B, T, C)
        # pre-norm (and no-norm, where ln1/ln2 are identities)
        x = self.hook_resid_mid(x + self.attn(self.hook_ln1(self.ln1(x)), mask, cache))  # (B, T, C)
        return self.hook_resid_post(x + self.drop(self.ffn(self.hook_ln2(self.ln2(x)))))  # (B, T, C)


class Transformer(HookedModel):
    """The diagram above, every kind's shape, built in the order the data uses it (weights are drawn in
    that order): the scheme's stream module, `build` (the blocks, the ends), then the weights initialised,
    the hook points named, the ends tied. A kind may replace the ends (SequenceRegressor) or `build`
    (EncoderDecoder: two stacks, read with the same `add_position`, `final_norm`, `unembed`)."""

    kind = ""  # set by @register_model_kind
    inputs = "tokens"  # "tokens" (B, T) ids | "numbers" (B, T, d_in) floats | "token pairs" (seq2seq)
    loss = "next_token"  # a key of nn.loss.LOSSES
    samples = False  # writes text token by token?

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        scheme = position_scheme(cfg.position)
        self.pos_embed = scheme.stream(cfg) if scheme.stream else None  # None: in attention, or nowhere
        self.drop = nn.Dropout(cfg.dropout)
        self.use_final_norm = cfg.final_norm and cfg.norm != "none"
        self.build(cfg)
        init_weights(self, cfg.init, cfg.n_layers)
        self.name_hook_points()
        self.tie_ends(cfg)

    def build(self, cfg: ModelConfig) -> None:
        """One stack of Blocks, the final norm and the ends."""
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_final = self.final_norm()
        on = self.pos_embed is not None  # touch point 1: the scheme adds a vector to the stream
        self.hook_pos_embed = HookPoint("position", "T C", "position", position=cfg.position) if on else None
        resid_pre = "resid_pre" if on else "resid_pre.no_stream"  # the stream's first point
        self.hook_resid_pre = HookPoint("position", "B T C", resid_pre, position=cfg.position)
        self.hook_ln_final = norm_hook("final_norm", "final_norm", self.use_final_norm)
        self.build_ends(cfg)

    # the ends, token ids in and a score per vocabulary entry out (a kind may replace these, embed, unembed)
    def build_ends(self, cfg: ModelConfig) -> None:
        self.tok_embed = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.head = self.token_head()
        self.hook_embed = HookPoint("embedding", "B T C", "embedding")
        self.hook_logits = HookPoint("logits", "B T V", "logits")

    def tie_ends(self, cfg: ModelConfig) -> None:
        if cfg.tie_weights:
            self.head.weight = self.tok_embed.table.weight  # one (V, C) matrix, two uses

    # ---- the forward pass, in data-flow order ------------------------------------------------------
    def forward(self, inputs: Tensor, cache: KVCache | None = None) -> Tensor:
        """(B, T) token ids (or the kind's inputs) -> (B, T, n_outputs). With a KVCache (nn/kv_cache.py),
        `inputs` are only the new tokens, at positions cache.length onwards."""
        offset = cache.length if cache is not None else 0
        x = self.embed(inputs)  # (B, T, C)
        mask = self.attention_mask(inputs, offset)  # (T, L+T), (B, 1, T, T) or None
        x = self.add_position(x, offset, self.hook_pos_embed, self.hook_resid_pre)  # (B, T, C)
        return self.run_from(0, x, mask, cache)  # (B, T, n_outputs)

    def embed(self, ids: Tensor) -> Tensor:
        return self.hook_embed(self.tok_embed(ids))  # (B, T, C)

    def attention_mask(self, inputs: Tensor, offset: int = 0) -> Tensor | None:
        """Causal if configured; a kind may add padding (models/encoder.py)."""
        T = inputs.size(1)
        if not self.cfg.causal or (offset and T == 1):
            return None  # no mask, or one new query that may see every cached key and itself
        return causal_mask(T, inputs.device, offset)  # (T, L+T)

    def add_position(self, x: Tensor, offset: int, hook_pos: HookPoint | None, hook_resid: HookPoint) -> Tensor:
        """(B, T, C) + the stream scheme's (T, C) vectors, if any -> dropout: what the first block reads."""
        if self.pos_embed is not None:
            assert hook_pos is not None  # declared with pos_embed (build): an invariant, not a user error
            x = x + hook_pos(self.pos_embed(x.size(1), offset))  # (B, T, C) + (T, C)
        return hook_resid(self.drop(x))  # (B, T, C)

    def run_from(self, layer: int, x: Tensor, mask: Tensor | None = None, cache: KVCache | None = None) -> Tensor:
        """The forward from block `layer` on, x (B, T, C) the stream it reads: forward is run_from(0, ...);
        activation patching (causal/patching.py) starts at the patched block."""
        for i in range(layer, len(self.blocks)):
            x = self.blocks[i](x, mask, cache.layers[i] if cache is not None else None)  # (B, T, C)
        return self.unembed(self.hook_ln_final(self.ln_final(x)))  # (B, T, n_outputs)

    def unembed(self, h: Tensor) -> Tensor:
        return self.hook_logits(self.head(h))  # (B, T, V)

    # ---- what every kind shares --------------------------------------------------------------------
    @property
    def n_outputs(self) -> int:
        return self.cfg.vocab_size

    def example_input(self, B: int = 1, T: int = 4) -> Tensor:
        """A deterministic input of the right kind and shape (draws no random numbers)."""
        return torch.arange(B * T).reshape(B, T) % self.cfg.vocab_size  # (B, T)

    def final_norm(self) -> nn.Module:
        return layer_norm(self.cfg) if self.use_final_norm else nn.Identity()

    def token_head(self) -> nn.Linear:
        return nn.Linear(self.cfg.d_model, self.cfg.vocab_size, bias=self.cfg.bias and not self.cfg.tie_weights)

    def set_attention(self, attention: str) -> None:
        """Switch every attention (self and cross) between the glass and the fused path (same weights)."""
        self.cfg = replace(self.cfg, attention=attention)  # validates the name
        for module in self.modules():
            if isinstance(module, AttentionHeads):
                module.attention = attention

    def num_params(self, exclude_positions: bool = False) -> int:
        n = sum(p.numel() for p in self.parameters())
        if exclude_positions and isinstance(self.pos_embed, LearnedPositions):
            n -= self.pos_embed.table.weight.numel()
        return n


@register_model_kind("gpt")
class GPT(Transformer):
    """Decoder-only: every block is causal, so position t only ever sees tokens 0..t."""

    inputs, loss, samples = "tokens", "next_token", True

    def __init__(self, cfg: ModelConfig) -> None:
        if not cfg.causal:
            raise UsageError("error.model.gpt_not_causal")
        super().__init__(cfg)

    def new_cache(self, batch_size: int) -> KVCache:
        return KVCache.for_model(self, batch_size)  # see nn/kv_cache.py

"""EncoderDecoder: the model of "Attention Is All You Need" (Vaswani et al. 2017), kind "seq2seq".

    src (B, S) ─► embed·√C ─► + positions ─► [Block] × N ─────────► LN ─► memory (B, S, C)
                                                                              │ (keys, values)
    tgt_in (B, T) ─► embed·√C ─► + positions ─► [DecoderBlock] × N ─► LN ─► head ─► logits (B, T, V)

The encoder reads the whole source at once: its self-attention hides only padding. The decoder
writes the target one token at a time, so at training time (teacher forcing: it reads the true
target shifted right, tgt_in = [<BOS>, y₁, …, y_{T-1}], and predicts y₁ … y_T, <EOS>) its
self-attention must hide every later token (causal mask), or it would learn to copy the answer
it will not have when it translates. Its cross-attention reads the memory, minus source padding.

    mask                        shape          hides
    encoder self-attention      (B, 1, 1, S)   source padding
    decoder self-attention      (B, 1, T, T)   later target tokens (cfg.causal) and target padding
    cross-attention             (B, 1, 1, S)   source padding

Source and target share one vocabulary (one tokenizer, one vocab_size): the simplest arrangement,
and the paper's (a shared word-piece vocabulary). Then three (V, C) matrices may be one:
    share_embeddings  the source and target embeddings are one table
    tie_weights       the output head is the target embedding (the paper does both: one matrix)
Embeddings are multiplied by √C (§3.4), so they are not drowned by the positions. One position
scheme serves both sides (cfg.position; the paper's is "sinusoidal"). Encoder and decoder have
n_layers blocks each. The encoder's hook points name the source length S where a decoder's say T.

EncoderDecoder is one level below the GPT base (models/gpt.py), as every kind is: its
encoder blocks are the GPT's Block, and the DecoderBlock below adds cross-attention between them.
This file holds every piece the encoder-decoder adds: CrossAttention (the decoder asks, the
encoder's output answers), the DecoderBlock, and the model; its cache is nn/kv_cache.py's
DecoderCache.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.encoder import combine_masks, padding_mask
from glassformer.models.gpt import (
    GPT,
    Block,
    TokenEmbedding,
    feed_forward,
    layer_norm,
    norm_hook,
    norm_stage,
    self_attention,
)
from glassformer.models.kinds import register_model_kind
from glassformer.nn.attention import AttentionHeads, Dropout
from glassformer.nn.hooks import HookPoint, Term
from glassformer.nn.kv_cache import DecoderCache

SOURCE_AXES = {"T": "S", "T_q": "S", "T_k": "S"}  # in the encoder, every sequence axis is the source's


def reads_the_source(module: nn.Module) -> None:
    """The encoder's blocks are the encoder-only model's Block: say in their hook points' axes that
    the sequence they run over is the source (S), so views label it with the source's tokens."""
    for point in module.modules():
        if isinstance(point, HookPoint):
            point.axes = " ".join(SOURCE_AXES.get(a, a) for a in point.axes.split())


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Cross-attention: the decoder asks, the encoder's output answers.
#
#     CrossAttention(x, m) = softmax(Q Kᵀ / √D, source padding masked) V
#         Q = x W_Q      x (B, T, C): the target stream, one query per target token
#         K = m W_K      m (B, S, C): the encoder's output ("memory"), one key per source token
#         V = m W_V                                       (Vaswani et al. 2017, §3.2.3, first bullet)
#
# The equation is self-attention's (nn/attention.py); only the inputs differ. The queries come from
# one sequence (T tokens) and the keys and values from another (S tokens), so the attention matrix
# is T × S, not square, and needs no causal mask: the whole source is known before the first target
# token is written. It does need the source's padding mask (B, 1, 1, S), so no query reads a <PAD>.
#
# Steps 2 and 3 (attend within each head, merge the heads, project) are shared with self-attention
# (`AttentionHeads`); this module adds step 1, the projections, as two Linears: `q` (C -> C) for the
# target stream and `kv` (C -> 2C) for the source, packed because K and V read the same input.
#
# Keys and values depend only on the source, so while a translation is written token by token they
# are computed once (`source_kv`) and kept in the decoder's cache (nn/kv_cache.py's DecoderCache).
# ────────────────────────────────────────────────────────────────────────────────────────────────


class CrossAttention(AttentionHeads):
    """x (B, T, C) target stream, memory (B, S, C) encoder output -> (B, T, C)."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        bias: bool = True,
        dropout: float = 0.0,
        attention: str = "glass",
        d_head: int = 0,
    ) -> None:
        super().__init__(d_model, n_heads, bias, dropout, attention, d_head)
        width = n_heads * self.d_head  # H·D: C unless the head width is set apart (head_dim)
        self.q = nn.Linear(d_model, width, bias=bias)
        self.kv = nn.Linear(d_model, 2 * width, bias=bias)
        self.hook_q = HookPoint("qkv", "B H T D", "cross.q")
        self.hook_k = HookPoint("qkv", "B H S D", "cross.k")
        self.hook_v = HookPoint("qkv", "B H S D", "cross.v")
        self.build_heads("cross", "S")

    def source_kv(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The encoder's output (B, S, C) -> keys and values (B, H, S, D): all that the source gives."""
        k, v = self.kv(memory).chunk(2, dim=-1)  # 2 × (B, S, C)
        return self.hook_k(self.split_heads(k)), self.hook_v(self.split_heads(v))  # 2 × (B, H, S, D)

    def forward(
        self, x: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor | None = None, cache=None
    ) -> torch.Tensor:
        """x (B, T, C), memory (B, S, C), mask (B, 1, 1, S) or None -> (B, T, C).

        cache: a DecoderLayerCache (nn/kv_cache.py). Its `source` holds the keys and values of
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
        # 2) attend: every target query over every source key, 3) merge heads back and project
        return self.attend(q, k, v, mask)  # (B, T, C)


class DecoderBlock(nn.Module):
    """(B, T, C) target stream and (B, S, C) encoder output -> (B, T, C). Three sublayers, each in a
    residual connection:

        1) masked self-attention   the target tokens look at each other, never at later ones
        2) cross-attention         each target token reads the encoder's output (CrossAttention, above)
        3) feed-forward            the per-position MLP

        norm="pre"   x = x + f(LN(x))         for f = self-attn, cross-attn, FFN in turn
        norm="post"  x = LN(x + f(x))         (the 2017 paper; PyTorch's nn.TransformerDecoderLayer)
        norm="none"  x = x + f(x)

    Hook points: ln1, resid_self (stream after self-attention), ln2, resid_cross (after
    cross-attention), ln3, resid_post (block output); the three modules carry their own
    (attn.*, cross.*, ffn.hidden). The LayerNorm helpers are the encoder block's (models/gpt.py).
    """

    def __init__(self, cfg: ModelConfig, layer: int = 0) -> None:
        super().__init__()
        self.cfg, self.norm = cfg, cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = self_attention(cfg)
        self.ln2 = layer_norm(cfg)
        self.cross = CrossAttention(cfg.d_model, cfg.n_heads, cfg.bias, cfg.dropout, cfg.attention, cfg.head_dim)
        self.ln3 = layer_norm(cfg)
        self.ffn = feed_forward(cfg, layer)
        self.drop = Dropout(cfg.dropout)  # on the FFN branch; the attentions drop their own outputs
        on, placement = cfg.norm != "none", "post" if cfg.norm == "post" else "pre"
        ln = f"dec_ln.{placement}"  # pre-norm normalises what a sublayer reads, post-norm its sum
        self.hook_ln1 = norm_hook(norm_stage(cfg), ln, on, i=1, sublayer=Term("sublayer", "self_attention"))
        self.hook_resid_self = HookPoint("residual", "B T C", "resid_self")
        self.hook_ln2 = norm_hook(norm_stage(cfg), ln, on, i=2, sublayer=Term("sublayer", "cross_attention"))
        self.hook_resid_cross = HookPoint("residual", "B T C", "resid_cross")
        self.hook_ln3 = norm_hook(norm_stage(cfg), ln, on, i=3, sublayer=Term("sublayer", "ffn"))
        self.hook_resid_post = HookPoint("residual", "B T C", "dec_resid_post")

    def sublayer(self, x: torch.Tensor, f, ln: nn.Module, hook_ln: HookPoint, hook_resid: HookPoint) -> torch.Tensor:
        """One residual sublayer around f: pre-norm x + f(LN(x)), post-norm LN(x + f(x))."""
        if self.norm == "post":
            return hook_ln(ln(hook_resid(x + f(x))))  # (B, T, C)
        return hook_resid(x + f(hook_ln(ln(x))))  # (B, T, C); ln is the identity for norm="none"

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        source_mask: torch.Tensor | None = None,
        cache=None,
    ) -> torch.Tensor:
        """x (B, T, C), memory (B, S, C); self_mask (T, T)-like: causal ∧ target padding; source_mask
        (B, 1, 1, S): source padding. cache: a DecoderLayerCache (nn/kv_cache.py) or None."""
        own = cache.self_attn if cache is not None else None
        x = self.sublayer(
            x, lambda h: self.attn(h, self_mask, own), self.ln1, self.hook_ln1, self.hook_resid_self
        )  # (B, T, C)
        x = self.sublayer(
            x, lambda h: self.cross(h, memory, source_mask, cache), self.ln2, self.hook_ln2, self.hook_resid_cross
        )  # (B, T, C)
        return self.sublayer(
            x, lambda h: self.drop(self.ffn(h)), self.ln3, self.hook_ln3, self.hook_resid_post
        )  # (B, T, C)


@register_model_kind("seq2seq")
class EncoderDecoder(GPT):
    """(src (B, S), tgt_in (B, T)) token ids -> (B, T, V) logits for the next target tokens.

    The GPT's shape twice: the base builds the position module and the dropout both sides share,
    and each side is read with the base's pieces (`final_norm`, `attention_mask`, `token_head`; the
    decoder ends as GPT.run_from does). `build` makes the two stacks instead of one."""

    inputs, loss, samples, causal_only = "token pairs", "label_smoothed", False, False
    pad_id: int
    src_embed: TokenEmbedding
    encoder: nn.ModuleList  # n_layers × Block, reading the source
    enc_ln_final: nn.Module  # nn.LayerNorm, or nn.Identity without a final norm
    tgt_embed: TokenEmbedding
    decoder: nn.ModuleList  # n_layers × DecoderBlock
    dec_ln_final: nn.Module

    def __init__(self, cfg: ModelConfig) -> None:
        if cfg.pad_id is None:
            raise UsageError(
                "seq2seq.pad_id",
                "seq2seq needs pad_id: sentences of different lengths are "
                "padded, and both sides mask the padding. Set pad_id to the "
                "tokenizer's <PAD> id (--pad_id=0).",
            )
        super().__init__(cfg)
        self.pad_id = cfg.pad_id  # an int from here on

    def build(self, cfg: ModelConfig) -> None:
        """Both sides, and their hook points, in the order the data flows through them."""
        root = math.sqrt(cfg.d_model)
        # the source side
        self.src_embed = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.hook_src_embed = HookPoint("embedding", "B S C", "src_embed", root=root)
        self.hook_src_pos = HookPoint("position", "S C", "src_pos", position=cfg.position)
        self.hook_src_resid_pre = HookPoint("position", "B S C", "src_resid_pre")
        self.encoder = nn.ModuleList(Block(cfg, i) for i in range(cfg.n_layers))
        reads_the_source(self.encoder)
        self.enc_ln_final = self.final_norm()
        self.hook_memory = HookPoint("memory", "B S C", "memory.normalised" if self.use_final_norm else "memory")
        # the target side and the head
        self.tgt_embed = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.hook_tgt_embed = HookPoint("embedding", "B T C", "tgt_embed", root=root)
        self.hook_tgt_pos = HookPoint("position", "T C", "tgt_pos", position=cfg.position)
        self.hook_tgt_resid_pre = HookPoint("position", "B T C", "tgt_resid_pre")
        self.decoder = nn.ModuleList(DecoderBlock(cfg, i) for i in range(cfg.n_layers))
        self.dec_ln_final = self.final_norm()
        self.hook_dec_ln_final = norm_hook("final_norm", "dec_final_norm", self.use_final_norm)
        self.head = self.token_head()
        self.hook_logits = HookPoint("logits", "B T V", "dec_logits")

    def tie_ends(self, cfg: ModelConfig) -> None:
        if cfg.share_embeddings:
            self.tgt_embed.table.weight = self.src_embed.table.weight  # one (V, C) table, both sides
        if cfg.tie_weights:
            self.head.weight = self.tgt_embed.table.weight  # the head scores with the target table

    # ---- the forward pass, in data-flow order ------------------------------------------------------
    def encode(self, src: torch.Tensor) -> torch.Tensor:
        """src (B, S) ids -> memory (B, S, C): the encoder's reading of the whole source."""
        mask = self.source_mask(src)  # (B, 1, 1, S)
        x = self.add_position(self.embed(src, "src"), 0, self.hook_src_pos, self.hook_src_resid_pre)  # (B, S, C)
        for block in self.encoder:
            x = block(x, mask)  # (B, S, C)
        return self.hook_memory(self.enc_ln_final(x))  # (B, S, C)

    def decode(
        self, tgt: torch.Tensor, memory: torch.Tensor, src: torch.Tensor, cache: DecoderCache | None = None
    ) -> torch.Tensor:
        """tgt (B, T) target ids so far, memory (B, S, C), src (B, S) for its padding -> (B, T, V).
        With a DecoderCache, tgt holds only the new tokens (usually one)."""
        offset = cache.length if cache is not None else 0  # position of the first new target token
        self_mask, source_mask = self.target_mask(tgt, offset), self.source_mask(src)
        x = self.add_position(self.embed(tgt), offset, self.hook_tgt_pos, self.hook_tgt_resid_pre)  # (B, T, C)
        for i, block in enumerate(self.decoder):
            x = block(x, memory, self_mask, source_mask, cache.layers[i] if cache is not None else None)  # (B, T, C)
        return self.hook_logits(self.head(self.hook_dec_ln_final(self.dec_ln_final(x))))  # (B, T, V)

    def add_position(self, x: torch.Tensor, offset: int, hook_pos: HookPoint, hook_resid: HookPoint) -> torch.Tensor:
        """One side's (B, L, C) + the stream scheme's (L, C) vectors, if any -> dropout (as GPT.forward)."""
        if self.pos_embed is not None:
            x = x + hook_pos(self.pos_embed(x.size(1), offset))  # (B, L, C) + (L, C)
        return hook_resid(self.drop(x))  # (B, L, C)

    # a pair of inputs where the one-stack kinds take (inputs, cache): the override says so to mypy
    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        """Teacher forcing: src (B, S) and tgt_in (B, T) ids -> (B, T, V) logits; position t
        predicts target token t+1 from the whole source and the target tokens 0..t. (Two inputs,
        where the one-stack kinds take (inputs, cache): a cached decoder step is `decode`.)"""
        if src.dim() != 2 or tgt.dim() != 2 or src.size(0) != tgt.size(0):
            raise UsageError(
                "seq2seq.inputs",
                "seq2seq reads (src (B, S), tgt_in (B, T)) id tensors with "
                "the same B; got {src} and {tgt}. Call model(src, tgt_in).",
                src=tuple(src.shape),
                tgt=tuple(tgt.shape),
            )
        return self.decode(tgt, self.encode(src), src)  # (B, T, V)

    def embed(self, ids: torch.Tensor, side: str = "tgt") -> torch.Tensor:
        """ids (B, L) of one side ("src" | "tgt") -> (B, L, C): its token vectors × √C (§3.4)."""
        if side == "src":
            return self.hook_src_embed(self.src_embed(ids) * math.sqrt(self.cfg.d_model))  # (B, S, C)
        return self.hook_tgt_embed(self.tgt_embed(ids) * math.sqrt(self.cfg.d_model))  # (B, T, C)

    # ---- masks --------------------------------------------------------------------------------------
    def source_mask(self, src: torch.Tensor) -> torch.Tensor:
        """(B, 1, 1, S): no query, in the encoder or in cross-attention, reads source padding."""
        return padding_mask(src, self.pad_id)  # (B, 1, 1, S)

    def target_mask(self, tgt: torch.Tensor, offset: int = 0) -> torch.Tensor | None:
        """Decoder self-attention: the base's causal mask (query i, at position offset+i, may see target
        keys 0..offset+i) and target padding. With a cache (offset > 0) there is no padding to hide:
        decoding never pads what it writes."""
        causal = self.attention_mask(tgt, offset)  # (T, L+T) or None
        if offset:
            return causal
        return combine_masks(causal, padding_mask(tgt, self.pad_id))  # (T, T) ∧ (B, 1, 1, T)

    # ---- what every model kind says about itself --------------------------------------------------

    def example_input(self, B: int = 1, T: int = 4) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """(src, tgt_in), both (B, T): deterministic ids, none of them <PAD>."""
        ids = torch.arange(B * T).reshape(B, T) % self.cfg.vocab_size  # (B, T)
        ids = ids.masked_fill(ids == self.pad_id, (self.pad_id + 1) % self.cfg.vocab_size)  # (B, T)
        return ids, ids.flip(-1)

    def new_cache(self, batch_size: int) -> DecoderCache:  # type: ignore[override]
        """An empty decoder cache for writing `batch_size` targets (see nn/kv_cache.py)."""
        p, cfg = next(self.parameters()), self.cfg
        if not cfg.causal:
            raise UsageError(
                "seq2seq.cache_not_causal",
                "this decoder has no causal mask (causal=False): each new "
                "token changes the earlier positions too, so their cached "
                "keys would be stale. Decode with use_cache=False.",
            )
        return DecoderCache(cfg.n_layers, batch_size, cfg.kv_heads, cfg.max_len, cfg.d_head, p.device, p.dtype)

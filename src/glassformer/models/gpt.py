"""GPT, top to bottom, in the order the data meets it: token ids -> vectors, the block, the model.

    ids (B, T) ─► token table + position ─► dropout ─► [Block] × n_layers ─► final LN ─► head ─► (B, T, V)

One forward serves training, prefill and cached decoding: given a KVCache (nn/kv_cache.py), `ids` are only the new
tokens, which attend to the cached keys and values. The attention is nn/attention.py; a hook point's call, nn/hooks.py.

    x[b, t] = E[ids[b, t]] + P[t]          E (V, C) the token table, P (max_len, C) learned (GPT-2)
    FFN(x) = W₂ · act(W₁ x + b₁) + b₂      W₁: C -> F, W₂: F -> C, act ReLU | GELU | GELU-tanh  (Vaswani §3.3)
    norm="pre"   x = x + Drop(Attn(LN₁(x)));   x = x + Drop(FFN(LN₂(x)))     (GPT-2, most LLMs)
    norm="post"  x = LN₁(x + Drop(Attn(x)));   x = LN₂(x + Drop(FFN(x)))     (the 2017 paper)
    norm="none"  x = x + Attn(x);              x = x + FFN(x)                (2nd tutorial)
    ffn="none"   the first half alone: no FFN, no LN₂ (an attention-only model, Elhage et al. 2021)

The modern decoder (Llama, Qwen3, Mistral: docs/modern.md) is the same Block with other modules in it,
chosen when it is built: `layer_norm` gives RMSNorm (norm_type="rms"), `feed_forward` a gated FFN
(ffn="swiglu" | "geglu", nn/glu.py), `self_attention` grouped-query heads, QK-norm and RoPE with a base
and a scaling (position="rope"); `attention_mask` a sliding window. models/llama.py maps their weights.
The sparse ones (Mixtral, Qwen3-MoE, DeepSeek-V3) too: `feed_forward` gives a mixture of experts
(ffn="moe", nn/moe.py), whose balance losses `extra_loss` hands the trainer, and `self_attention`
multi-head latent attention (mla_kv_rank > 0, nn/mla.py), whose cache keeps the latent.

GPT is the base of every kind, each one level below, overriding only what differs: Encoder
(models/encoder.py: the mask), SequenceRegressor (models/regressor.py: numbers in and out),
EncoderDecoder (models/seq2seq.py: two stacks).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import islice
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from glassformer.config import ModelConfig
from glassformer.errors import Clause, UsageError, WrongType
from glassformer.models.kinds import init_weights, register_model_kind
from glassformer.nn.attention import AttentionHeads, Dropout, MultiHeadAttention, causal_mask, check_mask
from glassformer.nn.attention_variants import QKNorm
from glassformer.nn.glu import GatedFeedForward
from glassformer.nn.hooks import HookedModel, HookPoint, Term
from glassformer.nn.kv_cache import KVCache
from glassformer.nn.mla import LATENT_EPS, BlockLatentAttention, MLAConfig
from glassformer.nn.moe import MixtureOfExperts, Routing, load_balancing_loss, router_z_loss
from glassformer.nn.position import PositionScheme, position_scheme, register_position_scheme, too_long
from glassformer.nn.rmsnorm import RMSNorm

# ── 1) token ids -> vectors ──────────────────────────────────────────────────────────────────────────


class TokenEmbedding(nn.Module):
    """(B, T) integer ids -> (B, T, C) vectors: row ids[b, t] of the (V, C) table."""

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.table = nn.Embedding(vocab_size, d_model)

    @property
    def weight(self) -> Tensor:
        return self.table.weight  # (V, C)

    def forward(self, ids: Tensor) -> Tensor:
        """nn.Embedding meets a bad id with a bare IndexError (a device-side assert on a GPU): say what
        is wrong instead. On a CPU that costs nothing until it happens; on a GPU the ids are asserted
        on the device (reading them back would stall it), except under torch.compile."""
        if not isinstance(ids, Tensor):
            raise WrongType(
                "ids.type",
                "token ids must be a torch.Tensor of integers, got {type}; "
                "wrap them with torch.tensor(ids, dtype=torch.long).",
                type=type(ids).__name__,
            )
        if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
            raise UsageError(
                "ids.dtype",
                "token ids must be integers (torch.long), got dtype {dtype}; "
                "convert with ids.long() — or, for numbers, use "
                "SequenceRegressor.",
                dtype=ids.dtype,
            )
        if ids.dim() != 2:
            raise UsageError(
                "ids.shape",
                "token ids must have shape (B, T), got {shape}; add a batch axis with ids.unsqueeze(0).",
                shape=tuple(ids.shape),
            )
        V = self.vocab_size
        if ids.device.type != "cpu" and ids.numel() and not torch.compiler.is_compiling():
            lo, hi = torch.aminmax(ids)  # one pass over the ids
            clause = Clause(
                "token ids outside the vocabulary [0, {vocab_size}): encode with the model's tokenizer", vocab_size=V
            )
            torch._assert_async((lo >= 0) & (hi < V), str(clause))
        try:
            return self.table(ids)  # (B, T, C)
        except IndexError:
            raise UsageError(
                "ids.outside",
                "token ids {bad} are outside the vocabulary [0, "
                "{vocab_size}): encode with the model's own tokenizer, or "
                "build the model with a larger vocab_size.",
                bad=ids[(ids < 0) | (ids >= V)].unique()[:10].tolist(),
                vocab_size=V,
            ) from None


class LearnedPositions(nn.Module):
    """(T, offset) -> the (T, C) rows offset..offset+T-1 of a trained (max_len, C) table (GPT-2)."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.table = nn.Embedding(max_len, d_model)

    def forward(self, T: int, offset: int = 0) -> Tensor:
        if offset + T > self.max_len:  # the table has max_len rows
            raise too_long(offset + T, self.max_len)
        pos = torch.arange(offset, offset + T, device=self.table.weight.device)  # (T,)
        return self.table(pos)  # (T, C)


# the position scheme of GPT-2, added to the stream (nn/position.py holds the registry and the others)
register_position_scheme(
    PositionScheme("learned", stream=lambda cfg: LearnedPositions(cfg.max_len, cfg.d_model), table=True)
)

# ── 2) the block: norm -> attention -> residual -> norm -> MLP -> residual ──────────────────────────────

ACTIVATION_FNS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


def layer_norm(cfg: ModelConfig) -> nn.Module:
    """The config's norm over the stream's C features: LayerNorm, RMSNorm (norm_type="rms"), or none."""
    if cfg.norm == "none":
        return nn.Identity()
    if cfg.norm_type == "rms":
        return RMSNorm(cfg.d_model, cfg.ln_eps)
    return nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps, bias=cfg.bias)


def norm_stage(cfg: ModelConfig) -> str:
    """The stage id of the point after a block's norm: which norm made the tensor."""
    return "rms_norm" if cfg.norm_type == "rms" else "layer_norm"


def norm_hook(stage: str, means: str, active: bool, **fields) -> HookPoint:
    """The hook after a LayerNorm; where the config has none, it says so (same tensor as before)."""
    if active:
        return HookPoint(stage, "B T C", means, **fields)
    return HookPoint("identity", "B T C", "identity", stage=Term("stage", stage, **fields))


def self_attention(cfg: ModelConfig) -> nn.Module:
    """A block's self-attention, with the in-attention part of the config's position scheme, its
    key-value heads and head width, and QK-norm when the config asks for it; or multi-head latent
    attention (nn/mla.py: mla_kv_rank > 0), with its own RoPE at the config's base."""
    if cfg.mla_kv_rank:
        sizes = (cfg.mla_kv_rank, cfg.mla_d_nope, cfg.mla_d_rope, cfg.mla_d_v, cfg.mla_q_rank or None)
        return BlockLatentAttention(
            MLAConfig(cfg.d_model, cfg.n_heads, *sizes, cfg.rope_base, eps=LATENT_EPS, bias=cfg.bias)
        )
    scheme = position_scheme(cfg.position)
    positions = scheme.attention(cfg) if scheme.attention else None
    qk_norm = QKNorm(cfg.d_head, cfg.ln_eps) if cfg.qk_norm else None
    return MultiHeadAttention(
        cfg.d_model,
        cfg.n_heads,
        cfg.bias,
        cfg.dropout,
        cfg.mha_style,
        cfg.attention,
        positions,
        cfg.n_kv_heads,
        cfg.head_dim,
        qk_norm,
    )


def feed_forward(cfg: ModelConfig, layer: int = 0) -> nn.Module:
    """Block `layer`'s FFN: GPT-2's two Linears around an activation, a gated one (nn/glu.py), or a
    mixture of SwiGLU experts (nn/moe.py: ffn="moe"; the first moe_first_dense blocks one SwiGLU d_ff wide)."""
    if cfg.ffn == "mlp":
        return FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias)
    if cfg.ffn == "moe" and layer < cfg.moe_first_dense:
        return GatedFeedForward(cfg.d_model, cfg.d_ff, "swiglu", cfg.bias)
    if cfg.ffn == "moe":
        routing = Routing(
            cfg.moe_rule, cfg.moe_top_k, cfg.moe_normalize, cfg.moe_groups, cfg.moe_topk_groups, cfg.moe_scale
        )
        return MixtureOfExperts(cfg.d_model, cfg.expert_d_ff, cfg.n_experts, routing, cfg.moe_shared, bias=cfg.bias)
    return GatedFeedForward(cfg.d_model, cfg.d_ff, cfg.ffn, cfg.bias)


class FeedForward(nn.Module):
    """(B, T, C) -> (B, T, F) -> (B, T, C)."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        if activation not in ACTIVATION_FNS:
            raise UsageError(
                "ffn.activation",
                "activation={activation!r} is not one of {names}.",
                activation=activation,
                names=list(ACTIVATION_FNS),
            )
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

    def __init__(self, cfg: ModelConfig, layer: int = 0) -> None:
        super().__init__()
        self.cfg, self.norm = cfg, cfg.norm
        self.ln1 = layer_norm(cfg)
        self.attn = self_attention(cfg)
        if cfg.ffn != "none":  # else attention only: no second norm, no FFN, no hook points of theirs
            self.ln2 = layer_norm(cfg)
        self.ffn: nn.Module | None = None if cfg.ffn == "none" else feed_forward(cfg, layer)
        self.drop = Dropout(cfg.dropout)  # on the FFN branch; attn drops its own output
        on, placement = cfg.norm != "none", "post" if cfg.norm == "post" else "pre"
        self.hook_ln1 = norm_hook(norm_stage(cfg), f"ln1.{placement}", on, i=1)
        if self.ffn is not None:
            self.hook_ln2 = norm_hook(norm_stage(cfg), f"ln2.{placement}", on, i=2)
        self.hook_resid_mid = HookPoint("residual", "B T C", "resid_mid")
        self.hook_resid_post = HookPoint("residual", "B T C", "resid_post")

    def forward(self, x: Tensor, mask: Tensor | None = None, cache=None) -> Tensor:
        if self.norm == "post":
            x = self.hook_resid_mid(x + self.attn(x, mask, cache))  # (B, T, C)
            x = self.hook_ln1(self.ln1(x))  # (B, T, C)
            if self.ffn is None:
                return self.hook_resid_post(x)  # (B, T, C)
            x = self.hook_resid_post(x + self.drop(self.ffn(x)))  # (B, T, C)
            return self.hook_ln2(self.ln2(x))  # (B, T, C)
        # pre-norm (and no-norm, where ln1/ln2 are identities)
        x = self.hook_resid_mid(x + self.attn(self.hook_ln1(self.ln1(x)), mask, cache))  # (B, T, C)
        if self.ffn is None:
            return self.hook_resid_post(x)  # (B, T, C): attention only
        return self.hook_resid_post(x + self.drop(self.ffn(self.hook_ln2(self.ln2(x)))))  # (B, T, C)


# ── 3) the model ──────────────────────────────────────────────────────────────────────────────────────


@register_model_kind("gpt")
class GPT(HookedModel):
    """Decoder-only: every block is causal, so position t only ever sees tokens 0..t. Built in the
    order the data uses it (weights are drawn in that order): the scheme's stream module, `build` (the
    blocks, the ends), then the weights initialised, the hook points named, the ends tied."""

    kind = ""  # set by @register_model_kind
    inputs = "tokens"  # "tokens" (B, T) ids | "numbers" (B, T, d_in) floats | "token pairs" (seq2seq)
    loss = "next_token"  # a key of nn.loss.LOSSES
    samples = True  # writes text token by token?
    causal_only = True  # a GPT refuses a bidirectional config; the other kinds read either

    def __init__(self, cfg: ModelConfig) -> None:
        if self.causal_only and not cfg.causal:
            raise UsageError(
                "model.gpt_not_causal",
                "GPT is decoder-only and needs causal=True; use Encoder "
                "(kind='encoder', --kind=encoder) for bidirectional "
                "attention.",
            )
        super().__init__()
        self.cfg = cfg
        scheme = position_scheme(cfg.position)
        self.pos_embed = scheme.stream(cfg) if scheme.stream else None  # None: in attention, or nowhere
        self.drop = Dropout(cfg.dropout)
        self.use_final_norm = cfg.final_norm and cfg.norm != "none"
        self.kept_mask = torch.ones(0, 0, dtype=torch.bool)  # (N, N): attention_mask's, grown on first use
        self.build(cfg)
        init_weights(self, cfg.init, cfg.n_layers)
        self.name_hook_points()
        self.tie_ends(cfg)

    def build(self, cfg: ModelConfig) -> None:
        """One stack of Blocks, the final norm and the ends (EncoderDecoder builds two stacks)."""
        self.blocks = nn.ModuleList(Block(cfg, i) for i in range(cfg.n_layers))
        self.ln_final = self.final_norm()
        on = self.pos_embed is not None  # touch point 1: the scheme adds a vector to the stream
        self.hook_pos_embed = HookPoint("position", "T C", "position", position=cfg.position) if on else None
        resid_pre = "resid_pre" if on else "resid_pre.no_stream"  # the stream's first point
        self.hook_resid_pre = HookPoint("position", "B T C", resid_pre, position=cfg.position)
        self.hook_ln_final = norm_hook("final_norm", "final_norm", self.use_final_norm)
        self.build_ends(cfg)

    def build_ends(self, cfg: ModelConfig) -> None:
        """Token ids in, a score per vocabulary entry out (SequenceRegressor: numbers)."""
        self.tok_embed = TokenEmbedding(cfg.vocab_size, cfg.d_model)
        self.head = self.token_head()
        self.hook_embed = HookPoint("embedding", "B T C", "embedding")
        self.hook_logits = HookPoint("logits", "B T V", "logits")

    def tie_ends(self, cfg: ModelConfig) -> None:
        if cfg.tie_weights:
            self.head.weight = self.tok_embed.table.weight  # one (V, C) matrix, two uses

    # ---- the forward pass: training, prefill and cached decoding alike ------------------------------
    def forward(self, inputs: Tensor, cache: KVCache | None = None, mask: Tensor | None = None) -> Tensor:
        """(B, T) token ids (or the kind's inputs) -> (B, T, n_outputs). With a KVCache, `inputs` are only
        the new tokens, at positions cache.length onwards. `mask`: a caller's boolean mask (True = may
        attend; SFT packing's), kept with the model's own: a key is read only where both allow it."""
        offset = cache.length if cache is not None else 0  # absolute position of the first token
        x = self.hook_embed(self.tok_embed(inputs))  # (B, T, C): the kind's input end
        if self.pos_embed is not None:  # touch point 1 of the position scheme (nn/position.py)
            assert self.hook_pos_embed is not None  # declared with pos_embed (build): an invariant
            x = x + self.hook_pos_embed(self.pos_embed(x.size(1), offset))  # (B, T, C) + (T, C)
        x = self.hook_resid_pre(self.drop(x))  # (B, T, C): what the first block reads
        held = cache.held if cache is not None else 0  # keys kept: L, or fewer in a sliding window's cache
        own = self.attention_mask(inputs, held)  # (T, L+T), (B, 1, T, T) or None
        if mask is not None:  # checked against the scores' shape (B, H=1, T, L+T), laid out as they are
            given = check_mask(mask, torch.empty(x.size(0), 1, x.size(1), held + x.size(1), device="meta"))
            own = given if own is None else own & given  # (B, 1, T, L+T): both must allow
        return self.run_from(0, x, own, cache)  # (B, T, n_outputs)

    def attention_mask(self, inputs: Tensor, offset: int = 0) -> Tensor | None:
        """Causal if configured; a kind may add padding (models/encoder.py). Rows offset..offset+T of one
        larger causal_mask, built once and kept: what it hides depends on j - i only."""
        T, window = inputs.size(1), self.cfg.sliding_window
        if not self.cfg.causal or (offset and T == 1 and not 0 < window <= offset):
            return None  # no mask, or one new query that may see every cached key and itself
        if self.kept_mask.size(0) < offset + T or self.kept_mask.device != inputs.device:
            with torch.inference_mode(False):  # an ordinary tensor, also when first made while sampling
                n = max(offset + T, 2 * self.kept_mask.size(0))  # doubles: a growing text rebuilds it rarely
                self.kept_mask = causal_mask(n, inputs.device, window=window)  # (N, N)
        return self.kept_mask[offset : offset + T, : offset + T]  # (T, L+T)

    def run_from(self, layer: int, x: Tensor, mask: Tensor | None = None, cache: KVCache | None = None) -> Tensor:
        """The forward from block `layer` on, x (B, T, C) the stream it reads: forward is run_from(0, ...);
        activation patching (causal/patching.py) starts at the patched block."""
        caches = cache.layers if cache is not None else [None] * len(self.blocks)
        for block, layer_cache in islice(zip(self.blocks, caches, strict=True), layer, None):
            x = block(x, mask, layer_cache)  # (B, T, C)
        return self.hook_logits(self.head(self.hook_ln_final(self.ln_final(x))))  # (B, T, n_outputs)

    # ---- what every kind shares --------------------------------------------------------------------
    def new_cache(self, batch_size: int) -> KVCache:
        return KVCache.for_model(self, batch_size)  # see nn/kv_cache.py

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

    def extra_loss(self) -> Tensor | None:
        """What the trainer adds to the training loss after a forward: the experts' α·L_aux + β·L_z over
        every layer's router logits of that forward (nn/moe.py); None for a model without experts."""
        logits = [
            m.last_logits for m in self.modules() if isinstance(m, MixtureOfExperts) and m.last_logits is not None
        ]
        if not logits:
            return None
        aux, z = load_balancing_loss(logits, self.cfg.moe_top_k), router_z_loss(logits)  # (), ()
        return self.cfg.moe_aux_loss * aux + self.cfg.moe_z_loss * z  # ()

    def num_params(self, exclude_positions: bool = False) -> int:
        n = sum(p.numel() for p in self.parameters())
        if exclude_positions and isinstance(self.pos_embed, LearnedPositions):
            n -= self.pos_embed.table.weight.numel()
        return n

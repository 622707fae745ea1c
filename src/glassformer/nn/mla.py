"""Multi-head latent attention (MLA): keys and values are rebuilt, head by head, from one small latent
per token, so a cache holds that latent (and one shared rotary key) instead of H keys and H values.

    queries   c_q = RMSNorm(x W_DQ)                (R_q)     q_h = c_q W_UQ,h = [q_nope,h ; q_rope,h]
              (no query compression: q_h = x W_Q,h, DeepSeek-V2-Lite)
    latent    [c_kv ; k_rope] = x W_DKV              c_kv (R_kv) then RMSNorm; k_rope (D_r), one for all heads
    keys      k_h = [c_kv W_UK,h ; RoPE(k_rope)]     (D_n + D_r)
    values    v_h = c_kv W_UV,h                      (D_v)
    attention o_h = softmax(q_h' · k_hᵀ · τ + causal mask) v_h,  q_h' = [q_nope,h ; RoPE(q_rope,h)]
              τ = 1/√(D_n + D_r), × m² under YaRN with mscale_all_dim (m = 0.1·mscale_all_dim·ln s + 1)
    out       y = [o_1 … o_H] W_O

    DeepSeek-AI 2024, "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language
    Model", §2.1.2-2.1.3, eq. 9-19 (low-rank key-value compression, decoupled RoPE); DeepSeek-V3
    Technical Report, §2.1.1 (the same MLA). The RMSNorm after each down-projection is in DeepSeek's
    code and checkpoints, not in the papers' equations.

Against GQA (nn/attention_variants.py): a GQA cache keeps 2·H_kv·D numbers per token per layer; MLA's
keeps R_kv + D_r (`kv_cache_bytes_per_token`). The price: W_UK and W_UV rebuild every head's keys and
values from the latent at each step, unless they are absorbed (below).

The decoupled RoPE part. RoPE cannot sit on k = c_kv W_UK (a rotation between c_kv and W_UK would stop
W_UK from being absorbed), so each head gets D_n features without position and D_r rotary ones, whose
key is shared by all heads and cached beside the latent.

The absorbed form (DeepSeek-V2 §2.1.2, "W_UK can be absorbed into W_Q, and W_UV into W_O"):

    q_nope,h · (c_kv W_UK,h)ᵀ = (q_nope,h W_UK,hᵀ) · c_kvᵀ          a query in latent space (R_kv)
    Σ_h (A_h c_kv W_UV,h) W_O,h = Σ_h (A_h c_kv) (W_UV,h W_O,h)     one (R_kv, C) matrix per head

so decoding attends over the cached latents directly, as multi-query attention whose one key is
[c_kv ; RoPE(k_rope)] (R_kv + D_r) and whose one value is c_kv; no per-head key or value is made.
`forward(..., absorbed=True)` computes it; the tests show it equal to the plain form.

RoPE layout. DeepSeek's checkpoints store the D_r rotary features as neighbouring pairs (2i, 2i+1),
as RoFormer writes it. transformers (`rope_interleave=True`, the default, apply_rotary_pos_emb_interleave)
takes the even features then the odd ones, which is the half-split layout, and turns them half-split;
the rotated q_rope and k_rope (and so the cached k_rope) come out half-split. We follow transformers:
`interleaved=True` permutes the same way and reuses nn/rope_scaling.py's half-split rotation, so a
checkpoint loads as it is and our cache holds what transformers' holds. With `interleaved=False` the
features are turned half-split as stored (transformers' `rope_interleave=False`).

Precision: as nn/rmsnorm.py and nn/rope_scaling.py (float64 stays float64; transformers computes the
norms, the angles and the softmax in float32, which the float64 tests point at float64).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from glassformer.config import check_mla_sizes
from glassformer.errors import UsageError
from glassformer.nn.attention import causal_mask, scaled_dot_product_attention
from glassformer.nn.attention_variants import kv_groups
from glassformer.nn.hooks import HookPoint
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.nn.rope_scaling import PLAIN, RopeScaling, ScaledRotary

LATENT_EPS = 1e-6  # the latents' RMSNorm ε in DeepSeek's code and transformers, whatever rms_norm_eps says


@dataclass(frozen=True)
class MLAConfig:
    """The sizes of one MLA layer; the names in comments are transformers' DeepseekV3Config fields."""

    d_model: int  # C (hidden_size)
    n_heads: int  # H (num_attention_heads)
    kv_rank: int  # R_kv: the latent the cache holds (kv_lora_rank)
    d_nope: int  # D_n: query/key features per head without position (qk_nope_head_dim)
    d_rope: int  # D_r: rotary features per head, the key's shared by all heads (qk_rope_head_dim)
    d_v: int  # D_v: value features per head (v_head_dim)
    q_rank: int | None = None  # R_q: the query latent (q_lora_rank); None: queries straight from x
    base: float = 10000.0  # RoPE base (rope_theta)
    scaling: RopeScaling = PLAIN  # RoPE scaling; DeepSeek-V3 uses YaRN (`deepseek_yarn`)
    mscale_all_dim: float = 0.0  # YaRN: τ × (0.1·mscale_all_dim·ln s + 1)²; 0: τ = 1/√(D_n + D_r)
    interleaved: bool = True  # rotary features stored as neighbouring pairs (rope_interleave)
    eps: float = 1e-6  # the two RMSNorms' ε (rms_norm_eps)
    bias: bool = False  # biases on W_DQ, W_DKV and W_O (attention_bias)


def check_mla(cfg: MLAConfig) -> None:
    """Sizes that are not positive whole numbers, and latents wider than the model, refused
    (config.check_mla_sizes: one check)."""
    check_mla_sizes(cfg.d_model, cfg.n_heads, cfg.kv_rank, cfg.d_nope, cfg.d_rope, cfg.d_v, cfg.q_rank)


def yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    """YaRN's m = 0.1·mscale·ln s + 1 (Peng et al. 2023, eq. 21, with DeepSeek's multiplier); 1 at s <= 1."""
    return 0.1 * mscale * math.log(factor) + 1.0 if factor > 1 else 1.0


def deepseek_yarn(
    factor: float,
    original_max_len: int,
    mscale: float = 1.0,
    mscale_all_dim: float = 1.0,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> RopeScaling:
    """DeepSeek-V3's YaRN as transformers reads its rope_parameters: cos and sin × m(mscale) /
    m(mscale_all_dim) (1 when the two are equal, as in DeepSeek-V3's config); the softmax scale then
    takes m(mscale_all_dim)² (MLAConfig.mscale_all_dim)."""
    m = yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim) if mscale and mscale_all_dim else None
    return RopeScaling("yarn", factor, original_max_len, beta_fast=beta_fast, beta_slow=beta_slow, attention_factor=m)


def softmax_scale(cfg: MLAConfig) -> float:
    """τ = 1/√(D_n + D_r), × m(mscale_all_dim)² when RoPE is scaled (transformers' yarn_apply_mscale)."""
    tau = (cfg.d_nope + cfg.d_rope) ** -0.5
    if cfg.scaling.kind != "none" and cfg.mscale_all_dim:
        tau *= yarn_mscale(cfg.scaling.factor, cfg.mscale_all_dim) ** 2
    return tau


def deinterleave(x: Tensor) -> Tensor:
    """(..., D_r) neighbouring pairs (2i, 2i+1) -> half-split pairs (i, i + D_r/2): evens, then odds."""
    return torch.cat((x[..., 0::2], x[..., 1::2]), dim=-1)  # (..., D_r)


class LatentCache:
    """One MLA layer's cache: the latent c_kv (B, T_k, R_kv) and the rotated rotary key
    (B, 1, T_k, D_r) of every token so far. Nothing per head: R_kv + D_r numbers a token."""

    def __init__(self) -> None:
        self.latent: Tensor | None = None  # (B, T_k, R_kv)
        self.rope_key: Tensor | None = None  # (B, 1, T_k, D_r)

    @property
    def length(self) -> int:
        """Tokens cached = the next token's position."""
        return 0 if self.latent is None else self.latent.size(1)

    @length.setter
    def length(self, n: int) -> None:
        """Keep the first n tokens (KVCache.reset sets 0)."""
        if self.latent is not None and self.rope_key is not None:
            self.latent, self.rope_key = self.latent[:, :n], self.rope_key[:, :, :n]  # (B, n, R_kv), (B, 1, n, D_r)

    @property
    def held(self) -> int:
        """Keys kept before the next token: every one so far (as nn/kv_cache.py's LayerCache)."""
        return self.length

    def append(self, latent: Tensor, rope_key: Tensor) -> tuple[Tensor, Tensor]:
        """Store a new (B, T, R_kv) and (B, 1, T, D_r); return everything so far."""
        if self.latent is None or self.rope_key is None:
            self.latent, self.rope_key = latent, rope_key  # (B, T, R_kv), (B, 1, T, D_r)
        else:
            self.latent = torch.cat((self.latent, latent), dim=1)  # (B, T_k, R_kv)
            self.rope_key = torch.cat((self.rope_key, rope_key), dim=2)  # (B, 1, T_k, D_r)
        return self.latent, self.rope_key

    def nbytes(self) -> int:
        """Bytes held: what kv_cache_bytes_per_token predicts, × tokens × batch."""
        return sum(t.numel() * t.element_size() for t in (self.latent, self.rope_key) if t is not None)


class LatentAttention(nn.Module):
    """(B, T, C) -> (B, T, C): causal multi-head latent attention; with a LatentCache, the new tokens
    attend over every cached one. `absorbed=True`: the same numbers through the absorbed matrices."""

    def __init__(self, cfg: MLAConfig) -> None:
        super().__init__()
        check_mla(cfg)
        self.cfg = cfg
        C, H, R = cfg.d_model, cfg.n_heads, cfg.kv_rank
        D_qk = cfg.d_nope + cfg.d_rope
        if cfg.q_rank is not None:
            self.q_down = nn.Linear(C, cfg.q_rank, bias=cfg.bias)  # W_DQ: x -> the query latent
            self.q_norm = RMSNorm(cfg.q_rank, cfg.eps, axes="B T R_q")
            self.q_up = nn.Linear(cfg.q_rank, H * D_qk, bias=False)  # W_UQ: latent -> every head's query
        else:
            self.q_proj = nn.Linear(C, H * D_qk, bias=False)  # W_Q: no query compression
        self.kv_down = nn.Linear(C, R + cfg.d_rope, bias=cfg.bias)  # W_DKV and W_KR side by side
        self.kv_norm = RMSNorm(R, cfg.eps, axes="B T R_kv")
        self.kv_up = nn.Linear(R, H * (cfg.d_nope + cfg.d_v), bias=False)  # [W_UK,h ; W_UV,h] head by head
        self.proj = nn.Linear(H * cfg.d_v, C, bias=cfg.bias)  # W_O
        self.rotary = ScaledRotary(cfg.d_rope, cfg.base, cfg.scaling)
        self.scale = softmax_scale(cfg)
        self.hook_q_latent = HookPoint("mla", "B T R_q", "mla.q_latent")
        self.hook_kv_latent = HookPoint("mla", "B T R_kv", "mla.kv_latent")
        self.hook_q = HookPoint("qkv", "B H T D", "mla.q")
        self.hook_k = HookPoint("qkv", "B H T_k D", "mla.k")
        self.hook_v = HookPoint("qkv", "B H T_k D_v", "mla.v")
        self.hook_scores = HookPoint("scores", "B H T_q T_k", "mla.scores")
        self.hook_weights = HookPoint("weights", "B H T_q T_k", "attn.weights")
        self.hook_z = HookPoint("z", "B H T D_v", "attn.z")
        self.hook_out = HookPoint("attn_out", "B T C", "attn.out")

    def queries(self, x: Tensor) -> Tensor:
        """x (B, T, C) -> every head's query (B, H, T, D_n + D_r), before RoPE."""
        B, T, _ = x.shape
        if self.cfg.q_rank is None:
            q = self.q_proj(x)  # (B, T, H·(D_n+D_r))
        else:
            q = self.q_up(self.hook_q_latent(self.q_norm(self.q_down(x))))  # (B, T, H·(D_n+D_r)) via c_q (B, T, R_q)
        return q.view(B, T, self.cfg.n_heads, -1).transpose(1, 2)  # (B, H, T, D_n+D_r)

    def absorbed_weights(self) -> tuple[Tensor, Tensor]:
        """W_UK per head (H, D_n, R_kv), for the query side, and W_UV,h·W_O,h per head (H, R_kv, C),
        for the output side: what the absorbed form multiplies by instead of making keys and values."""
        cfg = self.cfg
        up = self.kv_up.weight.view(cfg.n_heads, cfg.d_nope + cfg.d_v, cfg.kv_rank)  # (H, D_n+D_v, R_kv)
        w_uk, w_uv = up.split([cfg.d_nope, cfg.d_v], dim=1)  # (H, D_n, R_kv), (H, D_v, R_kv)
        w_o = self.proj.weight.view(cfg.d_model, cfg.n_heads, cfg.d_v).permute(1, 2, 0)  # (H, D_v, C)
        return w_uk, w_uv.transpose(1, 2) @ w_o  # (H, D_n, R_kv), (H, R_kv, C)

    def attend(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor) -> Tensor:
        """softmax(q·kᵀ·τ + mask)·v. attention_scores divides by √(q's last axis); q is scaled so the
        product is ×τ instead."""
        q = q * (self.scale * math.sqrt(q.size(-1)))  # (B, H, T, ·)
        seen = self.hook_scores, self.hook_weights
        z, _ = scaled_dot_product_attention(q, k, v, mask, 0.0, None, *seen)  # (B, H, T, ·), (B, H, T, T_k)
        return z  # (B, H, T, ·)

    def forward(self, x: Tensor, cache: LatentCache | None = None, absorbed: bool = False) -> Tensor:
        cfg = self.cfg
        B, T, _ = x.shape
        offset = cache.length if cache is not None else 0  # tokens already cached
        q_nope, q_rope = self.queries(x).split([cfg.d_nope, cfg.d_rope], dim=-1)  # (B, H, T, D_n), (B, H, T, D_r)
        latent, k_rope = self.kv_down(x).split([cfg.kv_rank, cfg.d_rope], dim=-1)  # (B, T, R_kv), (B, T, D_r)
        latent = self.hook_kv_latent(self.kv_norm(latent))  # (B, T, R_kv) c_kv
        k_rope = k_rope[:, None]  # (B, 1, T, D_r) one rotary key for all heads
        if cfg.interleaved:
            q_rope, k_rope = deinterleave(q_rope), deinterleave(k_rope)  # (B, H, T, D_r), (B, 1, T, D_r)
        q_rope, k_rope = self.rotary.rotate(q_rope, k_rope, offset)  # (B, H, T, D_r), (B, 1, T, D_r)
        if cache is not None:
            latent, k_rope = cache.append(latent, k_rope)  # (B, T_k, R_kv), (B, 1, T_k, D_r)
        mask = causal_mask(T, x.device, offset)  # (T, T_k)
        if absorbed:
            w_uk, w_out = self.absorbed_weights()  # (H, D_n, R_kv), (H, R_kv, C)
            q = torch.cat((q_nope @ w_uk, q_rope), dim=-1)  # (B, H, T, R_kv + D_r) the query in latent space
            k = torch.cat((latent[:, None], k_rope), dim=-1)  # (B, 1, T_k, R_kv + D_r) one key for all heads
            z_latent = self.attend(q, k, latent[:, None], mask)  # (B, H, T, R_kv) weights · c_kv
            out = torch.einsum("bhtr,hrc->btc", z_latent, w_out)  # (B, T, C) Σ_h z_h · W_UV,h W_O,h
            return self.hook_out(out if self.proj.bias is None else out + self.proj.bias)  # (B, T, C)
        kv = self.kv_up(latent).view(B, -1, cfg.n_heads, cfg.d_nope + cfg.d_v).transpose(1, 2)  # (B, H, T_k, D_n+D_v)
        k_nope, v = kv.split([cfg.d_nope, cfg.d_v], dim=-1)  # (B, H, T_k, D_n), (B, H, T_k, D_v)
        q = self.hook_q(torch.cat((q_nope, q_rope), dim=-1))  # (B, H, T, D_n + D_r)
        k = self.hook_k(torch.cat((k_nope, k_rope.expand(-1, cfg.n_heads, -1, -1)), dim=-1))  # (B, H, T_k, D_n+D_r)
        z = self.hook_z(self.attend(q, k, self.hook_v(v), mask))  # (B, H, T, D_v)
        return self.hook_out(self.proj(z.transpose(1, 2).reshape(B, T, -1)))  # (B, T, C)

    def extra_repr(self) -> str:
        c = self.cfg
        return f"H={c.n_heads}, R_q={c.q_rank}, R_kv={c.kv_rank}, D_n={c.d_nope}, D_r={c.d_rope}, D_v={c.d_v}"


class BlockLatentAttention(LatentAttention):
    """LatentAttention as a Block calls its attention, (x, mask, cache): MLA makes its own causal mask
    (no window, no padding: ModelConfig refuses them with MLA), and its cache is a LatentCache."""

    def forward(self, x: Tensor, mask: Tensor | None = None, cache=None, absorbed: bool = False) -> Tensor:  # type: ignore[override]
        return super().forward(x, cache, absorbed)  # (B, T, C)


# ---- what a cache costs ------------------------------------------------------------------------------------

CACHE_SIZES = {  # numbers one token leaves in one layer's cache, and the sizes that decide it
    "mha": (("n_heads", "d_head"), lambda s: 2 * s["n_heads"] * s["d_head"]),  # H keys and H values
    "gqa": (("n_kv_heads", "d_head"), lambda s: 2 * s["n_kv_heads"] * s["d_head"]),  # H_kv of each
    "mqa": (("d_head",), lambda s: 2 * s["d_head"]),  # one key, one value
    "mla": (("kv_rank", "d_rope"), lambda s: s["kv_rank"] + s["d_rope"]),  # the latent and the rotary key
}


def kv_cache_bytes_per_token(kind: str, n_layers: int, dtype: torch.dtype = torch.float32, **sizes: int) -> int:
    """Bytes one token adds to a whole model's cache: n_layers × numbers per layer × bytes per number.
    `sizes`: n_heads, d_head (mha); n_kv_heads, d_head (gqa, with n_heads to check the grouping);
    d_head (mqa); kv_rank, d_rope (mla)."""
    if kind not in CACHE_SIZES:
        raise UsageError(
            "cache_size.attention", "attention {kind!r} is not one of {names}.", kind=kind, names=list(CACHE_SIZES)
        )
    needed, numbers = CACHE_SIZES[kind]
    missing = [name for name in needed if sizes.get(name) is None]
    if missing:
        raise UsageError(
            "cache_size.missing",
            "the cache size of {kind!r} attention needs {names}; {missing} not given.",
            kind=kind,
            names=list(needed),
            missing=missing,
        )
    if kind == "gqa" and sizes.get("n_heads"):
        kv_groups(sizes["n_heads"], sizes["n_kv_heads"])  # H_kv must divide H
    return n_layers * numbers(sizes) * dtype.itemsize

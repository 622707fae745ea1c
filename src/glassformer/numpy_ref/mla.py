"""The NumPy twin of nn/mla.py, float64: multi-head latent attention one head at a time, with the
interleaved rotation written on neighbouring pairs as complex numbers.

    c_q = RMSNorm(x W_DQ); q_h = c_q W_UQ,h;  [c_kv ; k_rope] = x W_DKV, c_kv = RMSNorm(c_kv)
    k_h = [c_kv W_UK,h ; RoPE(k_rope)],  v_h = c_kv W_UV,h
    o_h = softmax(q_h' k_hᵀ τ + causal) v_h,  y = [o_1 … o_H] W_O          (DeepSeek-V2, eq. 9-19)

The torch version permutes DeepSeek's neighbouring rotary pairs into the half-split layout and turns
them there; here each pair (2i, 2i+1) is the complex number x_2i + j·x_2i+1 turned in place (the
RoFormer form), so the two agree only because a rotation of q and k by the same permutation leaves
every q·k unchanged. `cfg` is anything with nn/mla.py's MLAConfig fields.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer.numpy_ref.forward import causal_mask, linear, scope, softmax
from glassformer.numpy_ref.rmsnorm import rms_norm
from glassformer.numpy_ref.rope_scaling import rope_parameters, rotate_half_split


def rotate_neighbours(x: np.ndarray, inv_freq: np.ndarray, m: float) -> np.ndarray:
    """x (T, D_r), pairs (2i, 2i+1), at positions 0..T-1 -> turned by p·θ_i, × m, laid out as stored."""
    p = np.arange(x.shape[0], dtype=np.float64)[:, None]  # (T, 1)
    z = (x[:, 0::2] + 1j * x[:, 1::2]) * m * np.exp(1j * p * inv_freq)  # (T, D_r/2)
    out = np.empty_like(x)  # (T, D_r)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def latent_attention(x: np.ndarray, params: dict[str, np.ndarray], cfg) -> np.ndarray:
    """x (B, T, C) -> (B, T, C) with one LatentAttention's weights, causal, positions 0..T-1."""
    B, T, _ = x.shape
    H, D_n, D_r, D_v, R = cfg.n_heads, cfg.d_nope, cfg.d_rope, cfg.d_v, cfg.kv_rank
    inv_freq, m = rope_parameters(D_r, cfg.base, cfg.scaling, T)  # (D_r/2,)
    tau = 1 / math.sqrt(D_n + D_r)
    if cfg.scaling.kind != "none" and cfg.mscale_all_dim and cfg.scaling.factor > 1:
        tau *= (0.1 * cfg.mscale_all_dim * math.log(cfg.scaling.factor) + 1) ** 2

    def turn(r: np.ndarray) -> np.ndarray:  # (T, D_r)
        return rotate_neighbours(r, inv_freq, m) if cfg.interleaved else rotate_half_split(r, inv_freq, 0, m)

    out = np.zeros_like(x)  # (B, T, C)
    for b in range(B):
        if cfg.q_rank is None:
            q = linear(x[b], scope(params, "q_proj."))  # (T, H·(D_n+D_r))
        else:
            c_q = rms_norm(linear(x[b], scope(params, "q_down.")), scope(params, "q_norm."), cfg.eps)  # (T, R_q)
            q = linear(c_q, scope(params, "q_up."))  # (T, H·(D_n+D_r))
        down = linear(x[b], scope(params, "kv_down."))  # (T, R_kv + D_r)
        c_kv = rms_norm(down[:, :R], scope(params, "kv_norm."), cfg.eps)  # (T, R_kv)
        k_rope = turn(down[:, R:])  # (T, D_r) shared by every head
        kv = linear(c_kv, scope(params, "kv_up."))  # (T, H·(D_n+D_v))
        heads = []
        for h in range(H):
            q_h = q[:, h * (D_n + D_r) : (h + 1) * (D_n + D_r)]  # (T, D_n + D_r)
            kv_h = kv[:, h * (D_n + D_v) : (h + 1) * (D_n + D_v)]  # (T, D_n + D_v)
            scores = (q_h[:, :D_n] @ kv_h[:, :D_n].T + turn(q_h[:, D_n:]) @ k_rope.T) * tau  # (T, T)
            weights = softmax(np.where(causal_mask(T), scores, -np.inf))  # (T, T)
            heads.append(weights @ kv_h[:, D_n:])  # (T, D_v)
        out[b] = linear(np.concatenate(heads, axis=-1), scope(params, "proj."))  # (T, C)
    return out

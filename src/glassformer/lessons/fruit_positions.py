"""Lesson 1, part 3 — the sinusoidal position table, and which of its properties really hold.

    PE[p, 2i] = sin(p·ω_i),  PE[p, 2i+1] = cos(p·ω_i),  ω_i = 1 / 10000^(2i/d)   (Vaswani §3.5)

Each pair (sin, cos) is a point on a unit circle at angle p·ω_i. Two facts follow:
  1. PE[p]·PE[p+k] = Σ_i cos(k·ω_i) depends on the offset k only, not on p;
  2. PE[p+k] = PE[p]·R_k, where R_k rotates every pair by the angle k·ω_i — one fixed matrix for
     every p (the paper's reason: a relative offset is a linear map of the encoding).
Seed 004 claims instead that PE[0] − PE[5] ≈ PE[2] − PE[7]. The differences have the same
length (that follows from fact 1), but they point in different directions: PE[2] − PE[7] is
PE[0] − PE[5] rotated by R_2. The lesson prints both and the distance between them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from glassformer.lessons.common import Narrator, fmt, matrix_lines, save_png
from glassformer.nn.position import sinusoidal_table

N_POS, D = 10, 8


def frequencies(table: np.ndarray) -> np.ndarray:
    """ω_i read back from the table itself: position 1 sits at angle ω_i on each circle."""
    return np.arctan2(table[1, 0::2], table[1, 1::2])  # (D/2,)


def rotation(k: int, omegas: np.ndarray) -> np.ndarray:
    """R_k (D, D), block-diagonal: for row vectors [sin a, cos a]·R = [sin(a+b), cos(a+b)], b = kω."""
    R = np.zeros((2 * len(omegas), 2 * len(omegas)))  # (D, D)
    for i, w in enumerate(omegas):
        c, s = np.cos(k * w), np.sin(k * w)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return R


def run(nar: Narrator) -> dict:
    nar.title("fruit.title.positions", n=N_POS, d=D)
    pe = sinusoidal_table(N_POS, D, dtype=torch.float64).numpy()  # (10, 8)
    for line in matrix_lines("PE", pe, [f"p={p}" for p in range(N_POS)], 3):
        nar.show(line)
    omegas = frequencies(pe)  # (4,)
    nar.say("fruit.say.omegas", omegas=fmt(omegas, 5))

    # 1) dot products depend on the offset only
    nar.why("fruit.why.dots")
    P, K = 5, 5  # rows p = 0..4, offsets k = 0..4 (p + k stays inside the 10 positions)
    dots = np.array([[pe[p] @ pe[p + k] for k in range(K)] for p in range(P)])  # (P, K)
    for line in matrix_lines("PE[p]·PE[p+k]   rows p, columns k", dots, [f"p={p}" for p in range(P)], 4):
        nar.show(line)
    theory = np.array([np.cos(k * omegas).sum() for k in range(K)])  # (K,) Σ cos(k·ω_i)
    spread = float((dots.max(axis=0) - dots.min(axis=0)).max())
    nar.say("fruit.say.dot_spread", spread=f"{spread:.1e}", theory=fmt(theory, 4))

    # 2) a fixed rotation moves every position k steps along
    k = 3
    R = rotation(k, omegas)  # (8, 8)
    nar.why("fruit.why.rotation")
    for line in matrix_lines(f"R_{k} for ω_0 = {omegas[0]:.4f} (the first 2×2 block)", R[:2, :2], None, 4):
        nar.show(line)
    nar.show(f"  PE[2][:2]·R = {fmt(pe[2, :2] @ R[:2, :2], 4)}   PE[5][:2] = {fmt(pe[5, :2], 4)}")
    rot_err = float(np.abs(pe[: N_POS - k] @ R - pe[k:]).max())  # (N_POS - k, D) -> largest entry
    nar.say("fruit.say.rotation", k=k, err=f"{rot_err:.1e}", n=N_POS - k)

    # 3) the tutorial's claim
    nar.why("fruit.why.claim")
    d05, d27 = pe[0] - pe[5], pe[2] - pe[7]  # (8,) each
    gap = float(np.linalg.norm(d05 - d27))
    nar.show(f"  PE[0] − PE[5] = {fmt(d05, 4)}")
    nar.show(f"  PE[2] − PE[7] = {fmt(d27, 4)}")
    lengths = (float(np.linalg.norm(d05)), float(np.linalg.norm(d27)))
    rotated_err = float(np.abs(d05 @ rotation(2, omegas) - d27).max())  # (8,) -> largest entry
    nar.say(
        "fruit.say.claim",
        gap=fmt(gap, 4),
        len1=fmt(lengths[0], 4),
        len2=fmt(lengths[1], 4),
        ratio=f"{gap / lengths[0]:.0%}",
        err=f"{rotated_err:.1e}",
    )
    return {
        "table": pe,
        "omegas": omegas,
        "dots": dots,
        "dot_spread": spread,
        "rotation_error": rot_err,
        "claim_gap": gap,
        "diff_lengths": lengths,
        "rotated_diff_error": rotated_err,
    }


def save_table(pe: np.ndarray, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.8, 4.0), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(pe, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel("feature (even: sin, odd: cos)")
    ax.set_ylabel("position p")
    ax.set_title(f"sinusoidal PE, {pe.shape[0]} positions × {pe.shape[1]} features")
    fig.colorbar(im, ax=ax)
    return save_png(fig, path)

"""Lesson 3's data: the sine waves of train/data.py, and the numbers that say how well any model
could possibly do on them.

    x = linspace(start, start + 2π, 50),  y = sin(freq · x) + N(0, 0.01²)
    start ~ U(0, 2π),  freq ~ U(0.5, 2)                                  (seed 004, §5.1)

The tutorial feeds the model x and asks for y. But freq is drawn afresh for every sequence and
never given, and x (all 50 values of it) carries no information about freq: x only fixes start.
So the best any model can do is predict E[y | x] = E_f[sin(f·x)] for each point, and its error
can never fall below the Bayes floor  σ² + E_x[Var_f sin(f·x)].  Both are estimated here by
Monte-Carlo over freq.
"""

from __future__ import annotations

import math

import numpy as np

from glassformer.train.data import (  # noqa: F401  (the generator lives with the trainer's sources)
    FREQ_HIGH,
    FREQ_LOW,
    HORIZON,
    N_TRAIN,
    N_VAL,
    NOISE,
    OBSERVED,
    SEQ_LEN,
    STEP,
    SineSet,
    as_tensor,
    forecast_windows,
    make,
)


def naive_baselines(y: np.ndarray) -> dict[str, float]:
    """MSE over the 10 future values of predicting 0, and of repeating the last observed value."""
    future = y[:, OBSERVED:]  # (N, 10)
    return {
        "zero": float((future**2).mean()),
        "last value": float(((future - y[:, OBSERVED - 1 : OBSERVED]) ** 2).mean()),
    }


# ------------------------------------------------------------------ the tutorial's task
def bayes_mean(x: np.ndarray, freqs: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """E_f[sin(f·x)] for every entry of x, averaged over the sampled frequencies `freqs` (K,)."""
    flat = x.reshape(-1)  # (M,)
    out = np.empty_like(flat)  # (M,)
    for i in range(0, len(flat), chunk):
        out[i : i + chunk] = np.sin(flat[i : i + chunk, None] * freqs[None, :]).mean(axis=1)  # (chunk,)
    return out.reshape(x.shape)


def bayes_floor(rng: np.random.Generator, n_points: int = 20000, n_freq: int = 512) -> tuple[float, float]:
    """σ² + E_x[Var_f sin(f·x)] by Monte-Carlo, with its standard error.

    Each sample point is an independent (start, position) pair; for each, n_freq frequencies
    give an unbiased estimate of Var_f sin(f·x)."""
    x = rng.uniform(0, 2 * math.pi, n_points) + STEP * rng.integers(0, SEQ_LEN, n_points)  # (P,)
    f = rng.uniform(FREQ_LOW, FREQ_HIGH, (n_points, n_freq))  # (P, K)
    var = np.sin(f * x[:, None]).var(axis=1, ddof=1)  # (P,)
    return NOISE**2 + float(var.mean()), float(var.std(ddof=1) / math.sqrt(n_points))


def tutorial_reference(val: SineSet, rng: np.random.Generator, n_freq: int = 2048) -> dict[str, float]:
    """What the model's validation MSE should be compared with, for the tutorial's task."""
    floor, se = bayes_floor(rng)
    freqs = rng.uniform(FREQ_LOW, FREQ_HIGH, n_freq)  # (K,)
    best = bayes_mean(val.x, freqs)  # (N, 50): the Bayes predictor on the validation inputs
    return {
        "floor": floor,
        "floor_se": se,
        "bayes_on_val": float(((val.y - best) ** 2).mean()),
        "zero_on_val": float((val.y**2).mean()),
    }

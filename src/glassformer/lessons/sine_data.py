"""Lesson 3's data: noisy sine waves with a random start and a random frequency, and the
numbers that say how well any model could possibly do on them.

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
from dataclasses import dataclass

import numpy as np
import torch

SEQ_LEN, NOISE = 50, 0.01  # points per sequence, noise standard deviation
FREQ_LOW, FREQ_HIGH = 0.5, 2.0  # freq ~ U(0.5, 2)
N_TRAIN, N_VAL = 5000, 1000  # the tutorial's sizes
OBSERVED, HORIZON = 40, 10  # forecasting: read the first 40 values, predict the next 10
STEP = 2 * math.pi / (SEQ_LEN - 1)  # spacing of x


@dataclass
class SineSet:
    x: np.ndarray  # (N, 50) float64
    y: np.ndarray  # (N, 50) float64
    start: np.ndarray  # (N,)
    freq: np.ndarray  # (N,)

    def period_steps(self) -> np.ndarray:
        """Samples per period of each sequence: 2π / (freq · STEP)."""
        return 2 * math.pi / (self.freq * STEP)  # (N,)


def make(n: int, rng: np.random.Generator) -> SineSet:
    start = rng.uniform(0, 2 * math.pi, n)  # (N,)
    freq = rng.uniform(FREQ_LOW, FREQ_HIGH, n)  # (N,)
    x = start[:, None] + STEP * np.arange(SEQ_LEN)[None, :]  # (N, 50), = linspace(start, start + 2π)
    y = np.sin(freq[:, None] * x) + rng.normal(0, NOISE, x.shape)  # (N, 50)
    return SineSet(x, y, start, freq)


def as_tensor(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float32)


# ------------------------------------------------------------------ forecasting task
def forecast_windows(y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs y[:, :40] (N, 40, 1); targets (N, 40, 10): at position t, the values y[t+1 .. t+10].

    With a causal mask, position t sees y[0..t] only, so every prefix is an honest example of
    "given what came so far, predict the next 10"; the lesson's forecast is position 39's."""
    idx = np.arange(OBSERVED)[:, None] + np.arange(1, HORIZON + 1)[None, :]  # (40, 10)
    return as_tensor(y[:, :OBSERVED, None]), as_tensor(y[:, idx])  # (N, 40, 1), (N, 40, 10)


def naive_baselines(y: np.ndarray) -> dict[str, float]:
    """MSE over the 10 future values of predicting 0, and of repeating the last observed value."""
    future = y[:, OBSERVED:]  # (N, 10)
    return {"zero": float((future ** 2).mean()),
            "last value": float(((future - y[:, OBSERVED - 1: OBSERVED]) ** 2).mean())}


# ------------------------------------------------------------------ the tutorial's task
def bayes_mean(x: np.ndarray, freqs: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """E_f[sin(f·x)] for every entry of x, averaged over the sampled frequencies `freqs` (K,)."""
    flat = x.reshape(-1)  # (M,)
    out = np.empty_like(flat)  # (M,)
    for i in range(0, len(flat), chunk):
        out[i: i + chunk] = np.sin(flat[i: i + chunk, None] * freqs[None, :]).mean(axis=1)  # (chunk,)
    return out.reshape(x.shape)


def bayes_floor(rng: np.random.Generator, n_points: int = 20000, n_freq: int = 512) -> tuple[float, float]:
    """σ² + E_x[Var_f sin(f·x)] by Monte-Carlo, with its standard error.

    Each sample point is an independent (start, position) pair; for each, n_freq frequencies
    give an unbiased estimate of Var_f sin(f·x)."""
    x = rng.uniform(0, 2 * math.pi, n_points) + STEP * rng.integers(0, SEQ_LEN, n_points)  # (P,)
    f = rng.uniform(FREQ_LOW, FREQ_HIGH, (n_points, n_freq))  # (P, K)
    var = np.sin(f * x[:, None]).var(axis=1, ddof=1)  # (P,)
    return NOISE ** 2 + float(var.mean()), float(var.std(ddof=1) / math.sqrt(n_points))


def tutorial_reference(val: SineSet, rng: np.random.Generator, n_freq: int = 2048) -> dict[str, float]:
    """What the model's validation MSE should be compared with, for the tutorial's task."""
    floor, se = bayes_floor(rng)
    freqs = rng.uniform(FREQ_LOW, FREQ_HIGH, n_freq)  # (K,)
    best = bayes_mean(val.x, freqs)  # (N, 50): the Bayes predictor on the validation inputs
    return {"floor": floor, "floor_se": se,
            "bayes_on_val": float(((val.y - best) ** 2).mean()),
            "zero_on_val": float((val.y ** 2).mean())}

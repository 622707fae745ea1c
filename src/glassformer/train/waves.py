"""The third tutorial's data: noisy sine waves with a random start and a random frequency,
generated on the fly (nothing to download), as a batch source the trainer can use.

    x = linspace(start, start + 2π, 50),  y = sin(freq · x) + N(0, 0.01²)
    start ~ U(0, 2π),  freq ~ U(0.5, 2)                                  (seed 004, §5.1)

Two framings of the same waves:
    tutorial   read the 50 x values, predict the 50 y values (the tutorial's; ill-posed: freq is
               never shown, so the error has a floor far above 0 — lessons/sine_data.py computes it)
    forecast   read the first 40 noisy y values, predict the next 10 at every position (causal)

`wave_source(spec, ...)` turns the source names "sine" (tutorial framing) and "sine:forecast"
into train/val tensors for `train --preset sine`; the sine lesson uses the same generator.
"""

from __future__ import annotations

import hashlib
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


FRAMINGS = {"sine": "tutorial", "sine:forecast": "forecast"}
DATA_SEED = 0  # the waves of a `sine` run are the same whatever the training seed


def wave_tensors(source: str, n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n sequences of a framing as (inputs, targets): tutorial (N, 50, 1) -> (N, 50, 1);
    forecast (N, 40, 1) -> (N, 40, 10)."""
    s = make(n, rng)
    if FRAMINGS[source] == "forecast":
        return forecast_windows(s.y)
    return as_tensor(s.x)[..., None], as_tensor(s.y)[..., None]  # (N, 50, 1) each


@dataclass
class WaveData:
    """A generated numeric dataset: what a regressor run trains and evaluates on."""

    source: str
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor
    tokenizer = None  # numbers need no tokenizer

    @property
    def identity(self) -> dict[str, str]:
        """What config.json records so a resumed run can check it sees the same data."""
        h = hashlib.sha256()
        for t in (self.x_train, self.y_train, self.x_val, self.y_val):
            h.update(t.numpy().tobytes())
        return {"data_sha256": h.hexdigest()}


def wave_source(source: str) -> WaveData:
    if source not in FRAMINGS:
        raise ValueError(f"unknown numeric source {source!r}; choose one of {sorted(FRAMINGS)}.")
    rng = np.random.default_rng(DATA_SEED)
    x, y = wave_tensors(source, N_TRAIN, rng)
    xv, yv = wave_tensors(source, N_VAL, rng)
    return WaveData(source, x, y, xv, yv)

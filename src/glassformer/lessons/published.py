"""Figures printed in the tutorials, kept only to be compared with what glassformer computes.

This is the one place a number from a tutorial may appear. Each constant says where it was
printed; none is ever used as a result. The lessons recompute every value and print where the
published one differs (and, where the arithmetic lets us tell, why).
"""

from __future__ import annotations

# --- seed 004 (NumPy attention by hand), §2.2 "QKV ..." and §2.3 "Scaled Dot-Product Attention".
# name -> (rows as printed, decimals printed). Rows are apple, banana, orange.
PUBLISHED_FRUIT = {
    "Q": ([[6, 4], [8, 1], [5, 7]], 0),
    "K": ([[5, 1], [4.5, 3.5], [6, 1]], 1),
    "V": ([[10, -2], [9, 7], [12, 2]], 0),
    "Q·Kᵀ": ([[41, 38.5, 40], [36.5, 32.5, 37], [37, 38.5, 37]], 1),
    "scaled": ([[29.0, 27.2, 28.3], [25.8, 23.0, 26.2], [26.2, 27.2, 26.2]], 1),
    "weights": ([[0.58, 0.12, 0.30], [0.38, 0.07, 0.55], [0.28, 0.44, 0.28]], 2),
    "output": ([[10.06, -0.38], [10.93, 0.33], [10.36, 2.52]], 2),
}

# --- seed 002 (one-layer word model), §4.2: the parameter count its print statement shows.
PUBLISHED_PARAM_COUNT = 183220

# --- seed 002, §4.1: its hand-written vocabulary, exactly as listed (note "you" appears twice).
TUTORIAL_VOCAB = (
    "<PAD>",
    "<UNK>",
    "<BOS>",
    "<EOS>",
    "hello",
    "world",
    "how",
    "are",
    "you",
    "today",
    "fine",
    "thank",
    "you",
    "very",
    "much",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
)

# --- seed 004, §5.3: its optimiser and LambdaLR settings (base lr and the warmup in steps).
TUTORIAL_BASE_LR = 1e-3
TUTORIAL_WARMUP = 4000

# --- seed 000 (char-level TinyTransformer), §2.2: the text it trains on (its whole corpus).
TUTORIAL_000_TEXT = "hello world this is a tiny transformer demo"

# --- seed 000, §6.3: "this model of about 50 thousand parameters" (5 万参数级别), an estimate.
PUBLISHED_000_PARAMS = 50_000

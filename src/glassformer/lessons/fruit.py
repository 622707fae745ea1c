"""Lesson 1 — attention by hand, in NumPy, on three fruits.

Three words, each described by two numbers (sweetness, sourness), and three hand-picked 2×2
projections. Every step of single-head attention is written out in NumPy with its shape,

    Q = E·W_Q   K = E·W_K   V = E·W_V                  (row vectors: a word is a row of E)
    S = Q·Kᵀ    A = S / √d_k    W = softmax_rows(A)    out = W·V      (Vaswani et al. 2017, eq. 1)

then checked against glassformer's PyTorch attention and its NumPy twin, and compared with the
figures seed 004 printed for the same example. Two more walkthroughs follow: the multi-head
reshapes (fruit_heads.py) and the sinusoidal position table (fruit_positions.py).

Run it:  glassformer lesson fruit [--lang zh] [--explain] [--out DIR]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.lessons import fruit_heads, fruit_positions
from glassformer.lessons.common import Narrator, fmt, matrix_lines, out_dir, save_png
from glassformer.lessons.published import PUBLISHED_FRUIT
from glassformer.nn.attention import scaled_dot_product_attention

WORDS = ("apple", "banana", "orange")
E = np.array([[6.0, 4.0], [8.0, 1.0], [5.0, 7.0]])  # (3, 2): one row per word (sweetness, sourness)
W_Q = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2, 2)
W_K = np.array([[0.5, 0.5], [0.5, -0.5]])  # (2, 2)
W_V = np.array([[1.0, 1.0], [-1.0, 1.0]])  # (2, 2)
PROJECTIONS = {"Q": W_Q, "K": W_K, "V": W_V}


def attention_by_hand(E: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray) -> dict:
    """Every intermediate of one attention head, in order, as plain NumPy arrays."""
    s = {"E": E}
    s["Q"], s["K"], s["V"] = E @ W_Q, E @ W_K, E @ W_V  # 3 × (3, 2)
    s["Q·Kᵀ"] = s["Q"] @ s["K"].T  # (3, 3): row i = how well word i's query matches each key
    d_k = s["K"].shape[1]
    s["scaled"] = s["Q·Kᵀ"] / np.sqrt(d_k)  # (3, 3)
    s["exp"] = np.exp(s["scaled"])  # (3, 3): softmax numerators
    s["row sums"] = s["exp"].sum(axis=1)  # (3,): softmax denominators
    s["weights"] = s["exp"] / s["row sums"][:, None]  # (3, 3): each row sums to 1
    s["output"] = s["weights"] @ s["V"]  # (3, 2): a weighted mix of the value rows
    return s


def print_steps(nar: Narrator, s: dict) -> None:
    nar.title("fruit.title.by_hand")
    nar.why("fruit.why.embed")
    for line in matrix_lines("E", s["E"], WORDS, 1):
        nar.show(line)
    for name, W in PROJECTIONS.items():
        nar.why(f"fruit.why.{name}")
        for line in matrix_lines(f"{name} = E·W_{name}   (3, 2)·(2, 2) →", s[name], WORDS, 1):
            nar.show(line)
    nar.why("fruit.why.scores")
    for line in matrix_lines("Q·Kᵀ   (3, 2)·(2, 3) →", s["Q·Kᵀ"], WORDS, 1):
        nar.show(line)
    nar.why("fruit.why.scale", d_k=s["K"].shape[1], root=fmt(np.sqrt(s["K"].shape[1])))
    for line in matrix_lines(f"Q·Kᵀ / √{s['K'].shape[1]}", s["scaled"], WORDS, 3):
        nar.show(line)
    nar.why("fruit.why.softmax")
    for i, w in enumerate(WORDS):
        nar.show(f"  {w:<7} exp = {fmt(s['exp'][i], 4, sci=True)}   sum = {fmt(s['row sums'][i], 4, sci=True)}")
    shifted = np.exp(s["scaled"] - s["scaled"].max(axis=1, keepdims=True))  # (3, 3)
    same = np.abs(shifted / shifted.sum(axis=1, keepdims=True) - s["weights"]).max()  # ()
    nar.say("fruit.say.shift", diff=f"{same:.1e}")
    for line in matrix_lines("weights = exp / row sum", s["weights"], WORDS, 4):
        nar.show(line)
    nar.why("fruit.why.output")
    for line in matrix_lines("output = weights·V   (3, 3)·(3, 2) →", s["output"], WORDS, 4):
        nar.show(line)
    for i, w in enumerate(WORDS):
        j = int(s["weights"][i].argmax())
        nar.say("fruit.say.attends", word=w, other=WORDS[j], weight=f"{s['weights'][i, j]:.4f}")


def check_against_library(nar: Narrator, s: dict) -> dict:
    """The same attention through glassformer's PyTorch function and its NumPy twin."""
    nar.title("fruit.title.library")
    q, k, v = (torch.tensor(s[n], dtype=torch.float64) for n in "QKV")  # 3 × (3, 2)
    out_t, w_t = scaled_dot_product_attention(q, k, v)  # (3, 2), (3, 3)
    out_n, w_n = numpy_ref.scaled_dot_product_attention(s["Q"], s["K"], s["V"])  # (3, 2), (3, 3)
    diffs = {
        "torch": max(np.abs(out_t.numpy() - s["output"]).max(), np.abs(w_t.numpy() - s["weights"]).max()),
        "numpy_ref": max(np.abs(out_n - s["output"]).max(), np.abs(w_n - s["weights"]).max()),
    }
    nar.show("glassformer.nn.attention.scaled_dot_product_attention (float64):")
    nar.say("fruit.say.maxdiff", diff=f"{diffs['torch']:.2e}")
    nar.show("glassformer.numpy_ref.scaled_dot_product_attention:")
    nar.say("fruit.say.maxdiff", diff=f"{diffs['numpy_ref']:.2e}")
    return diffs


def save_heatmap(weights: np.ndarray, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.2, 3.6), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(3), WORDS)
    ax.set_yticks(range(3), WORDS)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    for i in range(3):
        for j in range(3):
            ax.text(
                j,
                i,
                f"{weights[i, j]:.3f}",
                ha="center",
                va="center",
                color="white" if weights[i, j] < 0.6 else "black",
            )
    fig.colorbar(im, ax=ax)
    ax.set_title("softmax(Q·Kᵀ/√2)")
    return save_png(fig, path)


def run(lang: str = "en", explain: bool = False, out: str | Path | None = None, echo=print) -> dict:
    """Print the whole lesson; return every computed value (tests read them)."""
    from glassformer.lessons import fruit_published

    nar = Narrator(lang, explain, echo)
    folder = out_dir("fruit", out)
    steps = attention_by_hand(E, W_Q, W_K, W_V)
    print_steps(nar, steps)
    diffs = check_against_library(nar, steps)
    verdicts = fruit_published.compare(nar, steps, PUBLISHED_FRUIT, PROJECTIONS, WORDS)
    heads = fruit_heads.run(nar)
    positions = fruit_positions.run(nar)
    files = [
        save_heatmap(steps["weights"], folder / "fruit_attention.png"),
        fruit_positions.save_table(positions["table"], folder / "positions.png"),
    ]
    nar.title("common.title.files")
    for f in files:
        nar.show(f"  {f}")
    return {
        "steps": steps,
        "library_diff": diffs,
        "published": verdicts,
        "heads": heads,
        "positions": positions,
        "files": files,
    }

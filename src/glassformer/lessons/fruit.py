"""Lesson 1 — attention by hand, in NumPy, on three fruits (seed 004, §2-3).

Three words, each described by two numbers (sweetness, sourness), and three hand-picked 2×2
projections. Every step of single-head attention is written out in NumPy with its shape,

    Q = E·W_Q   K = E·W_K   V = E·W_V                  (row vectors: a word is a row of E)
    S = Q·Kᵀ    A = S / √d_k    W = softmax_rows(A)    out = W·V      (Vaswani et al. 2017, eq. 1)

then checked against glassformer's PyTorch attention and its NumPy twin, and compared with the
figures seed 004 printed for the same example. The file reads in the lesson's order:

    1 attention by hand                  attention_by_hand, print_steps
    2 the same numbers from glassformer  check_against_library
    3 the tutorial's printed figures     compare_with_published: where they differ, and why
    4 the multi-head reshapes            multi_head_shapes
    5 the sinusoidal position table      sinusoidal_positions: which of its properties hold
    run                                  the whole lesson, and its two PNGs

Run it:  glassformer lesson fruit [--lang zh] [--explain] [--out DIR]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from glassformer import numpy_ref
from glassformer.lessons.common import Narrator, fmt, out_dir, save_png
from glassformer.messages import N_, columns, pad
from glassformer.nn.attention import MultiHeadAttention, scaled_dot_product_attention
from glassformer.nn.hooks import HookedModel
from glassformer.nn.position import sinusoidal_table
from glassformer.numpy_ref import softmax

# --- the tutorial's figures (seed 004), kept only to be compared with what the lesson computes
# Printed in seed 004 (NumPy attention by hand), §2.2 "QKV ..." and §2.3 "Scaled Dot-Product Attention".
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

WORDS = ("apple", "banana", "orange")
E = np.array([[6.0, 4.0], [8.0, 1.0], [5.0, 7.0]])  # (3, 2): one row per word (sweetness, sourness)
W_Q = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2, 2)
W_K = np.array([[0.5, 0.5], [0.5, -0.5]])  # (2, 2)
W_V = np.array([[1.0, 1.0], [-1.0, 1.0]])  # (2, 2)
PROJECTIONS = {"Q": W_Q, "K": W_K, "V": W_V}
WHY = {
    "Q": N_("Queries say what each word is looking for: Q = E·W_Q."),
    "K": N_("Keys say what each word offers to be found by: K = E·W_K."),
    "V": N_("Values are what each word hands over once it is attended to: V = E·W_V."),
}  # each one's role


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
    nar.title(N_("1. Attention by hand (NumPy, row vectors: x·W)"))
    nar.why(N_("Each word is a row of two numbers, sweetness and sourness: the embedding matrix E."))
    nar.matrix("E", s["E"], WORDS, 1)
    nar.say(
        "The three projections (hand-picked, 2 × 2), to redo every step below by hand:"
    )  # the three matrices, so every step can be redone by hand
    for name, W in PROJECTIONS.items():
        nar.matrix(f"W_{name}", W, None, 1)
    for name in PROJECTIONS:
        nar.why(WHY[name])
        nar.matrix(f"{name} = E·W_{name}   (3, 2)·(2, 2) →", s[name], WORDS, 1)
    nar.why(N_("Row i of Q·Kᵀ scores word i's query against every key (a dot product per pair)."))
    nar.matrix("Q·Kᵀ   (3, 2)·(2, 3) →", s["Q·Kᵀ"], WORDS, 1)
    nar.why(
        N_("Dividing by √d_k = √{d_k} ≈ {root} keeps the scores from growing with the width of the keys."),
        d_k=s["K"].shape[1],
        root=fmt(np.sqrt(s["K"].shape[1])),
    )
    nar.matrix(f"Q·Kᵀ / √{s['K'].shape[1]}", s["scaled"], WORDS, 3)
    nar.why(N_("Softmax per row: exponentiate, then divide by the row sum, so each row becomes weights that sum to 1."))
    for i, w in enumerate(WORDS):
        nar.show(f"  {w:<7} exp = {fmt(s['exp'][i], 4, sci=True)}   sum = {fmt(s['row sums'][i], 4, sci=True)}")
    shifted = np.exp(s["scaled"] - s["scaled"].max(axis=1, keepdims=True))  # (3, 3)
    same = np.abs(shifted / shifted.sum(axis=1, keepdims=True) - s["weights"]).max()  # ()
    nar.say(
        "Subtracting each row's maximum before exp (what real code "
        "does to avoid overflow) gives the same weights: max "
        "difference {diff}.",
        diff=f"{same:.1e}",
    )
    nar.matrix(nar.text(N_("weights = exp / row sum")), s["weights"], WORDS, 4)
    nar.why(N_("Each output row is a weighted average of the value rows, with that row's weights."))
    nar.matrix(nar.text(N_("output = weights·V   (3, 3)·(3, 2) →")), s["output"], WORDS, 4)
    for i, w in enumerate(WORDS):
        j = int(s["weights"][i].argmax())
        nar.say(
            "{word} gives its largest weight to {other} ({weight}).",
            word=w,
            other=WORDS[j],
            weight=f"{s['weights'][i, j]:.4f}",
        )


def check_against_library(nar: Narrator, s: dict) -> dict:
    """The same attention through glassformer's PyTorch function and its NumPy twin."""
    nar.title(N_("2. The same numbers from glassformer"))
    q, k, v = (torch.tensor(s[n], dtype=torch.float64) for n in "QKV")  # 3 × (3, 2)
    out_t, w_t = scaled_dot_product_attention(q, k, v)  # (3, 2), (3, 3)
    out_n, w_n = numpy_ref.scaled_dot_product_attention(s["Q"], s["K"], s["V"])  # (3, 2), (3, 3)
    diffs = {
        "torch": max(np.abs(out_t.numpy() - s["output"]).max(), np.abs(w_t.numpy() - s["weights"]).max()),
        "numpy_ref": max(np.abs(out_n - s["output"]).max(), np.abs(w_n - s["weights"]).max()),
    }
    nar.show("glassformer.nn.attention.scaled_dot_product_attention (float64):")
    nar.say("  largest difference from the hand computation: {diff}", diff=f"{diffs['torch']:.2e}")
    nar.show("glassformer.numpy_ref.scaled_dot_product_attention:")
    nar.say("  largest difference from the hand computation: {diff}", diff=f"{diffs['numpy_ref']:.2e}")
    return diffs


def save_heatmap(nar: Narrator, weights: np.ndarray, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.2, 3.6), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(3), WORDS)
    ax.set_yticks(range(3), WORDS)
    ax.set_xlabel(nar.text(N_("key")))
    ax.set_ylabel(nar.text(N_("query")))
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
    ax.set_title(nar.text(N_("softmax(Q·Kᵀ/√{d})"), d=W_K.shape[1]))  # √d_k: the keys' width
    return save_png(fig, path)


# --- 3. the tutorial's printed figures ---------------------------------------------------------------
# For every step the published matrix is compared with ours, row by row (a row agrees when every
# entry is within half a unit of the last digit the tutorial printed). A wrong row is then
# diagnosed, by computation only:
#
# * a projection (Q, K, V): is it x·Wᵀ instead of x·W — the column-vector convention W·x applied
#   to a row vector? If neither convention gives it, it is an arithmetic slip.
# * a later step: recompute it from the tutorial's *own* previous figures. If that reproduces the
#   published value (allowing for the rounding of those figures), the error was inherited from an
#   earlier step; otherwise the step itself adds a new error.


def _chain(d_k: int) -> dict:
    """step -> (how it is computed from earlier steps, which earlier steps it needs)."""
    return {
        "Q·Kᵀ": (lambda P: P["Q"] @ P["K"].T, ("Q", "K")),
        "scaled": (lambda P: P["Q·Kᵀ"] / np.sqrt(d_k), ("Q·Kᵀ",)),
        "weights": (lambda P: softmax(P["scaled"]), ("scaled",)),
        "output": (lambda P: P["weights"] @ P["V"], ("weights", "V")),
    }


def half_unit(decimals: int) -> float:
    return 0.5 * 10.0**-decimals + 1e-9


def rounding_band(fn, inputs: dict, decimals: dict, rng: np.random.Generator, n: int = 512):
    """The range fn takes when each published input moves within its own rounding: sampled, half
    of the samples inside the rounding box and half on its corners (where extremes usually sit)."""
    samples = []
    for i in range(n):
        P = {}
        for k, v in inputs.items():
            u = rng.choice([-1.0, 1.0], v.shape) if i % 2 == 0 else rng.uniform(-1, 1, v.shape)
            P[k] = v + u * half_unit(decimals[k])  # same shape as v
        samples.append(fn(P))
    samples = np.stack(samples)  # (n, ...)
    return samples.min(axis=0), samples.max(axis=0)


def compare_with_published(nar: Narrator, steps: dict, published: dict, projections: dict, words) -> dict:
    """Print the comparison; return {step: verdict dict} with the computed evidence."""
    nar.title(N_("3. The tutorial's printed figures (seed 004) against the computed ones"))
    nar.why(N_("A published row counts as agreeing when every entry is within half a unit of the last digit printed."))
    pub = {k: np.array(v, dtype=np.float64) for k, (v, _) in published.items()}  # (3, 2) or (3, 3) each
    dec = {k: d for k, (_, d) in published.items()}
    chain, rng = _chain(steps["K"].shape[1]), np.random.default_rng(0)
    verdicts = {}
    for name in published:
        true, tol = steps[name], half_unit(dec[name])
        wrong = [i for i in range(len(true)) if np.abs(pub[name][i] - true[i]).max() > tol]
        v = {
            "published": pub[name],
            "true": true,
            "wrong_rows": [words[i] for i in wrong],
            "max_diff": float(np.abs(pub[name] - true).max()),
        }
        if not wrong:
            nar.say(
                "{name}: agrees with the computation (largest difference {diff}).",
                name=name,
                diff=fmt(v["max_diff"], 3),
            )
        if name in projections:
            transposed = steps["E"] @ projections[name].T  # (3, d): what x·Wᵀ gives
            v["transposed_rows"] = [words[i] for i in wrong if np.abs(pub[name][i] - transposed[i]).max() <= tol]
        for i in wrong:
            nar.say(
                "{name}[{word}]: the tutorial prints {published}; the computation gives {true}.",
                name=name,
                word=words[i],
                published=fmt(pub[name][i], dec[name]),
                true=fmt(true[i], max(dec[name], 1)),
            )
            if name in projections:
                key = (
                    N_(
                        "  why: x·W_{name}ᵀ gives exactly {value}: for {word} the "
                        "tutorial multiplied by the transposed matrix (the "
                        "column-vector habit W·x)."
                    )
                    if words[i] in v["transposed_rows"]
                    else N_(
                        "  why: neither x·W_{name} nor x·W_{name}ᵀ gives the printed "
                        "row (x·W_{name}ᵀ = {value}): an arithmetic slip."
                    )
                )
                nar.say(key, name=name, word=words[i], value=fmt(transposed[i], 1))
        if wrong and name in chain:
            fn, needs = chain[name]
            own = fn({k: pub[k] for k in needs})  # from the tutorial's own previous figures
            lo, hi = rounding_band(fn, {k: pub[k] for k in needs}, dec, rng)
            inherited = bool(np.all((pub[name] >= lo - tol) & (pub[name] <= hi + tol)))
            v.update(from_own_inputs=own, inherited=inherited)
            nar.say(
                N_(
                    "  why: recomputing {name} from the tutorial's own {inputs} "
                    "reproduces it, so the error comes from an earlier step."
                )
                if inherited
                else N_(
                    "  why: even from the tutorial's own {inputs}, {name} comes "
                    "out differently, so this step adds an error of its own:"
                ),
                name=name,
                inputs=", ".join(needs),
            )
            if not inherited:
                label = nar.text(
                    N_("  {name} recomputed from the tutorial's own {inputs}"), name=name, inputs=", ".join(needs)
                )
                nar.matrix(label, own, words, 3)
        verdicts[name] = v
    n_ok = sum(not v["wrong_rows"] for v in verdicts.values())
    nar.say("{ok} of {total} printed steps agree with the computation.", ok=n_ok, total=len(verdicts))
    own_top = [words[int(r.argmax())] for r in pub["weights"]]  # (3,) the tutorial's favourites
    true_top = [words[int(r.argmax())] for r in steps["weights"]]
    for w, a, b in zip(words, own_top, true_top, strict=False):
        if a != b:
            nar.say(
                "The tutorial has {word} attending mostly to {published}; the computed weights put most on {true}.",
                word=w,
                published=a,
                true=b,
            )
    return verdicts


# --- 4. the multi-head reshapes ----------------------------------------------------------------------
# d_model = 8 split into 2 heads of d_k = 4. One Linear makes the queries of *all* heads at
# once; a view cuts the 8 features into (2 heads × 4), a transpose puts the head axis in front so
# each head attends on its own, and the reverse transpose + reshape puts the heads side by side
# again. The walkthrough repeats each step of MultiHeadAttention by hand and checks it against
# the library's own hook points (blocks' names: attn.q, attn.scores, attn.z, attn.out).


D_MODEL, N_HEADS, T = 8, 2, 3  # the multi-head walkthrough: 2 heads of d_k = 4, 3 words


class OneAttention(HookedModel):
    """The smallest model with named hook points around one MultiHeadAttention."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.name_hook_points()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x)  # (B, T, C)


def multi_head_shapes(nar: Narrator, seed: int = 0) -> dict:
    """Print the walkthrough; return {step: shape} and whether each hand step matched the library."""
    nar.title(
        N_("4. Multi-head reshapes: d_model = {d_model}, {heads} heads, d_k = {d_k}"),
        d_model=D_MODEL,
        heads=N_HEADS,
        d_k=D_MODEL // N_HEADS,
    )
    torch.manual_seed(seed)
    model = OneAttention(D_MODEL, N_HEADS).eval()
    attn = model.attn
    x = torch.randn(1, T, D_MODEL)  # (B, T, C): one sentence of three 8-wide words
    with torch.no_grad():
        _, cache = model.run_with_cache(x)
        B, H, D = 1, attn.n_heads, attn.d_head
        # 1) one projection for all heads (the fused layout makes q, k, v side by side)
        qkv = attn.qkv(x)  # (B, T, 3C)
        q_proj = qkv.split(D_MODEL, dim=-1)[0]  # (B, T, C)
        # 2) cut the features into heads, 3) move the head axis in front of the sequence axis
        q_view = q_proj.view(B, T, H, D)  # (B, T, H, D)
        q_heads = q_view.transpose(1, 2)  # (B, H, T, D)
        # 4) scores and weights per head (read from the library's hook points)
        scores, weights, z = cache["attn.scores"], cache["attn.weights"], cache["attn.z"]
        # 5) merge: heads back beside each other, then the output projection
        z_t = z.transpose(1, 2)  # (B, T, H, D)
        merged = z_t.reshape(B, T, H * D)  # (B, T, C)
        out = attn.proj(merged)  # (B, T, C)
    shapes = {
        nar.text(N_("input x")): x.shape,
        nar.text(N_("x·W_Q (one Linear for all heads)")): q_proj.shape,
        f"view(B, T, {H}, {D})": q_view.shape,
        "transpose(1, 2)": q_heads.shape,
        nar.text(N_("scores Q·Kᵀ/√d_k")): scores.shape,
        nar.text(N_("softmax weights")): weights.shape,
        nar.text(N_("weights·V (z)")): z.shape,
        "z.transpose(1, 2)": z_t.shape,
        f"reshape(B, T, {H}·{D})": merged.shape,
        nar.text(N_("output projection")): out.shape,
    }
    nar.why(
        N_(
            "One Linear makes every head's queries at once; view and "
            "transpose only relabel those numbers so each head gets its "
            "own (T, d_k) block."
        )
    )
    width = max(map(columns, shapes))
    for name, shape in shapes.items():
        nar.show(f"  {pad(name, width)}  {tuple(shape)}")
    checks = {
        "transpose(1, 2) == cache['attn.q']": torch.equal(q_heads, cache["attn.q"]),
        "proj(merged) == cache['attn.out']": torch.allclose(out, cache["attn.out"], atol=1e-6),
    }
    for name, ok in checks.items():
        nar.show(f"  {name}: {ok}")
    nar.say(
        "{heads} heads × {T} queries, each row of weights sums to 1: {sums}",
        heads=H,
        T=T,
        sums=fmt(weights.sum(-1).flatten(), 6),
    )
    return {"shapes": {k: tuple(v) for k, v in shapes.items()}, "checks": checks}


# --- 5. sinusoidal positions -------------------------------------------------------------------------
# PE[p, 2i] = sin(p·ω_i),  PE[p, 2i+1] = cos(p·ω_i),  ω_i = 1 / 10000^(2i/d)   (Vaswani §3.5)
#
# Each pair (sin, cos) is a point on a unit circle at angle p·ω_i. Two facts follow:
#   1. PE[p]·PE[p+k] = Σ_i cos(k·ω_i) depends on the offset k only, not on p;
#   2. PE[p+k] = PE[p]·R_k, where R_k rotates every pair by the angle k·ω_i — one fixed matrix for
#      every p (the paper's reason: a relative offset is a linear map of the encoding).
# Seed 004 claims instead that PE[0] − PE[5] ≈ PE[2] − PE[7]. The differences have the same
# length (that follows from fact 1), but they point in different directions: PE[2] − PE[7] is
# PE[0] − PE[5] rotated by R_2. The lesson prints both and the distance between them.


N_POS, D = 10, 8  # the position table: 10 positions × 8 features


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


def sinusoidal_positions(nar: Narrator) -> dict:
    nar.title(N_("5. Sinusoidal positions: {n} positions × {d} features"), n=N_POS, d=D)
    pe = sinusoidal_table(N_POS, D, dtype=torch.float64).numpy()  # (10, 8)
    nar.matrix("PE", pe, [f"p={p}" for p in range(N_POS)], 3)
    omegas = frequencies(pe)  # (4,)
    nar.say("Frequencies ω_i read back from row p = 1 of the table: {omegas}", omegas=fmt(omegas, 5))

    # 1) dot products depend on the offset only
    nar.why(
        N_(
            "Each (sin, cos) pair is a point on a circle at angle p·ω_i, "
            "so a dot product only sees the angle between two positions."
        )
    )
    P, K = 5, 5  # rows p = 0..4, offsets k = 0..4 (p + k stays inside the 10 positions)
    dots = np.array([[pe[p] @ pe[p + k] for k in range(K)] for p in range(P)])  # (P, K)
    nar.matrix(nar.text(N_("PE[p]·PE[p+k]   rows p, columns k")), dots, [f"p={p}" for p in range(P)], 4)
    theory = np.array([np.cos(k * omegas).sum() for k in range(K)])  # (K,) Σ cos(k·ω_i)
    spread = float((dots.max(axis=0) - dots.min(axis=0)).max())
    nar.say(
        "Down every column the dot product is the same (largest spread {spread}); Σ_i cos(k·ω_i) predicts {theory}.",
        spread=f"{spread:.1e}",
        theory=fmt(theory, 4),
    )

    # 2) a fixed rotation moves every position k steps along
    k = 3
    R = rotation(k, omegas)  # (8, 8)
    nar.why(
        N_("Moving k positions along turns every circle by k·ω_i: one fixed rotation matrix, whatever the start p.")
    )
    nar.matrix(
        nar.text(N_("R_{k} for ω_0 = {omega} (the first 2×2 block)"), k=k, omega=f"{omegas[0]:.4f}"), R[:2, :2], None, 4
    )
    nar.show(f"  PE[2][:2]·R = {fmt(pe[2, :2] @ R[:2, :2], 4)}   PE[5][:2] = {fmt(pe[5, :2], 4)}")
    rot_err = float(np.abs(pe[: N_POS - k] @ R - pe[k:]).max())  # (N_POS - k, D) -> largest entry
    nar.say(
        "PE[p]·R_{k} equals PE[p+{k}] for all {n} starting positions (largest error {err}).",
        k=k,
        err=f"{rot_err:.1e}",
        n=N_POS - k,
    )

    # 3) the tutorial's claim
    nar.why(
        N_(
            "The tutorial says the difference of two positions depends "
            "only on their distance; here are two pairs 5 apart."
        )
    )
    d05, d27 = pe[0] - pe[5], pe[2] - pe[7]  # (8,) each
    gap = float(np.linalg.norm(d05 - d27))
    nar.show(f"  PE[0] − PE[5] = {fmt(d05, 4)}")
    nar.show(f"  PE[2] − PE[7] = {fmt(d27, 4)}")
    lengths = (float(np.linalg.norm(d05)), float(np.linalg.norm(d27)))
    rotated_err = float(np.abs(d05 @ rotation(2, omegas) - d27).max())  # (8,) -> largest entry
    nar.say(
        "The two differences are {gap} apart, {ratio} of their "
        "length ({len1} and {len2}): they have equal length but "
        "point in different directions. What holds is that PE[2] − "
        "PE[7] = (PE[0] − PE[5])·R_2 (largest error {err}).",
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


def save_position_table(nar: Narrator, pe: np.ndarray, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.8, 4.0), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(pe, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel(nar.text(N_("feature (even: sin, odd: cos)")))
    ax.set_ylabel(nar.text(N_("position p")))
    ax.set_title(
        nar.text(
            N_("sinusoidal PE, {positions} positions × {features} features"),
            positions=pe.shape[0],
            features=pe.shape[1],
        )
    )
    fig.colorbar(im, ax=ax)
    return save_png(fig, path)


def run(lang: str | None = None, explain: bool = False, out: str | Path | None = None, echo=print) -> dict:
    """Print the whole lesson; return every computed value (tests read them)."""
    nar = Narrator(lang, explain, echo)
    folder = out_dir("fruit", out)
    steps = attention_by_hand(E, W_Q, W_K, W_V)
    print_steps(nar, steps)
    diffs = check_against_library(nar, steps)
    verdicts = compare_with_published(nar, steps, PUBLISHED_FRUIT, PROJECTIONS, WORDS)
    heads = multi_head_shapes(nar)
    positions = sinusoidal_positions(nar)
    files = [
        save_heatmap(nar, steps["weights"], folder / "fruit_attention.png"),
        save_position_table(nar, positions["table"], folder / "positions.png"),
    ]
    nar.title(N_("Files written"))
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

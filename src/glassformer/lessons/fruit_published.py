"""Lesson 1, part 1b — where the tutorial's printed figures differ from the computed ones, and why.

For every step the published matrix is compared with ours, row by row (a row agrees when every
entry is within half a unit of the last digit the tutorial printed). A wrong row is then
diagnosed, by computation only:

* a projection (Q, K, V): is it x·Wᵀ instead of x·W — the column-vector convention W·x applied
  to a row vector? If neither convention gives it, it is an arithmetic slip.
* a later step: recompute it from the tutorial's *own* previous figures. If that reproduces the
  published value (allowing for the rounding of those figures), the error was inherited from an
  earlier step; otherwise the step itself adds a new error.
"""

from __future__ import annotations

import numpy as np

from glassformer.lessons.common import Narrator, fmt, matrix_lines
from glassformer.numpy_ref import softmax


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


def compare(nar: Narrator, steps: dict, published: dict, projections: dict, words) -> dict:
    """Print the comparison; return {step: verdict dict} with the computed evidence."""
    nar.title("fruit.title.published")
    nar.why("fruit.why.published")
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
            nar.say("fruit.pub.agrees", name=name, diff=fmt(v["max_diff"], 3))
        if name in projections:
            transposed = steps["E"] @ projections[name].T  # (3, d): what x·Wᵀ gives
            v["transposed_rows"] = [words[i] for i in wrong if np.abs(pub[name][i] - transposed[i]).max() <= tol]
        for i in wrong:
            nar.say(
                "fruit.pub.row",
                name=name,
                word=words[i],
                published=fmt(pub[name][i], dec[name]),
                true=fmt(true[i], max(dec[name], 1)),
            )
            if name in projections:
                key = "fruit.pub.transposed" if words[i] in v["transposed_rows"] else "fruit.pub.slip"
                nar.say(key, name=name, word=words[i], value=fmt(transposed[i], 1))
        if wrong and name in chain:
            fn, needs = chain[name]
            own = fn({k: pub[k] for k in needs})  # from the tutorial's own previous figures
            lo, hi = rounding_band(fn, {k: pub[k] for k in needs}, dec, rng)
            inherited = bool(np.all((pub[name] >= lo - tol) & (pub[name] <= hi + tol)))
            v.update(from_own_inputs=own, inherited=inherited)
            nar.say("fruit.pub.inherited" if inherited else "fruit.pub.new_slip", name=name, inputs=", ".join(needs))
            if not inherited:
                label = nar.text("fruit.pub.own_label", name=name, inputs=", ".join(needs))
                for line in matrix_lines(label, own, words, 3):
                    nar.show(line)
        verdicts[name] = v
    n_ok = sum(not v["wrong_rows"] for v in verdicts.values())
    nar.say("fruit.pub.summary", ok=n_ok, total=len(verdicts))
    own_top = [words[int(r.argmax())] for r in pub["weights"]]  # (3,) the tutorial's favourites
    true_top = [words[int(r.argmax())] for r in steps["weights"]]
    for w, a, b in zip(words, own_top, true_top, strict=False):
        if a != b:
            nar.say("fruit.pub.favourite", word=w, published=a, true=b)
    return verdicts

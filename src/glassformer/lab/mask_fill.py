"""Experiment 6 — what to write into masked attention scores: -inf, -1e9, or the dtype's minimum?

Seed 004 (§3.3) says -1e9 is the safe choice: exp(-1e9) is 0 in float32, while -inf "triggers NaN
on some GPUs". Seed 000 (§3.3) says a -inf score makes its softmax weight "approach" 0. Both are
checked here by computation, in float32, bfloat16 and float16, on two kinds of query rows:

    partly masked   some keys hidden (the causal case): the weights must be softmax over the rest
    fully masked    every key hidden (a padding query in a padding-only row): no softmax exists

"naive" is what the tutorials write: scores.masked_fill(hidden, fill) then softmax. "ours" is
glassformer's attention_scores + attention_weights (nn/attention.py), which fills -inf and gives
a fully masked row all-zero weights. The reference is float64 softmax over the visible keys
(zeros for a fully masked row). Nothing trains: this runs in well under a second.
"""

from __future__ import annotations

import math

import torch

from glassformer.lab.runner import Claim, Experiment, Verdict, level, new_figure
from glassformer.messages import N_, NP_, t
from glassformer.nn.attention import attention_scores, attention_weights

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
FILLS = ("-inf", "-1e9", "dtype min")
ROWS = ("partly", "fully")
T, D, N = 8, 16, 64  # keys per row, width of q and k, query rows per case


def fill_value(name: str, dtype: torch.dtype) -> float:
    return {"-inf": -math.inf, "-1e9": -1e9, "dtype min": torch.finfo(dtype).min}[name]


def case_inputs(seed: int = 0):
    """q (N, D), k (T, D) and the two masks (N, T): True = may attend."""
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(N, D, generator=g, dtype=torch.float64), torch.randn(T, D, generator=g, dtype=torch.float64)
    partly = torch.ones(N, T, dtype=torch.bool)
    partly[:, T // 2 :] = False  # the last half of the keys hidden
    fully = torch.zeros(N, T, dtype=torch.bool)
    return q, k, {"partly": partly, "fully": fully}


def reference(q, k, mask) -> torch.Tensor:
    """float64 softmax over the visible keys; an all-hidden row gets zeros (no key to attend)."""
    s = (q @ k.T / math.sqrt(D)).masked_fill(~mask, -math.inf)  # (N, T)
    live = mask.any(-1, keepdim=True)  # (N, 1)
    return torch.softmax(s.masked_fill(~live, 0.0), -1).masked_fill(~live, 0.0)  # (N, T)


def naive(q, k, mask, fill: float) -> tuple[torch.Tensor, str]:
    """The tutorials' recipe in q's dtype: fill the hidden scores, softmax every row. Returns the
    weights and PyTorch's complaint, if any: masked_fill refuses a Python number the dtype cannot
    hold (-1e9 in float16); the fill is then cast first, as an additive mask would be (to -inf)."""
    s = attention_scores(q, k)  # (N, T), no mask: the fill is the recipe under test
    try:
        return torch.softmax(s.masked_fill(~mask, fill), dim=-1), ""  # (N, T)
    except RuntimeError as e:
        cast = torch.tensor(fill, dtype=torch.float64).to(s.dtype)  # () what the dtype holds
        return torch.softmax(s.masked_fill(~mask, cast), dim=-1), str(e).split("\n")[0]


def ours(q, k, mask) -> torch.Tensor:
    return attention_weights(attention_scores(q, k, mask), mask)  # (N, T)


def measure(w: torch.Tensor, ref: torch.Tensor, mask: torch.Tensor) -> dict:
    w64 = w.double()
    ok = ~torch.isnan(w64)
    return {
        "nan": int(torch.isnan(w64).sum()),
        "hidden_mass": float(w64.masked_fill(mask | ~ok, 0.0).sum(-1).max()),  # weight on hidden keys
        "hidden_nonzero": int((w64[~mask & ok] != 0).sum()),  # hidden weights not exactly 0
        "max_diff": float((w64 - ref).abs()[ok].max()) if ok.any() else math.nan,
    }


def run(ctx) -> dict:
    q64, k64, masks = case_inputs()
    out = {"naive": {}, "ours": {}, "stored_fill": {}, "exp_of_fill_float32": float(torch.exp(torch.tensor(-1e9)))}
    for dname, dtype in DTYPES.items():
        q, k = q64.to(dtype), k64.to(dtype)
        out["ours"][dname] = {r: measure(ours(q, k, masks[r]), reference(q64, k64, masks[r]), masks[r]) for r in ROWS}
        out["naive"][dname] = {}
        out["stored_fill"][dname] = {}
        for fname in FILLS:
            fill = fill_value(fname, dtype)
            stored = float(torch.tensor(fill, dtype=torch.float64).to(dtype))  # what the dtype holds
            out["stored_fill"][dname][fname] = stored if math.isfinite(stored) else "-inf"
            out["naive"][dname][fname] = {}
            for r in ROWS:
                w, refused = naive(q, k, masks[r], fill)
                out["naive"][dname][fname][r] = {
                    **measure(w, reference(q64, k64, masks[r]), masks[r]),
                    "refused": refused,
                }
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(9.5, 3.4, 1, 2)
    fills = (*FILLS, "ours")
    shown = {
        f: t(NP_("pictures.lab.mask-fill.ours", "ours")) if f == "ours" else f for f in fills
    }  # the fills are code
    labels = [f"{d}\n{shown[f]}" for d in DTYPES for f in fills]
    colors = ["tab:gray" if f == "ours" else "tab:red" for d in DTYPES for f in fills]
    for ax, key, title in (
        (axes[0, 0], "nan", t("NaN weights in a fully masked row (fraction)")),
        (axes[0, 1], "hidden_mass", t("weight on hidden keys, fully masked row (max over rows)")),
    ):
        vals = [
            out["naive"][d][f]["fully"][key] if f != "ours" else out["ours"][d]["fully"][key]
            for d in DTYPES
            for f in fills
        ]
        ax.bar(range(len(vals)), [v / (N * T) if key == "nan" else v for v in vals], color=colors)
        ax.set_xticks(range(len(vals)), labels, fontsize=6, rotation=90)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, 1.05)
    ctx.figure(fig, "mask_fill")


def verdicts(r: dict) -> dict:
    n32, nbf, n16 = r["naive"]["float32"], r["naive"]["bfloat16"], r["naive"]["float16"]
    partly_same = all(
        r["naive"][d]["-1e9"]["partly"]["max_diff"] <= r["ours"][d]["partly"]["max_diff"] + 1e-12
        for d in ("float32", "bfloat16")
    )
    nan_1e9 = n32["-1e9"]["fully"]["nan"] + nbf["-1e9"]["fully"]["nan"]
    hidden = max(n32["-1e9"]["fully"]["hidden_mass"], nbf["-1e9"]["fully"]["hidden_mass"])
    ours = [r["ours"][d][row] for d in DTYPES for row in ROWS]
    v004 = Verdict(
        level([partly_same, nan_1e9 == 0, hidden == 0.0, n16["-1e9"]["fully"]["nan"] == 0]),
        {
            "exp": f"{r['exp_of_fill_float32']:g}",
            "nan_inf": n32["-inf"]["fully"]["nan"],
            "cells": N * T,
            "nan_1e9": nan_1e9,
            "hidden": f"{hidden:.3f}",
            "fp16_fill": r["stored_fill"]["float16"]["-1e9"],
            "fp16_nan": n16["-1e9"]["fully"]["nan"],
            "fp16_refused": n16["-1e9"]["fully"]["refused"] or "-",
            "ours_nan": sum(m["nan"] for m in ours),
            "ours_hidden": f"{max(m['hidden_mass'] for m in ours):g}",
        },
    )
    partly = [r["naive"][d]["-inf"]["partly"] for d in DTYPES]
    nonzero = sum(m["hidden_nonzero"] for m in partly)
    nan_partly = sum(m["nan"] for m in partly)
    v000 = Verdict(
        level([nonzero == 0 and nan_partly == 0]),
        {"nonzero": nonzero, "nan_partly": nan_partly, "nan_inf": n32["-inf"]["fully"]["nan"], "cells": N * T},
    )
    return {"mask-fill.1e9": v004, "mask-fill.inf": v000}


def tables(r: dict) -> list[str]:
    lines = [
        "| dtype | fill (as stored) | row | NaN | max weight on hidden keys | max diff vs float64 |",
        "|---|---|---|---|---|---|",
    ]
    for d in DTYPES:
        for f in (*FILLS, "ours"):
            for row in ROWS:
                m = r["ours"][d][row] if f == "ours" else r["naive"][d][f][row]
                stored = "-inf, mask-aware softmax" if f == "ours" else f"{f} ({r['stored_fill'][d][f]})"
                diff = m["max_diff"]  # NaN where no row is live: a float after a run, "nan" as results.json keeps it
                diff = f"{diff:.3g}" if isinstance(diff, float) else str(diff)
                lines.append(f"| {d} | {stored} | {row} | {m['nan']} | {m['hidden_mass']:.4g} | {diff} |")
    return lines


EXPERIMENT = Experiment(
    name="mask-fill",
    title=N_("Mask fill value: -inf, -1e9 or the dtype's minimum"),
    setup=N_(
        "Random queries and keys ({keys} keys, width {width}, {rows} "
        "query rows), attention rows with half the keys hidden "
        "(partly masked) or all of them (fully masked), in float32, "
        "bfloat16 and float16. The tutorials' recipe (fill the "
        "hidden scores, then softmax) against glassformer's "
        "mask-aware softmax; the reference is a float64 softmax over "
        "the visible keys, and zeros for a row that sees nothing."
    ),
    claims=(
        Claim(
            "mask-fill.1e9",
            "004",
            "§3.3",
            claim=N_(
                "Masked scores should be filled with -1e9 rather than -inf: "
                "exp(-1e9) is already 0 in float32, and -inf can produce "
                "NaN, which is why practitioners use -1e9."
            ),
            rule=N_(
                "Holds only if all four are true: on partly masked rows -1e9 "
                "gives the same weights as the mask-aware softmax (float32 "
                "and bfloat16); a fully masked row gives no NaN with -1e9 "
                "(float32 and bfloat16); that row puts no weight on hidden "
                "keys; float16 can use -1e9 without NaN. All false: fails; "
                "otherwise half-true."
            ),
            finding=N_(
                "exp(-1e9) in float32 = {exp}. With -inf, {nan_inf} of "
                "{cells} weights of the fully masked rows are NaN. With -1e9 "
                "in float32 and bfloat16: {nan_1e9} NaN, and a fully masked "
                "row puts up to {hidden} of its weight on keys it must not "
                "see (an even spread). float16 and -1e9: masked_fill answers "
                "“{fp16_refused}”; cast first, -1e9 becomes {fp16_fill} and "
                "gives {fp16_nan} NaN. glassformer's mask-aware softmax: "
                "{ours_nan} NaN in any dtype, {ours_hidden} weight on hidden "
                "keys."
            ),
        ),
        Claim(
            "mask-fill.inf",
            "000",
            "§3.3",
            claim=N_("A -inf score makes the softmax weight of a masked position approach 0."),
            rule=N_(
                "Holds if, on partly masked rows, every hidden weight is "
                "exactly 0 and no weight is NaN, in float32, bfloat16 and "
                "float16."
            ),
            finding=N_(
                "Partly masked rows with -inf, all three dtypes: {nonzero} "
                "hidden weights that are not exactly 0, {nan_partly} NaN. "
                "Fully masked rows with the plain recipe: {nan_inf} NaN out "
                "of {cells}; glassformer's softmax checks the mask and gives "
                "such a row zeros."
            ),
        ),
    ),
    setup_fields={"keys": T, "width": D, "rows": N},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=1,
    seeded=False,  # one computation: no random seed to vary
    budget_s=5,
)

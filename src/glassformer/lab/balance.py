"""Ledger — without a balance loss the router collapses onto a few experts; with one, or with
DeepSeek-V3's selection bias, the load stays near even (Shazeer et al. 2017; Fedus et al. 2022;
DeepSeek-V3, Wang et al. 2024).

A router trained on the language loss alone can favour a few experts: they are chosen, so they learn,
so they are chosen more. Shazeer et al. (arXiv 1701.06538) and Fedus et al.'s Switch Transformer (arXiv
2101.03961) add an auxiliary loss that is smallest when the load is even (nn/moe.py's
load_balancing_loss). DeepSeek-V3 (arXiv 2412.19437) balances without a loss: a per-expert bias added to
the scores only when choosing, moved after each step against the load (Wang et al. 2024, "loss-free
balancing", arXiv 2408.15664; nn/moe.py's balance_step).

Here: the preset baby-moe (8 experts, 2 per token) three ways, the same text, steps and seeds:
softmax routing without the balance loss ("none"), with it ("loss", α as baby-moe's), and sigmoid
routing with the moving bias and no loss ("bias", γ as the config's default, DeepSeek-V3's 0.001).
After training, the load of each expert of each layer over fixed validation windows: its share
of the token slots, the layer's MaxVio ((busiest − mean) / mean: 0 even, E − 1 all on one; Wang et al.)
and the entropy of the shares over ln E (1 even, 0 all on one).

The rules: collapse without the loss when every "none" seed's worst layer has a MaxVio of at least
COLLAPSE (its busiest expert at least twice its even share) and every "none" seed's entropy is below
every "loss" seed's. Near even with the loss and with the bias when every seed's worst layer stays at a
MaxVio of at most NEAR.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from glassformer.config import PRESETS
from glassformer.lab.common import below, corpus_for, eval_loss, fixed_windows, pm, preset_for_lab, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.nn.moe import layer_loads, max_violation

FULL = {"steps": 200, "T": 64}
FAST = {"steps": 8, "T": 32}
PRESET = "baby-moe"
VARIANTS = {  # name -> the preset's changes
    "none": {"moe_aux_loss": 0.0},
    "loss": {},
    "bias": {"moe_rule": "sigmoid", "moe_aux_loss": 0.0},
}
COLLAPSE = 1.0  # MaxVio: the busiest expert holds at least twice its even share
NEAR = 0.5  # MaxVio: the busiest expert holds at most 1.5 times its even share
WINDOWS = 64  # fixed validation windows the load is counted over


@torch.no_grad()
def loads(model, x: torch.Tensor) -> np.ndarray:
    """(L, E): token slots each expert of each layer got over the windows x (n, T)."""
    model.eval()
    model(x)  # (n, T, V)
    counts = layer_loads(model)  # (L, E)
    assert counts is not None  # a model with experts, after a forward
    return counts.numpy()


def balance(counts: np.ndarray) -> dict:
    """Load counts (L, E) -> shares (L, E), each layer's MaxVio (L,) and entropy / ln E (L,)."""
    shares = counts / counts.sum(-1, keepdims=True)  # (L, E)
    entropy = -(shares * np.log(np.where(shares > 0, shares, 1.0))).sum(-1) / math.log(shares.shape[-1])  # (L,)
    return {
        "shares": shares.tolist(),
        "max_violation": max_violation(torch.as_tensor(counts)).tolist(),
        "entropy": entropy.tolist(),
    }


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["T"])
    x, _ = fixed_windows(corpus.val, s["T"], WINDOWS, seed=1)
    out = {"steps": s["steps"], "T": s["T"], "variants": {}}
    for name, changes in VARIANTS.items():
        preset = preset_for_lab(PRESET, seq_len=s["T"], **changes)
        seeds = []
        for seed in range(ctx.seeds):
            ctx.log(f"{name}, seed {seed}")
            fit = train(preset, corpus, seed, s["steps"])
            seeds.append({**balance(loads(fit.model, x)), "val_loss": eval_loss(fit.model, corpus, s["T"])})
        out["variants"][name] = {
            "seeds": seeds,
            "worst": spread([max(v["max_violation"]) for v in seeds]),  # the worst layer's MaxVio
            "entropy": spread([float(np.mean(v["entropy"])) for v in seeds]),  # mean over layers
            "val_loss": spread([v["val_loss"] for v in seeds]),
        }
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    v = out["variants"]
    fig, axes = new_figure(10, 3.2, cols=len(v))
    for ax, (name, x) in zip(axes[0], v.items(), strict=True):
        shares = np.array(x["seeds"][0]["shares"])  # (L, E) the first seed's
        image = ax.imshow(shares, vmin=0, vmax=max(0.5, shares.max()), cmap="viridis", aspect="auto")
        ax.set_title(t("{variant}: MaxVio {worst}", variant=name, worst=pm(x["worst"], 2)), fontsize=8)
        ax.set_xlabel(t("expert"))
        ax.set_ylabel(t("layer"))
    fig.colorbar(image, ax=axes[0, -1], label=t("share of the token slots"))
    ctx.figure(fig, "balance")


def verdicts(r: dict) -> dict:
    v = r["variants"]
    none, loss, bias = v["none"], v["loss"], v["bias"]
    figures = {
        "none": pm(none["worst"], 2),
        "loss": pm(loss["worst"], 2),
        "bias": pm(bias["worst"], 2),
        "h_none": pm(none["entropy"], 2),
        "h_loss": pm(loss["entropy"], 2),
        "h_bias": pm(bias["entropy"], 2),
        "loss_none": pm(none["val_loss"]),
        "loss_loss": pm(loss["val_loss"]),
        "loss_bias": pm(bias["val_loss"]),
        "steps": r["steps"],
    }
    collapse = [
        min(none["worst"]["values"]) >= COLLAPSE,
        below(none["entropy"]["values"], loss["entropy"]["values"]),
    ]
    even = [max(loss["worst"]["values"]) <= NEAR, max(bias["worst"]["values"]) <= NEAR]
    return {"balance.collapse": Verdict(level(collapse), figures), "balance.even": Verdict(level(even), figures)}


def tables(r: dict) -> list[str]:
    lines = [
        "| routing | worst layer's MaxVio | load entropy / ln E | validation loss |",
        "|---|---|---|---|",
    ]
    for name, v in r["variants"].items():
        lines.append(f"| {name} | {pm(v['worst'], 2)} | {pm(v['entropy'], 2)} | {pm(v['val_loss'])} |")
    return [
        *lines,
        "",
        f"baby-moe, {r['steps']} steps of {r['T']} characters; the load counted over {WINDOWS} fixed "
        "validation windows after training. none: softmax, no balance loss; loss: softmax with it; "
        "bias: sigmoid scores, the bias moved after every step, no loss.",
    ]


EXPERIMENT = Experiment(
    name="balance",
    title=N_("Does the router collapse onto a few experts without a balance loss, and stay even with one?"),
    setup=N_(
        "The preset baby-moe ({E} experts, {K} per token) trained three "
        "ways on the same text, steps and seeds: softmax routing "
        "without the balance loss, and with it; sigmoid routing with "
        "the selection bias moved after every step against the load "
        "and no loss (DeepSeek-V3's balancing). "
        "After training, each expert's share of the token slots of "
        "each layer over fixed validation windows, each layer's MaxVio "
        "((busiest − mean) / mean) and the entropy of the shares over "
        "ln E."
    ),
    claims=(
        Claim(
            "balance.collapse",
            "Shazeer et al. 2017; Fedus et al. 2022",
            "the load-balancing loss",
            claim=N_("Trained without a balance loss, the router sends most tokens to a few experts."),
            rule=N_(
                "Two parts: without the balance loss, every seed's worst layer "
                "has a MaxVio of at least {collapse} (its busiest expert at "
                "least twice its even share); and every seed's load entropy is "
                "below every seed's with the loss. Both: holds; one: "
                "half-true; neither: fails."
            ),
            finding=N_(
                "Worst layer's MaxVio without the loss {none}, with it {loss}; "
                "load entropy / ln E {h_none} against {h_loss}; validation "
                "loss {loss_none} against {loss_loss} after {steps} steps."
            ),
            limits={"collapse": figure(COLLAPSE)},
            paper="arXiv 1701.06538; arXiv 2101.03961",
            paper_says=N_(
                "Shazeer et al. and Fedus et al. add an auxiliary loss that "
                "is smallest when the tokens and the router's probability are "
                "spread evenly over the experts (its form as third-party "
                "summaries give it). How unevenly a router trained without "
                "it loads its experts (a figure of the papers): not in the "
                "parts read for this entry (the abstracts and third-party "
                "summaries)."
            ),
            ours=N_("worst layer's MaxVio without the loss {none}, with it {loss}"),
        ),
        Claim(
            "balance.even",
            "Fedus et al. 2022; DeepSeek-AI 2024",
            "the load-balancing loss; V3 §2.1.2",
            claim=N_(
                "With the balance loss, or with DeepSeek-V3's selection bias "
                "and no loss, the experts' load stays near even."
            ),
            rule=N_(
                "Two parts: with the balance loss, every seed's worst layer "
                "has a MaxVio of at most {near}; and with the moving bias, "
                "the same. Both: holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Worst layer's MaxVio: balance loss {loss}, moving bias {bias}; "
                "load entropy / ln E {h_loss} and {h_bias}; validation loss "
                "{loss_loss} and {loss_bias}."
            ),
            limits={"near": figure(NEAR)},
            paper="arXiv 2101.03961; arXiv 2412.19437",
            paper_says=N_(
                "DeepSeek-V3 balances its experts' load with a bias added to "
                "the scores for the choice only, moved after each step, and "
                "no auxiliary loss (its §2.1.2, as nn/moe.py implements it). "
                "The MaxVio or load each method reaches (the papers' "
                "figures): not in the parts read for this entry."
            ),
            ours=N_("worst layer's MaxVio: balance loss {loss}, moving bias {bias}"),
        ),
    ),
    setup_fields={"E": PRESETS[PRESET].model.n_experts, "K": PRESETS[PRESET].model.moe_top_k},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=400,
)

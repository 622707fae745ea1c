"""Experiment 2 — Pre-LN or Post-LN: where does the LayerNorm go, and what does warmup buy?

Seed 000 (§5.2): Post-LN (the 2017 paper's order) is more sensitive to the learning rate and
diverges easily; Pre-LN trains more stably. Seed 004 (§4.1): the LayerNorm *must* come after the
residual addition, the order cannot be reversed. Seed 004 (§5.3): warmup is required; without it
the loss oscillates and diverges.

A learning-rate sweep on small char models (d_model 32, 2 heads, d_ff 64, windows of 32), depths
2, 6 and 12, both orders (models/gpt.py: norm="pre" | "post"; Post-LN stacks without a final norm,
as usual), with and without a linear warmup, constant learning rate otherwise. A run "fails" when
its loss turns non-finite or its final validation loss is no better than knowing the character
frequencies. Also the gradient norm of each block at initialisation, depth 12, on one fixed batch
(Xiong et al. 2020 explain warmup for Post-LN by large gradients near the output at the start).
"""

from __future__ import annotations

import math

import torch

from glassformer.lab.common import below, corpus_for, eval_loss, fixed_windows, lab_preset, pm, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.nn.loss import next_token_loss

FULL = {"depths": (2, 6, 12), "lrs": (1e-3, 3e-3, 1e-2, 3e-2), "warmups": (0, 50), "steps": 200}
FAST = {"depths": (2, 4), "lrs": (1e-3, 1e-2), "warmups": (0, 5), "steps": 15}
SHAPE = {"d_model": 32, "n_heads": 2, "d_ff": 64, "seq_len": 32, "max_len": 32}
NORMS = ("pre", "post")


def preset(norm: str, depth: int, **extra):
    return lab_preset(**SHAPE, n_layers=depth, norm=norm, final_norm=(norm == "pre"), **extra)


def warmup_then_constant(lr: float, warmup: int):
    return lambda step: lr * min(1.0, (step + 1) / (warmup + 1))


def grad_norms_at_init(norm: str, depth: int, corpus, seed: int = 0) -> list[float]:
    """‖∂loss/∂θ‖ of each block's parameters for a fresh model on one fixed batch."""
    torch.manual_seed(seed)
    model = build_model(preset(norm, depth, vocab_size=corpus.vocab_size).model)
    x, y = fixed_windows(corpus.train, SHAPE["seq_len"], 16, seed=5)
    next_token_loss(model(x), y).backward()
    return [math.sqrt(sum(float(p.grad.norm()) ** 2 for p in block.parameters())) for block in model.blocks]


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, SHAPE["seq_len"])
    unigram = corpus.unigram_loss()
    out = {
        "steps": s["steps"],
        "unigram": unigram,
        "sweep": [],
        "depths": list(s["depths"]),
        "lrs": list(s["lrs"]),
        "warmups": list(s["warmups"]),
        "grad_at_init": {n: grad_norms_at_init(n, max(s["depths"]), corpus) for n in NORMS},
    }
    for norm in NORMS:
        for warmup in s["warmups"]:
            for depth in s["depths"]:
                for lr in s["lrs"]:
                    losses = []
                    for seed in range(ctx.seeds):
                        ctx.log(f"{norm}-LN, depth {depth}, lr {lr:g}, warmup {warmup}, seed {seed}")
                        fit = train(
                            preset(norm, depth, lr=lr), corpus, seed, s["steps"], lr_at=warmup_then_constant(lr, warmup)
                        )
                        losses.append(
                            eval_loss(fit.model, corpus, SHAPE["seq_len"]) if fit.status == "done" else math.inf
                        )
                    failed = sum(not (math.isfinite(v) and v < unigram) for v in losses)
                    out["sweep"].append(
                        {
                            "norm": norm,
                            "warmup": warmup,
                            "depth": depth,
                            "lr": lr,
                            "val_loss": spread(losses),
                            "failed": failed,
                        }
                    )
    plot(ctx, out)
    return out


def cell(r: dict, norm: str, warmup: int, depth: int, lr: float) -> dict:
    return next(c for c in r["sweep"] if (c["norm"], c["warmup"], c["depth"], c["lr"]) == (norm, warmup, depth, lr))


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(12, 3.4, 1, len(out["depths"]) + 1)
    for col, depth in enumerate(out["depths"]):
        ax = axes[0, col]
        top = out["unigram"] + 0.3  # failed runs are drawn as crosses on this line
        for norm, color in (("pre", "tab:blue"), ("post", "tab:red")):
            for warmup, style in zip(out["warmups"], ("-", "--"), strict=False):
                cells = [cell(out, norm, warmup, depth, lr) for lr in out["lrs"]]
                ok = [(lr, c["val_loss"]["mean"]) for lr, c in zip(out["lrs"], cells, strict=False) if not c["failed"]]
                bad = [lr for lr, c in zip(out["lrs"], cells, strict=False) if c["failed"]]
                ax.plot(
                    [p[0] for p in ok],
                    [p[1] for p in ok],
                    style,
                    marker="o",
                    color=color,
                    label=t("{norm}-LN, warmup {warmup}", norm=norm, warmup=warmup),
                )
                ax.plot(bad, [top] * len(bad), "x", color=color, ms=8 if warmup else 5)
        ax.axhline(out["unigram"], color="gray", ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(top=out["unigram"] + 0.4)
        ax.set_xlabel(t("learning rate"))
        ax.set_title(t("depth {depth}: validation loss (× = failed)", depth=depth), fontsize=9)
        if col == 0:
            ax.legend(fontsize=6)
    ax = axes[0, -1]
    for norm, color in (("pre", "tab:blue"), ("post", "tab:red")):
        g = out["grad_at_init"][norm]
        ax.semilogy(range(len(g)), g, "o-", color=color, label=t("{norm}-LN", norm=norm))
    ax.set_xlabel(t("block"))
    ax.set_title(t("‖gradient‖ per block at init, depth {depth}", depth=max(out["depths"])), fontsize=9)
    ax.legend(fontsize=7)
    ctx.figure(fig, "layernorm")


def verdicts(r: dict) -> dict:
    w0 = min(r["warmups"])
    fails = {n: sum(c["failed"] > 0 for c in r["sweep"] if c["norm"] == n and c["warmup"] == w0) for n in NORMS}

    def max_stable(norm: str, depth: int) -> float:
        ok = [lr for lr in r["lrs"] if cell(r, norm, w0, depth, lr)["failed"] == 0]
        return max(ok) if ok else 0.0

    def best(norm: str, depth: int) -> dict:  # the learning rate with the lowest mean loss
        return min((cell(r, norm, w0, depth, lr)["val_loss"] for lr in r["lrs"]), key=lambda v: v["mean"])

    steadier = all(max_stable("pre", d) >= max_stable("post", d) for d in r["depths"])
    v000 = Verdict(
        level([fails["post"] > fails["pre"], steadier]),
        {
            "fails_pre": fails["pre"],
            "fails_post": fails["post"],
            "cells": len(r["depths"]) * len(r["lrs"]),
            "stable_pre": ", ".join(f"{max_stable('pre', d):g}" for d in r["depths"]),
            "stable_post": ", ".join(f"{max_stable('post', d):g}" for d in r["depths"]),
            "depths": ", ".join(map(str, r["depths"])),
        },
    )
    post_wins = [below(best("post", d)["values"], best("pre", d)["values"]) for d in r["depths"]]
    v004 = Verdict(
        level(post_wins),
        {
            "best_pre": ", ".join(pm(best("pre", d)) for d in r["depths"]),
            "best_post": ", ".join(pm(best("post", d)) for d in r["depths"]),
            "depths": ", ".join(map(str, r["depths"])),
        },
    )
    w1 = max(r["warmups"])
    rescued = {
        n: sum(
            cell(r, n, w0, d, lr)["failed"] > 0 and cell(r, n, w1, d, lr)["failed"] == 0
            for d in r["depths"]
            for lr in r["lrs"]
        )
        for n in NORMS
    }
    fails_w = {n: sum(c["failed"] > 0 for c in r["sweep"] if c["norm"] == n and c["warmup"] == w1) for n in NORMS}
    v_warm = Verdict(
        level([rescued["pre"] > 0, rescued["post"] > 0]),
        {
            "warmup": w1,
            "rescued_pre": rescued["pre"],
            "rescued_post": rescued["post"],
            "fails_pre": fails["pre"],
            "fails_post": fails["post"],
            "fails_pre_w": fails_w["pre"],
            "fails_post_w": fails_w["post"],
        },
    )
    return {"layernorm.post_unstable": v000, "layernorm.post_must": v004, "layernorm.warmup": v_warm}


def tables(r: dict) -> list[str]:
    lines = [
        "| order | warmup | depth | " + " | ".join(f"lr {lr:g}" for lr in r["lrs"]) + " |",
        "|---|---|---|" + "---|" * len(r["lrs"]),
    ]
    for norm in NORMS:
        for warmup in r["warmups"]:
            for depth in r["depths"]:
                cells = []
                for lr in r["lrs"]:
                    c = cell(r, norm, warmup, depth, lr)
                    m = c["val_loss"]["mean"]
                    cells.append(
                        ("failed" if not math.isfinite(m) else f"{m:.3f}")
                        + (f" ({c['failed']} failed)" if c["failed"] and math.isfinite(m) else "")
                    )
                lines.append(f"| {norm}-LN | {warmup} | {depth} | " + " | ".join(cells) + " |")
    g = r["grad_at_init"]
    return [
        *lines,
        "",
        f"Validation loss after {r['steps']} steps (failed: non-finite, or no better than the "
        f"character frequencies, {r['unigram']:.3f}).",
        "",
        "Gradient norm per block at initialisation (block 0 first):",
        "",
        *[f"- {n}-LN: " + ", ".join(f"{v:.3g}" for v in g[n]) for n in NORMS],
    ]


EXPERIMENT = Experiment(
    name="layernorm",
    title=N_("Pre-LN or Post-LN, and what warmup buys"),
    setup=N_(
        "Small char models (d_model {d_model}, {n_heads} heads, d_ff "
        "{d_ff}, windows of {seq_len}) at depths 2, 6 and 12, with "
        "the LayerNorm before each sublayer (Pre-LN) or after each "
        "residual addition (Post-LN, no final norm), over a sweep of "
        "learning rates, with and without a linear warmup (constant "
        "learning rate otherwise), trained through the same trainer "
        "for the same number of steps. A run fails when its loss "
        "turns non-finite or it ends no better than knowing the "
        "character frequencies. Also: the gradient norm of each "
        "block at initialisation, deepest model, one fixed batch."
    ),
    claims=(
        Claim(
            "layernorm.post_unstable",
            "000",
            "§5.2",
            claim=N_("Post-LN is more sensitive to the learning rate and diverges easily; Pre-LN trains more stably."),
            rule=N_(
                "Two parts, without warmup: Post-LN fails in more (depth, "
                "learning rate) settings than Pre-LN; and at every depth the "
                "largest learning rate at which Pre-LN trains is at least "
                "Post-LN's. Both: holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Without warmup, failed settings out of {cells}: Pre-LN "
                "{fails_pre}, Post-LN {fails_post}. Largest learning rate "
                "that trains at depths {depths}: Pre-LN {stable_pre}; "
                "Post-LN {stable_post}."
            ),
        ),
        Claim(
            "layernorm.post_must",
            "004",
            "§4.1",
            claim=N_(
                "The LayerNorm must come after the residual addition "
                "(Post-LN): normalising before adding lets the addition undo "
                "the normalisation, so the order cannot be reversed."
            ),
            rule=N_(
                "One part per depth: at the learning rate where each order "
                "does best (no warmup), every Post-LN seed ends below every "
                "Pre-LN seed. All depths: holds; none: fails; otherwise "
                "half-true."
            ),
            finding=N_(
                "Best validation loss over the learning rates at depths "
                "{depths}: Pre-LN {best_pre}; Post-LN {best_post}."
            ),
        ),
        Claim(
            "layernorm.warmup",
            "004",
            "§5.3",
            claim=N_(
                "Warmup is required: without it the loss oscillates and "
                "diverges, because LayerNorm and attention make early "
                "gradients unstable."
            ),
            rule=N_(
                "Two parts: some setting fails without warmup and trains "
                "with it, for Pre-LN; and the same for Post-LN. Both: holds; "
                "one: half-true; neither: fails."
            ),
            finding=N_(
                "Settings a {warmup}-step warmup rescues: Pre-LN "
                "{rescued_pre}, Post-LN {rescued_post}. Failed settings "
                "without and with warmup: Pre-LN {fails_pre} and "
                "{fails_pre_w}; Post-LN {fails_post} and {fails_post_w}."
            ),
        ),
    ),
    setup_fields={k: SHAPE[k] for k in ("d_model", "n_heads", "d_ff", "seq_len")},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=2,
    budget_s=600,
)

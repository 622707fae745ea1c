"""Experiment 5 — how wide must the feed-forward network be, and can it go?

Seed 004 (§4.2): with d_ff = d_model the FFN "degenerates into one linear map" and the model does
not converge at all. Seed 002 (§3.4): replace the FFN by the identity and the loss stays stuck far
above the full model's. The char model (d_model C = 64) with d_ff = 0 (no FFN), C, 2C, 4C and 8C:
validation loss against the number of parameters. And, computed directly: is an FFN of width C a
linear map? (f(x + y) − f(x) − f(y) + f(0) is 0 for every x, y exactly when it is affine.)

d_ff = 0 is built in the lab, not with a flag in the core: the model is built with d_ff = 1 (the
config requires a positive width), then each block's FFN is replaced by `NoFFN`, which adds
nothing to the residual stream, and its second LayerNorm — which in a pre-LN block only feeds the
FFN — by an identity. The parameter count is read from the modified model.
"""

from __future__ import annotations

import torch
from torch import nn

from glassformer.lab.common import corpus_for, eval_loss, lab_preset, pm, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models.gpt import FeedForward

FULL, FAST = {"steps": 600, "T": 64, "widths": (0, 1, 2, 4, 8)}, {"steps": 40, "T": 32, "widths": (0, 1, 4)}
C = 64
STUCK = 0.1  # nats: "did not converge" = ends no more than this below knowing only character frequencies
LINEAR = 1e-6  # an FFN whose relative residual from linearity is below this is a linear map


class NoFFN(nn.Module):
    """A block's FFN that contributes nothing: the residual stream passes through unchanged."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)  # (B, T, C): x + 0 = x


def remove_ffn(model) -> None:
    for block in model.blocks:
        block.ffn, block.ln2 = NoFFN(), nn.Identity()
    model.name_hook_points()  # the removed FFN's hook point (ffn.hidden) leaves the model's list


@torch.no_grad()
def nonlinearity(width: int, seed: int = 0) -> float:
    """‖f(x+y) − f(x) − f(y) + f(0)‖ / ‖f(x+y)‖ for a freshly initialised FFN C -> width -> C."""
    torch.manual_seed(seed)
    f = FeedForward(C, width, "relu")
    x, y = torch.randn(256, C), torch.randn(256, C)  # (N, C)
    zero = torch.zeros(1, C)
    residual = f(x + y) - f(x) - f(y) + f(zero)  # (N, C)
    return float(residual.norm() / f(x + y).norm())


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["T"])
    out = {"steps": s["steps"], "unigram": corpus.unigram_loss(), "nonlinearity_at_C": nonlinearity(C), "widths": {}}
    for k in s["widths"]:
        losses, params = [], 0
        for seed in range(ctx.seeds):
            ctx.log(f"d_ff = {k * C}, seed {seed}")
            preset = lab_preset(d_ff=max(1, k * C), seq_len=s["T"], max_len=s["T"])
            fit = train(preset, corpus, seed, s["steps"], modify=remove_ffn if k == 0 else None)
            losses.append(eval_loss(fit.model, corpus, s["T"]))
            params = sum(p.numel() for p in fit.model.parameters())
        out["widths"][str(k * C)] = {"multiple": k, "params": params, "val_loss": spread(losses)}
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(6.5, 4)
    ax = axes[0, 0]
    w = out["widths"]
    xs = [w[k]["params"] for k in w]
    ax.errorbar(xs, [w[k]["val_loss"]["mean"] for k in w], [w[k]["val_loss"]["spread"] for k in w], fmt="o-", capsize=3)
    for k, x in zip(w, xs, strict=False):
        ax.annotate(
            t("no FFN") if k == "0" else t("d_ff={d_ff}", d_ff=k),
            (x, w[k]["val_loss"]["mean"]),
            fontsize=8,
            xytext=(4, 6),
            textcoords="offset points",
        )
    ax.axhline(out["unigram"], color="gray", ls=":", label=t("character frequencies only"))
    ax.set_xlabel(t("parameters"))
    ax.set_ylabel(t("validation loss (nats)"))
    ax.set_title(t("FFN width at d_model {d_model}, {steps} steps", d_model=C, steps=out["steps"]), fontsize=9)
    ax.legend(fontsize=7)
    ctx.figure(fig, "ffn_width")


def verdicts(r: dict) -> dict:
    w, uni = r["widths"], r["unigram"]
    eq, none, wide = w[str(C)], w["0"], w[str(4 * C)] if str(4 * C) in w else w[max(w, key=int)]
    v004 = Verdict(
        level([eq["val_loss"]["mean"] >= uni - STUCK, r["nonlinearity_at_C"] < LINEAR]),
        {
            "C": C,
            "loss_eq": pm(eq["val_loss"]),
            "unigram": f"{uni:.3f}",
            "loss_wide": pm(wide["val_loss"]),
            "nonlin": f"{r['nonlinearity_at_C']:.2f}",
        },
    )
    worse = min(none["val_loss"]["values"]) > max(wide["val_loss"]["values"])
    v002 = Verdict(
        level([worse, none["val_loss"]["mean"] >= uni - STUCK]),
        {
            "loss_none": pm(none["val_loss"]),
            "loss_wide": pm(wide["val_loss"]),
            "unigram": f"{uni:.3f}",
            "params_none": f"{none['params']:,}",
            "params_wide": f"{wide['params']:,}",
        },
    )
    return {"ffn-width.equal": v004, "ffn-width.removed": v002}


def tables(r: dict) -> list[str]:
    lines = ["| d_ff | parameters | validation loss |", "|---|---|---|"]
    for k, v in r["widths"].items():
        lines.append(f"| {'0 (no FFN)' if k == '0' else k} | {v['params']:,} | {pm(v['val_loss'])} |")
    return [
        *lines,
        "",
        f"Character frequencies alone: {r['unigram']:.3f}. An untrained FFN of width {C}: "
        f"‖f(x+y) − f(x) − f(y) + f(0)‖ / ‖f(x+y)‖ = {r['nonlinearity_at_C']:.3f}.",
    ]


EXPERIMENT = Experiment(
    name="ffn-width",
    title=N_("How wide must the feed-forward network be, and can it go?"),
    setup=N_(
        "The char model (d_model C = {C}) with d_ff = 0 (no FFN), C, "
        "2C, 4C and 8C; validation loss against the number of "
        "parameters. For d_ff = 0 the model is built normally and "
        "each block's FFN is then replaced by a module that adds "
        "nothing (and the second LayerNorm, which in a pre-LN block "
        "only feeds the FFN, by an identity), so the core needs no "
        "switch for it. Also computed: whether an FFN of width C is "
        "a linear map, from f(x + y) − f(x) − f(y) + f(0), which is "
        "zero for every x and y exactly when it is."
    ),
    claims=(
        Claim(
            "ffn-width.equal",
            "004",
            "§4.2",
            claim=N_(
                "With d_ff equal to d_model the FFN degenerates into a "
                "single linear map and the model does not converge at all."
            ),
            rule=N_(
                "Two parts: the model with d_ff = C ends no more than "
                "{stuck} nats below the loss of knowing only character "
                "frequencies (it did not converge); and the FFN of width C "
                "is linear (relative residual below {linear}). Both: holds; "
                "one: half-true; neither: fails."
            ),
            finding=N_(
                "d_ff = {C}: validation loss {loss_eq} (character "
                "frequencies alone: {unigram}; d_ff = 4C: {loss_wide}). The "
                "width-C FFN's relative residual from linearity: {nonlin}."
            ),
            limits={"stuck": figure(STUCK), "linear": figure(LINEAR)},
        ),
        Claim(
            "ffn-width.removed",
            "002",
            "§3.4",
            claim=N_(
                "Remove the FFN and the loss stays stuck far above the full "
                "model's: the FFN is what lets a Transformer think."
            ),
            rule=N_(
                "Two parts: every seed without an FFN ends above every seed "
                "with d_ff = 4C; and without an FFN the loss stays within "
                "{stuck} nats of character frequencies alone (stuck). Both: "
                "holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Without an FFN: {loss_none} ({params_none} parameters); "
                "with d_ff = 4C: {loss_wide} ({params_wide} parameters); "
                "character frequencies alone: {unigram}."
            ),
            limits={"stuck": figure(STUCK)},
        ),
    ),
    setup_fields={"C": C},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=420,
)

"""Ledger — GLU variants against the plain feed-forward at equal parameters (Shazeer 2020).

Shazeer's "GLU Variants Improve Transformer" (arXiv 2002.05202) swaps the Transformer's FFN
W₂·act(W₁x) for a gated one, W_down·(act(W_gate x) ⊙ W_up x) (nn/glu.py), and reports that SwiGLU and
GeGLU reach a better log-perplexity than ReLU and GELU. Three matrices instead of two: to keep the
parameter (and operation) count, the gated FFN's hidden width is 2/3 of the plain one's (the paper:
3072 -> 2048 at d_model 768).

Here: the lab's char model (d_model C = 64, 2 layers) with four FFNs — ReLU and GELU of width
F = 4C, SwiGLU and GeGLU of width round(2F/3) — biases off in every variant as in the paper (T5's
FFN has none), the same data, steps, windows and seeds. The parameter counts are read from the built
models and printed beside each other, so "equal parameters" is a measured figure, not a promise.

The rule: a GLU variant beats a plain FFN when every one of its seeds ends below every seed of that
FFN (a difference larger than the seeds' own scatter); a smaller difference is not shown.
"""

from __future__ import annotations

from glassformer.lab.common import below, corpus_for, eval_loss, lab_preset, pm, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, level, new_figure
from glassformer.messages import N_, t

FULL, FAST = {"steps": 600, "T": 64}, {"steps": 40, "T": 32}
C = 64
F = 4 * C  # the plain FFN's hidden width (the GPT habit; the paper's T5 base: 3072 = 4 · 768)
F_GLU = round(2 * F / 3)  # the gated FFN's, for the same parameters: 3·C·F_GLU ≈ 2·C·F
PLAIN = ("relu", "gelu")  # FFN_ReLU, FFN_GELU: W₂·act(W₁x)
GATED = ("swiglu", "geglu")  # FFN_SwiGLU, FFN_GEGLU: W_down·(act(W_gate x) ⊙ W_up x)
NAMES = {"relu": "ReLU", "gelu": "GELU", "swiglu": "SwiGLU", "geglu": "GeGLU"}


def changes(variant: str) -> dict:
    """The preset overrides that build the char model with this FFN (biases off in every variant)."""
    if variant in PLAIN:
        return {"ffn": "mlp", "activation": variant, "d_ff": F, "bias": False}
    return {"ffn": variant, "d_ff": F_GLU, "bias": False}


def ffn_params(model) -> int:
    """Parameters of the blocks' feed-forward networks alone (the part the variants change)."""
    return sum(p.numel() for block in model.blocks for p in block.ffn.parameters())


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["T"])
    out = {"steps": s["steps"], "C": C, "unigram": corpus.unigram_loss(), "variants": {}}
    for variant in PLAIN + GATED:
        losses, params, ffn = [], 0, 0
        for seed in range(ctx.seeds):
            ctx.log(f"{variant}, seed {seed}")
            preset = lab_preset(**changes(variant), seq_len=s["T"], max_len=s["T"])
            fit = train(preset, corpus, seed, s["steps"])
            losses.append(eval_loss(fit.model, corpus, s["T"]))
            params, ffn = sum(p.numel() for p in fit.model.parameters()), ffn_params(fit.model)
        out["variants"][variant] = {
            "d_ff": changes(variant)["d_ff"],
            "params": params,
            "ffn_params": ffn,
            "val_loss": spread(losses),
        }
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(6.5, 3.6)
    ax = axes[0, 0]
    v = out["variants"]
    names = list(v)
    ax.errorbar(
        range(len(names)),
        [v[n]["val_loss"]["mean"] for n in names],
        [v[n]["val_loss"]["spread"] for n in names],
        fmt="o",
        capsize=4,
    )
    for i, n in enumerate(names):
        for loss in v[n]["val_loss"]["values"]:
            ax.plot(i, loss, ".", color="gray", alpha=0.6)
    ax.set_xticks(
        range(len(names)), [t("{ffn}\nd_ff={d_ff}", ffn=NAMES[n], d_ff=v[n]["d_ff"]) for n in names], fontsize=8
    )
    ax.set_ylabel(t("validation loss (nats)"))
    ax.set_title(
        t("Plain and gated FFNs at equal parameters, d_model {d_model}, {steps} steps", d_model=C, steps=out["steps"]),
        fontsize=9,
    )
    ctx.figure(fig, "glu")


def verdicts(r: dict) -> dict:
    v = r["variants"]
    wins = [below(v[g]["val_loss"]["values"], v[p]["val_loss"]["values"]) for g in GATED for p in PLAIN]
    gelu = v["gelu"]
    return {
        "glu.beats": Verdict(
            level(wins),
            {
                "relu": pm(v["relu"]["val_loss"]),
                "gelu": pm(gelu["val_loss"]),
                "swiglu": pm(v["swiglu"]["val_loss"]),
                "geglu": pm(v["geglu"]["val_loss"]),
                "F": gelu["d_ff"],
                "F_glu": v["swiglu"]["d_ff"],
                "params_plain": f"{gelu['params']:,}",
                "params_glu": f"{v['swiglu']['params']:,}",
                "ffn_plain": f"{gelu['ffn_params']:,}",
                "ffn_glu": f"{v['swiglu']['ffn_params']:,}",
                "wins": sum(wins),
                "pairs": len(wins),
            },
        )
    }


def tables(r: dict) -> list[str]:
    lines = ["| FFN | d_ff | parameters | FFN parameters | validation loss |", "|---|---|---|---|---|"]
    for name, v in r["variants"].items():
        lines.append(f"| {NAMES[name]} | {v['d_ff']} | {v['params']:,} | {v['ffn_params']:,} | {pm(v['val_loss'])} |")
    return [*lines, "", f"Character frequencies alone: {r['unigram']:.3f}; d_model {r['C']}, {r['steps']} steps."]


EXPERIMENT = Experiment(
    name="glu",
    title=N_("Gated feed-forward networks (SwiGLU, GeGLU) against ReLU and GELU at equal parameters"),
    setup=N_(
        "The char model (d_model {C}, 2 layers) with four feed-forward "
        "networks: ReLU and GELU, W₂·act(W₁x), of width {F}; SwiGLU "
        "and GeGLU, W_down·(act(W_gate x) ⊙ W_up x), of width {F_glu}, "
        "two thirds of {F}, so that three matrices hold as many "
        "parameters as two. Biases off in every variant, as in the "
        "paper. The same text, steps, windows and seeds for all four; "
        "the parameter counts are read from the built models. Scaled "
        "down to fit a CPU from the paper's T5 models (d_model 768, "
        "d_ff 3072 against 2048)."
    ),
    claims=(
        Claim(
            "glu.beats",
            "Shazeer 2020",
            "abstract; §2",
            claim=N_(
                "At the same number of parameters, a gated feed-forward "
                "network (SwiGLU, GeGLU) reaches a lower loss than the plain "
                "ReLU or GELU one."
            ),
            rule=N_(
                "Four pairs: SwiGLU and GeGLU, each against ReLU and GELU. A "
                "pair is won when every seed of the gated FFN ends below "
                "every seed of the plain one (a smaller difference is not "
                "shown). All four won: holds; some: half-true; none: fails."
            ),
            finding=N_(
                "Validation loss: ReLU {relu}, GELU {gelu} (d_ff {F}, "
                "{params_plain} parameters, {ffn_plain} in the FFNs); "
                "SwiGLU {swiglu}, GeGLU {geglu} (d_ff {F_glu}, {params_glu} "
                "parameters, {ffn_glu} in the FFNs). Pairs won: {wins} of "
                "{pairs}."
            ),
            paper="arXiv 2002.05202",
            paper_says=N_(
                "Shazeer, abstract: of the GLU variants tested in the "
                "Transformer's feed-forward sublayers, “some of them yield "
                "quality improvements over the typically-used ReLU or GELU "
                "activations”; the gated FFN's hidden width is cut from 3072 "
                "to 2048 to keep the parameter and operation counts of the "
                "T5 base model (as a third-party summary reports it). The log-perplexities of each FFN (the "
                "paper's table of pre-training results): not in the parts of "
                "the paper read for this entry (its abstract and opening, and "
                "third-party summaries of it)."
            ),
            ours=N_(
                "char model, validation loss: ReLU {relu}, GELU {gelu}; "
                "SwiGLU {swiglu}, GeGLU {geglu} ({params_plain} against "
                "{params_glu} parameters)"
            ),
        ),
    ),
    setup_fields={"C": C, "F": F, "F_glu": F_GLU},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=480,
)

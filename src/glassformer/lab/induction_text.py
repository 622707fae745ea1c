"""Ledger entry — the in-context-learning change and induction heads on natural text, with and
without feed-forward layers (Olsson et al. 2022, Argument 1).

The `induction` entry trains attention-only models on repeated random segments. Olsson et al.'s
Argument 1 is about models trained on natural text, and covers models with MLPs as well. Here two
models of two layers, the lab's char model (its FFN kept) and the same model with its FFN removed
(as in ffn-width), train on the Shakespeare characters the lab already uses (corpus_for: the lab's
toy text in --fast), contexts of L characters. Every `every` steps (induction.Watch):

    ICL score      induction.icl_score on fixed validation windows of the text: the loss of the
                   LATE-th character minus the loss of the EARLY-th (induction.icl_tokens)
    detectors      every head's previous-token and induction score (causal.detectors.head_scores) on
                   repeated random sequences of the char vocabulary (induction.probe_tokens), read
                   against a perfect head's score on them (induction.ceiling)

The rule of each claim reads induction.summary of every seed: the share of the ICL change within
one window, and when the induction and previous-token heads formed against when the ICL score made
half its change.
"""

from __future__ import annotations

import numpy as np

from glassformer.lab.common import corpus_for, fixed_windows, lab_preset, spread, train
from glassformer.lab.ffn_width import remove_ffn
from glassformer.lab.induction import (
    HALF,
    INDUCTION,
    PAPER_AFTER,
    TOGETHER,
    WINDOW,
    Watch,
    icl_tokens,
    perfect_scores,
    probe_tokens,
    summary,
    together,
)
from glassformer.lab.report import steps as seed_steps
from glassformer.lab.report import words
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t

FULL = {"L": 64, "d_model": 64, "heads": 4, "steps": 4000, "every": 50, "batch": 16, "probe": 64, "windows": 64}
FAST = {"L": 16, "d_model": 32, "heads": 2, "steps": 60, "every": 20, "batch": 8, "probe": 8, "windows": 16}
MODELS = ("attention", "ffn")  # the two-layer model without its FFN, and with it (the lab's char model)
PAPER_URL = "transformer-circuits.pub/2022/in-context-learning-and-induction-heads"


def fit(s: dict, corpus, model: str, seed: int, perfect: dict) -> dict:
    """One two-layer model on the text, watched every s['every'] steps; its curve and summary."""
    L = s["L"]
    x, y = fixed_windows(corpus.val, L - 1, s["windows"], seed=0)  # (N, L-1) x2: the same windows every run
    probe = probe_tokens({"V": corpus.vocab_size, "L": L, "probe": s["probe"]})  # (P, L)
    watches = []

    def callbacks_for(m):
        watch = Watch(m, s["every"], x, y, probe, L)
        watch.record(0, None)
        watches.append(watch)
        return [watch]

    preset = lab_preset(
        n_layers=2,
        n_heads=s["heads"],
        d_model=s["d_model"],
        d_ff=2 * s["d_model"],  # the lab's char model's d_ff / d_model (128 / 64); removed in "attention"
        max_len=L,
        seq_len=L - 1,
        batch_size=s["batch"],
        log_interval=s["steps"],
        eval_interval=s["steps"],
    )
    result = train(
        preset,
        corpus,
        seed,
        s["steps"],
        modify=remove_ffn if model == "attention" else None,
        every=s["every"],
        callbacks_for=callbacks_for,
    )
    curve = watches[0].rows
    return {
        "status": result.status,
        "seconds": result.seconds,
        "curve": curve,
        "summary": summary(curve, s["steps"], perfect),
    }


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["L"])
    early, late = icl_tokens(s["L"])
    perfect = perfect_scores(probe_tokens({"V": corpus.vocab_size, "L": s["L"], "probe": s["probe"]}))
    out = {
        **s,
        "corpus": corpus.name,
        "V": corpus.vocab_size,
        "early": early,
        "late": late,
        "perfect": perfect,
        "runs": {m: [] for m in MODELS},
    }
    for seed in range(ctx.seeds):
        for m in MODELS:
            ctx.log(f"2 layers, {m}, seed {seed}: {s['steps']} steps on {corpus.name}")
            out["runs"][m].append(fit(s, corpus, m, seed, perfect))
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(8.5, 5.5, rows=2)
    for m, color, model in (
        ("attention", "tab:blue", N_("pictures.lab.induction-text.attention")),
        ("ffn", "tab:green", N_("pictures.lab.induction-text.ffn")),
    ):
        c = out["runs"][m][0]["curve"]
        steps = [r["step"] for r in c]
        axes[0, 0].plot(steps, [r["icl"] for r in c], color=color, label=t(model))
        axes[1, 0].plot(
            steps,
            [max(r["induction"][1]) / out["perfect"]["induction"] for r in c],
            color=color,
            label=t("pictures.lab.induction-text.induction", model=t(model)),
        )
        axes[1, 0].plot(
            steps,
            [max(r["previous_token"][0]) / out["perfect"]["previous_token"] for r in c],
            color=color,
            linestyle="--",
            label=t("pictures.lab.induction-text.previous", model=t(model)),
        )
    axes[1, 0].axhline(INDUCTION, color="gray", linewidth=0.8)
    axes[0, 0].set_ylabel(t("pictures.lab.induction-text.icl_axis", late=out["late"], early=out["early"]))
    axes[1, 0].set_ylabel(t("pictures.lab.induction-text.detector_axis"))
    axes[1, 0].set_xlabel(t("pictures.lab.induction-text.step_axis"))
    for ax in axes[:, 0]:
        ax.legend(fontsize=7)
    axes[0, 0].set_title(t("pictures.lab.induction-text.title", L=out["L"], corpus=out["corpus"]))
    ctx.figure(fig, "induction_text")


def verdict(r: dict, model: str) -> Verdict:
    """Two parts, every seed: at least HALF of the ICL change within WINDOW of the steps (abrupt), and
    the heads formed at that time (together). Both: holds; one: half-true; neither: fails."""
    runs = [x["summary"] for x in r["runs"][model]]
    steps = r["steps"]
    return Verdict(
        level([all(x["window_share"] >= HALF for x in runs), all(together(x, steps) for x in runs)]),
        {
            "icl": ", ".join(f"{x['final_icl']:.2f}" for x in runs),
            "share": ", ".join(f"{x['window_share']:.2f}" for x in runs),
            "half": seed_steps([x["half_step"] for x in runs], steps),
            "induction": seed_steps([x["induction_step"] for x in runs], steps),
            "previous": seed_steps([x["previous_step"] for x in runs], steps),
            "ind_score": ", ".join(f"{x['final_induction']:.2f}" for x in runs),
            "prev_score": ", ".join(f"{x['final_previous']:.2f}" for x in runs),
            "paper_signed": figure(-PAPER_AFTER),
            "steps": steps,
        },
    )


def verdicts(r: dict) -> dict:
    return {f"induction-text.{m}": verdict(r, m) for m in MODELS}


def tables(r: dict) -> list[str]:
    lines = [
        "| model | seed | final ICL score | step of half the change | share of the change within "
        f"{int(WINDOW * 100)}% of the steps | induction head ≥ {INDUCTION} of a perfect one at | "
        f"previous-token head ≥ {INDUCTION} of a perfect one at | final induction / previous-token score |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def at(step: int | None) -> str:
        return words("en", seed_steps([step], r["steps"]))

    for m in MODELS:
        for seed, x in enumerate(r["runs"][m]):
            s = x["summary"]
            lines.append(
                f"| {m} | {seed} | {s['final_icl']:.3f} | {at(s['half_step'])} | {s['window_share']:.2f} | "
                f"{at(s['induction_step'])} | {at(s['previous_step'])} | "
                f"{s['final_induction']:.2f} / {s['final_previous']:.2f} |"
            )
    means = {m: spread([x["summary"]["final_icl"] for x in r["runs"][m]]) for m in MODELS}
    return [
        *lines,
        "",
        f"ICL score = loss of character {r['late']} − loss of character {r['early']} of {r['L']} (nats), on "
        f"{r['windows']} fixed validation windows of {r['corpus']}; a uniform guess over {r['V']} characters scores "
        f"{np.log(r['V']):.3f} nats at every position. Final, mean of seeds: attention only "
        f"{means['attention']['mean']:.3f}, with FFN {means['ffn']['mean']:.3f}.",
    ]


LIMITS = {
    "window": int(WINDOW * 100),
    "half": figure(HALF),
    "induction": figure(INDUCTION),
    "together": int(TOGETHER * 100),
}

EXPERIMENT = Experiment(
    name="induction-text",
    title=N_("lab.induction-text.title"),
    setup=N_("lab.induction-text.setup"),
    claims=(
        Claim(
            "induction-text.attention",
            "Olsson et al. 2022",
            "Argument 1",
            claim=N_("lab.induction-text.attention.claim"),
            rule=N_("lab.induction-text.attention.rule"),
            finding=N_("lab.induction-text.attention.finding"),
            limits=LIMITS,
            paper=PAPER_URL,
            paper_says=N_("lab.induction-text.attention.paper"),
            ours=N_("lab.induction-text.attention.ours"),
        ),
        Claim(
            "induction-text.ffn",
            "Olsson et al. 2022",
            "Argument 1",
            claim=N_("lab.induction-text.ffn.claim"),
            rule=N_("lab.induction-text.ffn.rule"),
            finding=N_("lab.induction-text.ffn.finding"),
            limits=LIMITS,
            paper=PAPER_URL,
            paper_says=N_("lab.induction-text.ffn.paper"),
            ours=N_("lab.induction-text.ffn.ours"),
        ),
    ),
    setup_fields={
        "L": FULL["L"],
        "d_model": FULL["d_model"],
        "heads": FULL["heads"],
        "d_ff": 2 * FULL["d_model"],
        "steps": FULL["steps"],
        "batch": FULL["batch"],
        "windows": FULL["windows"],
        "early": icl_tokens(FULL["L"])[0],
        "late": icl_tokens(FULL["L"])[1],
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=2,
    budget_s=480,
)

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
        ("attention", "tab:blue", N_("2 layers, attention only")),
        ("ffn", "tab:green", N_("2 layers, with FFN")),
    ):
        c = out["runs"][m][0]["curve"]
        steps = [r["step"] for r in c]
        axes[0, 0].plot(steps, [r["icl"] for r in c], color=color, label=t(model))
        axes[1, 0].plot(
            steps,
            [max(r["induction"][1]) / out["perfect"]["induction"] for r in c],
            color=color,
            label=t("{model}: best induction head, layer 1", model=t(model)),
        )
        axes[1, 0].plot(
            steps,
            [max(r["previous_token"][0]) / out["perfect"]["previous_token"] for r in c],
            color=color,
            linestyle="--",
            label=t("{model}: best previous-token head, layer 0", model=t(model)),
        )
    axes[1, 0].axhline(INDUCTION, color="gray", linewidth=0.8)
    axes[0, 0].set_ylabel(t("ICL score: character {late} − character {early}", late=out["late"], early=out["early"]))
    axes[1, 0].set_ylabel(t("share of a perfect head's score"))
    axes[1, 0].set_xlabel(t("training step (seed 0)"))
    for ax in axes[:, 0]:
        ax.legend(fontsize=7)
    axes[0, 0].set_title(
        t("two-layer char models on natural text ({corpus}, {L} characters)", L=out["L"], corpus=out["corpus"])
    )
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
    title=N_(
        "The in-context-learning change and induction heads on "
        "natural text, with and without FFN (ledger: Olsson et al. "
        "2022)"
    ),
    setup=N_(
        "Two models of two layers, {heads} heads, d_model {d_model}: "
        "the lab's char model with its FFN (d_ff {d_ff}) and the "
        "same model with its FFN removed (attention only, as in "
        "ffn-width), each trained for {steps} steps, batches of "
        "{batch}, on windows of {L} characters of the Shakespeare "
        "text the lab already uses (the lab's own toy text in "
        "--fast). ICL score as in the induction entry: the loss of "
        "character {late} minus the loss of character {early}, on "
        "{windows} fixed validation windows of the text. Induction "
        "and previous-token scores of every head from glassformer's "
        "causal detectors, on fixed repeated random sequences of the "
        "character vocabulary, read as a share of a perfect head's "
        "score on the same sequences. Scaled down from the paper's "
        "small models to fit a CPU."
    ),
    claims=(
        Claim(
            "induction-text.attention",
            "Olsson et al. 2022",
            "Argument 1",
            claim=N_(
                "On natural text, the ICL score of a two-layer "
                "attention-only model changes abruptly, in a narrow window "
                "of training, at the same time as an induction head forms."
            ),
            rule=N_(
                "Two parts, every seed: at least {half} of the ICL score's "
                "total change falls within {window}% of the training steps "
                "(abrupt); and the step where the best second-layer head's "
                "induction score first reaches {induction} of a perfect "
                "head's, and the step where the best first-layer head's "
                "previous-token score does, both lie within {together}% of "
                "the training steps of the step where the ICL score has made "
                "half its change (at the same time). Both: holds; one: "
                "half-true; neither: fails."
            ),
            finding=N_(
                "Attention only: final ICL score {icl} nats, share of the "
                "change within one window {share}, half the change: {half}; "
                "induction head: {induction} (final score {ind_score} of a "
                "perfect head's); previous-token head: {previous} (final "
                "{prev_score}); {steps} steps."
            ),
            limits=LIMITS,
            paper=PAPER_URL,
            paper_says=N_(
                "Olsson et al. (transformer-circuits.pub, 8 March 2022): the "
                "page's opening, the only part of the paper read for this "
                "entry, names the prior work's “small (1 and 2 layer "
                "attention-only) models”. Argument 1's own words on models "
                "trained on natural text, the width of its window and its "
                "numbers: not in the page's opening, the only part read for "
                "this entry (the induction entry quotes Argument 1)."
            ),
            ours=N_(
                "ICL {icl} nats, share in one window {share}; half the change: {half}; induction head: {induction}"
            ),
        ),
        Claim(
            "induction-text.ffn",
            "Olsson et al. 2022",
            "Argument 1",
            claim=N_(
                "The same holds with feed-forward layers: on natural text, "
                "the ICL score of a two-layer model with FFN changes "
                "abruptly, in a narrow window, at the same time as an "
                "induction head forms."
            ),
            rule=N_(
                "The rule of the attention-only claim, applied to the model "
                "with FFN: every seed, at least {half} of the ICL score's "
                "change within {window}% of the steps, and its induction "
                "head (second layer, {induction} of a perfect head's score) "
                "and previous-token head (first layer) reached within "
                "{together}% of the steps of its half-change step. Both: "
                "holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "With FFN: final ICL score {icl} nats, share of the change "
                "within one window {share}, half the change: {half}; "
                "induction head: {induction} (final score {ind_score} of a "
                "perfect head's); previous-token head: {previous} (final "
                "{prev_score}); {steps} steps."
            ),
            limits=LIMITS,
            paper=PAPER_URL,
            paper_says=N_(
                "Olsson et al., Argument 1, on models with MLPs: its text, "
                "and any number for them: not in the page's opening, the "
                "only part of the paper read for this entry, which is about "
                "the prior work's attention-only models."
            ),
            ours=N_(
                "ICL {icl} nats, share in one window {share}; half the change: {half}; induction head: {induction}"
            ),
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

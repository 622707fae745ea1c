"""Ledger — a mixture of experts against a dense model at equal active parameters: per step, and per
second of CPU time (Shazeer et al. 2017; Fedus et al. 2022; nanochat's negative note).

Shazeer et al.'s sparsely-gated mixture of experts (arXiv 1701.06538) and Fedus et al.'s Switch
Transformer (arXiv 2101.03961) add parameters without adding work per token: a router sends each token
to K of E experts, so a mixture holds E experts' parameters but a token passes through K. At the same
work per token, the papers report a better model, and Switch a faster one to train. nanochat's author
(github.com/karpathy/nanochat, pull request 798) reports the other side at small scale: better per
FLOP, worse per second of wall clock, the sparse experts' overhead larger than their gain.

Here: the presets baby-llama (dense SwiGLU FFN of width 352) and baby-moe (8 SwiGLU experts, 2 per
token, each of width config.matched_expert_width(352, 8, 2) = 175, Mixtral's softmax routing with a
balance loss and a z-loss), trained on the same text, steps, windows and seeds through the one trainer.
Their active parameters per token (nn/moe.py's active_parameters: the router and K experts, not all E)
are read from the built models and printed beside each other. The validation loss on fixed windows
is measured every EVERY steps, with the seconds of CPU time the training took until then (the
evaluations' own time left out; the machine is shared, so CPU time is the steadier clock; wall clock
is kept too).

The rules: per step, the MoE wins when its final loss is below the dense model's (every seed below
every seed: holds; the means only: half-true). Per second, nanochat's note holds when, at the CPU time
the dense run took, the MoE's loss (read on its own curve of loss against seconds) is above the dense
model's final loss (every seed: holds; the means only: half-true).
"""

from __future__ import annotations

import numpy as np

from glassformer.config import PRESETS
from glassformer.lab.common import ValCurve, below, corpus_for, pm, preset_for_lab, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, level, new_figure
from glassformer.messages import N_, t
from glassformer.nn.moe import active_parameters

FULL = {"steps": 300, "T": 64, "every": 25}
FAST = {"steps": 8, "T": 32, "every": 4}
MODELS = {"dense": "baby-llama", "moe": "baby-moe"}
WARM_UP = 2  # steps of each model, before any is timed


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["T"])
    out = {"steps": s["steps"], "T": s["T"], "unigram": corpus.unigram_loss(), "models": {}}
    presets = {kind: preset_for_lab(name, seq_len=s["T"]) for kind, name in MODELS.items()}
    for preset in presets.values():  # a few steps first: the first run of a process pays torch's start-up
        train(preset, corpus, 0, WARM_UP)
    curves: dict = {kind: [] for kind in MODELS}
    for seed in range(ctx.seeds):  # seed by seed, the two models in turn: a change in the load hits both
        for kind, preset in presets.items():
            ctx.log(f"{MODELS[kind]}, seed {seed}")
            made: list[ValCurve] = []

            def watch(model, made=made):
                made.append(ValCurve(model, corpus, s["T"], s["every"]))
                return made

            fit = train(preset, corpus, seed, s["steps"], callbacks_for=watch)
            curves[kind].append(made[0].points)
            out["models"][kind] = {
                "preset": MODELS[kind],
                "params": sum(p.numel() for p in fit.model.parameters()),
                "active": active_parameters(fit.model),
            }
    for kind, v in out["models"].items():
        v["curves"] = curves[kind]  # per seed: [(step, cpu_s, wall_s, val_loss)]
        v["val_loss"] = spread([c[-1][3] for c in curves[kind]])
        v["cpu_s"] = spread([c[-1][1] for c in curves[kind]])
        v["wall_s"] = spread([c[-1][2] for c in curves[kind]])
    out["at_dense_time"] = spread(at_dense_time(out))
    plot(ctx, out)
    return out


def at_dense_time(r: dict) -> list[float]:
    """Per seed: the MoE's validation loss at the CPU seconds the dense run took for all its steps,
    read (linearly) on the MoE's own curve of loss against seconds."""
    dense, moe = r["models"]["dense"]["curves"], r["models"]["moe"]["curves"]
    out = []
    for d, m in zip(dense, moe, strict=True):
        m = np.array(m)  # (points, 4): step, cpu_s, wall_s, val_loss
        out.append(float(np.interp(d[-1][1], m[:, 1], m[:, 3])))
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(9, 3.6, cols=2)
    for kind, v in out["models"].items():
        for i, curve in enumerate(v["curves"]):
            c = np.array(curve)  # (points, 4)
            label = v["preset"] if i == 0 else None
            color = "C0" if kind == "dense" else "C1"
            axes[0, 0].plot(c[:, 0], c[:, 3], color=color, lw=1, label=label)
            axes[0, 1].plot(c[:, 1], c[:, 3], color=color, lw=1, label=label)
    axes[0, 0].set_xlabel(t("step"))
    axes[0, 1].set_xlabel(t("seconds of CPU time"))
    for ax in axes[0]:
        ax.set_ylabel(t("validation loss (nats)"))
        ax.legend(fontsize=7)
    axes[0, 0].set_title(t("Per step, at equal active parameters"), fontsize=9)
    axes[0, 1].set_title(t("Per second of CPU time"), fontsize=9)
    ctx.figure(fig, "moe")


def verdicts(r: dict) -> dict:
    dense, moe = r["models"]["dense"], r["models"]["moe"]
    d, m, at = dense["val_loss"], moe["val_loss"], r["at_dense_time"]
    figures = {
        "dense": pm(d),
        "moe": pm(m),
        "moe_at": pm(at),
        "steps": r["steps"],
        "active_dense": f"{dense['active']:,}",
        "active_moe": f"{moe['active']:,}",
        "params_moe": f"{moe['params']:,}",
        "cpu_dense": f"{dense['cpu_s']['mean']:.1f}",
        "cpu_moe": f"{moe['cpu_s']['mean']:.1f}",
        "slower": f"{moe['cpu_s']['mean'] / dense['cpu_s']['mean']:.2f}",
    }
    per_step = [m["mean"] < d["mean"], below(m["values"], d["values"])]
    per_second = [at["mean"] > d["mean"], below(d["values"], at["values"])]
    return {"moe.step": Verdict(level(per_step), figures), "moe.time": Verdict(level(per_second), figures)}


def tables(r: dict) -> list[str]:
    lines = [
        "| model | preset | parameters | active per token | validation loss | CPU s | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, v in r["models"].items():
        lines.append(
            f"| {kind} | {v['preset']} | {v['params']:,} | {v['active']:,} | {pm(v['val_loss'])} "
            f"| {pm(v['cpu_s'], 1)} | {pm(v['wall_s'], 1)} |"
        )
    return [
        *lines,
        "",
        f"The MoE's validation loss at the dense run's CPU time: {pm(r['at_dense_time'])}. "
        f"{r['steps']} steps of {r['T']} characters; character frequencies alone: {r['unigram']:.3f}.",
    ]


EXPERIMENT = Experiment(
    name="moe",
    title=N_("A mixture of experts against a dense model at equal active parameters, per step and per second"),
    setup=N_(
        "The presets baby-llama (a dense SwiGLU FFN of width {F}) and "
        "baby-moe ({E} SwiGLU experts of width {F_e}, {K} per token, "
        "softmax routing with a balance loss and a z-loss), so that a "
        "token passes through as many parameters in both: the router "
        "and {K} experts against the one FFN. The same text, steps, "
        "windows and seeds; the validation loss on fixed windows every "
        "{every} steps, against the step and against the seconds of CPU "
        "time spent training until then (the evaluations left out)."
    ),
    claims=(
        Claim(
            "moe.step",
            "Shazeer et al. 2017; Fedus et al. 2022",
            "abstracts",
            claim=N_(
                "At the same work per token, a mixture of experts, which holds "
                "more parameters, reaches a lower loss than the dense model "
                "after the same number of steps."
            ),
            rule=N_(
                "Two parts: the mixture's mean final validation loss is below "
                "the dense model's; and every seed of the mixture ends below "
                "every seed of the dense model. Both: holds; the first only: "
                "half-true; neither: fails."
            ),
            finding=N_(
                "After {steps} steps: dense {dense}, mixture of experts {moe} "
                "({active_dense} against {active_moe} active parameters per "
                "token; the mixture holds {params_moe})."
            ),
            paper="arXiv 1701.06538; arXiv 2101.03961",
            paper_says=N_(
                "Fedus et al., abstract (as a third-party summary gives it): "
                "Switch-Base reaches up to a 7× pre-training speedup over "
                "T5-Base with the same computation per token. The loss of each "
                "model after a given number of steps (the papers' figures): "
                "not in the parts read for this entry (the abstracts, as "
                "copied or summarised on third-party pages)."
            ),
            ours=N_("baby-llama {dense} against baby-moe {moe} after {steps} steps"),
        ),
        Claim(
            "moe.time",
            "nanochat",
            "pull request 798",
            claim=N_(
                "At small scale the mixture of experts loses per second of "
                "training: its gain per step is smaller than what its sparse "
                "experts cost in time."
            ),
            rule=N_(
                "Two parts, at the CPU time the dense run took for all its "
                "steps, reading the mixture's loss on its own curve against "
                "seconds: its mean is above the dense model's final mean; and "
                "every seed of it is above every dense seed. Both: holds; the "
                "first only: half-true; neither: fails."
            ),
            finding=N_(
                "The dense run took {cpu_dense} s of CPU time and ended at "
                "{dense}; the mixture took {cpu_moe} s ({slower}× as long) and "
                "stood at {moe_at} after {cpu_dense} s."
            ),
            paper="github.com/karpathy/nanochat pull 798",
            paper_says=N_(
                "Karpathy, nanochat pull request 798: at nanochat's speedrun "
                "horizon the mixture of experts “improves bpb-per-FLOP but "
                "loses on wall clock”, a ~1.3-1.6× memory-traffic cost of "
                "sparse experts against a ~1.1× compute gain; “Possibly the "
                "nanochat models are just too small and the overhead is too "
                "much.” A GPU, not a CPU."
            ),
            ours=N_("at the dense run's {cpu_dense} CPU seconds: dense {dense}, mixture of experts {moe_at}"),
        ),
    ),
    setup_fields={
        "F": PRESETS[MODELS["dense"]].model.d_ff,
        "E": PRESETS[MODELS["moe"]].model.n_experts,
        "F_e": PRESETS[MODELS["moe"]].model.expert_d_ff,
        "K": PRESETS[MODELS["moe"]].model.moe_top_k,
        "every": FULL["every"],
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=300,
)

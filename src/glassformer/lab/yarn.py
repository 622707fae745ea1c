"""Ledger — RoPE past the training length: plain, and stretched by a scaling (Peng et al. 2023, YaRN).

Peng et al.'s "YaRN" (arXiv 2309.00071): models with rotary positions "fail to generalize past the
sequence length they were trained on"; a scaling of RoPE's frequencies (nn/rope_scaling.py: linear
= Position Interpolation, dynamic = NTK-aware, yarn) lets them read longer inputs.

Here: the char model with position="rope" is trained once per seed on windows of T characters, then
read on windows of 4T with the same weights under each scaling (factor s = 4, original length T):
none (plain RoPE), linear, dynamic and yarn. RoPE has no parameters, so the one trained state
loads into each scaled model unchanged. The validation loss at each position of fixed windows; the
summary: the mean over positions T/2..T ("inside") and T..4T ("beyond"). One difference from the
paper: its models are fine-tuned after the scaling; these are not.

The rule: YaRN keeps the loss flat when its mean beyond T is at most FLAT nats above its own inside
mean; plain RoPE does not when every one of its seeds ends beyond T above every YaRN seed.
"""

from __future__ import annotations

import numpy as np

from glassformer.config import ROPE_LONG, apply_overrides
from glassformer.lab.common import (
    TOY,
    corpus_for,
    fixed_windows,
    lab_preset,
    load_corpus,
    pm,
    position_losses,
    spread,
    train,
)
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.text.chinese import ZH_POEMS

FULL = {"steps": 600, "T": 64, "factor": 4}
FAST = {"steps": 40, "T": 16, "factor": 4}
SCALINGS = ("none", "linear", "dynamic", "yarn", "llama3")
FLAT = 0.1  # nats: "flat" = beyond T at most this far above the loss inside T
WINDOWS = 32  # fixed validation windows of 4T characters


def scaled(preset, scaling: str, T: int, factor: int):
    """The preset with this RoPE scaling of factor s to reach s·T from T."""
    if scaling == "none":
        return preset
    return apply_overrides(
        preset,
        {
            "rope_scaling": scaling,
            "rope_factor": float(factor),
            **({"rope_original_max_len": T} if scaling in ROPE_LONG else {}),
        },
    )


def read_long(fit_model, preset, scaling: str, T: int, factor: int, vocab: int, x, y) -> np.ndarray:
    """Per-position validation loss (T_eval,) of the trained weights under `scaling`."""
    p = apply_overrides(scaled(preset, scaling, T, factor), {"vocab_size": vocab})
    model = build_model(p.model)
    model.load_state_dict(fit_model.state_dict())  # RoPE has no weights: the same state fits every scaling
    return position_losses(model, x, y)


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    T, T_eval = s["T"], s["factor"] * s["T"]
    out = {"steps": s["steps"], "T": T, "T_eval": T_eval, "factor": s["factor"]}
    en = corpus_for(ctx, T_eval)  # Shakespeare (or --data)
    out["corpus"], out["scalings"] = en.name, read_corpus(ctx, en, s)
    zh = load_corpus(TOY if ctx.fast else ZH_POEMS, ctx.cache_dir)  # --fast: the toy text, the same rule
    zh.need(T_eval)
    out["zh"] = {"corpus": zh.name, "scalings": read_corpus(ctx, zh, s)}
    plot(ctx, out)
    return out


def read_corpus(ctx, corpus, s: dict) -> dict:
    """On one text: the model trained on T per seed, read on s·T under each scaling; per scaling the
    per-position losses and the inside / beyond means."""
    T, T_eval = s["T"], s["factor"] * s["T"]
    x, y = fixed_windows(corpus.val, T_eval, WINDOWS, seed=1)
    preset = lab_preset(position="rope", seq_len=T, max_len=T_eval)
    per = {name: [] for name in SCALINGS}
    for seed in range(ctx.seeds):
        ctx.log(f"RoPE on {corpus.name}, trained on {T}, seed {seed}")
        fit = train(preset, corpus, seed, s["steps"])
        for name in SCALINGS:
            per[name].append(read_long(fit.model, preset, name, T, s["factor"], corpus.vocab_size, x, y).tolist())
    out = {}
    for name, curves in per.items():
        c = np.array(curves)  # (seeds, T_eval)
        out[name] = {
            "per_position": curves,
            "inside": spread(c[:, T // 2 : T].mean(1)),
            "beyond": spread(c[:, T:].mean(1)),
        }
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(9, 3.6, cols=2)
    texts = ((out["corpus"], out["scalings"]), (out["zh"]["corpus"], out["zh"]["scalings"]))
    for ax, (corpus, scalings) in zip(axes[0], texts, strict=True):
        for scaling, v in scalings.items():
            ax.plot(np.arange(1, out["T_eval"] + 1), np.array(v["per_position"]).mean(0), label=scaling, lw=1)
        ax.axvline(out["T"], color="gray", ls=":", label=t("training length"))
        ax.set_xlabel(t("position"))
        ax.set_ylabel(t("validation loss (nats)"))
        ax.set_title(
            t(
                "{corpus}: RoPE trained on {T}, read on {T_eval}, scaling factor {factor}",
                corpus=corpus,
                T=out["T"],
                T_eval=out["T_eval"],
                factor=out["factor"],
            ),
            fontsize=9,
        )
        ax.legend(fontsize=7)
    ctx.figure(fig, "yarn")


def verdict(corpus: str, T: int, T_eval: int, v: dict) -> Verdict:
    """The rule on one text's scalings."""
    yarn, plain = v["yarn"], v["none"]
    parts = [
        yarn["beyond"]["mean"] - yarn["inside"]["mean"] <= FLAT,  # YaRN flat past T
        min(plain["beyond"]["values"]) > max(yarn["beyond"]["values"]),  # plain RoPE clearly worse there
    ]
    figures = {
        "corpus": corpus,
        "T": T,
        "T_eval": T_eval,
        "yarn_in": pm(yarn["inside"]),
        "yarn_beyond": pm(yarn["beyond"]),
        "plain_in": pm(plain["inside"]),
        "plain_beyond": pm(plain["beyond"]),
        "linear_beyond": pm(v["linear"]["beyond"]),
        "dynamic_beyond": pm(v["dynamic"]["beyond"]),
        "llama3_beyond": pm(v["llama3"]["beyond"]),
    }
    return Verdict(level(parts), figures)


def verdicts(r: dict) -> dict:
    return {
        "yarn.flat": verdict(r["corpus"], r["T"], r["T_eval"], r["scalings"]),
        "yarn.flat_zh": verdict(r["zh"]["corpus"], r["T"], r["T_eval"], r["zh"]["scalings"]),
    }


def tables(r: dict) -> list[str]:
    T, T_eval = r["T"], r["T_eval"]
    lines = [f"| text | RoPE scaling | loss at {T // 2 + 1}..{T} | loss at {T + 1}..{T_eval} |", "|---|---|---|---|"]
    for text, scalings in ((r["corpus"], r["scalings"]), (r["zh"]["corpus"], r["zh"]["scalings"])):
        for name, v in scalings.items():
            lines.append(f"| {text} | {name} | {pm(v['inside'])} | {pm(v['beyond'])} |")
    return [
        *lines,
        "",
        f"Trained on {T} characters for {r['steps']} steps; scaling factor {r['factor']}, no fine-tuning.",
    ]


def flat_claim(key: str, claim: str, paper_says: str) -> Claim:
    """The paper's claim on one text: the same rule and finding for each."""
    return Claim(
        key,
        "Peng et al. 2023",
        "abstract",
        claim=claim,
        rule=N_(
            "Two parts: with YaRN, the mean loss at positions past the "
            "training length is at most {flat} nats above the mean at "
            "its second half; and there every plain-RoPE seed ends above "
            "every YaRN seed. Both: holds; one: half-true; neither: fails."
        ),
        finding=N_(
            "Trained on {T}, read on {T_eval}: YaRN {yarn_in} inside, "
            "{yarn_beyond} beyond; plain RoPE {plain_in} inside, "
            "{plain_beyond} beyond; beyond, linear {linear_beyond}, "
            "dynamic {dynamic_beyond} and Llama 3's {llama3_beyond}."
        ),
        limits={"flat": figure(FLAT)},
        paper="arXiv 2309.00071",
        paper_says=paper_says,
        ours=N_(
            "char model, trained on {T}, beyond it up to {T_eval}: YaRN "
            "{yarn_in} → {yarn_beyond} nats, plain RoPE {plain_in} → "
            "{plain_beyond}"
        ),
    )


EXPERIMENT = Experiment(
    name="yarn",
    title=N_(
        "RoPE past the training length: plain, and stretched by linear, NTK-aware (dynamic), YaRN and Llama 3 scaling"
    ),
    setup=N_(
        "The char model with rotary positions (position=rope), trained "
        "on windows of {T} characters for {steps} steps, once on the "
        "English text and once on classical Chinese poems (zh-poems), then read "
        "with the same weights on windows of {T_eval} under each RoPE "
        "scaling of factor {factor} from the original length {T}: none "
        "(plain RoPE), linear (Position Interpolation), dynamic "
        "(NTK-aware), yarn and llama3 (Llama 3's). The loss at each position of fixed "
        "validation windows. Unlike the paper, whose models are "
        "fine-tuned after the scaling, these are not."
    ),
    claims=(
        flat_claim(
            "yarn.flat",
            N_(
                "A model with rotary positions fails past the length it was "
                "trained on; scaled with YaRN, its loss stays flat there."
            ),
            N_(
                "Peng et al., abstract: RoPE models “fail to generalize past "
                "the sequence length they were trained on”; with YaRN, LLaMA "
                "models “can effectively utilize and extrapolate to context "
                "lengths much longer than their original pre-training would "
                "allow”. The perplexities at each context length (the "
                "paper's Figure 1 and tables, on Proof-pile): not in the "
                "parts of the paper read for this entry (its abstract and "
                "opening)."
            ),
        ),
        flat_claim(
            "yarn.flat_zh",
            N_(
                "The same on Chinese text (classical poems, one character a "
                "token): plain rotary positions fail past the training "
                "length; with YaRN the loss stays flat."
            ),
            N_(
                "Peng et al.'s abstract and opening, the parts read for this "
                "entry, name no Chinese text: a figure on Chinese, not found."
            ),
        ),
    ),
    setup_fields={
        "T": FULL["T"],
        "T_eval": FULL["factor"] * FULL["T"],
        "steps": FULL["steps"],
        "factor": FULL["factor"],
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=600,
)

"""Ledger — multi-head latent attention against grouped-query and multi-head attention at equal
parameters: validation loss, and the cache's bytes per token measured from real caches (DeepSeek-V2).

DeepSeek-V2 (arXiv 2405.04434) caches one small latent per token and layer, from which every head's
keys and values are rebuilt, and one rotary key shared by the heads (nn/mla.py). Its claim: a much
smaller cache than multi-head attention (MHA) at an equal or better quality.

Here: three models of baby-llama's size, the same text, steps, windows and seeds: MHA (4 heads, 4
key-value heads), GQA (baby-llama itself: 2 key-value heads) and MLA (the preset baby-mla: a latent of
32 and a rotary key of 16). Each model's FFN width is set so that its whole parameter count equals
baby-llama's (equal_width: the nearest d_ff; the counts are read from the built models and printed).
The cache is measured, not computed: each trained model prefills max_len tokens into its own cache
(nn/kv_cache.py), whose bytes held, divided by the tokens, are the bytes per token; the package's
formula (nn/mla.py's kv_cache_bytes_per_token) is stored beside it.

The rules: the cache claim holds when MLA's bytes per token are at most SMALLER of MHA's and below
GQA's. The quality claim: MLA's mean loss is at most gqa.CLOSE nats above MHA's, or the seeds overlap
(gqa.close, the closeness rule of the GQA entry), and the same against GQA.
"""

from __future__ import annotations

import torch

from glassformer.config import PRESETS, Preset, apply_overrides
from glassformer.lab.common import corpus_for, eval_loss, pm, preset_for_lab, spread, train
from glassformer.lab.gqa import CLOSE, close
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.nn.mla import kv_cache_bytes_per_token

FULL = {"steps": 200, "T": 64}
FAST = {"steps": 8, "T": 32}
BASE = "baby-llama"  # GQA; its parameter count is the one every model matches
MLA = "baby-mla"
SMALLER = 0.25  # MLA's cache at most this share of MHA's


def parameters(preset: Preset, vocab: int) -> int:
    return sum(p.numel() for p in build_model(apply_overrides(preset, {"vocab_size": vocab}).model).parameters())


def equal_width(preset: Preset, target: int, vocab: int) -> int:
    """The d_ff at which the preset's model has the parameter count nearest to target: the count
    is linear in d_ff, so two builds give its slope."""
    F = preset.model.d_ff
    at, step = parameters(preset, vocab), parameters(apply_overrides(preset, {"d_ff": F + 1}), vocab)
    return F + round((target - at) / (step - at))


def variants(T: int, vocab: int) -> dict[str, Preset]:
    """MHA, GQA, MLA, each at baby-llama's parameter count."""
    gqa = preset_for_lab(BASE, seq_len=T)
    mha = apply_overrides(gqa, {"n_kv_heads": gqa.model.n_heads})
    mla = preset_for_lab(MLA, seq_len=T)
    target = parameters(gqa, vocab)
    return {
        "mha": apply_overrides(mha, {"d_ff": equal_width(mha, target, vocab)}),
        "gqa": gqa,
        "mla": apply_overrides(mla, {"d_ff": equal_width(mla, target, vocab)}),
    }


@torch.no_grad()
def measured_cache(model) -> int:
    """Bytes per token of the model's own cache, filled with max_len tokens of one sequence."""
    model.eval()
    n = model.cfg.max_len
    cache = model.new_cache(1)
    model(torch.zeros(1, n, dtype=torch.long), cache=cache)  # (1, n, V): the prefill fills the cache
    return cache.nbytes() // n


def formula_cache(cfg) -> int:
    """What nn/mla.py's kv_cache_bytes_per_token says for the model's attention (float32)."""
    if cfg.mla_kv_rank:
        return kv_cache_bytes_per_token("mla", cfg.n_layers, kv_rank=cfg.mla_kv_rank, d_rope=cfg.mla_d_rope)
    return kv_cache_bytes_per_token(
        "gqa", cfg.n_layers, n_heads=cfg.n_heads, n_kv_heads=cfg.kv_heads, d_head=cfg.d_head
    )


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    corpus = corpus_for(ctx, s["T"])
    out = {"steps": s["steps"], "T": s["T"], "unigram": corpus.unigram_loss(), "models": {}}
    for name, preset in variants(s["T"], corpus.vocab_size).items():
        losses, seconds = [], []
        for seed in range(ctx.seeds):
            ctx.log(f"{name}, seed {seed}")
            fit = train(preset, corpus, seed, s["steps"])
            losses.append(eval_loss(fit.model, corpus, s["T"]))
            seconds.append(fit.seconds)
        out["models"][name] = {
            "d_ff": preset.model.d_ff,
            "params": sum(p.numel() for p in fit.model.parameters()),
            "cache_bytes": measured_cache(fit.model),
            "formula_bytes": formula_cache(fit.model.cfg),
            "val_loss": spread(losses),
            "seconds": spread(seconds),
        }
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(6.5, 3.8)
    ax = axes[0, 0]
    v = out["models"]
    for name, x in v.items():
        ax.errorbar(x["cache_bytes"], x["val_loss"]["mean"], x["val_loss"]["spread"], fmt="o", capsize=3)
        ax.annotate(
            name.upper(),
            (x["cache_bytes"], x["val_loss"]["mean"]),
            fontsize=8,
            xytext=(4, 6),
            textcoords="offset points",
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel(t("KV-cache bytes per token ({dtype})", dtype="float32"))
    ax.set_ylabel(t("validation loss (nats)"))
    ax.set_title(t("MHA, GQA and MLA at equal parameters, {steps} steps", steps=out["steps"]), fontsize=9)
    ctx.figure(fig, "mla")


def verdicts(r: dict) -> dict:
    v = r["models"]
    mha, gqa, mla = v["mha"], v["gqa"], v["mla"]
    figures = {
        "mha": pm(mha["val_loss"]),
        "gqa": pm(gqa["val_loss"]),
        "mla": pm(mla["val_loss"]),
        "bytes_mha": f"{mha['cache_bytes']:,}",
        "bytes_gqa": f"{gqa['cache_bytes']:,}",
        "bytes_mla": f"{mla['cache_bytes']:,}",
        "share": f"{mla['cache_bytes'] / mha['cache_bytes']:.1%}",
        "params_mha": f"{mha['params']:,}",
        "params_gqa": f"{gqa['params']:,}",
        "params_mla": f"{mla['params']:,}",
        "diff_mha": f"{mla['val_loss']['mean'] - mha['val_loss']['mean']:+.3f}",
        "diff_gqa": f"{mla['val_loss']['mean'] - gqa['val_loss']['mean']:+.3f}",
        "steps": r["steps"],
    }
    cache = [mla["cache_bytes"] <= SMALLER * mha["cache_bytes"], mla["cache_bytes"] < gqa["cache_bytes"]]
    quality = [close(mha["val_loss"], mla["val_loss"]), close(gqa["val_loss"], mla["val_loss"])]
    return {"mla.cache": Verdict(level(cache), figures), "mla.quality": Verdict(level(quality), figures)}


def tables(r: dict) -> list[str]:
    lines = [
        "| attention | d_ff | parameters | cache bytes per token (measured) | (formula) | validation loss | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, v in r["models"].items():
        lines.append(
            f"| {name.upper()} | {v['d_ff']} | {v['params']:,} | {v['cache_bytes']:,} | {v['formula_bytes']:,} "
            f"| {pm(v['val_loss'])} | {pm(v['seconds'], 1)} |"
        )
    return [
        *lines,
        "",
        f"{r['steps']} steps of {r['T']} characters; the cache in float32, measured by prefilling max_len tokens. "
        f"Character frequencies alone: {r['unigram']:.3f}.",
    ]


EXPERIMENT = Experiment(
    name="mla",
    title=N_("Multi-head latent attention against GQA and MHA at equal parameters: loss and cache"),
    setup=N_(
        "Three models of baby-llama's size on the same text, steps, "
        "windows and seeds: multi-head attention ({H} heads, {H} "
        "key-value heads), grouped-query attention (baby-llama: {H_kv} "
        "key-value heads) and multi-head latent attention (baby-mla: a "
        "latent of {R} and a shared rotary key of {D_r}). Each FFN's "
        "width is set so that every model has baby-llama's parameter "
        "count. The cache is measured: each trained model prefills its "
        "own cache with max_len tokens, and its bytes held per token "
        "are read."
    ),
    claims=(
        Claim(
            "mla.cache",
            "DeepSeek-AI 2024 (DeepSeek-V2)",
            "abstract; §2.1",
            claim=N_("Multi-head latent attention keeps a much smaller key-value cache than multi-head attention."),
            rule=N_(
                "Two parts, on the measured caches: latent attention's bytes "
                "per token are at most {smaller} of multi-head attention's; "
                "and below grouped-query attention's. Both: holds; one: "
                "half-true; neither: fails."
            ),
            finding=N_(
                "Measured bytes per token (float32): multi-head {bytes_mha}, "
                "grouped-query {bytes_gqa}, latent {bytes_mla} ({share} of "
                "multi-head)."
            ),
            limits={"smaller": figure(SMALLER)},
            paper="arXiv 2405.04434",
            paper_says=N_(
                "DeepSeek-V2, abstract: compared with DeepSeek 67B, it "
                "“reduces the KV cache by 93.3%, and boosts the maximum "
                "generation throughput to 5.76 times”; §2.1 (as quoted on a "
                "third-party page): its MLA cache equals that of GQA “with "
                "only 2.25 groups”."
            ),
            ours=N_("bytes per token: multi-head {bytes_mha}, grouped-query {bytes_gqa}, latent {bytes_mla} ({share})"),
        ),
        Claim(
            "mla.quality",
            "DeepSeek-AI 2024 (DeepSeek-V2)",
            "§2.1",
            claim=N_(
                "At equal parameters, multi-head latent attention reaches a "
                "quality equal to or better than multi-head attention's."
            ),
            rule=N_(
                "Two parts: latent attention's mean validation loss is at most "
                "{close} nats above multi-head attention's, or the seeds "
                "overlap; and the same against grouped-query attention. Both: "
                "holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Validation loss after {steps} steps: multi-head {mha} "
                "({params_mha} parameters), grouped-query {gqa} ({params_gqa}), "
                "latent {mla} ({params_mla}); latent minus multi-head "
                "{diff_mha}, minus grouped-query {diff_gqa}."
            ),
            limits={"close": figure(CLOSE)},
            paper="arXiv 2405.04434",
            paper_says=N_(
                "DeepSeek-V2, §2.1 (as quoted on a third-party page): “MLA "
                "achieves superior performance compared with MHA”. The "
                "benchmark scores of that comparison (the paper's appendix): "
                "not in the parts read for this entry (the abstract and that "
                "quotation)."
            ),
            ours=N_("validation loss: multi-head {mha}, grouped-query {gqa}, latent {mla}"),
        ),
    ),
    setup_fields={
        "H": PRESETS[BASE].model.n_heads,
        "H_kv": PRESETS[BASE].model.n_kv_heads,
        "R": PRESETS[MLA].model.mla_kv_rank,
        "D_r": PRESETS[MLA].model.mla_d_rope,
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=400,
)

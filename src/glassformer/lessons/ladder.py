"""Lesson 5 — the ladder from GPT-2 to Qwen3, one change at a time (issue 46).

Every rung is a configuration, not new code: a ModelConfig made by `dataclasses.replace` from the
rung before it, changing exactly the fields the rung names (`RUNGS`, `ladder`, `differences`).
The same blocks build all of them (models/gpt.py reads the fields when the model is built).

    0 gpt2      GPT-2 at `baby`'s size: LayerNorm, GELU MLP 4C, learned positions, multi-head
                attention, biases on (GPT-2 has them; `baby` drops them, as nanoGPT's CPU recipe)
    1 rmsnorm   norm_type=rms                    Zhang & Sennrich 2019
    2 swiglu    ffn=swiglu, d_ff=⅔·4C rounded up to a multiple of 32 (glu_width)   Shazeer 2020
    3 rope      position=rope, rope_base=Qwen3's θ   Su et al. 2021
    4 gqa       n_kv_heads=H/2                   Ainslie et al. 2023
    5 qk-norm   qk_norm                          Dehghani et al. 2023, Wortsman et al. 2023
    6 head-dim  head_dim=64 (H·D = 2C)           Qwen3's heads, wider than C/H
    7 no-bias   bias=False                       Qwen3 report: no QKV-bias

The last rung is the `baby-qwen3` preset's model, field for field, but for `activation`, which a
gated FFN does not read (SwiGLU's gate is SiLU). baby-qwen3 ties its head to the embedding as the
small Qwen3 models do; what untying would cost is counted, not trained.

Each rung is trained on the same characters (Shakespeare, as `baby`; --fast: the lab's own toy
text, no download), the same windows, seed and steps, through the one trainer (lab/common.train),
and measured: parameters (model.num_params), the KV-cache bytes per token read from a real cache
after a prefill (beside the formula, inspect/params.kv_cache_per_token), training tokens/s (the
CPU named beside it), and the validation loss on the same fixed windows for every rung. Beside each
rung: what its paper claims, with the citation, and the paper's figure only where it was found.

Run it:  glassformer lesson ladder [--steps N] [--fast] [--data SRC] [--lang zh] [--out DIR]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from glassformer.config import BABY, LADDER_FAST, LADDER_STEPS, TRAIN_BABY, ModelConfig, Preset, get_preset
from glassformer.devices import machine_name, using_threads
from glassformer.errors import UsageError
from glassformer.inspect.params import kv_cache_per_token
from glassformer.lab.common import TOY, eval_loss, load_corpus, train
from glassformer.lab.glu import ffn_params
from glassformer.lessons.common import Narrator, fmt, out_dir, save_png
from glassformer.messages import N_, NP_, columns, pad, pad_left
from glassformer.models import build_model

QWEN3 = get_preset("baby-qwen3").model  # where the ladder ends
GPT2 = replace(BABY, bias=True)  # where it starts: baby's size, GPT-2's biases
GLU_MULTIPLE = 32  # the gated FFN's width is rounded up to a multiple of this (Llama's `multiple_of`)
PREFILL = 16  # tokens prefilled to read the cache's bytes
NOT_FOUND = N_("not found")  # a paper's figure that was not found in what was read of it


def glu_width(d_ff: int, multiple: int = GLU_MULTIPLE) -> int:
    """A gated FFN's hidden width with about the parameters of a plain FFN of width d_ff: three C×F'
    matrices instead of two C×F, so F' = ⅔·F (Shazeer 2020), rounded up to a multiple of `multiple`."""
    return multiple * math.ceil(2 * d_ff / 3 / multiple)


@dataclass(frozen=True)
class Rung:
    """One change: the fields it sets on the rung before it, and what its paper claims."""

    key: str
    name: str  # how the table names it (a technical name, the same in every language)
    changes: dict = field(default_factory=dict)
    cite: str = ""  # who claims it, where (authors, year, the part read, arXiv id)
    claim: str = ""  # the claim, one sentence (translated)
    figure: str | None = None  # the paper's figure as a sentence with {fields}; None: not found
    figure_fields: dict = field(default_factory=dict)


RUNGS = (
    Rung(
        "gpt2",
        "GPT-2",
        {},
        "Radford et al. 2019 (GPT-2)",
        N_(
            "The starting point: LayerNorm, a GELU feed-forward four times "
            "as wide as the stream, a learned position table, every head "
            "with its own keys and values, biases everywhere."
        ),
    ),
    Rung(
        "rmsnorm",
        "RMSNorm",
        {"norm_type": "rms"},
        "Zhang & Sennrich 2019, abstract (arXiv 1910.07467)",
        N_(
            "Re-centring is dispensable: dividing by the root mean square "
            "alone performs comparably to LayerNorm and costs less time."
        ),
        N_("running time {figure} lower than LayerNorm's, depending on the model"),
        {"figure": "7%–64%"},
    ),
    Rung(
        "swiglu",
        "SwiGLU",
        {"ffn": "swiglu", "d_ff": glu_width(BABY.d_ff)},
        "Shazeer 2020, abstract and §2 (arXiv 2002.05202)",
        N_(
            "Some gated variants of the feed-forward network (SwiGLU, "
            "GeGLU) improve quality over ReLU or GELU at the same number of "
            "parameters and operations."
        ),
        N_(
            "the hidden width cut from {plain} to {gated} at d_model "
            "{d_model} to keep the parameter and operation counts (as a "
            "summary of the paper reports it); its log-perplexities: not "
            "found"
        ),
        {"plain": 3072, "gated": 2048, "d_model": 768},
    ),
    Rung(
        "rope",
        "RoPE",
        {"position": "rope", "rope_base": QWEN3.rope_base},
        "Su et al. 2021, abstract (arXiv 2104.09864)",
        N_(
            "Rotating queries and keys by their positions makes attention "
            "depend on relative positions, with no position table to learn."
        ),
    ),
    Rung(
        "gqa",
        "GQA",
        {"n_kv_heads": QWEN3.n_kv_heads},
        "Ainslie et al. 2023, abstract (arXiv 2305.13245)",
        N_(
            "Query heads sharing fewer key-value heads reach a quality "
            "close to multi-head attention, with a cache a fraction of its "
            "size."
        ),
    ),
    Rung(
        "qk-norm",
        "QK-norm",
        {"qk_norm": True},
        "Dehghani et al. 2023 (arXiv 2302.05442); Wortsman et al. 2023, abstract (arXiv 2309.14322)",
        N_(
            "Normalising queries and keys stops the attention logits from "
            "growing, a cause of divergence that also appears in small "
            "models at high learning rates."
        ),
    ),
    Rung(
        "head-dim",
        "head_dim",
        {"head_dim": QWEN3.head_dim},
        "Qwen3 (arXiv 2505.09388), Qwen3-0.6B's configuration",
        N_("Qwen3 sets the head width apart from d_model / n_heads: its heads together are wider than the stream."),
        N_("{model}: {heads} query heads and {kv_heads} key-value heads at hidden size {hidden}"),
        {"model": "Qwen3-0.6B", "heads": 16, "kv_heads": 8, "hidden": 1024},
    ),
    Rung(
        "no-bias",
        "no bias",
        {"bias": False},
        "Qwen3 technical report, §2 (arXiv 2505.09388)",
        N_("Qwen3 removes the QKV-bias Qwen2 had and adds QK-norm, for stable training."),
    ),
)


def ladder(start: ModelConfig = GPT2, rungs=RUNGS) -> list[ModelConfig]:
    """Each rung's configuration: the one before it with the rung's changes (dataclasses.replace)."""
    configs = [replace(start, **rungs[0].changes)]
    for rung in rungs[1:]:
        configs.append(replace(configs[-1], **rung.changes))
    return configs


def differences(a: ModelConfig, b: ModelConfig) -> dict[str, tuple]:
    """{field: (a's value, b's value)} for every field where two configurations differ."""
    return {
        f.name: (getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)
    }


@torch.no_grad()
def cache_bytes_per_token(model, ids: torch.Tensor) -> int:
    """Prefill ids (1, P) through a fresh KV cache, then the bytes of the keys and values it holds
    (every layer's, as stored), per token held."""
    model.eval()
    cache = model.new_cache(ids.size(0))
    model(ids, cache=cache)  # (1, P, V)
    held = cache.nbytes()
    return held // (ids.size(0) * cache.held)


@dataclass
class Measured:
    """One trained rung, as the table prints it."""

    key: str
    config: ModelConfig
    params: int
    kv_bytes: int  # from the cache's own tensors after a prefill
    kv_formula: int  # inspect/params.kv_cache_per_token(config).mine
    tokens_per_s: float
    seconds: float
    val_loss: float
    curve: list  # [(step, mean training loss)]


def check_steps(steps: int) -> None:
    if steps < 1:
        raise UsageError(
            "lesson.at_least", "--{option} must be at least {least}, got {value}.", option="steps", least=1, value=steps
        )


def show_ladder(nar: Narrator, configs: list[ModelConfig]) -> list[dict]:
    nar.title(N_("1. The ladder: {n} configurations, each one change from the last"), n=len(configs))
    nar.why(
        N_(
            "Every rung is the rung before it with a few fields replaced: "
            "the same blocks build every model, reading the fields when it is "
            "built."
        )
    )
    steps = []
    for i, (rung, cfg) in enumerate(zip(RUNGS, configs, strict=True)):
        diff = differences(configs[i - 1], cfg) if i else {}
        steps.append(diff)
        changed = ", ".join(f"{k}: {a} → {b}" for k, (a, b) in diff.items()) or "-"
        nar.show(f"  {i} {rung.key:<9} {changed}")
    end = differences(configs[-1], QWEN3)
    nar.say(
        "The last rung differs from the baby-qwen3 preset's model in {fields} only, which a gated FFN does not read.",
        fields=", ".join(end) or "-",
    )
    return steps


def show_ffn_width(nar: Narrator, plain, gated) -> dict:
    """The FFN's parameters before and after SwiGLU, counted from the two built models."""
    L = plain.cfg.n_layers
    before, after = ffn_params(plain) // L, ffn_params(gated) // L
    nar.say(
        "SwiGLU's width: three C×F' matrices replace two C×F, so F' = ⅔·F = {exact}, rounded up to a "
        "multiple of {multiple}: d_ff {plain_width} → {gated_width}. The FFN of one block holds {before} "
        "parameters before and {after} after ({ratio} of before).",
        exact=fmt(2 * plain.cfg.d_ff / 3, 1),
        multiple=GLU_MULTIPLE,
        plain_width=plain.cfg.d_ff,
        gated_width=gated.cfg.d_ff,
        before=f"{before:,}",
        after=f"{after:,}",
        ratio=f"{after / before:.1%}",
    )
    return {"before": before, "after": after}


def climb(nar: Narrator, configs, corpus, run_cfg, seed: int) -> list[Measured]:
    """Train every rung the same way and measure it."""
    nar.title(
        N_("2. Each rung trained the same way: {steps} steps, batch {batch} × {T} characters of {data}"),
        steps=run_cfg.max_steps,
        batch=run_cfg.batch_size,
        T=run_cfg.seq_len,
        data=corpus.name,
    )
    prompt = torch.tensor(np.asarray(corpus.val[:PREFILL], dtype=np.int64)).unsqueeze(0)  # (1, P), a copy
    every = max(1, run_cfg.max_steps // 50)
    tokens = run_cfg.max_steps * run_cfg.batch_size * run_cfg.seq_len
    out = []
    for rung, cfg in zip(RUNGS, configs, strict=True):
        fit = train(Preset(cfg, run_cfg), corpus, seed, run_cfg.max_steps, every=every)
        if fit.status != "done":
            raise FloatingPointError(fit.status)
        model: Any = fit.model  # a GPT (models/gpt.py)
        m = Measured(
            rung.key,
            cfg,
            model.num_params(),
            cache_bytes_per_token(model, prompt),
            kv_cache_per_token(cfg).mine,
            tokens / fit.seconds,
            fit.seconds,
            eval_loss(model, corpus, run_cfg.seq_len),
            fit.curve,
        )
        out.append(m)
        nar.say(
            "  {rung}: validation loss {loss}, {tps} tokens/s",
            rung=rung.key,
            loss=fmt(m.val_loss),
            tps=f"{m.tokens_per_s:,.0f}",
        )
    return out


def table_rows(nar: Narrator, measured: list[Measured]) -> list[list[str]]:
    """The table as cells: a header, then one row per rung (every cell from a run)."""
    header = [
        "",
        nar.text(N_("change")),
        nar.text(N_("parameters")),
        nar.text(N_("KV bytes/token (cache)")),
        nar.text(N_("(formula)")),
        nar.text(N_("tokens/s")),
        nar.text(N_("validation loss")),
    ]
    rows = [header]
    for i, (rung, m) in enumerate(zip(RUNGS, measured, strict=True)):
        rows.append(
            [
                str(i),
                rung.name,
                f"{m.params:,}",
                f"{m.kv_bytes:,}",
                f"{m.kv_formula:,}",
                f"{m.tokens_per_s:,.0f}",
                fmt(m.val_loss),
            ]
        )
    return rows


def show_table(nar: Narrator, measured: list[Measured], threads: int, load: float) -> list[str]:
    nar.title(N_("3. What each change did, measured"))
    rows = table_rows(nar, measured)
    widths = [max(columns(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [pad(r[0], widths[0]), pad(r[1], widths[1])]
        cells += [pad_left(cell, w) for cell, w in zip(r[2:], widths[2:], strict=True)]
        lines.append("  " + "  ".join(cells))
    for line in lines:
        nar.show(line)
    nar.say(
        "tokens/s: training steps on {cpu}, {threads} thread(s), load average {load} when the lesson began.",
        cpu=machine_name(),
        threads=threads,
        load=fmt(load, 2),
    )
    gqa = next(i for i, r in enumerate(RUNGS) if r.key == "gqa")
    before, after = measured[gqa - 1], measured[gqa]
    nar.say(
        "Grouped-query attention: {heads} query heads share {kv_heads} key-value heads, so the cache holds "
        "{after} bytes per token instead of {before} ({ratio} of them), at the same head width.",
        heads=after.config.n_heads,
        kv_heads=after.config.kv_heads,
        after=f"{after.kv_bytes:,}",
        before=f"{before.kv_bytes:,}",
        ratio=f"{after.kv_bytes / before.kv_bytes:.0%}",
    )
    same = all(m.kv_bytes == m.kv_formula for m in measured)
    nar.say(
        "The bytes read from the cache equal the formula 2·n_layers·H_kv·D·{itemsize} on every rung: {same}.",
        itemsize=torch.float32.itemsize,
        same=same,
    )
    return lines


def show_claims(nar: Narrator) -> list[dict]:
    nar.title(N_("4. What the papers claim"))
    not_found = nar.text(NOT_FOUND)
    out = []
    for rung in RUNGS:
        figure = nar.text(rung.figure, **rung.figure_fields) if rung.figure else not_found
        nar.show(f"  {rung.name} — {rung.cite}")
        nar.show("    " + nar.text(rung.claim))
        nar.say("    the paper's figure: {figure}", figure=figure)
        out.append({"key": rung.key, "cite": rung.cite, "figure": rung.figure is not None})
    nar.why(
        N_(
            "A paper's figure is given only where it was read in the paper "
            "or a transcription of it; the rest says not found rather than "
            "guess."
        )
    )
    return out


def untied_cost(nar: Narrator, last: ModelConfig) -> int:
    """The parameters an untied head would add to the last rung (baby-qwen3 keeps it tied)."""
    tied: Any = build_model(last)
    untied: Any = build_model(replace(last, tie_weights=False))
    extra = untied.num_params() - tied.num_params()
    nar.say(
        "baby-qwen3 keeps its head tied to the token embedding, as the small Qwen3 models do; an untied head "
        "would add {extra} parameters (V·C = {V}·{C}) and change nothing in the cache.",
        extra=f"{extra:,}",
        V=last.vocab_size,
        C=last.d_model,
    )
    return extra


def save_chart(nar: Narrator, measured: list[Measured], path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.6), layout="constrained")
    curves, bars = fig.subplots(1, 2)
    for m in measured:
        steps, losses = zip(*m.curve, strict=True)
        curves.plot(steps, losses, lw=0.9, label=m.key)
    curves.set_xlabel(nar.text(NP_("lesson.common.step", "step")))
    curves.set_ylabel(nar.text(N_("training loss (nats)")))
    curves.legend(fontsize=7)
    bars.bar(range(len(measured)), [m.val_loss for m in measured])
    bars.set_xticks(range(len(measured)), [m.key for m in measured], rotation=45, fontsize=7)
    bars.set_ylabel(nar.text(N_("validation loss (nats)")))
    low = min(m.val_loss for m in measured)
    bars.set_ylim(low - 0.1 * abs(low), max(m.val_loss for m in measured) + 0.02 * abs(low))
    fig.suptitle(nar.text(N_("GPT-2 to Qwen3, one change at a time")))
    return save_png(fig, path)


def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    steps: int | None = None,
    fast: bool = False,
    data: str | None = None,
    seed: int = 0,
    threads: int = 1,
    cache_dir: str | None = None,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it).
    fast: LADDER_FAST's steps, batch and windows on the lab's toy text (what the tests run)."""
    steps = steps if steps is not None else (LADDER_FAST["steps"] if fast else LADDER_STEPS)
    check_steps(steps)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")  # before the lesson's own work
    with using_threads(threads):
        nar = Narrator(lang, explain, echo)
        configs = ladder()
        corpus = load_corpus(data or (TOY if fast else "shakespeare"), cache_dir)
        sizes: dict[str, Any] = (
            {"batch_size": LADDER_FAST["batch_size"], "seq_len": LADDER_FAST["seq_len"]} if fast else {}
        )
        run_cfg = replace(TRAIN_BABY, max_steps=steps, seed=seed, threads=0, **sizes)
        corpus.need(run_cfg.seq_len)
        folder = out_dir("ladder", out)
        diffs = show_ladder(nar, configs)
        ffn = show_ffn_width(nar, build_model(configs[0]), build_model(configs[2]))
        measured = climb(nar, [replace(c, vocab_size=corpus.vocab_size) for c in configs], corpus, run_cfg, seed)
        lines = show_table(nar, measured, torch.get_num_threads(), load)
        claims = show_claims(nar)
        extra = untied_cost(nar, measured[-1].config)
        files = [save_chart(nar, measured, folder / "ladder.png")]
        nar.title(N_("Files written"))
        for f in files:
            nar.show(f"  {f}")
    return {
        "configs": configs,
        "differences": diffs,
        "ffn": ffn,
        "measured": measured,
        "table": lines,
        "claims": claims,
        "untied_extra": extra,
        "cpu": machine_name(),
        "data": corpus.name,
        "steps": steps,
        "files": files,
    }

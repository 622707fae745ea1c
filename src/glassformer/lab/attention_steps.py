"""Experiment 10 — attention across training: do the heads start uniform and sharpen as they learn?

Seed 002 (§3.2) describes attention weights that begin as an even spread and, with training,
gather on a few positions. Here the char model (preset `baby` on Shakespeare) is trained for
2000 steps while train/record.AttentionLog (the callback `glassformer train
--attention-every N` uses) records every head's map for one fixed 32-character probe at steps
0, 100, 500 and 2000. Sharpness is the normalised entropy of each query's row,
H(w_t) / ln(t + 1): 1 = even over the t + 1 keys it may see, 0 = all weight on one key.

`render(log, folder)` turns any attention log into a PNG strip (heads × steps) and an offline
HTML page with a step slider, both in the current language (--lang) and drawing Chinese tokens with
the shipped font (the page carries it inside); `glassformer train --attention-every N` calls it on
its run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from glassformer.config import get_preset
from glassformer.files import write_text_atomic
from glassformer.fonts import use_in_figure
from glassformer.inspect.attention_view import FILL_JS, VIRIDIS_JS, fill_page, script_json
from glassformer.inspect.trace import token_labels
from glassformer.lab.common import corpus_for, eval_loss, lab_preset, row_entropy, train
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, NP_, t
from glassformer.train.record import AttentionLog

FULL_STEPS, FAST_STEPS = (0, 100, 500, 2000), (0, 5, 20, 60)
PROBE = 32  # characters in the probe
EVEN, SHARPER = 0.9, 0.1  # the rule: step 0 near even (entropy >= EVEN); the last step lower by SHARPER


def summarise(log: dict) -> dict:
    """Per record: every head's mean normalised entropy and mean weight on the query itself."""
    out = {"steps": [], "entropy": [], "self_weight": []}
    for rec in log["records"]:
        m = np.array(rec["maps"], dtype=np.float64)  # (heads, T, T), NaN where masked
        out["steps"].append(rec["step"])
        out["entropy"].append(row_entropy(m).mean(-1).tolist())  # (heads,)
        out["self_weight"].append(np.nan_to_num(np.diagonal(m, axis1=-2, axis2=-1)).mean(-1).tolist())
    return out


def chosen(log: dict, per_layer: int = 1) -> list[int]:
    """Indices (into log["heads"]) of the head of each layer whose last map is sharpest."""
    ent = summarise(log)["entropy"][-1]
    best: dict[int, int] = {}
    for i, (layer, _) in enumerate(log["heads"]):
        if layer not in best or ent[i] < ent[best[layer]]:
            best[layer] = i
    return [best[layer] for layer in sorted(best)][:8]


def strip_png(log: dict, path: Path, heads: list[int] | None = None) -> Path:
    """Heads as rows, recorded steps as columns; masked cells white."""
    fig = strip_figure(log, chosen(log) if heads is None else heads)
    use_in_figure(fig)  # Chinese words draw from the shipped font
    fig.savefig(path, dpi=80)
    return path


def strip_figure(log: dict, heads: list[int]):
    """strip_png's matplotlib Figure, its words in the user's language."""
    recs = log["records"]
    fig, axes = new_figure(1.9 * len(recs) + 0.6, 1.9 * len(heads) + 0.5, len(heads), len(recs))
    for r, i in enumerate(heads):
        layer, head = log["heads"][i]
        for c, rec in enumerate(recs):
            ax = axes[r, c]
            ax.imshow(
                np.ma.masked_invalid(np.array(rec["maps"][i], dtype=float)),
                cmap="viridis",
                vmin=0,
                vmax=1,
                interpolation="nearest",
            )
            ax.set_xticks([])
            ax.set_yticks([])
            if r == 0:
                ax.set_title(t("step {step}", step=rec["step"]), fontsize=9)
            if c == 0:
                ax.set_ylabel(t("layer {layer} · head {head}", layer=layer, head=head), fontsize=8)
    fig.suptitle(t("attention weights (rows = query, columns = key; white = masked)"), fontsize=9)
    return fig


CSS = """
body { font-family: SANS; margin: 1.2em; color: #222; }
select { font-family: inherit; }
td, th { width: 16px; height: 16px; padding: 0; font-size: 10px; font-weight: normal; }
table { border-collapse: collapse; } td.m { background: #eee; } .note { color: #666; }
input[type=range] { width: 320px; vertical-align: middle; }
"""

JS = (
    FILL_JS
    + VIRIDIS_JS
    + """
const $ = (id) => document.getElementById(id);
function draw() {
  const h = +$("head").value, r = +$("step").value, rec = DATA.records[r], M = rec.maps[h];
  $("label").textContent = fill(DATA.words.step, {step: rec.step});
  $("ent").textContent = fill(DATA.words.entropy, {value: DATA.entropy[r][h].toFixed(3)});
  const tb = $("m"); tb.innerHTML = "";
  const top = tb.insertRow(); top.appendChild(document.createElement("th"));
  DATA.tokens.forEach((t) => { const th = document.createElement("th"); th.textContent = t; top.appendChild(th); });
  M.forEach((row, i) => {
    const tr = tb.insertRow(), th = document.createElement("th");
    th.textContent = DATA.tokens[i]; tr.appendChild(th);
    row.forEach((w, j) => {
      const td = tr.insertCell();
      if (w === null) { td.className = "m"; return; }
      td.style.background = viridis(w / 1000);
      td.title = `${DATA.tokens[i]} \\u2192 ${DATA.tokens[j]}: ${(w / 1000).toFixed(3)}`;
    });
  });
}
DATA.heads.forEach((p, i) => $("head").add(new Option(fill(DATA.words.head, {layer: p[0], head: p[1]}), i)));
$("step").max = DATA.records.length - 1;
$("head").onchange = $("step").oninput = draw;
draw();
"""
)

PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>{font}{css}</style></head><body>
<h2>{heading}</h2>
<p class="note">{note}</p>
<p><select id="head"></select> {slider} <input id="step" type="range" min="0" value="0">
<b id="label"></b> <span id="ent" class="note"></span></p>
<table id="m"></table>
<script>const DATA = {data};</script>
<script>{js}</script></body></html>
"""


def slider_page(log: dict) -> str:
    """The offline page as one HTML string, in the current language (the catalogue's words, <html
    lang>), carrying the shipped font cut to its characters (tokens may be Chinese). Data embedded as
    JSON (no network, no URL); weights in thousandths (integers) to keep the page small; null = masked."""
    records = [
        {
            "step": r["step"],
            "maps": [[[None if w is None else round(1000 * w) for w in row] for row in m] for m in r["maps"]],
        }
        for r in log["records"]
    ]
    words = {  # the script fills in {step}, {layer} and {head}, {value}
        "step": t("step {step}", step="{step}"),
        "head": t("layer {layer} · head {head}", layer="{layer}", head="{head}"),
        "entropy": t("mean normalised entropy {value}", value="{value}"),
    }
    data = script_json({**log, "records": records, "entropy": summarise(log)["entropy"], "words": words})
    shown = {
        "title": t("glassformer attention across training"),
        "heading": t("Attention across training"),
        "note": t(
            "Move the slider to see one head's map at each recorded step "
            "(rows = query, columns = key, grey = masked). Normalised "
            "entropy 1 = weight spread evenly, 0 = all on one key."
        ),
        "slider": t(NP_("pictures.lab.attention-steps.page.slider", "step")),
    }
    return fill_page(PAGE, CSS, JS, data, shown, [*log["tokens"], *words.values()])


def slider_html(log: dict, path: Path) -> Path:
    """Write slider_page(log) to `path` (atomically); returns the path."""
    write_text_atomic(path, slider_page(log))
    return path


def render(log: dict, folder: str | Path, name: str = "attention_steps") -> list[Path]:
    folder = Path(folder)
    return [strip_png(log, folder / f"{name}.png"), slider_html(log, folder / f"{name}.html")]


def run(ctx) -> dict:
    steps = FAST_STEPS if ctx.fast else FULL_STEPS
    preset = lab_preset(seq_len=PROBE, max_len=PROBE) if ctx.fast else get_preset("baby")
    corpus = corpus_for(ctx, preset.train.seq_len)
    start = min(1000, len(corpus.val) - PROBE)  # a fixed stretch of validation text
    probe = np.asarray(corpus.val[start : start + PROBE], dtype=np.int64)  # (PROBE,)
    labels = token_labels(probe, corpus.tokenizer)
    logs = []

    def attach(model):
        logs.append(AttentionLog(model, probe[None, :], labels, steps=steps))
        return logs[-1]

    ctx.log(f"training {'a tiny model' if ctx.fast else 'baby'} for {steps[-1]} steps")
    fit = train(preset, corpus, 0, steps[-1], callbacks_for=lambda m: [attach(m)])
    log = logs[0].as_dict()
    strip_png(log, ctx.out / "attention_steps.png")
    ctx.figures.append("attention_steps.png")
    slider_html(log, ctx.out / "attention_steps.html")
    s = summarise(log)
    return {
        "steps": s["steps"],
        "heads": log["heads"],
        "entropy": s["entropy"],
        "self_weight": s["self_weight"],
        "val_loss": eval_loss(fit.model, corpus, preset.train.seq_len),
        "curve": fit.curve,
        "preset": "seed000 (lab)" if ctx.fast else "baby",
        "probe": "".join(labels),
    }


def verdicts(r: dict) -> dict:
    first, last = np.array(r["entropy"][0]), np.array(r["entropy"][-1])
    v = Verdict(
        level([bool(first.min() >= EVEN), bool(last.mean() <= first.mean() - SHARPER)]),
        {
            "first_min": f"{first.min():.3f}",
            "first_mean": f"{first.mean():.3f}",
            "last_mean": f"{last.mean():.3f}",
            "last_min": f"{last.min():.3f}",
            "step": r["steps"][-1],
            "n": len(first),
        },
    )
    return {"attention-steps.sharpen": v}


def tables(r: dict) -> list[str]:
    lines = ["| layer.head | " + " | ".join(f"step {s}" for s in r["steps"]) + " |", "|---|" + "---|" * len(r["steps"])]
    for i, (layer, head) in enumerate(r["heads"]):
        lines.append(f"| {layer}.{head} | " + " | ".join(f"{e[i]:.3f}" for e in r["entropy"]) + " |")
    return [
        "Mean normalised entropy of each head's rows (1 = even spread, 0 = one key):",
        "",
        *lines,
        "",
        f"Validation loss after {r['steps'][-1]} steps: {r['val_loss']:.3f}. "
        f"Probe: `{r['probe']}`. The slider page is attention_steps.html beside this report.",
    ]


EXPERIMENT = Experiment(
    name="attention-steps",
    title=N_("Attention across training: uniform at first, sharper later?"),
    setup=N_(
        "The char model (preset baby: {layers} layers, {heads} "
        "heads, d_model {d_model}) trained on Shakespeare; every "
        "head's attention map for one fixed {probe}-character "
        "stretch of validation text recorded at chosen steps with "
        "the trainer callback that glassformer train "
        "--attention-every uses. Sharpness: each query row's entropy "
        "divided by the log of the number of keys it may see (1 = "
        "even spread, 0 = one key), averaged over the row's queries."
    ),
    claims=(
        Claim(
            "attention-steps.sharpen",
            "002",
            "§3.2",
            claim=N_(
                "At the start of training the attention weights are spread "
                "evenly; as training goes on they gather on a few positions."
            ),
            rule=N_(
                "Two parts: at step 0 every head's mean normalised entropy "
                "is at least {even} (near even); at the last step the mean "
                "over heads is at least {sharper} lower than at step 0. "
                "Both: holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "At step 0 the {n} heads' normalised entropy is {first_mean} "
                "on average (lowest {first_min}); after {step} steps it is "
                "{last_mean} on average (lowest {last_min})."
            ),
            limits={"even": figure(EVEN), "sharper": figure(SHARPER)},
        ),
    ),
    setup_fields={
        "layers": get_preset("baby").model.n_layers,
        "heads": get_preset("baby").model.n_heads,
        "d_model": get_preset("baby").model.d_model,
        "probe": PROBE,
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=1,
    seeded=False,  # one computation: no random seed to vary
    budget_s=600,
)

"""Lesson 0 — the first tutorial's TinyTransformer, built and trained the way it describes (seed 000).

Setup (seed 000, §2 and §6): a character vocabulary from one short sentence, random windows of 16
characters shifted by one for the targets, the TinyTransformer (2 pre-LN blocks, 4 heads written as
a ModuleList of single heads, d_model 64, d_ff 128, learned positions for 128 places, dropout 0.1:
the `seed000` preset with mha_style="heads"), AdamW at 1e-3 over every parameter, 500 steps of
batch 16 with the loss printed every 100, then 50 characters sampled after "hello" at temperature
0.8. Every figure the tutorial prints is recomputed here: ids[:20], vocab_size, the losses, the
sample, and its parameter estimate ("about 50 thousand"), which the model itself counts.

Its claims are tested by the lab (`glassformer lab run NAME`); section 6 lists which experiment
tests which claim and, when a lab folder with results is at hand (--lab, default docs/lab), the
verdict found there. The lesson reads those results.json files; it does not import the lab.

Run it:  glassformer lesson tiny [--lang zh] [--explain] [--fast] [--lab DIR]
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import torch

from glassformer.config import TINY_FAST_STEPS, TINY_PRESET, get_preset
from glassformer.devices import using_threads
from glassformer.inspect.params import param_table
from glassformer.lessons.common import Narrator, fmt, out_dir, save_png
from glassformer.messages import N_, NP_, in_language
from glassformer.models import build_model
from glassformer.sample import sample
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.data import TextWindows
from glassformer.train.loop import Trainer

# --- the tutorial's figures (seed 000), kept only to be compared with what the lesson computes
TUTORIAL_000_TEXT = "hello world this is a tiny transformer demo"  # §2.2: the text it trains on (its whole corpus)
PUBLISHED_000_PARAMS = 50_000  # §6.3: "this model of about 50 thousand parameters" (5 万参数级别), an estimate

PRESET = get_preset(TINY_PRESET)  # the tutorial's model and loop (seed 000, §6.1-6.2)
STEPS, PRINT_EVERY = PRESET.train.max_steps, 100  # 500 steps; `if step % 100 == 0: print(...)` (§6.2)
PROMPT, MAX_NEW, TEMPERATURE, CROP = "hello", 50, 0.8, 32  # its generate(): §6.4
FAST_STEPS = TINY_FAST_STEPS
# (tutorial section, lesson phrase key, lab experiment, lab claim key or None for the whole experiment)
LAB_LINKS = (
    (
        "§3.2",
        N_("Dividing by √d_head keeps the score variance stable and matters a lot for training stability."),
        "scaling",
        "scaling.variance",
    ),
    (
        "§3.3",
        N_("Without a causal mask a decoder learns to cheat by reading the future."),
        "causal-leak",
        "causal-leak.cheat",
    ),
    ("§3.3", N_("A -inf score makes the masked softmax weight approach 0."), "mask-fill", "mask-fill.inf"),
    ("§4.1", N_("Self-attention is a set operation: without positions, word order is lost."), "order", "order.set"),
    (
        "§4.2",
        N_("Sinusoidal positions extrapolate to longer sequences better than a learned table."),
        "length",
        "length.sinusoidal",
    ),
    ("§4.3", N_("Several heads each learn their own kind of relation."), "heads", None),
    (
        "§5.2",
        N_("Post-LN is sensitive to the learning rate and diverges easily; Pre-LN is stable."),
        "layernorm",
        "layernorm.post_unstable",
    ),
    ("§5.3", N_("The FFN is not optional; d_ff is usually two to four times d_model."), "ffn-width", None),
)


def tokenizer_and_ids(nar: Narrator) -> tuple[CharTokenizer, np.ndarray]:
    nar.title(N_("1. Characters, ids and vocab_size"))
    tok = CharTokenizer.from_text(TUTORIAL_000_TEXT)
    ids = tok.encode_array(TUTORIAL_000_TEXT)  # (N,)
    nar.why(
        N_("The vocabulary is the sorted set of the text's characters; a character's id is its place in that list.")
    )
    nar.show("  " + " ".join(f"{i}:{c!r}" for i, c in enumerate(tok.chars)))
    nar.show(f"  ids[:20] = {ids[:20].tolist()}")
    nar.show(f"  vocab_size: {tok.vocab_size}")
    nar.say("The whole corpus is one sentence of {n} characters, {V} of them distinct.", n=len(ids), V=tok.vocab_size)
    return tok, ids


def windows(nar: Narrator, tok: CharTokenizer, ids: np.ndarray) -> dict:
    """One window pair, and which characters can ever be a target under each sampler's bound."""
    nar.title(N_("2. Windows of {T} characters, targets shifted by one"), T=PRESET.train.seq_len)
    T, n = PRESET.train.seq_len, len(ids)
    x, y = ids[3 : 3 + T], ids[4 : 4 + T]
    nar.show(f"  x = {tok.decode(x)!r}")
    nar.show(f"  y = {tok.decode(y)!r}")
    nar.why(N_("At every position the target is the next character: one window gives as many examples as it is long."))
    theirs = n - T - 1  # torch.randint(0, len(ids) - seq_len - 1): starts 0 .. n-T-2
    ours = n - T  # train/data.get_batch: starts 0 .. n-T-1
    last_theirs, last_ours = theirs - 1 + T, ours - 1 + T  # index of the last character ever a target
    nar.say(
        "The tutorial draws start offsets with randint(0, len(ids) - "
        "seq_len - 1): {starts} possible starts, so the last "
        "character that is ever a target sits at index {last} of "
        "0..{n_last}, and the final character {char!r} is never "
        "predicted. glassformer's get_batch draws from {ours} "
        "starts; its last target is index {last_ours}.",
        starts=theirs,
        last=last_theirs,
        n_last=n - 1,
        char=tok.decode([int(ids[-1])]),
        ours=ours,
        last_ours=last_ours,
    )
    return {
        "starts_tutorial": theirs,
        "starts_ours": ours,
        "last_target_tutorial": last_theirs,
        "last_target_ours": last_ours,
        "n": n,
    }


def count_parameters(nar: Narrator, model) -> dict:
    nar.title(N_("3. Parameters, counted from the model (formula beside each part)"))
    table = param_table(model)
    for line in table.to_text(lang=nar.lang).splitlines():
        nar.show("  " + line)
    total = model.num_params()
    pos_rows, used = model.cfg.max_len, max(PRESET.train.seq_len, CROP)  # rows ever read
    nar.say(
        "The model has {ours} parameters; the tutorial speaks of a model of about {published}. Ratio: {ratio}.",
        ours=f"{total:,}",
        published=f"{PUBLISHED_000_PARAMS:,}",
        ratio=f"{total / PUBLISHED_000_PARAMS:.2f}",
    )
    nar.say(
        "The position table has {rows} rows, but training reads "
        "positions 0..{train_last} and the tutorial's generation at "
        "most 0..{gen_last}, so {idle} rows are never read or "
        "trained: {share} of all parameters.",
        rows=pos_rows,
        train_last=PRESET.train.seq_len - 1,
        gen_last=CROP - 1,
        idle=pos_rows - used,
        share=f"{(pos_rows - used) * model.cfg.d_model / total:.1%}",
    )
    return {
        "ours": total,
        "published": PUBLISHED_000_PARAMS,
        "formulas_match": table.matches,
        "position_rows_used": used,
    }


def train(nar: Narrator, model, ids: np.ndarray, steps: int, seed: int) -> dict:
    """The tutorial's loop through glassformer's trainer: its AdamW (decay on every parameter, as
    torch.optim.AdamW does by default), random windows, the loss of the batch at each print."""
    nar.title(
        N_("4. Training as the tutorial does: {steps} steps, batch {batch}, AdamW at {lr}"),
        steps=steps,
        batch=PRESET.train.batch_size,
        lr=f"{PRESET.train.lr:g}",
    )
    cfg = dataclasses.replace(PRESET.train, max_steps=steps, seed=seed, threads=0, eval_iters=1)
    losses: list[float] = []
    record = lambda event, t: losses.append(t.last_loss.item()) if event == "step" else None  # noqa: E731
    Trainer(
        model,
        cfg,
        TextWindows(ids, ids, cfg.batch_size, cfg.seq_len, 1, seed),
        evaluate=None,
        optimizer=torch.optim.AdamW(model.parameters(), lr=cfg.lr),
        callbacks=[record],
        progress="silent",
    ).fit()
    model.eval()
    for step in range(0, steps, PRINT_EVERY):
        nar.say("  step {step}: loss {loss}", step=step, loss=f"{losses[step]:.4f}")
    tail = float(np.mean(losses[-PRINT_EVERY:]))
    nar.say(
        "The loss of the first batch is {first} (a uniform guess "
        "over the vocabulary: {uniform}); the mean over the last {n} "
        "steps is {last}.",
        first=fmt(losses[0]),
        last=fmt(tail),
        n=min(PRINT_EVERY, steps),
        uniform=fmt(np.log(model.cfg.vocab_size)),
    )
    nar.why(
        N_(
            "Like the tutorial, each printed line is the loss of one "
            "batch at that step, with dropout on: it jumps from batch to "
            "batch."
        )
    )
    return {"losses": losses, "printed": {s: losses[s] for s in range(0, steps, PRINT_EVERY)}, "last_mean": tail}


def generate(nar: Narrator, model, tok: CharTokenizer, seed: int) -> dict:
    nar.title(
        N_('5. Sampling after "{prompt}": {n} characters at temperature {temperature}'),
        prompt=PROMPT,
        n=MAX_NEW,
        temperature=TEMPERATURE,
    )
    text = sample(model, tok, PROMPT, MAX_NEW, temperature=TEMPERATURE, seed=seed)[0]
    nar.show(f"  {PROMPT + text!r}")
    words = set(TUTORIAL_000_TEXT.split())
    found = [w for w in (PROMPT + text).split() if w in words]
    cropped = max(0, len(PROMPT) + MAX_NEW - CROP)
    nar.say(
        "{found} of the {total} space-separated pieces are words of the training sentence: {words}",
        found=len(found),
        total=len((PROMPT + text).split()),
        words=" ".join(found) or "-",
    )
    nar.say(
        "The tutorial's generate() feeds only the last {crop} "
        "characters although the model has {max_len} positions, so "
        "its last {cropped} steps see a cropped context; "
        "glassformer's sampler keeps up to max_len.",
        crop=CROP,
        max_len=model.cfg.max_len,
        cropped=cropped,
    )
    return {"text": text, "known_words": found, "steps_with_cropped_context": cropped}


def lab_verdicts(nar: Narrator, lab: Path | None) -> list[dict]:
    """Each claim of the tutorial, the lab experiment that tests it, and its verdict if at hand."""
    nar.title(N_("6. The tutorial's claims, and the lab experiment that tests each"))
    rows = []
    for where, phrase, name, claim in LAB_LINKS:
        row = {"where": where, "experiment": name, "claim": claim, "level": None}
        results = lab / name / "results.json" if lab is not None else None
        if results is not None and results.exists():
            record = json.loads(results.read_text(encoding="utf-8"))
            found = [c for c in record["claims"] if claim is None or c["key"] == claim]
            if found:
                row["level"] = " / ".join(sorted({c["level"] for c in found}))
                row["finding"] = found[0][f"finding_{nar.lang}"]
        rows.append(row)
        nar.show(f"  {where}  {nar.text(phrase)}")
        nar.show(f"         glassformer lab run {name}" + (f"   [{row['level']}]" if row["level"] else ""))
        if row.get("finding"):
            nar.why(N_("measured: {finding}"), finding=row["finding"])
    if lab is None or not any(r["level"] for r in rows):
        nar.say(
            "No lab results found in {lab}: run `glassformer lab run "
            "NAME --out {lab}` (or pass --lab DIR) to see the verdicts "
            "here.",
            lab=str(lab) if lab is not None else "docs/lab",
        )
    return rows


def save_figures(nar: Narrator, folder: Path, losses: list[float], model, tok: CharTokenizer) -> list[Path]:
    from matplotlib.figure import Figure

    from glassformer.inspect import attention_grid_png

    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.plot(range(len(losses)), losses, lw=0.8)
    ax.set_xlabel(nar.text(NP_("lesson.common.step", "step")))
    ax.set_ylabel(nar.text(N_("training loss of the batch (nats)")))
    files = [save_png(fig, folder / "loss.png")]
    ids = torch.tensor([tok.encode(TUTORIAL_000_TEXT[: PRESET.train.seq_len])])  # (1, T)
    with in_language(nar.lang):  # the grid's words in the lesson's language
        grid = attention_grid_png(model, ids, list(TUTORIAL_000_TEXT[: PRESET.train.seq_len]), folder / "attention.png")
    files.append(grid)
    return files


def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
    lab: str | Path | None = "docs/lab",
) -> dict:
    """Print the whole lesson; return what it computed (tests read it).
    fast: 100 training steps instead of the tutorial's 500 (what the tests run)."""
    with using_threads(threads):
        nar = Narrator(lang, explain, echo)
        folder = out_dir("tiny", out)
        tok, ids = tokenizer_and_ids(nar)
        batches = windows(nar, tok, ids)
        torch.manual_seed(seed)
        model = build_model(dataclasses.replace(PRESET.model, vocab_size=tok.vocab_size, mha_style="heads"))
        params = count_parameters(nar, model)
        fit = train(nar, model, ids, FAST_STEPS if fast else STEPS, seed)
        text = generate(nar, model, tok, seed)
        lab_dir = Path(lab) if lab is not None else None
        claims = lab_verdicts(nar, lab_dir if lab_dir is not None and lab_dir.is_dir() else None)
        files = save_figures(nar, folder, fit["losses"], model, tok)
        nar.title(N_("Files written"))
        for f in files:
            nar.show(f"  {f}")
    return {
        "vocab_size": tok.vocab_size,
        "ids": ids.tolist(),
        "batches": batches,
        "params": params,
        "training": fit,
        "sample": text,
        "claims": claims,
        "files": files,
    }

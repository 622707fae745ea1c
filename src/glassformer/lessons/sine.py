"""Lesson 3 — a Transformer for numbers, and two problems in the tutorial that taught it (seed 004, §5).

The model is glassformer's SequenceRegressor with the `sine` preset (Linear(1, d_model) numeric
embedding, sinusoidal positions, 2 post-LN encoder layers with GELU, d_model 32, 4 heads,
d_ff 128, dropout 0.1), trained with MSE, Adam, gradient clipping at 1.0 and a chosen schedule.
The waves themselves come from train/data.py (the trainer's `sine` sources):

    x = linspace(start, start + 2π, 50),  y = sin(freq · x) + N(0, 0.01²)
    start ~ U(0, 2π),  freq ~ U(0.5, 2)                                  (seed 004, §5.1)

--task tutorial   the tutorial's framing: read the 50 x values, predict the 50 y values. The
                  frequency is random and never shown, so the lesson computes the Bayes floor
                  and shows the trained model landing on it, far from zero.
--task forecast   (default) a well-posed task: read the first 40 noisy y values, predict the
                  next 10. Direct multi-step: one causal forward pass, d_out = 10, position t
                  predicts y[t+1..t+10]. Chosen over autoregressive rollout because errors do
                  not compound, one pass gives all 10 values, and the causal mask turns every
                  prefix of a training sequence into an honest example. Compared each epoch with
                  two naive baselines; stops early when validation stops improving.
--schedule        noam (default) | cosine | tutorial (the tutorial's LambdaLR, below)

The file reads: what any model could do (baselines, the Bayes floor), the learning-rate
schedules, the two tasks, the printing and figures, and `run`.

Run it:  glassformer lesson sine [--task forecast|tutorial] [--schedule noam|cosine|tutorial]
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from glassformer.config import SINE_EPOCHS, SINE_FAST, get_preset
from glassformer.devices import using_threads
from glassformer.errors import UsageError
from glassformer.lessons.common import Narrator, n_batches, out_dir, save_png, seed_all, train_epochs
from glassformer.messages import N_, NP_, in_language, pad_left
from glassformer.models import build_model
from glassformer.nn.loss import mse_loss
from glassformer.train.data import (  # the waves live with the trainer's sources
    FREQ_HIGH,
    FREQ_LOW,
    HORIZON,
    N_TRAIN,
    N_VAL,
    NOISE,
    OBSERVED,
    SEQ_LEN,
    STEP,
    SineSet,
    as_tensor,
    forecast_windows,
)
from glassformer.train.data import make as make_waves
from glassformer.train.loop import cosine, noam

# --- the tutorial's figures (seed 004), kept only to be compared with what the lesson computes
# Printed in seed 004, §5.3: its optimiser and LambdaLR settings (base lr and the warmup in steps).
TUTORIAL_BASE_LR = 1e-3
TUTORIAL_WARMUP = 4000

PRESET = get_preset("sine")  # model and training settings of the tutorial (seed 004, §5)
BATCH_SIZE, GRAD_CLIP = PRESET.train.batch_size, PRESET.train.grad_clip
TASKS = SINE_EPOCHS  # task -> default epochs
FAST = SINE_FAST  # --fast sizes (the tests)
WINDOW, RECENT = 2, 5  # where the forecast looks: keys within ±WINDOW of one period back; the last RECENT values


# --- what any model could do -------------------------------------------------------------------------
# The tutorial feeds the model x and asks for y. But freq is drawn afresh for every sequence and
# never given, and x (all 50 values of it) carries no information about freq: x only fixes start.
# So the best any model can do is predict E[y | x] = E_f[sin(f·x)] for each point, and its error
# can never fall below the Bayes floor  σ² + E_x[Var_f sin(f·x)].  Both are estimated here by
# Monte-Carlo over freq.


BASELINE_WORDS = {  # each naive baseline's name on the chart
    "zero": N_("baseline: zero"),
    "last value": N_("baseline: last value"),
}


def naive_baselines(y: np.ndarray) -> dict[str, float]:
    """MSE over the 10 future values of predicting 0, and of repeating the last observed value."""
    future = y[:, OBSERVED:]  # (N, 10)
    return {
        "zero": float((future**2).mean()),
        "last value": float(((future - y[:, OBSERVED - 1 : OBSERVED]) ** 2).mean()),
    }


# ------------------------------------------------------------------ the tutorial's task
def bayes_mean(x: np.ndarray, freqs: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """E_f[sin(f·x)] for every entry of x, averaged over the sampled frequencies `freqs` (K,)."""
    flat = x.reshape(-1)  # (M,)
    out = np.empty_like(flat)  # (M,)
    for i in range(0, len(flat), chunk):
        out[i : i + chunk] = np.sin(flat[i : i + chunk, None] * freqs[None, :]).mean(axis=1)  # (chunk,)
    return out.reshape(x.shape)


def bayes_floor(rng: np.random.Generator, n_points: int = 20000, n_freq: int = 512) -> tuple[float, float]:
    """σ² + E_x[Var_f sin(f·x)] by Monte-Carlo, with its standard error.

    Each sample point is an independent (start, position) pair; for each, n_freq frequencies
    give an unbiased estimate of Var_f sin(f·x)."""
    x = rng.uniform(0, 2 * math.pi, n_points) + STEP * rng.integers(0, SEQ_LEN, n_points)  # (P,)
    f = rng.uniform(FREQ_LOW, FREQ_HIGH, (n_points, n_freq))  # (P, K)
    var = np.sin(f * x[:, None]).var(axis=1, ddof=1)  # (P,)
    return NOISE**2 + float(var.mean()), float(var.std(ddof=1) / math.sqrt(n_points))


def tutorial_reference(val: SineSet, rng: np.random.Generator, n_freq: int = 2048) -> dict[str, float]:
    """What the model's validation MSE should be compared with, for the tutorial's task."""
    floor, se = bayes_floor(rng)
    freqs = rng.uniform(FREQ_LOW, FREQ_HIGH, n_freq)  # (K,)
    best = bayes_mean(val.x, freqs)  # (N, 50): the Bayes predictor on the validation inputs
    return {
        "floor": floor,
        "floor_se": se,
        "bayes_on_val": float(((val.y - best) ** 2).mean()),
        "zero_on_val": float((val.y**2).mean()),
    }


# --- learning-rate schedules -------------------------------------------------------------------------
# The tutorial writes   Adam(lr=1e-3) + LambdaLR(lambda s: min((s+1)^-0.5, (s+1)·4000^-1.5)).
# LambdaLR multiplies the base lr by the lambda, so the learning rate actually used is
#
#     1e-3 · min((s+1)^-0.5, (s+1)·4000^-1.5)  =  1e-3 · noam(s, d_model=1, warmup=4000)
#
# The lambda is the Noam formula without its d_model^-0.5 factor; Noam's formula is already a
# learning rate (Vaswani et al. 2017, eq. 3), and scaling it by 1e-3 again leaves a peak of
# 1e-3 · 4000^-0.5, reached only after 4000 steps (the lesson prints the curve). The alternatives:
#
#     noam    the paper's formula used as the learning rate, d_model = 32, warmup WARMUP_STEPS
#     cosine  linear warmup to COSINE_LR, cosine decay to COSINE_MIN over the planned run


SCHEDULES = ("noam", "cosine", "tutorial")  # the first is the default
WARMUP_STEPS = 400  # a few epochs of the lesson's run; Noam then peaks at (d_model · 400)^-0.5
COSINE_LR, COSINE_MIN = 3e-3, 1e-5


def lr_function(name: str, total_steps: int, d_model: int) -> Callable[[int], float]:
    """step -> learning rate for the named schedule over a run of total_steps."""
    if name == "tutorial":
        return lambda s: TUTORIAL_BASE_LR * noam(s, d_model=1, warmup=TUTORIAL_WARMUP)
    if name == "noam":
        return lambda s: noam(s, d_model=d_model, warmup=WARMUP_STEPS)
    if name == "cosine":
        warmup = min(WARMUP_STEPS, total_steps // 10)
        return lambda s: cosine(s, lr=COSINE_LR, min_lr=COSINE_MIN, warmup=warmup, max_steps=total_steps)
    raise UsageError(
        "lesson.choice",
        "--{option} {value!r} is not one of {choices}.",
        option="schedule",
        value=name,
        choices=list(SCHEDULES),
    )


def lr_curves(total_steps: int, d_model: int) -> dict[str, list[float]]:
    """Every schedule's learning rate at every step of the run (for the table and the PNG)."""
    return {name: [lr_function(name, total_steps, d_model)(s) for s in range(total_steps)] for name in SCHEDULES}


def report_steps(total_steps: int) -> list[int]:
    """A few steps worth printing: the start, inside and at the end of warmups, the end."""
    marks = [0, 100, WARMUP_STEPS - 1, 1000, TUTORIAL_WARMUP - 1, total_steps - 1]
    return sorted({s for s in marks if 0 <= s < total_steps})


# --- the two tasks -----------------------------------------------------------------------------------
def train(nar: Narrator, model, x, y, evaluate, epochs: int, schedule: str, patience: int, seed: int):
    """Adam + clipping + the schedule, printing one row per epoch as it goes."""
    total = n_batches(len(x), BATCH_SIZE) * epochs
    lr_at = lr_function(schedule, total, model.cfg.d_model)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr_at(0))
    words = (N_("epoch"), N_("train MSE"), N_("val MSE"), N_("lr"))
    nar.show("  " + "  ".join(pad_left(nar.text(key), width) for key, width in zip(words, (6, 11, 11, 9), strict=True)))

    def row(e: int, r) -> None:
        nar.show(f"  {e:>6}  {r.train[-1]:>11.6f}  {r.val[-1]:>11.6f}  {r.lr[-1]:>9.2e}")

    return train_epochs(
        model,
        x,
        y,
        mse_loss,
        optimizer,
        epochs,
        BATCH_SIZE,
        shuffle_seed=seed,
        lr_at=lr_at,
        grad_clip=GRAD_CLIP,
        evaluate=evaluate,
        patience=patience,
        on_epoch=row,
    )


def forecast_task(nar: Narrator, train_set, val_set, epochs, schedule, patience, seed, folder) -> dict:
    nar.title(N_("3. Forecasting: read {seen} values, predict the next {horizon}"), seen=OBSERVED, horizon=HORIZON)
    nar.why(
        N_(
            "Direct multi-step forecasting with a causal mask: position "
            "t sees y[0..t] and outputs y[t+1..t+{horizon}], so every "
            "prefix is a training example and the forecast is one "
            "forward pass."
        ),
        horizon=HORIZON,
    )
    cfg = dataclasses.replace(PRESET.model, causal=True, d_out=HORIZON)
    torch.manual_seed(seed)
    model = build_model(cfg)
    x_tr, t_tr = forecast_windows(train_set.y)  # (N, 40, 1), (N, 40, 10)
    x_va, _ = forecast_windows(val_set.y)
    future = as_tensor(val_set.y[:, OBSERVED:])  # (M, 10)
    baselines = naive_baselines(val_set.y)
    for name, value in baselines.items():
        nar.say('  baseline "{name}" on the validation forecasts: MSE {value}', name=name, value=f"{value:.6f}")
    nar.say(
        "(train MSE: over all {seen} prefixes, with dropout on; val "
        "MSE: the {horizon} values predicted from the first {seen}.)",
        horizon=HORIZON,
        seen=OBSERVED,
    )

    def evaluate() -> torch.Tensor:
        return ((model(x_va)[:, -1] - future) ** 2).mean()  # (): position 39's 10 values

    result = train(nar, model, x_tr, t_tr, evaluate, epochs, schedule, patience, seed)
    best = result.val[result.best_epoch]
    nar.say(
        "Best validation MSE {mse} at epoch {epoch}: {zero} of the "
        "zero baseline, {last} of the last-value baseline. {stopped}",
        epoch=result.best_epoch,
        mse=f"{best:.6f}",
        zero=f"{best / baselines['zero']:.2%}",
        last=f"{best / baselines['last value']:.2%}",
        stopped=nar.text(
            N_("Stopped early: validation had stopped improving; the best epoch's weights are kept.")
            if result.stopped_early
            else N_("Ran all epochs; the best epoch's weights are kept.")
        ),
    )
    with torch.no_grad():
        forecasts = model(x_va)[:, -1].numpy()  # (M, 10)
    look = attention_one_period_back(nar, model, val_set, folder / "attention_head.png")
    files = [
        loss_png(nar, result, baselines, folder / "loss_curves.png"),
        forecast_png(nar, val_set, forecasts, folder / "forecasts.png"),
        look.pop("file"),
    ]
    return {"fit": result, "val_mse": best, "baselines": baselines, "attention": look, "files": files}


def tutorial_task(nar: Narrator, train_set, val_set, epochs, schedule, patience, seed, folder, rng, n_freq) -> dict:
    nar.title(N_("3. The tutorial's task: read x, predict y = sin(freq·x)"))
    nar.why(
        N_(
            "The model only sees the {T} x values; they fix the start, "
            "not the frequency, which is random and never given. So no "
            "model can do better than E[y | x] = E_freq[sin(freq·x)]."
        ),
        T=SEQ_LEN,
    )
    ref = tutorial_reference(val_set, rng, n_freq)
    nar.say(
        "Bayes floor σ² + E[Var_freq sin(freq·x)]: {floor} ± {se} "
        "(Monte-Carlo). On this validation set the best predictor "
        "E[y | x] ({k} sampled frequencies) scores {bayes}; always "
        "predicting 0 scores {zero}.",
        floor=f"{ref['floor']:.5f}",
        se=f"{ref['floor_se']:.5f}",
        bayes=f"{ref['bayes_on_val']:.5f}",
        zero=f"{ref['zero_on_val']:.5f}",
        k=n_freq,
    )
    torch.manual_seed(seed)
    model = build_model(PRESET.model)  # bidirectional, d_out 1: as in the tutorial
    x_tr, y_tr = as_tensor(train_set.x)[..., None], as_tensor(train_set.y)[..., None]  # (N, 50, 1)
    x_va, y_va = as_tensor(val_set.x)[..., None], as_tensor(val_set.y)[..., None]
    result = train(nar, model, x_tr, y_tr, lambda: mse_loss(model(x_va), y_va), epochs, schedule, patience, seed)
    best = result.val[result.best_epoch]
    nar.say(
        "The trained model's validation MSE is {mse}: {ratio} × the "
        "best possible ({bayes}), and nowhere near 0. Predicting 0 "
        "would score {zero}.",
        mse=f"{best:.5f}",
        bayes=f"{ref['bayes_on_val']:.5f}",
        ratio=f"{best / ref['bayes_on_val']:.3f}",
        zero=f"{ref['zero_on_val']:.5f}",
    )
    with torch.no_grad():
        pred = model(x_va[:1])[0, :, 0].numpy()  # (50,)
    files = [tutorial_png(nar, val_set, pred, rng, folder / "tutorial_task.png")]
    return {"fit": result, "val_mse": best, "reference": ref, "files": files}


# --- printing and figures ----------------------------------------------------------------------------
def describe_data(nar: Narrator, train_set, val_set) -> None:
    nar.title(N_("1. Data: noisy sine waves, random start and frequency"))
    periods = train_set.period_steps()
    nar.say(
        "{n_train} training and {n_val} validation sequences of {T} "
        "points; a period spans {lo} to {hi} samples depending on "
        "the frequency.",
        n_train=len(train_set.y),
        n_val=len(val_set.y),
        T=train_set.y.shape[1],
        lo=f"{periods.min():.1f}",
        hi=f"{periods.max():.1f}",
    )


def print_schedules(nar: Narrator, total: int, d_model: int, chosen: str, path: Path) -> Path:
    """Print each schedule's learning rate at a few steps and its peak; plot all three."""
    nar.title(N_("2. Learning-rate schedules over this run's {total} steps"), total=total)
    curves = lr_curves(total, d_model)
    steps = report_steps(total)
    nar.show(
        f"  {pad_left(nar.text(NP_('lesson.common.step', 'step')), 6)}  " + "  ".join(f"{name:>10}" for name in curves)
    )
    for s in steps:
        nar.show(f"  {s:>6}  " + "  ".join(f"{curves[name][s]:>10.2e}" for name in curves))
    for name, lrs in curves.items():
        peak = int(np.argmax(lrs))
        nar.say("  {name}: peaks at {peak} (step {step})", name=name, peak=f"{lrs[peak]:.2e}", step=peak)
    tutorial = lr_function("tutorial", total, d_model)
    nar.say(
        "The tutorial's LambdaLR multiplies base lr {base} by a Noam "
        "factor without its 1/√d_model factor, so its learning rate "
        "only reaches {peak}, after {warm} steps. The paper's "
        "formula on its own (d_model = {d}) is already a learning "
        "rate: {formula} at that step. This run uses: {chosen}.",
        base=f"{TUTORIAL_BASE_LR:g}",
        warm=TUTORIAL_WARMUP,
        peak=f"{tutorial(TUTORIAL_WARMUP - 1):.2e}",
        formula=f"{noam(TUTORIAL_WARMUP - 1, d_model, TUTORIAL_WARMUP):.2e}",
        d=d_model,
        chosen=chosen,
    )
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    for name, lrs in curves.items():
        label = nar.text(N_("{name} (this run)"), name=name) if name == chosen else name  # names are code
        ax.semilogy(lrs, label=label, lw=2.5 if name == chosen else 1.2)
    ax.set_xlabel(nar.text(N_("optimizer step")))
    ax.set_ylabel(nar.text(N_("learning rate (log scale)")))
    ax.legend()
    return save_png(fig, path)


def attention_one_period_back(nar: Narrator, model, val_set, path: Path) -> dict:
    """For the last observed position of one validation sequence, where does each head look?"""
    from glassformer.inspect import attention_head_png, attention_maps

    periods = val_set.period_steps()
    q = OBSERVED - 1  # the query whose output is the forecast
    i = int(np.argmax(periods <= q - 8))  # first sequence whose previous period lies inside the window
    period, back = float(periods[i]), q - float(periods[i])
    x = as_tensor(val_set.y[i : i + 1, :OBSERVED, None])  # (1, 40, 1)
    W, _ = attention_maps(model, x)  # (L, H, T, T)
    nar.title(
        N_(
            "4. Where does the forecast look? Validation sequence #{i}: "
            "one period = {period} samples, so one period before "
            "position {q} is {back}"
        ),
        i=i,
        period=f"{period:.1f}",
        back=f"{back:.1f}",
        q=q,
    )
    near = slice(int(round(back)) - WINDOW, int(round(back)) + WINDOW + 1)  # the keys around one period back
    uniform = (2 * WINDOW + 1) / (q + 1)
    rows = {}
    for layer in range(W.shape[0]):
        for head in range(W.shape[1]):
            w = W[layer, head, q].numpy()  # (T,) the forecast query's weights
            rows[(layer, head)] = {
                "top": int(w.argmax()),
                "near_period": float(w[near].sum()),
                "last5": float(w[q - RECENT + 1 : q + 1].sum()),
            }
            r = rows[(layer, head)]
            nar.say(
                "  layer {layer} head {head}: strongest key {top}; weight "
                "within ±{window} of one period back {near}; on the last "
                "{recent} values {last5}",
                layer=layer,
                head=head,
                top=r["top"],
                near=f"{r['near_period']:.1%}",
                last5=f"{r['last5']:.1%}",
                window=WINDOW,
                recent=RECENT,
            )
    best = max(rows, key=lambda k: rows[k]["near_period"])
    looks_back = [k for k, r in rows.items() if abs(r["top"] - back) <= WINDOW]
    nar.say(
        N_(
            "Heads whose strongest key is within {window} samples of one "
            "period back: {heads} (uniform attention would put {uniform} "
            "in such a window). The heatmap shows head {best}."
        )
        if looks_back
        else N_(
            "No head's strongest key is within {window} samples of one "
            "period back; the most weight any head puts there is {mass} "
            "(head {best}), against {uniform} for uniform attention. "
            "Nothing forces it to look there: a noiseless sine is "
            "determined by three consecutive samples (y[t+1] = "
            "2·cos(ω)·y[t] − y[t−1]). The heatmap shows head {best}."
        ),
        heads=", ".join(f"{layer}.{head}" for layer, head in looks_back),
        uniform=f"{uniform:.1%}",
        best=f"{best[0]}.{best[1]}",
        mass=f"{rows[best]['near_period']:.1%}",
        window=WINDOW,
    )
    with in_language(nar.lang):  # the map's words in the lesson's language
        file = attention_head_png(model, x, None, best[0], best[1], path)
    return {"sequence": i, "period": period, "heads": rows, "looks_back": looks_back, "shown_head": best, "file": file}


def loss_png(nar: Narrator, result, baselines: dict, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.semilogy(result.train, "o-", label=nar.text(N_("train MSE (all prefixes)")))
    ax.semilogy(result.val, "o-", label=nar.text(N_("val MSE (forecast from {observed})"), observed=OBSERVED))
    for (name, value), style in zip(baselines.items(), ("--", ":"), strict=False):  # "zero", "last value"
        label = nar.text(BASELINE_WORDS[name])
        ax.axhline(value, color="grey", linestyle=style, label=label)
    ax.axvline(result.best_epoch, color="black", lw=0.8, label=nar.text(N_("kept (best val)")))
    ax.set_xlabel(nar.text(N_("epoch")))
    ax.set_ylabel(nar.text(N_("MSE (log scale)")))
    ax.legend(fontsize=8)
    return save_png(fig, path)


def forecast_png(nar: Narrator, val_set, forecasts: np.ndarray, path: Path, n: int = 4) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 5.5), layout="constrained")
    axes = fig.subplots(2, 2).ravel()
    t_in, t_out = np.arange(OBSERVED), np.arange(OBSERVED, SEQ_LEN)  # (40,), (10,)
    for k, ax in enumerate(axes[:n]):
        y = val_set.y[k]
        ax.plot(t_in, y[:OBSERVED], color="black", lw=1, label=nar.text(N_("observed")))
        ax.plot(t_out, y[OBSERVED:], "o", color="black", ms=3, label=nar.text(N_("truth")))
        ax.plot(t_out, forecasts[k], "-", color="C1", lw=2, label=nar.text(N_("forecast")))
        last = nar.text(N_("last value"))
        ax.plot(t_out, np.full(len(t_out), y[OBSERVED - 1]), "--", color="grey", label=last)
        ax.set_title(nar.text(N_("val #{k}: freq {freq}"), k=k, freq=f"{val_set.freq[k]:.2f}"), fontsize=9)
    axes[0].legend(fontsize=7)
    return save_png(fig, path)


def tutorial_png(nar: Narrator, val_set, pred: np.ndarray, rng, path: Path) -> Path:
    from matplotlib.figure import Figure

    best = bayes_mean(val_set.x[:1], rng.uniform(FREQ_LOW, FREQ_HIGH, 2048))[0]  # (50,)
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    truth = nar.text(N_("truth (freq {freq})"), freq=f"{val_set.freq[0]:.2f}")
    ax.plot(val_set.x[0], val_set.y[0], "o", ms=3, color="black", label=truth)
    ax.plot(val_set.x[0], pred, color="C1", lw=2, label=nar.text(N_("model")))
    ax.plot(val_set.x[0], best, "--", color="C0", label=nar.text(N_("E[y | x] (best possible)")))
    ax.set_xlabel("x")
    ax.legend(fontsize=8)
    return save_png(fig, path)


# --- the lesson --------------------------------------------------------------------------------------
def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    task: str = "forecast",
    schedule: str = "noam",
    epochs: int | None = None,
    patience: int = 4,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
    n_train: int | None = None,
    n_val: int | None = None,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it)."""
    if task not in TASKS:
        raise UsageError(
            "lesson.choice",
            "--{option} {value!r} is not one of {choices}.",
            option="task",
            value=task,
            choices=list(TASKS),
        )
    if schedule not in SCHEDULES:
        raise UsageError(
            "lesson.choice",
            "--{option} {value!r} is not one of {choices}.",
            option="schedule",
            value=schedule,
            choices=list(SCHEDULES),
        )
    epochs = epochs or (FAST[task] if fast else TASKS[task])
    n_train = n_train or (FAST["n_train"] if fast else N_TRAIN)
    n_val = n_val or (FAST["n_val"] if fast else N_VAL)
    if min(epochs, n_train, n_val, patience) < 1:
        options = "--epochs, --train-size, --val-size, --patience"
        raise UsageError("lesson.sizes", "{options} must be at least {least}.", options=options, least=1)
    with using_threads(threads):
        nar, folder, rng = Narrator(lang, explain, echo), out_dir("sine", out), seed_all(seed)
        train_set, val_set = make_waves(n_train, rng), make_waves(n_val, rng)
        describe_data(nar, train_set, val_set)
        total = n_batches(n_train, BATCH_SIZE) * epochs
        lr_file = print_schedules(nar, total, PRESET.model.d_model, schedule, folder / "learning_rates.png")
        args = (nar, train_set, val_set, epochs, schedule, patience, seed, folder)
        if task == "forecast":
            result = forecast_task(*args)
        else:
            result = tutorial_task(*args, rng, 512 if fast else 2048)
        result["files"].insert(0, lr_file)
        nar.title(N_("Files written"))
        for f in result["files"]:
            nar.show(f"  {f}")
        return {"task": task, "schedule": schedule, "val_set": val_set, **result}

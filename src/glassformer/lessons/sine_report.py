"""Lesson 3's printing and figures: the data, the learning-rate curves, where attention looks,
loss curves, forecasts. Attention is read through glassformer.inspect (named hook points)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from glassformer.lessons import sine_data as data
from glassformer.lessons import sine_lr
from glassformer.lessons.common import Narrator, save_png
from glassformer.lessons.published import TUTORIAL_BASE_LR, TUTORIAL_WARMUP
from glassformer.train.optim import noam


def describe_data(nar: Narrator, train_set, val_set) -> None:
    nar.title("sine.title.data")
    periods = train_set.period_steps()
    nar.say(
        "sine.say.data",
        n_train=len(train_set.y),
        n_val=len(val_set.y),
        T=train_set.y.shape[1],
        lo=f"{periods.min():.1f}",
        hi=f"{periods.max():.1f}",
    )


def schedules(nar: Narrator, total: int, d_model: int, chosen: str, path: Path) -> Path:
    """Print each schedule's learning rate at a few steps and its peak; plot all three."""
    nar.title("sine.title.lr", total=total)
    curves = sine_lr.curves(total, d_model)
    steps = sine_lr.report_steps(total)
    nar.show(f"  {'step':>6}  " + "  ".join(f"{name:>10}" for name in curves))
    for s in steps:
        nar.show(f"  {s:>6}  " + "  ".join(f"{curves[name][s]:>10.2e}" for name in curves))
    for name, lrs in curves.items():
        peak = int(np.argmax(lrs))
        nar.say("sine.say.lr_peak", name=name, peak=f"{lrs[peak]:.2e}", step=peak)
    tutorial = sine_lr.lr_function("tutorial", total, d_model)
    nar.say(
        "sine.say.lr_tutorial",
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
        ax.semilogy(lrs, label=name + (" (this run)" if name == chosen else ""), lw=2.5 if name == chosen else 1.2)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("learning rate (log scale)")
    ax.legend()
    return save_png(fig, path)


def attention_one_period_back(nar: Narrator, model, val_set, path: Path) -> dict:
    """For the last observed position of one validation sequence, where does each head look?"""
    from glassformer.inspect import attention_head_png, attention_maps

    periods = val_set.period_steps()
    q = data.OBSERVED - 1  # the query whose output is the forecast
    i = int(np.argmax(periods <= q - 8))  # first sequence whose previous period lies inside the window
    period, back = float(periods[i]), q - float(periods[i])
    x = data.as_tensor(val_set.y[i : i + 1, : data.OBSERVED, None])  # (1, 40, 1)
    W, _ = attention_maps(model, x)  # (L, H, T, T)
    nar.title("sine.title.attention", i=i, period=f"{period:.1f}", back=f"{back:.1f}", q=q)
    near = slice(int(round(back)) - 2, int(round(back)) + 3)  # 5 keys around one period back
    uniform = 5 / (q + 1)
    rows = {}
    for layer in range(W.shape[0]):
        for head in range(W.shape[1]):
            w = W[layer, head, q].numpy()  # (T,) the forecast query's weights
            rows[(layer, head)] = {
                "top": int(w.argmax()),
                "near_period": float(w[near].sum()),
                "last5": float(w[q - 4 : q + 1].sum()),
            }
            r = rows[(layer, head)]
            nar.say(
                "sine.say.head",
                layer=layer,
                head=head,
                top=r["top"],
                near=f"{r['near_period']:.1%}",
                last5=f"{r['last5']:.1%}",
            )
    best = max(rows, key=lambda k: rows[k]["near_period"])
    looks_back = [k for k, r in rows.items() if abs(r["top"] - back) <= 2]
    nar.say(
        "sine.say.period_verdict" if looks_back else "sine.say.period_no",
        heads=", ".join(f"{l}.{h}" for l, h in looks_back),
        uniform=f"{uniform:.1%}",
        best=f"{best[0]}.{best[1]}",
        mass=f"{rows[best]['near_period']:.1%}",
    )
    file = attention_head_png(model, x, None, best[0], best[1], path)
    return {"sequence": i, "period": period, "heads": rows, "looks_back": looks_back, "shown_head": best, "file": file}


def loss_png(result, baselines: dict, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.semilogy(result.train, "o-", label="train MSE (all prefixes)")
    ax.semilogy(result.val, "o-", label="val MSE (forecast from 40)")
    for (name, value), style in zip(baselines.items(), ("--", ":"), strict=False):
        ax.axhline(value, color="grey", linestyle=style, label=f"baseline: {name}")
    ax.axvline(result.best_epoch, color="black", lw=0.8, label="kept (best val)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE (log scale)")
    ax.legend(fontsize=8)
    return save_png(fig, path)


def forecast_png(val_set, forecasts: np.ndarray, path: Path, n: int = 4) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 5.5), layout="constrained")
    axes = fig.subplots(2, 2).ravel()
    t_in, t_out = np.arange(data.OBSERVED), np.arange(data.OBSERVED, data.SEQ_LEN)  # (40,), (10,)
    for k, ax in enumerate(axes[:n]):
        y = val_set.y[k]
        ax.plot(t_in, y[: data.OBSERVED], color="black", lw=1, label="observed")
        ax.plot(t_out, y[data.OBSERVED :], "o", color="black", ms=3, label="truth")
        ax.plot(t_out, forecasts[k], "-", color="C1", lw=2, label="forecast")
        ax.plot(t_out, np.full(len(t_out), y[data.OBSERVED - 1]), "--", color="grey", label="last value")
        ax.set_title(f"val #{k}: freq {val_set.freq[k]:.2f}", fontsize=9)
    axes[0].legend(fontsize=7)
    return save_png(fig, path)


def tutorial_png(val_set, pred: np.ndarray, rng, path: Path) -> Path:
    from matplotlib.figure import Figure

    best = data.bayes_mean(val_set.x[:1], rng.uniform(data.FREQ_LOW, data.FREQ_HIGH, 2048))[0]  # (50,)
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.plot(val_set.x[0], val_set.y[0], "o", ms=3, color="black", label=f"truth (freq {val_set.freq[0]:.2f})")
    ax.plot(val_set.x[0], pred, color="C1", lw=2, label="model")
    ax.plot(val_set.x[0], best, "--", color="C0", label="E[y | x] (best possible)")
    ax.set_xlabel("x")
    ax.legend(fontsize=8)
    return save_png(fig, path)

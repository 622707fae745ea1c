"""Lesson 3 — a Transformer for numbers, and two problems in the tutorial that taught it.

The model is glassformer's SequenceRegressor with the `sine` preset (Linear(1, d_model) numeric
embedding, sinusoidal positions, 2 post-LN encoder layers with GELU, d_model 32, 4 heads,
d_ff 128, dropout 0.1), trained with MSE, Adam, gradient clipping at 1.0 and a chosen schedule.

--task tutorial   the tutorial's framing: read the 50 x values, predict the 50 y values. The
                  frequency is random and never shown, so the lesson computes the Bayes floor
                  (sine_data.py) and shows the trained model landing on it, far from zero.
--task forecast   (default) a well-posed task: read the first 40 noisy y values, predict the
                  next 10. Direct multi-step: one causal forward pass, d_out = 10, position t
                  predicts y[t+1..t+10]. Chosen over autoregressive rollout because errors do
                  not compound, one pass gives all 10 values, and the causal mask turns every
                  prefix of a training sequence into an honest example. Compared each epoch with
                  two naive baselines; stops early when validation stops improving.
--schedule        noam (default) | cosine | tutorial (the tutorial's LambdaLR; see sine_lr.py)

Run it:  glassformer lesson sine [--task forecast|tutorial] [--schedule noam|cosine|tutorial]
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from glassformer.config import get_preset
from glassformer.lessons import sine_data as data
from glassformer.lessons import sine_lr, sine_report
from glassformer.lessons.common import Narrator, n_batches, out_dir, seed_all, train_epochs
from glassformer.models import build_model
from glassformer.nn.loss import mse_loss
from glassformer.threads import using_threads

PRESET = get_preset("sine")  # model and training settings of the tutorial (seed 004, §5)
BATCH_SIZE, GRAD_CLIP = PRESET.train.batch_size, PRESET.train.grad_clip
TASKS = {"forecast": 30, "tutorial": 10}  # task -> default epochs
FAST = {"n_train": 1000, "n_val": 200, "forecast": 6, "tutorial": 3}  # --fast sizes (the tests)


def train(nar: Narrator, model, x, y, evaluate, epochs: int, schedule: str, patience: int, seed: int):
    """Adam + clipping + the schedule, printing one row per epoch as it goes."""
    total = n_batches(len(x), BATCH_SIZE) * epochs
    lr_at = sine_lr.lr_function(schedule, total, model.cfg.d_model)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr_at(0))
    nar.show(f"  {nar.text('common.epoch'):>6}  {'train MSE':>11}  {'val MSE':>11}  {'lr':>9}")
    row = lambda e, r: nar.show(f"  {e:>6}  {r.train[-1]:>11.6f}  {r.val[-1]:>11.6f}  {r.lr[-1]:>9.2e}")
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
    nar.title("sine.title.forecast", seen=data.OBSERVED, horizon=data.HORIZON)
    nar.why("sine.why.forecast")
    cfg = dataclasses.replace(PRESET.model, causal=True, d_out=data.HORIZON)
    torch.manual_seed(seed)
    model = build_model(cfg)
    x_tr, t_tr = data.forecast_windows(train_set.y)  # (N, 40, 1), (N, 40, 10)
    x_va, _ = data.forecast_windows(val_set.y)
    future = data.as_tensor(val_set.y[:, data.OBSERVED :])  # (M, 10)
    baselines = data.naive_baselines(val_set.y)
    for name, value in baselines.items():
        nar.say("sine.say.baseline", name=name, value=f"{value:.6f}")
    nar.say("sine.say.val_is_forecast", horizon=data.HORIZON, seen=data.OBSERVED)
    evaluate = lambda: ((model(x_va)[:, -1] - future) ** 2).mean()  # position 39's 10 values
    result = train(nar, model, x_tr, t_tr, evaluate, epochs, schedule, patience, seed)
    best = result.val[result.best_epoch]
    nar.say(
        "sine.say.forecast_result",
        epoch=result.best_epoch,
        mse=f"{best:.6f}",
        zero=f"{best / baselines['zero']:.2%}",
        last=f"{best / baselines['last value']:.2%}",
        stopped=nar.text("sine.say.stopped" if result.stopped_early else "sine.say.ran_all"),
    )
    with torch.no_grad():
        forecasts = model(x_va)[:, -1].numpy()  # (M, 10)
    look = sine_report.attention_one_period_back(nar, model, val_set, folder / "attention_head.png")
    files = [
        sine_report.loss_png(result, baselines, folder / "loss_curves.png"),
        sine_report.forecast_png(val_set, forecasts, folder / "forecasts.png"),
        look.pop("file"),
    ]
    return {"fit": result, "val_mse": best, "baselines": baselines, "attention": look, "files": files}


def tutorial_task(nar: Narrator, train_set, val_set, epochs, schedule, patience, seed, folder, rng, n_freq) -> dict:
    nar.title("sine.title.tutorial")
    nar.why("sine.why.tutorial")
    ref = data.tutorial_reference(val_set, rng, n_freq)
    nar.say(
        "sine.say.floor",
        floor=f"{ref['floor']:.5f}",
        se=f"{ref['floor_se']:.5f}",
        bayes=f"{ref['bayes_on_val']:.5f}",
        zero=f"{ref['zero_on_val']:.5f}",
        k=n_freq,
    )
    torch.manual_seed(seed)
    model = build_model(PRESET.model)  # bidirectional, d_out 1: as in the tutorial
    x_tr, y_tr = data.as_tensor(train_set.x)[..., None], data.as_tensor(train_set.y)[..., None]  # (N, 50, 1)
    x_va, y_va = data.as_tensor(val_set.x)[..., None], data.as_tensor(val_set.y)[..., None]
    result = train(nar, model, x_tr, y_tr, lambda: mse_loss(model(x_va), y_va), epochs, schedule, patience, seed)
    best = result.val[result.best_epoch]
    nar.say(
        "sine.say.tutorial_result",
        mse=f"{best:.5f}",
        bayes=f"{ref['bayes_on_val']:.5f}",
        ratio=f"{best / ref['bayes_on_val']:.3f}",
        zero=f"{ref['zero_on_val']:.5f}",
    )
    with torch.no_grad():
        pred = model(x_va[:1])[0, :, 0].numpy()  # (50,)
    files = [sine_report.tutorial_png(val_set, pred, rng, folder / "tutorial_task.png")]
    return {"fit": result, "val_mse": best, "reference": ref, "files": files}


def run(
    lang: str = "en",
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
        raise ValueError(f"--task {task!r} is not one of {list(TASKS)}.")
    if schedule not in sine_lr.SCHEDULES:
        raise ValueError(f"--schedule {schedule!r} is not one of {list(sine_lr.SCHEDULES)}.")
    epochs = epochs or (FAST[task] if fast else TASKS[task])
    n_train = n_train or (FAST["n_train"] if fast else data.N_TRAIN)
    n_val = n_val or (FAST["n_val"] if fast else data.N_VAL)
    if min(epochs, n_train, n_val, patience) < 1:
        raise ValueError("--epochs, --train-size, --val-size and --patience must be at least 1.")
    with using_threads(threads):
        nar, folder, rng = Narrator(lang, explain, echo), out_dir("sine", out), seed_all(seed)
        train_set, val_set = data.make(n_train, rng), data.make(n_val, rng)
        sine_report.describe_data(nar, train_set, val_set)
        total = n_batches(n_train, BATCH_SIZE) * epochs
        lr_file = sine_report.schedules(nar, total, PRESET.model.d_model, schedule, folder / "learning_rates.png")
        args = (nar, train_set, val_set, epochs, schedule, patience, seed, folder)
        if task == "forecast":
            result = forecast_task(*args)
        else:
            result = tutorial_task(*args, rng, 512 if fast else 2048)
        result["files"].insert(0, lr_file)
        nar.title("common.title.files")
        for f in result["files"]:
            nar.show(f"  {f}")
        return {"task": task, "schedule": schedule, "val_set": val_set, **result}

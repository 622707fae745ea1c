"""Experiment 1 — positions past the training length: which schemes generalise, which collapse?

Seeds 004 (§3.2) and 000 (§4.2) say sinusoidal positions let a model handle lengths it never saw,
while a learned table (nn.Embedding(max_len, C)) "must collapse" on longer inputs. Here char models
are trained on windows of T = 64 with every position scheme registered in nn/position.py (learned,
sinusoidal, none; rotary and ALiBi appear here as soon as they are registered), then read windows
of 256 and report the validation loss at every position 1..256.

Two ways a learned table meets a long input, both measured:
  learned             max_len = 64, as one would build it: it has no row for position 65, so it
                      cannot read 256 tokens at all. Reported as "no positions past 64" (no crash).
  learned (256 rows)  max_len = 256, trained on 64: rows 65..256 exist but never received a gradient.
Extending a trained model to 256 positions is generic: build the same config with max_len = 256
and copy every weight whose shape still fits. A trained *parameter* whose shape depends on max_len
(a learned table) cannot be extended; buffers (the sinusoidal table) are rebuilt by construction.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from glassformer.errors import Unsupported
from glassformer.lab.common import corpus_for, fixed_windows, lab_preset, position_losses, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.nn.position import POSITION_SCHEMES

FULL = {"T": 64, "T_eval": 256, "steps": 1000, "windows": 256}
FAST = {"T": 16, "T_eval": 64, "steps": 60, "windows": 32}
WIDE = "learned (spare rows)"
TOL, COLLAPSE = 0.1, 0.5  # nats: "generalises" = within TOL of the trained band; "collapses" = COLLAPSE worse


def variants(T: int, T_eval: int) -> dict[str, tuple[str, int]]:
    """label -> (position scheme, max_len during training), for every registered scheme."""
    out = {name: (name, T) for name in POSITION_SCHEMES}
    if "learned" in POSITION_SCHEMES:
        out[WIDE] = ("learned", T_eval)
    return out


def extend(model, T_eval: int):
    """The same trained model with max_len = T_eval, or None when a trained parameter's shape
    depends on max_len (a learned table has no rows to add)."""
    big = build_model(replace(model.cfg, max_len=T_eval))
    params = dict(big.named_parameters())
    target = big.state_dict()
    state = {}
    for key, value in model.state_dict().items():
        if target[key].shape == value.shape:
            state[key] = value
        elif key in params:
            return None
    big.load_state_dict(state, strict=False)
    return big.eval()


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    T, T_eval = s["T"], s["T_eval"]
    corpus = corpus_for(ctx, T_eval)
    x, y = fixed_windows(corpus.val, T_eval, s["windows"], seed=0)  # (N, T_eval) each
    out = {"T": T, "T_eval": T_eval, "steps": s["steps"], "unigram": corpus.unigram_loss(), "variants": {}}
    for label, (scheme, max_len) in variants(T, T_eval).items():
        runs, reach = [], T_eval
        for seed in range(ctx.seeds):
            ctx.log(f"{label}, seed {seed}: {s['steps']} steps at T={T}")
            fit = train(lab_preset(position=scheme, max_len=max_len, seq_len=T), corpus, seed, s["steps"])
            model = fit.model if max_len >= T_eval else extend(fit.model, T_eval)
            if model is None:  # no positions past max_len: evaluate the positions it has
                reach = max_len
                per = position_losses(fit.model, x[:, :max_len], y[:, :max_len])  # (max_len,)
                per = np.concatenate([per, np.full(T_eval - max_len, np.nan)])  # (T_eval,)
            else:
                per = position_losses(model, x, y)  # (T_eval,)
            runs.append(per)
        per = np.stack(runs)  # (seeds, T_eval)
        out["variants"][label] = {
            "scheme": scheme,
            "max_len": max_len,
            "reach": reach,
            "per_position": per.tolist(),
            "bands": bands(per, T, T_eval),
        }
    plot(ctx, out)
    return out


def bands(per: np.ndarray, T: int, T_eval: int) -> dict:
    """Mean loss over position ranges (1-based), each as mean ± spread over seeds; None where the
    model has no positions. 'in' is the second half of the trained range (context already long)."""
    ranges = {"in": (T // 2, T), "2x": (T, 2 * T), "far": (2 * T, T_eval)}
    out = {}
    for name, (a, b) in ranges.items():
        chunk = per[:, a:b]  # positions a+1..b
        out[name] = None if np.isnan(chunk).any() else spread(chunk.mean(1))
    out["ranges"] = {k: [a + 1, b] for k, (a, b) in ranges.items()}
    return out


def running_mean(a: np.ndarray, k: int) -> np.ndarray:
    """Mean over a centred window of k (narrower at the ends and at the first NaN)."""
    out = np.full_like(a, np.nan)
    n = int(np.isfinite(a).sum()) if np.isnan(a).any() else len(a)
    for i in range(n):
        lo, hi = max(0, i - k // 2), min(n, i + k // 2 + 1)
        out[i] = a[lo:hi].mean()
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(8.5, 4.2)
    ax = axes[0, 0]
    positions = np.arange(1, out["T_eval"] + 1)
    for label, v in out["variants"].items():
        mean = np.array(v["per_position"], dtype=float).mean(0)  # (T_eval,), NaN past its reach
        ax.plot(
            positions,
            running_mean(mean, 5),
            lw=1.4,
            label=label
            if v["reach"] == out["T_eval"]
            else t("{label} (no positions past {reach})", label=label, reach=v["reach"]),
        )
    ax.axvline(out["T"], color="black", ls="--", lw=0.8)
    ax.axhline(out["unigram"], color="gray", ls=":", lw=0.8, label=t("character frequencies only"))
    ax.set_xlabel(t("position (trained on 1..{T})", T=out["T"]))
    ax.set_ylabel(t("validation loss (nats), 5-position running mean"))
    ax.set_ylim(top=min(ax.get_ylim()[1], out["unigram"] + 1.5))
    ax.legend(fontsize=7)
    ctx.figure(fig, "length_per_position")


def verdicts(r: dict) -> dict:
    v = r["variants"]
    sin = v.get("sinusoidal", {}).get("bands")
    if sin is None:
        raise Unsupported("lab.no_sinusoidal", "the sinusoidal scheme is not registered: nothing to judge")
    near = sin["2x"]["mean"] <= sin["in"]["mean"] + TOL
    far = sin["far"]["mean"] <= sin["in"]["mean"] + TOL
    beyond = {k: x["bands"]["far"]["mean"] for k, x in v.items() if x["bands"]["far"] is not None}
    best = min(beyond, key=beyond.get)
    v_sin = Verdict(
        level([near, far]),
        {
            "in": f"{sin['in']['mean']:.3f}",
            "near": f"{sin['2x']['mean']:.3f}",
            "far": f"{sin['far']['mean']:.3f}",
            "half": r["T"] // 2 + 1,
            "T": r["T"],
            "T2": 2 * r["T"],
            "T_eval": r["T_eval"],
            "best": best,
            "best_far": f"{beyond[best]:.3f}",
        },
    )
    wide = v[WIDE]["bands"]
    cannot = v["learned"]["reach"] < r["T_eval"]
    v_learned = Verdict(
        level([cannot, wide["far"]["mean"] >= wide["in"]["mean"] + COLLAPSE]),
        {
            "max_len": v["learned"]["max_len"],
            "reach": v["learned"]["reach"],
            "in": f"{wide['in']['mean']:.3f}",
            "far": f"{wide['far']['mean']:.3f}",
            "unigram": f"{r['unigram']:.3f}",
            "T_eval": r["T_eval"],
        },
    )
    return {"length.sinusoidal": v_sin, "length.learned": v_learned}


def tables(r: dict) -> list[str]:
    ranges = next(iter(r["variants"].values()))["bands"]["ranges"]
    head = " | ".join(f"positions {a}–{b}" for a, b in ranges.values())
    lines = [f"| scheme | max_len in training | {head} |", "|---|---|" + "---|" * len(ranges)]
    for label, v in r["variants"].items():
        cells = []
        for k in ranges:
            b = v["bands"][k]
            cells.append(
                f"no positions past {v['reach']}"
                if b is None
                else f"{b['mean']:.3f}" + (f" ± {b['spread']:.3f}" if len(b["values"]) > 1 else "")
            )
        lines.append(f"| {label} | {v['max_len']} | " + " | ".join(cells) + " |")
    return [
        *lines,
        "",
        f"Validation loss (nats) at each range of positions; trained for {r['steps']} steps on "
        f"windows of {r['T']}. A model that knows only the character frequencies scores {r['unigram']:.3f}.",
    ]


EXPERIMENT = Experiment(
    name="length",
    title=N_("Positions past the training length"),
    setup=N_(
        "Char models (the first tutorial's TinyTransformer without "
        "dropout) trained on windows of {T} characters with every "
        "registered position scheme, then asked to read windows of "
        "{T_eval}: the validation loss at each position 1..{T_eval}. "
        "A learned table is built two ways: with max_len {T} (as one "
        "would), and with {T_eval} rows of which only the first {T} "
        "are ever trained. The first tutorial makes the same point "
        "about sinusoidal positions (seed 000, section 4.2)."
    ),
    claims=(
        Claim(
            "length.sinusoidal",
            "004",
            "§3.2",
            claim=N_(
                "Sinusoidal positions let a model generalise to sequence "
                "lengths it never saw in training, because the encoding of "
                "relative positions is built into the sine waves."
            ),
            rule=N_(
                "Two parts: the sinusoidal model's mean loss at positions "
                "T+1..2T, and at 2T+1..{T_eval}, is at most {tol} nats above "
                "its loss at positions T/2+1..T (already trained, long "
                "context). Both: holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Sinusoidal: {in} nats at positions {half} to {T}, {near} up "
                "to position {T2}, {far} from there to {T_eval}. Best scheme "
                "beyond {T2}: {best} ({best_far})."
            ),
            limits={"T_eval": FULL["T_eval"], "tol": figure(TOL)},
        ),
        Claim(
            "length.learned",
            "004",
            "§3.2",
            claim=N_(
                "A learned position table (an embedding of max_len rows) "
                "must collapse when it meets sequences longer than it was "
                "trained on."
            ),
            rule=N_(
                "Two parts: a learned table built for the training length "
                "cannot address longer inputs at all; and a table with rows "
                "to spare ({T_eval}, only the first {T} trained) loses at "
                "least {collapse} nats at positions 2T+1..{T_eval} against "
                "T/2+1..T. Both: holds; one: half-true; neither: fails."
            ),
            finding=N_(
                "Built with max_len = {max_len}, the learned model has "
                "positions 1 to {reach} of the {T_eval} it is asked to read: "
                "the rest is reported, not run. With spare rows, the "
                "never-trained rows take the loss from {in} to {far} nats "
                "(character frequencies alone: {unigram})."
            ),
            limits={"T_eval": FULL["T_eval"], "T": FULL["T"], "collapse": figure(COLLAPSE)},
        ),
    ),
    setup_fields={"T": FULL["T"], "T_eval": FULL["T_eval"]},
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=2,
    budget_s=600,
)

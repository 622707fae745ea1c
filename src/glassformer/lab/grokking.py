"""Ledger entry — grokking on modular addition (Power et al. 2022; Nanda et al. 2023).

The claim, from the papers: a small transformer trained on a fraction of the table a + b mod p
fits its training pairs early, and only much later (thousands of steps on) its accuracy on the
held-out pairs jumps; weight decay is what drives the jump; and the trained embedding is sparse in
the Fourier basis over the residues, built on a few key frequencies.

Setup, after Nanda et al. §3 (p = 113, d = 128, 30 % of the pairs, full-batch AdamW with lr 0.001
and weight decay 1, 40,000 epochs) scaled down to fit a CPU budget: one layer, four heads, no
LayerNorm, ReLU MLP, learned positions; the input is the three tokens [a, b, =] and only the answer
at "=" is a target (the other two positions are IGNORE). FRACTION of the p² pairs train, the rest
test. Full batch AdamW, lr 1e-3, a short linear warmup, weight decay WD on every weight (embeddings included:
glassformer's default optimizer spares embeddings, and the Fourier claim is about the embedding),
the same run with weight decay 0 for the control. Trained through glassformer's Trainer on a
TensorBatches source (the whole training set is one batch).

Fourier spectrum of the embedding W_E (p rows, one per residue): the DFT along the residue axis,
energy per frequency k = 1..(p-1)/2 (cosine and sine parts together, summed over the width), as a
share of all the non-constant energy. A key frequency holds at least KEY_SHARE times the share an
even spread would give it (1/K).
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer.config import apply_overrides
from glassformer.lab.common import lab_preset, spread
from glassformer.lab.report import steps, words
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.nn.loss import next_token_loss
from glassformer.train.data import IGNORE, TensorBatches
from glassformer.train.loop import Trainer

FULL = {"p": 53, "d_model": 64, "steps": 5000, "every": 100}  # 3000 did not grok (test accuracy 0.03); a trial
# with Xavier init passed test accuracy 0.86 at step 4500 (seed 0)
FAST = {"p": 17, "d_model": 32, "steps": 150, "every": 25}
FRACTION = 0.5  # share of the p² pairs that train: Nanda et al.'s 30 % did not grok at p = 53 within
# 6000 steps (a trial run at d_model 64: test accuracy 0.005 at step 6000), and the budget has no room for
# the longer runs a smaller training set needs
LR, WARMUP, BETAS = 1e-3, 10, (0.9, 0.98)
INIT = "xavier"  # torch's default N(0, 1) embedding left weight decay far to go: in a trial run (seed 0, 50 %)
# test accuracy was still 0.011 at step 2250; with Xavier-uniform (embedding std about 0.13) it was 0.86 at 4500
WD = 1.0  # weight decay of the grokking runs; the control uses 0
TRAIN_FIT, TEST_JUMP = 0.99, 0.95  # accuracy that counts as "fitted" / "generalised"
DELAY = 3.0  # the test jump must come at least DELAY times later than the training fit
NO_JUMP = 0.5  # the control "does not jump" if its final test accuracy stays below this
KEY_SHARE = 3.0  # a key frequency holds >= KEY_SHARE / K of the spectrum's energy
FEW = 10  # "a few": at most FEW key frequencies ...
CONCENTRATED = 0.6  # ... together holding at least this share of the energy


def table(p: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """x (p², 3) = [a, b, =], y (p², 3) = [IGNORE, IGNORE, (a+b) mod p], and a seeded permutation (p²,)
    whose first FRACTION of rows train."""
    a, b = torch.cartesian_prod(torch.arange(p), torch.arange(p)).T  # (p²,) each
    x = torch.stack([a, b, torch.full_like(a, p)], dim=1)  # (p², 3): token p is "="
    y = torch.full_like(x, IGNORE)  # (p², 3)
    y[:, 2] = (a + b) % p  # (p²,)
    order = torch.randperm(p * p, generator=torch.Generator().manual_seed(seed))  # (p²,)
    return x, y, order


def preset(p: int, d_model: int, steps: int, n_train: int):
    return apply_overrides(
        lab_preset(
            n_layers=1,
            n_heads=4,
            d_model=d_model,
            d_ff=4 * d_model,
            norm="none",
            final_norm=False,
            activation="relu",
            init=INIT,
            max_len=3,
            seq_len=3,
            batch_size=n_train,
            log_interval=steps,
            eval_interval=steps,
        ),
        {"vocab_size": p + 1, "max_steps": steps},
    )


def embedding(model) -> torch.Tensor:
    """The token embedding's rows for the p residues (the "=" row left out): (p, C)."""
    table = model.tok_embed.table.weight.detach()  # (p+1, C)
    return table[:-1]  # (p, C)


def spectrum(emb: torch.Tensor) -> np.ndarray:
    """Share of the non-constant Fourier energy at each frequency k = 1..(p-1)//2: (K,), sums to 1."""
    F = torch.fft.rfft(emb.double(), dim=0)  # (p//2+1, C) complex
    energy = (F.abs() ** 2).sum(1)[1 : (emb.shape[0] - 1) // 2 + 1]  # (K,)
    return (energy / energy.sum()).numpy()


def keys(share: np.ndarray) -> list[int]:
    """The key frequencies (1-based k) of a spectrum, strongest first."""
    K = len(share)
    ks = [int(k) + 1 for k in np.argsort(-share) if share[k] >= KEY_SHARE / K]
    return ks


@torch.no_grad()
def accuracy(model, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """Accuracy and loss at the answer position over the rows: (acc, loss)."""
    model.eval()
    logits = model(x)[:, -1]  # (N, V)
    target = y[:, -1]  # (N,)
    acc = float((logits.argmax(-1) == target).double().mean())
    loss = float(torch.nn.functional.cross_entropy(logits, target))
    model.train()
    return acc, loss


class Progress:
    """Trainer callback: every `every` steps, train and test accuracy and loss, and the embedding's
    top-frequency share (a progress measure that needs no test data)."""

    def __init__(self, model, every: int, train: tuple, test: tuple) -> None:
        self.model, self.every, self.train, self.test = model, every, train, test
        self.rows: list[dict] = []

    def record(self, step: int) -> None:
        tr_acc, tr_loss = accuracy(self.model, *self.train)
        te_acc, te_loss = accuracy(self.model, *self.test)
        share = spectrum(embedding(self.model))  # (K,)
        top = float(np.sort(share)[::-1][:FEW].sum())
        self.rows.append(
            {
                "step": step,
                "train_acc": tr_acc,
                "test_acc": te_acc,
                "train_loss": tr_loss,
                "test_loss": te_loss,
                "top": top,
            }
        )

    def __call__(self, event: str, trainer) -> None:
        if event == "step" and (trainer.step % self.every == 0 or trainer.step == 1):
            self.record(trainer.step)


def first(rows: list[dict], key: str, at_least: float) -> int | None:
    """The first recorded step at which rows[key] >= at_least (None: never)."""
    return next((r["step"] for r in rows if r[key] >= at_least), None)


def fit(s: dict, wd: float, seed: int) -> dict:
    p, steps = s["p"], s["steps"]
    x, y, order = table(p, seed)
    n = int(FRACTION * p * p)
    train, test = (x[order[:n]], y[order[:n]]), (x[order[n:]], y[order[n:]])  # (n, 3) x2, (p²-n, 3) x2
    cfg = preset(p, s["d_model"], steps, n)
    torch.manual_seed(seed)
    model = build_model(cfg.model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, betas=BETAS, weight_decay=wd)  # every weight decays
    progress = Progress(model, s["every"], train, test)
    progress.record(0)
    trainer = Trainer(
        model,
        cfg.train,
        TensorBatches(*train, batch_size=n),
        evaluate=None,
        loss=next_token_loss,
        optimizer=optimizer,
        lr_at=lambda step: LR * min(1.0, (step + 1) / WARMUP),
        callbacks=[progress],
        progress="silent",
    )
    result = trainer.fit()
    share = spectrum(embedding(model))  # (K,)
    ks = keys(share)
    rows = progress.rows
    return {
        "status": result.status,
        "curve": rows,
        "fit_step": first(rows, "train_acc", TRAIN_FIT),
        "jump_step": first(rows, "test_acc", TEST_JUMP),
        "final_test": rows[-1]["test_acc"],
        "final_train": rows[-1]["train_acc"],
        "spectrum": share.tolist(),
        "keys": ks,
        "key_share": float(share[[k - 1 for k in ks]].sum()) if ks else 0.0,
    }


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    out = {**s, "fraction": FRACTION, "wd": WD, "runs": {"decay": [], "no_decay": []}}
    init_share = spectrum(embedding(build_model(preset(s["p"], s["d_model"], 1, 1).model)))
    out["init_keys"] = keys(init_share)
    for seed in range(ctx.seeds):
        for label, wd in (("decay", WD), ("no_decay", 0.0)):
            if label == "no_decay" and seed > 0:
                continue  # the control: one seed (it is either memorising or not; the budget pays for the rest)
            ctx.log(f"p={s['p']}, weight decay {wd}, seed {seed}: {s['steps']} full-batch steps")
            out["runs"][label].append(fit(s, wd, seed))
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(10, 3.8, cols=2)
    ax = axes[0, 0]
    for label, style in (("decay", "-"), ("no_decay", ":")):
        r = out["runs"][label][0]
        steps = [c["step"] for c in r["curve"]]
        wd = out["wd"] if label == "decay" else 0
        ax.plot(
            steps,
            [c["train_acc"] for c in r["curve"]],
            style,
            color="tab:blue",
            label=t("train, wd {wd}", wd=wd),
        )
        ax.plot(
            steps,
            [c["test_acc"] for c in r["curve"]],
            style,
            color="tab:red",
            label=t("test, wd {wd}", wd=wd),
        )
    ax.set_xscale("symlog", linthresh=100)
    ax.set_xlabel(t("step (full batch)"))
    ax.set_ylabel(t("accuracy"))
    ax.set_title(
        t("a + b mod {p}, {fraction}% of pairs train (seed 0)", p=out["p"], fraction=int(out["fraction"] * 100))
    )
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    for label, color, legend in (
        ("decay", "tab:green", N_("decay")),
        ("no_decay", "tab:gray", N_("no_decay")),
    ):
        share = np.array(out["runs"][label][0]["spectrum"])
        ax.bar(
            np.arange(1, len(share) + 1) + (0.2 if label == "no_decay" else -0.2),
            share,
            0.4,
            color=color,
            label=t(legend),
        )
    ax.axhline(
        KEY_SHARE / len(share),
        color="black",
        ls="--",
        lw=0.8,
        label=t("{times}× an even share", times=figure(KEY_SHARE)),
    )
    ax.set_xlabel(t("frequency k"))
    ax.set_ylabel(t("share of the embedding's Fourier energy"))
    ax.set_title(t("embedding spectrum after training (seed 0)"))
    ax.legend(fontsize=7)
    ctx.figure(fig, "grokking")


def verdicts(r: dict) -> dict:
    dec, ctl = r["runs"]["decay"], r["runs"]["no_decay"]
    jumps = [x["jump_step"] for x in dec]
    fits = [x["fit_step"] for x in dec]
    delayed = [j is not None and f is not None and j >= DELAY * max(f, 1) for f, j in zip(fits, jumps, strict=True)]
    jumped = [j is not None for j in jumps]
    v_grok = Verdict(
        "holds" if all(delayed) else ("half-true" if any(jumped) else "fails"),
        {
            "fit_steps": steps(fits, r["steps"]),
            "jump_steps": steps(jumps, r["steps"]),
            "steps": r["steps"],
            "p": r["p"],
            "seeds": len(dec),
        },
    )
    finals = [x["final_test"] for x in ctl]
    v_wd = Verdict(
        level([max(finals) < NO_JUMP, all(x["final_train"] >= TRAIN_FIT for x in ctl)]),
        {"final": ", ".join(f"{a:.3f}" for a in finals), "steps": r["steps"]},
    )
    counts = [len(x["keys"]) for x in dec]
    shares = [x["key_share"] for x in dec]
    v_fourier = Verdict(
        level([all(1 <= c <= FEW for c in counts), min(shares) >= CONCENTRATED]),
        {
            "counts": ", ".join(str(c) for c in counts),
            "keys": "; ".join(" ".join(str(k) for k in x["keys"]) for x in dec),
            "share": ", ".join(f"{s:.2f}" for s in shares),
            "K": (r["p"] - 1) // 2,
            "control": ", ".join(str(len(x["keys"])) for x in ctl),
            "init": len(r["init_keys"]),
        },
    )
    return {"grokking.delay": v_grok, "grokking.decay": v_wd, "grokking.fourier": v_fourier}


def tables(r: dict) -> list[str]:
    lines = [
        "| weight decay | seed | train acc ≥ 0.99 at step | test acc ≥ 0.95 at step | final train / test acc | "
        "key frequencies (share) |",
        "|---|---|---|---|---|---|",
    ]
    for label, wd in (("decay", r["wd"]), ("no_decay", 0.0)):
        for seed, x in enumerate(r["runs"][label]):
            lines.append(
                f"| {wd:g} | {seed} | {words('en', steps([x['fit_step']], r['steps']))} | "
                f"{words('en', steps([x['jump_step']], r['steps']))} | "
                f"{x['final_train']:.3f} / {x['final_test']:.3f} | "
                f"{' '.join(map(str, x['keys']))} ({x['key_share']:.2f}) |"
            )
    final = spread([x["final_test"] for x in r["runs"]["decay"]])
    return [
        *lines,
        "",
        f"p = {r['p']}, d_model = {r['d_model']}, {r['steps']} full-batch steps, {int(r['fraction'] * 100)}% of the "
        f"{r['p'] ** 2} pairs train. Final test accuracy with weight decay: {final['mean']:.3f}.",
    ]


EXPERIMENT = Experiment(
    name="grokking",
    title=N_("Grokking on modular addition (ledger: Power et al. 2022; Nanda et al. 2023)"),
    setup=N_(
        "a + b mod {p} as three tokens [a, b, =], only the answer at "
        "= is a target; {fraction}% of the pairs train, the rest "
        "test. A one-layer transformer after Nanda et al., scaled "
        "down to fit a CPU: 4 heads, d_model {d_model}, ReLU MLP of "
        "4·d_model, no LayerNorm, learned positions, Xavier-uniform "
        "initialisation (torch's N(0, 1) embedding was still at test "
        "accuracy 0.011 after 2250 steps in a trial run; Xavier "
        "passed 0.86 by step 4500). Full-batch AdamW (lr 1e-3, betas "
        "0.9 and 0.98, 10 warmup steps) for {steps} steps, weight "
        "decay {wd} on every weight, and the same run with weight "
        "decay 0 (one seed). Nanda et al. §3 train p = 113 at width "
        "d = 128 on 30% of the pairs, full-batch AdamW with learning "
        "rate 0.001 and weight decay 1, for 40,000 epochs; p, the "
        "width, the training fraction and the length differ here to "
        "fit a CPU: at p = 53, 30% did not jump within 6000 steps in "
        "a trial run, and longer runs do not fit the budget."
    ),
    claims=(
        Claim(
            "grokking.delay",
            "Power et al. 2022; Nanda et al. 2023",
            "Power Fig. 1; Nanda §3",
            claim=N_(
                "Trained on a fraction of the addition table, the model fits "
                "its training pairs early and only much later does its "
                "accuracy on the held-out pairs jump (grokking)."
            ),
            rule=N_(
                "With weight decay, per seed: the first recorded step with "
                "training accuracy ≥ {fit} and the first with test accuracy "
                "≥ {jump}. Holds if every seed reaches the test jump at "
                "least {delay} times later than the training fit; half-true "
                "if some seed jumps, but not that late in every seed; fails "
                "if none jumps within the budget."
            ),
            finding=N_(
                "p = {p}, {seeds} seed(s): training accuracy ≥ {fit}: "
                "{fit_steps}; test accuracy ≥ {jump}: {jump_steps} (budget "
                "{steps} steps)."
            ),
            limits={"fit": figure(TRAIN_FIT), "jump": figure(TEST_JUMP), "delay": figure(DELAY)},
            paper="arXiv 2201.02177; arXiv 2301.05217",
            paper_says=N_(
                "Power et al., Figure 1 (division mod 97, 50% of the pairs "
                "train): “Training accuracy becomes close to perfect at "
                "<10^3 optimization steps, but it takes close to 10^6 steps "
                "for validation accuracy to reach that level”; section "
                "“Generalization beyond overfitting”: validation accuracy "
                "rises above chance “only after 1000 times more optimization "
                "steps” than training accuracy needs. Nanda et al., §3 (p = "
                "113, 30% of the pairs, 40,000 epochs of full-batch AdamW): "
                "“After around 10,000 epochs, the network generalizes and "
                "test accuracy increases to near 100%”."
            ),
            ours=N_("train fit: {fit_steps}; test jump: {jump_steps} (p = {p})"),
        ),
        Claim(
            "grokking.decay",
            "Power et al. 2022",
            "Fig. 2 left, “Ablations and Tricks”",
            claim=N_(
                "Without weight decay the jump does not come: the model stays a memoriser within the same budget."
            ),
            rule=N_(
                "Two parts, weight decay 0, same steps: every seed fits its "
                "training pairs (accuracy ≥ {fit}); and every seed's final "
                "test accuracy stays below {no_jump}. Both: holds; one: "
                "half-true; neither: fails."
            ),
            finding=N_("Weight decay 0: final test accuracy {final} after {steps} steps."),
            limits={"no_jump": figure(NO_JUMP), "fit": figure(TRAIN_FIT)},
            paper="arXiv 2201.02177",
            paper_says=N_(
                "Power et al., section “Ablations and Tricks” (measured on "
                "permutations of S5, Figure 2 left, not on addition): "
                "“adding weight decay has a very large effect on data "
                "efficiency, more than halving the amount of samples needed "
                "compared to most other interventions”. A run with weight "
                "decay 0 on modular addition: not in the parts of the paper "
                "read for this entry (the passages quoted here)."
            ),
            ours=N_("final test accuracy {final} without weight decay"),
        ),
        Claim(
            "grokking.fourier",
            "Nanda et al. 2023",
            "§4.1",
            claim=N_(
                "The trained embedding is sparse in the Fourier basis over "
                "the residues: a few key frequencies carry it."
            ),
            rule=N_(
                "The embedding's non-constant Fourier energy per frequency, "
                "as a share; a key frequency holds at least {key_share} "
                "times an even share. Two parts, every seed with weight "
                "decay: at most {few} key frequencies; together at least "
                "{concentrated} of the energy. Both: holds; one: half-true; "
                "neither: fails."
            ),
            finding=N_(
                "Weight decay: {counts} key frequencies of {K} (k = {keys}), "
                "holding {share} of the energy. Without weight decay: "
                "{control} key frequencies; at initialisation: {init}."
            ),
            limits={"key_share": figure(KEY_SHARE), "few": FEW, "concentrated": figure(CONCENTRATED)},
            paper="arXiv 2301.05217",
            paper_says=N_(
                "Nanda et al., §4.1 and Figure 3 (p = 113: 56 frequencies): "
                "“The embedding matrix W_E is sparse in the Fourier basis–it "
                "only has significant nonnegligible norm at 6 frequencies”, "
                "of which 5, k ∈ {{14, 35, 41, 42, 52}}, are used in later "
                "parts of the model (the key frequencies); Appendix C.2.1: 3 "
                "or 4 key frequencies in each of the other seeds."
            ),
            ours=N_("{counts} key frequencies of {K}, holding {share} of the energy"),
        ),
    ),
    setup_fields={
        "p": FULL["p"],
        "d_model": FULL["d_model"],
        "steps": FULL["steps"],
        "fraction": int(FRACTION * 100),
        "wd": figure(WD),
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=2,
    budget_s=1200,
)

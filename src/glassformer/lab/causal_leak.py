"""Experiment 7 — the causal leak: without a mask, a next-token model reads its answers.

Seed 000 (§3.3): a decoder must hide the future during training, or it learns to cheat. (Seed 002
trains its next-token model without a mask; `glassformer lesson hello-world` shows that on its
own data.) The measurements are the hello-world lesson's own, shared, not copied
(lessons/hello_world.py):

1. Random tokens: nothing about the next token can be learned from the past, so the best honest
   held-out loss is ln S. Unmasked, positions 0..T-2 copy their target from the input.
2. ‖∂logits[t] / ∂embedding[j]‖ for j > t: how much position t depends on later tokens (over the
   first 8 tokens of a validation window: the Jacobian costs one backward pass per logit).
And on text: char models with a causal mask and without (an Encoder, causal=False, trained on the
same next-token targets). Their teacher-forced validation loss (the whole window visible, as in
training), and their honest loss, where position t is given only tokens 0..t — what generation
gives it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.lab.common import corpus_for, fixed_windows, lab_preset, pm, position_losses, spread, train
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.lessons.hello_world import embedding_jacobian_norms, random_token_leak
from glassformer.messages import N_, t

JACOBIAN_T = 8  # tokens of the window whose Jacobian is taken (it costs T·V backward passes)
MASKS = {"causal": {"kind": "gpt", "causal": True}, "none": {"kind": "encoder", "causal": False}}
FULL = {"steps": 600, "T": 32, "windows": 64, "leak": {"n_train": 2000, "n_val": 500, "epochs": 3}}
FAST = {"steps": 40, "T": 16, "windows": 16, "leak": {"n_train": 600, "n_val": 200, "epochs": 2}}
CHANCE_SHARE = 0.1  # the causal model stays within this share of chance on random tokens
MARGIN = 0.5  # nats: "beats" / "loses to" the causal model on text by more than this


@torch.no_grad()
def honest_loss(model, x: torch.Tensor, y: torch.Tensor) -> float:
    """Mean loss when position t sees only tokens 0..t: one forward pass per prefix length."""
    model.eval()
    total = 0.0
    for pos in range(x.size(1)):
        logits = model(x[:, : pos + 1])[:, pos]  # (N, V): the last position of the prefix
        total += F.cross_entropy(logits, y[:, pos]).item()
    return total / x.size(1)


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    leak = random_token_leak(**s["leak"], seed=0)
    out = {
        "random_tokens": {
            "symbols": leak.symbols,
            "length": leak.length,
            "chance": leak.chance,
            "leak_floor": leak.leak_floor,
            "held_out": leak.held_out,
            "per_position": leak.per_position,
        },
        "steps": s["steps"],
        "T": s["T"],
        "text": {},
    }
    corpus = corpus_for(ctx, s["T"])
    x, y = fixed_windows(corpus.val, s["T"], s["windows"], seed=6)
    for mask, changes in MASKS.items():
        forced, honest, future = [], [], []
        for seed in range(ctx.seeds):
            ctx.log(f"char model, mask={mask}, seed {seed}")
            fit = train(lab_preset(**changes, seq_len=s["T"], max_len=s["T"]), corpus, seed, s["steps"])
            forced.append(float(position_losses(fit.model, x, y).mean()))
            honest.append(honest_loss(fit.model, x, y))
            J = embedding_jacobian_norms(fit.model, x[:1, :JACOBIAN_T])  # (8, 8): one backward per logit
            future.append(float(torch.triu(J, diagonal=1).max()))
        out["text"][mask] = {"teacher_forced": spread(forced), "honest": spread(honest), "future_grad": spread(future)}
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(9.5, 3.4, 1, 2)
    rt = out["random_tokens"]
    ax = axes[0, 0]
    for k, (mask, per) in enumerate(rt["per_position"].items()):
        ax.bar([pos + 0.4 * k - 0.2 for pos in range(rt["length"])], per, width=0.4, label=f"mask={mask}")
    ax.axhline(rt["chance"], color="black", ls="--", lw=0.8, label=t("chance ln {symbols}", symbols=rt["symbols"]))
    ax.set_xlabel(t("position"))
    ax.set_ylabel(t("held-out loss, random tokens"))
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    masks = list(out["text"])
    for k, key in enumerate(("teacher_forced", "honest")):
        ax.bar(
            [i + 0.4 * k - 0.2 for i in range(len(masks))],
            [out["text"][m][key]["mean"] for m in masks],
            0.4,
            yerr=[out["text"][m][key]["spread"] for m in masks],
            label=t(N_("whole window visible") if key == "teacher_forced" else N_("only tokens 0..t visible")),
        )
    ax.set_xticks(range(len(masks)), [f"mask={m}" for m in masks])
    ax.set_ylabel(t("validation loss, char model (nats)"))
    ax.legend(fontsize=7)
    ctx.figure(fig, "causal_leak")


def verdicts(r: dict) -> dict:
    rt, c, n = r["random_tokens"], r["text"]["causal"], r["text"]["none"]
    copies = (
        rt["held_out"]["none"] < 0.5 * rt["chance"]
        and abs(rt["held_out"]["causal"] - rt["chance"]) < CHANCE_SHARE * rt["chance"]
    )
    cheats = (
        n["teacher_forced"]["mean"] < c["teacher_forced"]["mean"] - MARGIN
        and n["honest"]["mean"] > c["honest"]["mean"] + MARGIN
    )
    reads = n["future_grad"]["mean"] > 0 and c["future_grad"]["mean"] == 0.0
    return {
        "causal-leak.cheat": Verdict(
            level([copies, cheats, reads]),
            {
                "S": rt["symbols"],
                "chance": f"{rt['chance']:.3f}",
                "none_rt": f"{rt['held_out']['none']:.3f}",
                "causal_rt": f"{rt['held_out']['causal']:.3f}",
                "forced_none": pm(n["teacher_forced"]),
                "forced_causal": pm(c["teacher_forced"]),
                "honest_none": pm(n["honest"]),
                "honest_causal": pm(c["honest"]),
                "grad_none": f"{n['future_grad']['mean']:.3g}",
                "grad_causal": f"{c['future_grad']['mean']:.3g}",
            },
        )
    }


def tables(r: dict) -> list[str]:
    rt = r["random_tokens"]
    lines = [
        f"Random tokens ({rt['symbols']} symbols, {rt['length']} per row; chance ln S = {rt['chance']:.3f}, a "
        f"perfect copier of the visible next tokens: {rt['leak_floor']:.3f}):",
        "",
        "| mask | held-out loss | per position |",
        "|---|---|---|",
    ]
    for mask, loss in rt["held_out"].items():
        lines.append(f"| {mask} | {loss:.3f} | {', '.join(f'{v:.3f}' for v in rt['per_position'][mask])} |")
    lines += [
        "",
        f"Char model, windows of {r['T']}, {r['steps']} steps:",
        "",
        "| mask | whole window visible | only tokens 0..t visible | largest ‖∂logits[t]/∂emb[j]‖, j > t |",
        "|---|---|---|---|",
    ]
    for mask, v in r["text"].items():
        lines.append(f"| {mask} | {pm(v['teacher_forced'])} | {pm(v['honest'])} | {v['future_grad']['mean']:.3g} |")
    return lines


EXPERIMENT = Experiment(
    name="causal-leak",
    title=N_("The causal leak: without a mask, a next-token model reads its answers"),
    setup=N_(
        "The hello-world lesson's measurements, shared with it: the "
        "second tutorial's one-layer model trained on independent "
        "random tokens with and without a causal mask (chance = ln S "
        "is the best an honest model can do), and the dependence of "
        "each position's prediction on later tokens. Then char "
        "models with a causal mask and without one (an encoder "
        "trained on the same next-token targets): validation loss "
        "with the whole window visible, as in training, and with "
        "only tokens 0..t visible at position t, as in generation."
    ),
    claims=(
        Claim(
            "causal-leak.cheat",
            "000",
            "§3.3",
            claim=N_(
                "A decoder must hide future tokens during training; without "
                "the causal mask it learns to cheat by reading them."
            ),
            rule=N_(
                "Three parts: on random tokens the unmasked model's held-out "
                "loss is below half of chance while the causal one stays "
                "within {chance_share} of chance; on text the unmasked model "
                "beats the causal one by more than {margin} nats when it "
                "sees the whole window and loses to it by more than {margin} "
                "nats when it sees only the past; and its predictions depend "
                "on later tokens (a non-zero gradient) while the causal "
                "model's dependence is exactly 0. All: holds; none: fails; "
                "otherwise half-true."
            ),
            finding=N_(
                "Random tokens ({S} symbols, chance {chance}): held-out loss "
                "{none_rt} without a mask, {causal_rt} with one. Text, whole "
                "window visible: {forced_none} without, {forced_causal} "
                "with; only the past visible: {honest_none} without, "
                "{honest_causal} with. Largest dependence on a later token: "
                "{grad_none} without, {grad_causal} with."
            ),
            limits={"chance_share": f"{CHANCE_SHARE:.0%}", "margin": figure(MARGIN)},
        ),
    ),
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=2,
    budget_s=300,
)

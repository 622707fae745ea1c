"""Ledger entry — is attention explanation? (Jain & Wallace 2019; Wiegreffe & Pinter 2019).

The claims, from the papers: learned attention weights correlate only weakly with gradient-based
and leave-one-out measures of how much each input token matters (Kendall τ, per example); a very
different attention distribution (large Jensen–Shannon divergence from the learned one) can give
the same prediction (Jain & Wallace). The rebuttal (Wiegreffe & Pinter) asks for baselines before
such results are read as evidence: an attention frozen to uniform weights (if it classifies as well,
the task does not need attention at all), and the spread of the attention between models trained
from different random seeds (the yardstick for "very different").

Setup. Jain & Wallace study a one-layer BiLSTM with an additive attention over its hidden states
on text classification (sentiment, topic) and question answering; here the classifier is a small
glassformer Encoder (bidirectional), two blocks of one head each, reading [CLS] + T tokens and
predicting the class as a token at the [CLS] position (every other position is IGNORE), trained
through glassformer's Trainer on TensorBatches. The studied attention is the one distribution the
class is read through: the [CLS] query's row of the last block's weights (blocks.1.attn.weights,
its keys the first block's contextual states, as the BiLSTM's hidden states are). The text is a
synthetic "sentiment" language, scaled down so that seeds fit a CPU and the important tokens are
known:

    keyed  one marker token, the sentiment word right after it decides the class; DISTRACTORS other
           sentiment words are noise; the rest neutral words (the label needs two tokens in a row,
           so it needs attention: a bag of words cannot solve it)
    bag    1 or 3 sentiment words among neutral ones, the majority decides (a bag of words can)

Importance of token t, per example, on the logit difference (positive − negative class) at [CLS]:

    gradient       |∂m/∂e_t · (e_t − e_null)|: attribution patching (causal.patching) of the token
                   embedding from the input towards the all-neutral input, position by position
    leave-one-out  |m(x) − m(x with token t replaced by the neutral word NULL)|: activation patching
                   (causal.patching) of the embedding at t from the all-neutral input

Kendall τ-b between the attention row (over the T tokens, [CLS] left out) and each importance.

Adversarial attention (Jain & Wallace's search): per example the [CLS] row is replaced through the
hook point by softmax(s), s optimised with Adam to maximise JSD(softmax(s), α) while the predicted
class probability stays within EPS of the original; the largest JSD of a step within EPS counts.
The yardstick: the JSD between the attention rows of the same examples in models trained from
different seeds. Uniform baseline (Wiegreffe & Pinter): the same classifier trained with every
attention layer's weights replaced by 1/(T+1) through the hook points, on both tasks.
"""

from __future__ import annotations

import itertools

import numpy as np
import torch

from glassformer.causal.patching import activation_patching, attribution_patching, logit_diff
from glassformer.config import apply_overrides
from glassformer.lab.common import lab_preset, pm, spread
from glassformer.lab.runner import Claim, Experiment, Verdict, figure, level, new_figure
from glassformer.messages import N_, t
from glassformer.models import build_model
from glassformer.nn.loss import next_token_loss
from glassformer.train.data import IGNORE, TensorBatches
from glassformer.train.loop import Trainer

FULL = {"T": 16, "d_model": 32, "steps": 800, "batch": 64, "train": 8000, "test": 1000, "probe": 200, "search": 300}
FAST = {"T": 8, "d_model": 16, "steps": 150, "batch": 32, "train": 1000, "test": 200, "probe": 16, "search": 30}
LAYERS = 2  # the second block's [CLS] row is the studied attention; its keys are contextual states
LR = 3e-3
# the vocabulary: class tokens, the marker, the neutral word that stands in for a left-out token,
# 4 positive and 4 negative words, the other neutral words
CLS, NEG, POS, MARK, NULL = 0, 1, 2, 3, 4
POSITIVE, NEGATIVE = tuple(range(5, 9)), tuple(range(9, 13))
VOCAB = 32
NEUTRAL = (NULL, *range(13, VOCAB))
DISTRACTORS = 3  # sentiment words in a keyed example besides the one that decides
STUDIED = f"blocks.{LAYERS - 1}.attn.weights"
EPS = 0.01  # the adversary's output budget: |p(positive) − p_original(positive)| ≤ EPS
SEARCH_LR, PENALTY = 0.1, 100.0  # Adam on the attention logits; the penalty per EPS of overshoot
WEAK = 0.5  # "weak correlation": mean Kendall τ below this
FAR = 0.4  # "very different": JSD at least this (nats; ln 2 ≈ 0.693 is the largest possible)
MOST = 0.5  # ... for at least this share of the examples
TIE = 0.02  # bag task: uniform attention within this accuracy of learned attention
GAP = 0.1  # keyed task: learned attention better than uniform by at least this (and beyond the seeds)


def examples(task: str, n: int, T: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """n examples of a task: x (n, T+1) = [CLS] + T tokens; y (n, T+1) = the class token at [CLS],
    IGNORE elsewhere."""
    g = np.random.default_rng(seed)
    x = g.choice(NEUTRAL, size=(n, T + 1))  # (n, T+1)
    x[:, 0] = CLS
    label = g.integers(0, 2, n)  # (n,) 1 = positive
    for i in range(n):
        if task == "keyed":
            at = 1 + g.integers(0, T - 1)  # the marker, with room for the word after it
            others = g.permutation([p for p in range(1, T + 1) if p not in (at, at + 1)])[:DISTRACTORS]
            x[i, others] = [g.choice(POSITIVE if g.random() < 0.5 else NEGATIVE) for _ in others]
            x[i, at], x[i, at + 1] = MARK, g.choice(POSITIVE if label[i] else NEGATIVE)
        else:
            k = g.choice([1, 3])
            signs = g.permutation([1] * (k // 2 + 1) + [0] * (k // 2))  # the majority is positive ...
            signs = signs if label[i] else 1 - signs  # ... or negative
            where = g.permutation(np.arange(1, T + 1))[:k]
            x[i, where] = [g.choice(POSITIVE if s else NEGATIVE) for s in signs]
    y = np.full_like(x, IGNORE)  # (n, T+1)
    y[:, 0] = np.where(label == 1, POS, NEG)
    return torch.as_tensor(x), torch.as_tensor(y)


def uniform(w: torch.Tensor, name: str) -> torch.Tensor:
    """Every query's weights spread evenly over its keys (no mask here: 1/T_k each)."""
    return torch.full_like(w, 1.0 / w.shape[-1])  # (B, H, T_q, T_k)


class Frozen(torch.nn.Module):
    """The model with every attention layer's weights frozen to uniform (Wiegreffe & Pinter's
    baseline), through the hook points: the model's code is untouched."""

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model
        self.names = [n for n, hp in model.hook_points().items() if hp.stage == model.hook_points()[STUDIED].stage]
        self.loss = model.loss

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model.run_with_hooks(x, hooks={n: uniform for n in self.names})  # (B, T+1, V)


def preset(s: dict, seed: int):
    return apply_overrides(
        lab_preset(
            kind="encoder",
            causal=False,
            n_layers=LAYERS,
            n_heads=1,
            d_model=s["d_model"],
            d_ff=2 * s["d_model"],
            max_len=s["T"] + 1,
            seq_len=s["T"] + 1,
            batch_size=s["batch"],
            lr=LR,
            log_interval=s["steps"],
            eval_interval=s["steps"],
        ),
        {"vocab_size": VOCAB, "max_steps": s["steps"], "seed": seed, "warmup_steps": 0},
    )


@torch.no_grad()
def accuracy(net, x: torch.Tensor, y: torch.Tensor) -> float:
    """Share of examples whose class logit (positive vs negative, at [CLS]) is the right one."""
    net.eval()
    logits = net(x)[:, 0]  # (N, V)
    guess = torch.where(logits[:, POS] > logits[:, NEG], POS, NEG)  # (N,)
    return float((guess == y[:, 0]).double().mean())


def fit(s: dict, task: str, seed: int, frozen: bool) -> tuple[torch.nn.Module, float]:
    """A classifier trained on the task (seeded data and init); its held-out accuracy."""
    cfg = preset(s, seed)
    torch.manual_seed(seed)
    model = build_model(cfg.model)
    net = Frozen(model) if frozen else model
    train = examples(task, s["train"], s["T"], seed=1000 + seed)  # (N, T+1) x2
    Trainer(
        net,
        cfg.train,
        TensorBatches(*train, batch_size=s["batch"], shuffle=True),
        evaluate=None,
        loss=next_token_loss,
        progress="silent",
    ).fit()
    model.eval()
    return model, accuracy(net, *examples(task, s["test"], s["T"], seed=99))


def p_positive(logits: torch.Tensor) -> torch.Tensor:
    """The classifier's probability of the positive class, at [CLS]: (N,)."""
    two = logits[:, 0][:, [NEG, POS]]  # (N, 2)
    return two.softmax(-1)[:, 1]  # (N,)


def attention_row(model, x: torch.Tensor) -> torch.Tensor:
    """The studied attention: the [CLS] query's weights in the last block, head 0: (N, T+1)."""
    with torch.no_grad():
        _, cache = model.run_with_cache(x, names=[STUDIED])
    return cache[STUDIED][:, 0, 0, :]  # (N, T+1)


def jsd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Jensen–Shannon divergence (nats) between distributions on the last axis: (...,), in [0, ln 2]."""
    m = (a + b) / 2  # (..., K)

    def kl(p: torch.Tensor) -> torch.Tensor:
        return torch.where(p > 0, p * (p.clamp_min(1e-30) / m.clamp_min(1e-30)).log(), 0.0).sum(-1)  # (...,)

    return (kl(a) + kl(b)) / 2  # (...,)


def kendall(a, b) -> float:
    """Kendall τ-b of two rankings (ties counted as in τ-b); NaN when either is constant."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    i, j = np.triu_indices(len(a), k=1)
    da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])  # (pairs,)
    n_a, n_b = np.count_nonzero(da), np.count_nonzero(db)
    if not n_a or not n_b:
        return float("nan")
    return float((da * db).sum() / np.sqrt(n_a * n_b))


def importances(model, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and leave-one-out importance of each of the T tokens of each example: (N, T) x2."""
    metric = logit_diff(POS, NEG, pos=0)
    grads, loos = [], []
    for row in x:
        null = torch.full_like(row, NULL)  # (T+1,)
        null[0] = CLS
        grad = attribution_patching(model, null, row, metric, point="embed", by=("T",))
        loo = activation_patching(model, null, row, metric, point="embed", by=("T",))
        grads.append((grad.values[0, 1:] - grad.corrupt).abs().numpy())  # (T,)
        loos.append((loo.values[0, 1:] - loo.corrupt).abs().numpy())  # (T,)
    return np.stack(grads), np.stack(loos)  # (N, T) x2


def adversarial(model, x: torch.Tensor, steps: int, seed: int = 0) -> dict:
    """Per example, the largest JSD from the learned [CLS] row reached by a row that keeps the
    positive-class probability within EPS, and that row: {"jsd": (N,), "row": (N, T+1), "gap": (N,)}."""
    alpha = attention_row(model, x)  # (N, T+1)
    with torch.no_grad():
        p0 = p_positive(model(x))  # (N,)
    g = torch.Generator().manual_seed(seed)
    s = (alpha.clamp_min(1e-6).log() + 0.5 * torch.randn(alpha.shape, generator=g)).requires_grad_(True)  # (N, T+1)
    opt = torch.optim.Adam([s], lr=SEARCH_LR)
    best = torch.zeros(len(x))  # (N,)
    best_row, best_gap = alpha.clone(), torch.zeros(len(x))  # (N, T+1), (N,)
    for _ in range(steps + 1):
        a = s.softmax(-1)  # (N, T+1)

        def put(w: torch.Tensor, name: str, a: torch.Tensor = a) -> torch.Tensor:
            w = w.clone()  # (N, 1, T+1, T+1)
            w[:, :, 0, :] = a[:, None, :]
            return w

        gap = (p_positive(model.run_with_hooks(x, hooks={STUDIED: put})) - p0).abs()  # (N,)
        d = jsd(a, alpha)  # (N,)
        with torch.no_grad():
            better = (gap <= EPS) & (d > best)  # (N,)
            best = torch.where(better, d, best)
            best_row[better], best_gap[better] = a[better], gap[better]
        loss = (-d + PENALTY * torch.relu(gap - EPS / 2)).sum()
        (grad,) = torch.autograd.grad(loss, [s])
        s.grad = grad
        opt.step()
    return {"jsd": best.numpy(), "row": best_row.detach(), "gap": best_gap.numpy()}


def studied(s: dict, seed: int, probe: torch.Tensor) -> dict:
    """The keyed-task classifier of one seed: accuracy, attention, importances, τ, the adversary."""
    model, acc = fit(s, "keyed", seed, frozen=False)
    alpha = attention_row(model, probe)  # (N, T+1)
    grad, loo = importances(model, probe)  # (N, T) x2
    att = alpha[:, 1:].numpy()  # (N, T): the tokens, [CLS] left out
    tau = {
        "grad": [kendall(a, g) for a, g in zip(att, grad, strict=True)],
        "loo": [kendall(a, g) for a, g in zip(att, loo, strict=True)],
        "grad_loo": [kendall(a, g) for a, g in zip(grad, loo, strict=True)],
    }
    adv = adversarial(model, probe, s["search"], seed)
    key = (probe == MARK).int().argmax(1) + 1  # (N,): the deciding word's position
    top = att.argmax(1)  # (N,): the token the attention ranks first
    return {
        "accuracy": acc,
        "rows": alpha,
        "attention": np.round(alpha.numpy(), 5).tolist(),  # stored rounded: the figures below use the full values
        "tau": {k: np.round(v, 4).tolist() for k, v in tau.items()},
        "mean_tau": {k: float(np.nanmean(v)) for k, v in tau.items()},
        "top_agree": {"grad": float((top == grad.argmax(1)).mean()), "loo": float((top == loo.argmax(1)).mean())},
        "key_weight": float(alpha[torch.arange(len(probe)), key].mean()),
        "adv_jsd": np.round(adv["jsd"], 5).tolist(),
        "adv_gap": np.round(adv["gap"], 5).tolist(),
        "adv_row": np.round(adv["row"][:1].numpy(), 5).tolist(),
        "far_share": float((adv["jsd"] >= FAR).mean()),
        "median_adv": float(np.median(adv["jsd"])),
    }


def run(ctx) -> dict:
    s = FAST if ctx.fast else FULL
    probe, _ = examples("keyed", s["probe"], s["T"], seed=7)  # (P, T+1): the examples every model explains
    out = {**s, "probe": probe.tolist(), "models": [], "uniform": {"bag": [], "keyed": []}}
    for seed in range(max(ctx.seeds, 2)):  # the yardstick needs a pair of seeds
        ctx.log(f"keyed task, learned attention, seed {seed}: {s['steps']} steps, then τ and the adversary")
        out["models"].append(studied(s, seed, probe))
    for seed in range(ctx.seeds):
        for task in ("bag", "keyed"):
            ctx.log(f"{task} task, learned vs uniform attention, seed {seed}")
            learned = out["models"][seed]["accuracy"] if task == "keyed" else fit(s, task, seed, False)[1]
            out["uniform"][task].append({"learned": learned, "uniform": fit(s, task, seed, True)[1]})
    rows = [m.pop("rows") for m in out["models"]]  # S × (P, T+1), unrounded
    out["seed_jsd"] = [float(jsd(rows[i], rows[j]).median()) for i, j in itertools.combinations(range(len(rows)), 2)]
    out["seed_jsd_all"] = np.round(jsd(rows[0], rows[1]).numpy(), 5).tolist()
    plot(ctx, out)
    return out


def plot(ctx, out: dict) -> None:
    fig, axes = new_figure(11, 3.6, cols=3)
    ax = axes[0, 0]
    m = out["models"][0]
    bins = np.linspace(-1, 1, 21)
    for key, color, label in (
        ("grad", "tab:blue", N_("attention vs gradient")),
        ("loo", "tab:orange", N_("attention vs leave-one-out")),
        ("grad_loo", "tab:gray", N_("gradient vs leave-one-out")),
    ):
        ax.hist(np.array(m["tau"][key], dtype=float), bins=bins, histtype="step", color=color, label=t(label))
    ax.axvline(WEAK, color="black", ls="--", lw=0.8, label=t("weak: tau < {weak}", weak=figure(WEAK)))
    ax.set_xlabel(t("Kendall tau-b per example"))
    ax.set_ylabel(t("examples"))
    ax.set_title(t("rank correlation of the [CLS] attention (seed 0)"), fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    bins = np.linspace(0, np.log(2), 21)
    ax.hist(
        np.array(m["adv_jsd"]),
        bins=bins,
        histtype="step",
        color="tab:red",
        label=t("adversarial attention"),
    )
    ax.hist(
        np.array(out["seed_jsd_all"]),
        bins=bins,
        histtype="step",
        color="tab:green",
        label=t("seed 0 vs seed 1"),
    )
    ax.axvline(FAR, color="black", ls="--", lw=0.8, label=t("very different: {far}", far=figure(FAR)))
    ax.set_xlabel(t("JSD from the learned attention (nats)"))
    ax.set_ylabel(t("examples"))
    ax.set_title(t("same output (within {eps}), other attention (seed 0)", eps=figure(EPS)), fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[0, 2]
    T = out["T"]
    ax.bar(
        np.arange(T + 1) - 0.2,
        m["attention"][0],
        0.4,
        color="tab:blue",
        label=t("learned attention"),
    )
    ax.bar(
        np.arange(T + 1) + 0.2,
        m["adv_row"][0],
        0.4,
        color="tab:red",
        label=t("adversarial attention"),
    )
    ax.set_xticks(np.arange(T + 1))
    ax.set_xticklabels([str(v) for v in out["probe"][0]], fontsize=6)
    ax.set_xlabel(t("token id (0 = [CLS], 3 = marker)"))
    ax.set_ylabel(t("attention weight"))
    ax.set_title(t("one example: divergence {jsd}", jsd=f"{m['adv_jsd'][0]:.2f}"), fontsize=9)
    ax.legend(fontsize=7)
    ctx.figure(fig, "attention_explanation")


def verdicts(r: dict) -> dict:
    models = r["models"]
    grad = [m["mean_tau"]["grad"] for m in models]
    loo = [m["mean_tau"]["loo"] for m in models]
    v_tau = Verdict(
        level([max(grad) < WEAK, max(loo) < WEAK]),
        {
            "grad": ", ".join(f"{x:.2f}" for x in grad),
            "loo": ", ".join(f"{x:.2f}" for x in loo),
            "grad_loo": ", ".join(f"{m['mean_tau']['grad_loo']:.2f}" for m in models),
            "accuracy": ", ".join(f"{m['accuracy']:.3f}" for m in models),
            "seeds": len(models),
        },
    )
    far = [m["far_share"] for m in models]
    adv = [m["median_adv"] for m in models]
    v_adv = Verdict(
        level([min(far) >= MOST, min(adv) > max(r["seed_jsd"])]),
        {
            "share": ", ".join(f"{x:.2f}" for x in far),
            "median": ", ".join(f"{x:.2f}" for x in adv),
            "seed_jsd": ", ".join(f"{x:.2f}" for x in r["seed_jsd"]),
            "deciding": ", ".join(f"{m['key_weight']:.2f}" for m in models),
        },
    )
    bag, keyed = r["uniform"]["bag"], r["uniform"]["keyed"]
    bag_l, bag_u = [x["learned"] for x in bag], [x["uniform"] for x in bag]
    key_l, key_u = [x["learned"] for x in keyed], [x["uniform"] for x in keyed]
    v_uni = Verdict(
        level(
            [
                spread(bag_u)["mean"] >= spread(bag_l)["mean"] - TIE,
                min(key_l) - max(key_u) >= GAP,
            ]
        ),
        {
            "bag_learned": pm(spread(bag_l)),
            "bag_uniform": pm(spread(bag_u)),
            "keyed_learned": pm(spread(key_l)),
            "keyed_uniform": pm(spread(key_u)),
        },
    )
    return {
        "attention-explanation.tau": v_tau,
        "attention-explanation.adversarial": v_adv,
        "attention-explanation.uniform": v_uni,
    }


def tables(r: dict) -> list[str]:
    lines = [
        t(
            "| seed | keyed test accuracy | weight on the deciding word "
            "| tau with gradient | tau with leave-one-out | tau gradient "
            "vs leave-one-out | top token the same (gradient / "
            "leave-one-out) | share ≥ far (median divergence) |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for seed, m in enumerate(r["models"]):
        tau = m["mean_tau"]
        lines.append(
            f"| {seed} | {m['accuracy']:.3f} | {m['key_weight']:.2f} | {tau['grad']:.2f} | {tau['loo']:.2f} | "
            f"{tau['grad_loo']:.2f} | {m['top_agree']['grad']:.2f} / {m['top_agree']['loo']:.2f} | "
            f"{m['far_share']:.2f} ({m['median_adv']:.2f}) |"
        )
    lines += ["", t("| task | seed | learned attention accuracy | uniform attention accuracy |"), "|---|---|---|---|"]
    for task in ("bag", "keyed"):
        for seed, x in enumerate(r["uniform"][task]):
            lines.append(f"| {task} | {seed} | {x['learned']:.3f} | {x['uniform']:.3f} |")
    seed_jsd = ", ".join(f"{x:.3f}" for x in r["seed_jsd"])
    return [
        *lines,
        "",
        t(
            "Median Jensen-Shannon divergence between the [CLS] rows of "
            "two seeds: {seed_jsd}. Adversary budget: p(positive) within "
            "{eps}; {probe} probe examples of {T} tokens.",
            seed_jsd=seed_jsd,
            eps=figure(EPS),
            probe=len(r["probe"]),
            T=r["T"],
        ),
    ]


PAPERS = "Jain & Wallace 2019; Wiegreffe & Pinter 2019"
EXPERIMENT = Experiment(
    name="attention-explanation",
    title=N_("Is attention explanation? (ledger: Jain & Wallace 2019; Wiegreffe & Pinter 2019)"),
    setup=N_(
        "A classifier on a synthetic sentiment language, scaled down "
        "from the papers' BiLSTM with additive attention on text "
        "classification so that seeds fit a CPU and the deciding "
        "token is known: a bidirectional glassformer Encoder, two "
        "blocks of one head, d_model {d_model}, reads [CLS] and {T} "
        "tokens and predicts the class as a token at [CLS]; {train} "
        "training examples, {steps} steps through glassformer's "
        "Trainer. Keyed task: the sentiment word right after a "
        "marker decides, {distractors} other sentiment words are "
        "noise (two tokens in a row: a bag of words cannot solve "
        "it). Bag task: the majority of 1 or 3 sentiment words "
        "decides. The studied attention is the [CLS] row of the last "
        "block (its keys are contextual states, as the BiLSTM's "
        "hidden states are). On {probe} fixed keyed examples: "
        "Kendall tau-b between that row and each token's importance "
        "(gradient: attribution patching of the token embedding "
        "towards the neutral word; leave-one-out: activation "
        "patching of the token by the neutral word); an adversarial "
        "row found by {search} Adam steps that maximise the "
        "Jensen-Shannon divergence from the learned row while "
        "p(positive) stays within {eps}; the divergence between "
        "seeds on the same examples; and every attention layer "
        "frozen to uniform weights through the hook points, trained "
        "on both tasks."
    ),
    claims=(
        Claim(
            "attention-explanation.tau",
            "Jain & Wallace 2019",
            "Abstract",
            claim=N_(
                "Learned attention weights correlate only weakly with "
                "gradient-based and leave-one-out measures of how much each "
                "token matters."
            ),
            rule=N_(
                "Per seed, the mean over the probe examples of Kendall tau-b "
                "between the attention row and each importance. Two parts: "
                "every seed's mean tau with the gradient importance is below "
                "{weak}; every seed's mean tau with the leave-one-out "
                "importance is below {weak}. Both: holds; one: half-true; "
                "neither: fails."
            ),
            finding=N_(
                "{seeds} seed(s), test accuracy {accuracy}: mean tau of "
                "attention with the gradient {grad}, with leave-one-out "
                "{loo}; the two importances with each other {grad_loo}."
            ),
            limits={"weak": figure(WEAK)},
            paper="arXiv 1902.10186",
            paper_says=N_(
                "Jain & Wallace, Abstract: “learned attention weights are "
                "frequently uncorrelated with gradient-based measures of "
                "feature importance”. Their per-dataset Kendall tau figures: "
                "not in the parts of the paper read for this entry (the "
                "passages quoted here)."
            ),
            ours=N_("mean tau: attention vs gradient {grad}, vs leave-one-out {loo}"),
        ),
        Claim(
            "attention-explanation.adversarial",
            PAPERS,
            "Abstract",
            claim=N_(
                "A very different attention distribution gives the same "
                "prediction — and “very different” is more than two models "
                "trained from different seeds differ."
            ),
            rule=N_(
                "Per seed, per probe example, the largest Jensen-Shannon "
                "divergence from the learned row of an adversarial row that "
                "keeps p(positive) within {eps}. Two parts: in every seed at "
                "least {most} of the examples reach a divergence of {far} or "
                "more; every seed's median divergence is above the median "
                "divergence between the rows of any two seeds. Both: holds; "
                "one: half-true; neither: fails."
            ),
            finding=N_(
                "Share of examples with an adversary at divergence {far} or "
                "more: {share}; median adversarial divergence {median}; "
                "median divergence between seeds {seed_jsd}. Learned weight "
                "on the deciding word: {deciding}."
            ),
            limits={"far": figure(FAR), "most": figure(MOST), "eps": figure(EPS)},
            paper="arXiv 1902.10186; arXiv 1908.04626",
            paper_says=N_(
                "Jain & Wallace, Abstract: “one can identify very different "
                "attention distributions that nonetheless yield equivalent "
                "predictions”. Wiegreffe & Pinter, Abstract: one of their "
                "tests is “a variance calibration based on multiple random "
                "seed runs”, and “even when reliable adversarial "
                "distributions can be found, they don't perform well on the "
                "simple diagnostic”. The divergences measured in either "
                "paper: not in the parts of the paper read for this entry "
                "(the passages quoted here)."
            ),
            ours=N_("{share} of examples reach divergence {far}; median {median} against {seed_jsd} between seeds"),
        ),
        Claim(
            "attention-explanation.uniform",
            "Wiegreffe & Pinter 2019",
            "Abstract",
            claim=N_(
                "The uniform-weights baseline separates the tasks: where a "
                "bag of words decides, attention frozen to uniform "
                "classifies as well as learned attention; where the order of "
                "tokens decides, it does not."
            ),
            rule=N_(
                "Held-out accuracy of the classifier trained with learned "
                "and with uniform attention, every seed. Two parts: on the "
                "bag task the uniform mean is at most {tie} below the "
                "learned mean; on the keyed task the worst learned seed "
                "beats the best uniform seed by at least {gap}. Both: holds; "
                "one: half-true; neither: fails."
            ),
            finding=N_(
                "Bag task: learned {bag_learned}, uniform {bag_uniform}. "
                "Keyed task: learned {keyed_learned}, uniform "
                "{keyed_uniform}."
            ),
            limits={"tie": figure(TIE), "gap": figure(GAP)},
            paper="arXiv 1908.04626",
            paper_says=N_(
                "Wiegreffe & Pinter, Abstract: the first of their tests is "
                "“a simple uniform-weights baseline”. Their per-dataset "
                "scores with frozen uniform weights: not in the parts of the "
                "paper read for this entry (the passages quoted here)."
            ),
            ours=N_(
                "bag: {bag_learned} learned, {bag_uniform} uniform; keyed: "
                "{keyed_learned} learned, {keyed_uniform} uniform"
            ),
        ),
    ),
    setup_fields={
        "T": FULL["T"],
        "d_model": FULL["d_model"],
        "steps": FULL["steps"],
        "train": FULL["train"],
        "probe": FULL["probe"],
        "distractors": DISTRACTORS,
        "search": FULL["search"],
        "eps": figure(EPS),
    },
    run=run,
    verdicts=verdicts,
    tables=tables,
    seeds=3,
    budget_s=600,
)

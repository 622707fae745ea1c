"""Why three ledger entries failed on our models: probes a reader can rerun, one cause at a time.

Each probe builds and trains through the entry's own code (glassformer.lab.moe / .mla / .balance and
lab.common's train, eval_loss, fixed_windows) on the entry's text (shakespeare, 64 characters) and
prints its figures; the docs name the command and give the conclusion (docs/modern.md, "What the
ledger did not reproduce"). Seeds are paired: the same seed gives every model the same windows in the
same order, so a difference per seed says more than the means.

    PYTHONPATH=src python bench/ledger_why.py moe [ARM ...]       moe.step: per-step loss, MoE vs dense
    PYTHONPATH=src python bench/ledger_why.py mla [ARM ...]       mla.quality: MLA vs GQA at equal parameters
    PYTHONPATH=src python bench/ledger_why.py balance [ARM ...]   balance.even: where the load goes
    ... --seeds N (default 2) --first-seed S (default 0)          --list: the arms of each probe

The arms (each prints its models' loss per seed, or each layer's load):

    moe      entry      baby-llama against baby-moe, the entry's 300 steps
             capacity   baby-llama against itself with twice the FFN width: does capacity bind here?
             aux        baby-moe without its balance and z losses
             experts    4 experts (2 a token), and 8 experts (1 a token), at the same active parameters
             long       entry, three times the steps
    mla      entry      GQA (baby-llama), MHA, MLA (baby-mla) at baby-llama's parameter count
             rank       MLA with a latent of 64, and of 128 (the model's width: nothing compressed)
             rope       MLA with 32 rotary features (GQA's head width), alone and with the latent of 128
             long       GQA and MLA, three times the steps
    balance  bound      the MaxVio a router deciding by token identity alone is forced to, by the text's
                        character frequencies
             entry      the entry's balance-loss arm: per-layer MaxVio on the entry's windows and on
                        training batches, MaxVio pooled over layers (what the loss sees), and per layer
                        how much the routing follows token identity
             long, alpha           the same after three times the steps / with ten times the α
             per-layer             the balance loss taken per layer and averaged, not pooled
             bias, bias-long       the entry's loss-free bias arm, and three times its steps

Every arm is minutes of CPU on one thread (the `long` ones three times as many).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from glassformer.config import Preset, apply_overrides, matched_expert_width
from glassformer.lab import balance as lab_balance
from glassformer.lab import mla as lab_mla
from glassformer.lab import moe as lab_moe
from glassformer.lab.common import eval_loss, fixed_windows, load_corpus, preset_for_lab, train
from glassformer.nn.moe import MixtureOfExperts, load_balancing_loss, max_violation

T = 64
TEXT = "shakespeare"
# the windows each entry measures its loss on: moe's ValCurve (32, its default n), mla's eval_loss (64)
WINDOWS = {"moe": 32, "mla": 64}


# ---- pure helpers (tests/repo/test_bench_ledger_why.py) -------------------------------------------


def identity_bound(freqs: np.ndarray, n_experts: int, top_k: int) -> tuple[float, float]:
    """The MaxVio a router deciding by token identity alone is forced to, given the tokens'
    frequencies (V,): every occurrence of a token goes to the same K experts, so an expert's load is
    the sum of its tokens' frequencies, the mean load K/E. Returns (lower, packed): the floor
    E·max(p)/K − 1 (the commonest token's experts carry at least its frequency; 0 if below), and the
    MaxVio of a greedy packing (tokens from the commonest, each to the K least-loaded experts), which
    a router could reach: the forced MaxVio lies between the two."""
    p = np.sort(np.asarray(freqs, dtype=np.float64) / np.sum(freqs))[::-1]  # (V,) descending
    mean = top_k / n_experts
    load = np.zeros(n_experts)  # (E,)
    for share in p:
        load[np.argsort(load, kind="stable")[:top_k]] += share
    return max(0.0, float(p[0] / mean - 1.0)), float(load.max() / mean - 1.0)


def identity_share(tokens: np.ndarray, experts: np.ndarray, vocab: int) -> np.ndarray:
    """Per token id (V,): the share of its slots that went to its K most common experts (NaN for a
    token that never occurs). tokens (N,), experts (N, K). 1: the token's experts are decided by its
    identity alone; K/E: spread evenly."""
    N, K = experts.shape
    E = int(experts.max()) + 1
    counts = np.zeros((vocab, E))  # (V, E) slots of each token at each expert
    np.add.at(counts, (np.repeat(tokens, K), experts.reshape(-1)), 1)
    total = counts.sum(1)  # (V,)
    top = np.sort(counts, axis=1)[:, ::-1][:, :K].sum(1)  # (V,)
    with np.errstate(invalid="ignore"):
        return top / total  # (V,)


def per_layer_balance_loss(router_logits, top_k: int, mask=None) -> torch.Tensor:
    """The balance loss of each layer on its own, averaged over layers: Switch Transformer's per-layer
    form, against load_balancing_loss over every layer's rows pooled (transformers', ours)."""
    layers = [router_logits] if isinstance(router_logits, torch.Tensor) else list(router_logits)
    return torch.stack([load_balancing_loss(layer, top_k, mask) for layer in layers]).mean()  # ()


def rounded(values, decimals: int = 2) -> str:
    return "[" + ", ".join(f"{float(v):.{decimals}f}" for v in values) + "]"


def paired(a: list[float], b: list[float]) -> str:
    """Seed-by-seed differences b − a, and their mean."""
    d = [y - x for x, y in zip(a, b, strict=True)]
    return f"{np.mean(d):+.3f} (per seed {', '.join(f'{v:+.3f}' for v in d)})"


# ---- training, the entries' way ---------------------------------------------------------------------


def corpus():
    return load_corpus(TEXT)


_DONE: dict = {}  # (model, steps, seeds) -> (losses, cpu): an arm's baseline is trained once per process


def losses(name: str, preset: Preset, seeds: range, steps: int, windows: int) -> tuple[list[float], float]:
    """Validation loss per seed on the entry's fixed windows (eval_loss's first `windows`) and the CPU
    seconds of all seeds."""
    key = (name, steps, tuple(seeds))
    if key not in _DONE:
        start, out = time.process_time(), []
        for seed in seeds:
            fit = train(preset, corpus(), seed, steps)
            out.append(eval_loss(fit.model, corpus(), T, n=windows))
        _DONE[key] = (out, time.process_time() - start)
    return _DONE[key]


def run_arm(probe: str, arm: str, names: list[str], presets: dict, steps: int, seeds: range, note) -> None:
    """Train an arm's models (the first is its baseline) and print each one's loss per seed and, after
    the first, its difference from the baseline seed by seed."""
    print(f"{probe} {arm}: {steps} steps, validation loss (the entry's windows)", flush=True)
    base: list[float] = []
    for name in names:
        values, cpu = losses(name, presets[name], seeds, steps, WINDOWS[probe])
        against = f"  {name} − {names[0]} {paired(base, values)}" if base else ""
        base = base or values
        print(
            f"  {name:<20} {np.mean(values):.3f}  seeds {rounded(values, 3)}  cpu {cpu:.0f} s  "
            f"{note(presets[name])}{against}",
            flush=True,
        )


# ---- moe.step -------------------------------------------------------------------------------------


def moe_presets() -> dict[str, Preset]:
    dense, moe = (preset_for_lab(lab_moe.MODELS[k], seq_len=T) for k in ("dense", "moe"))
    E, K, F = moe.model.n_experts, moe.model.moe_top_k, dense.model.d_ff
    return {
        "dense": dense,
        "moe": moe,
        "dense-2x": apply_overrides(dense, {"d_ff": 2 * F}),  # twice the FFN: does capacity bind?
        "moe-no-aux": apply_overrides(moe, {"moe_aux_loss": 0.0, "moe_z_loss": 0.0}),
        "moe-e4k2": apply_overrides(moe, {"n_experts": 4, "d_ff": matched_expert_width(F, 4, K)}),
        "moe-e8k1": apply_overrides(moe, {"moe_top_k": 1, "d_ff": matched_expert_width(F, E, 1)}),
    }


MOE_ARMS = {  # arm -> (models, the first its baseline; steps as a multiple of the entry's)
    "entry": (["dense", "moe"], 1),
    "capacity": (["dense", "dense-2x"], 1),
    "aux": (["moe", "moe-no-aux"], 1),
    "experts": (["moe", "moe-e4k2", "moe-e8k1"], 1),
    "long": (["dense", "moe"], 3),
}


def run_moe(arms: list[str], seeds: range) -> None:
    presets, steps = moe_presets(), lab_moe.FULL["steps"]
    for arm in arms:
        names, times = MOE_ARMS[arm]
        run_arm(
            "moe",
            arm,
            names,
            presets,
            times * steps,
            seeds,
            lambda p: f"(d_ff {p.model.d_ff}, experts {p.model.n_experts}, top {p.model.moe_top_k})",
        )


# ---- mla.quality ----------------------------------------------------------------------------------


def mla_presets() -> dict[str, Preset]:
    vocab = corpus().vocab_size
    v = lab_mla.variants(T, vocab)
    target = lab_mla.parameters(v["gqa"], vocab)

    def at_size(changes: dict) -> Preset:  # an MLA variant at baby-llama's parameter count, as the entry
        p = apply_overrides(v["mla"], changes)
        return apply_overrides(p, {"d_ff": lab_mla.equal_width(p, target, vocab)})

    return {
        **v,
        "mla-rank64": at_size({"mla_kv_rank": 64}),
        "mla-rank128": at_size({"mla_kv_rank": 128}),  # the latent as wide as the model: no compression
        "mla-rope32": at_size({"mla_d_rope": 32}),  # every query/key feature of GQA's head width rotary
        "mla-rank128-rope32": at_size({"mla_kv_rank": 128, "mla_d_rope": 32}),
    }


MLA_ARMS = {  # arm -> (models, the first its baseline; steps as a multiple of the entry's)
    "entry": (["gqa", "mha", "mla"], 1),
    "rank": (["mla", "mla-rank64", "mla-rank128"], 1),
    "rope": (["mla", "mla-rope32", "mla-rank128-rope32"], 1),
    "long": (["gqa", "mla"], 3),
}


def run_mla(arms: list[str], seeds: range) -> None:
    presets, steps = mla_presets(), lab_mla.FULL["steps"]
    vocab = corpus().vocab_size

    def note(p: Preset) -> str:
        m = p.model
        return f"(d_ff {m.d_ff}, rank {m.mla_kv_rank}, rope {m.mla_d_rope}, params {lab_mla.parameters(p, vocab):,})"

    for arm in arms:
        names, times = MLA_ARMS[arm]
        run_arm("mla", arm, names, presets, times * steps, seeds, note)


# ---- balance.even ---------------------------------------------------------------------------------


@torch.no_grad()
def routing(model, x: torch.Tensor) -> list[np.ndarray]:
    """Per expert layer, the experts each token of x (n, T) went to: (n·T, K)."""
    model.eval()
    model(x)  # (n, T, V)
    return [
        m.last_experts.reshape(-1, m.last_experts.size(-1)).numpy()
        for m in model.modules()
        if isinstance(m, MixtureOfExperts)
    ]


def describe(model, c, label: str) -> None:
    """One trained model: each layer's MaxVio on the validation windows and on training batches, the
    pooled MaxVio the loss sees, and how much each layer's routing follows token identity."""
    x, _ = fixed_windows(c.val, T, lab_balance.WINDOWS, seed=1)  # the entry's windows
    val = lab_balance.loads(model, x)  # (L, E)
    batch = preset_for_lab(lab_balance.PRESET).train.batch_size
    train_vio = []
    for i in range(20):  # training batches the size the loss balances
        xb, _ = fixed_windows(c.train, T, batch, seed=100 + i)
        train_vio.append(max_violation(torch.as_tensor(lab_balance.loads(model, xb))).numpy())  # (L,)
    per_layer = max_violation(torch.as_tensor(val)).numpy()  # (L,)
    pooled = float(max_violation(torch.as_tensor(val.sum(0))))
    print(
        f"  {label}: MaxVio per layer (validation windows) {rounded(per_layer)}, "
        f"pooled over layers {pooled:.2f}; per layer on training batches of {batch} "
        f"(mean of 20) {rounded(np.mean(train_vio, 0))}",
        flush=True,
    )
    tokens = x.reshape(-1).numpy()  # (n·T,)
    freq = np.bincount(tokens, minlength=c.vocab_size) / len(tokens)  # (V,)
    common = np.argsort(freq)[::-1][:5]
    for layer, experts in enumerate(routing(model, x)):
        share = identity_share(tokens, experts, c.vocab_size)  # (V,)
        seen = ~np.isnan(share)
        weighted = float((share[seen] * freq[seen]).sum() / freq[seen].sum())
        K = experts.shape[1]
        # the layer's own identity map: each token to its K most common experts, and the load it makes
        E = int(val.shape[1])
        counts = np.zeros((c.vocab_size, E))
        np.add.at(counts, (np.repeat(tokens, K), experts.reshape(-1)), 1)
        own = np.zeros(E)
        for tok in np.flatnonzero(counts.sum(1)):
            own[np.argsort(counts[tok])[::-1][:K]] += freq[tok]
        words = ", ".join(f"{c.tokenizer.decode([int(k)])!r} {freq[k]:.2f}→{share[k]:.2f}" for k in common)
        print(
            f"    layer {layer}: slots in the token's {K} commonest experts {weighted:.2f} "
            f"(even {K / E:.2f}); the layer's identity map alone would make MaxVio "
            f"{own.max() / (K / E) - 1:.2f}; commonest tokens (frequency→share) {words}",
            flush=True,
        )


BALANCE_ARMS = {  # arm -> (the preset's changes, steps as a multiple of the entry's, the balance loss)
    "entry": ({}, 1, load_balancing_loss),  # the entry's "loss" arm: every layer's rows pooled
    "long": ({}, 3, load_balancing_loss),  # three times the steps
    "alpha": ({"moe_aux_loss": 0.1}, 1, load_balancing_loss),  # ten times baby-moe's α
    "per-layer": ({}, 1, per_layer_balance_loss),  # the loss of each layer on its own, averaged
    "bias": ({"moe_rule": "sigmoid", "moe_aux_loss": 0.0}, 1, load_balancing_loss),  # the entry's "bias" arm
    "bias-long": ({"moe_rule": "sigmoid", "moe_aux_loss": 0.0}, 3, load_balancing_loss),
}


def run_balance(arms: list[str], seeds: range) -> None:
    import glassformer.models.gpt as gpt

    c, steps = corpus(), lab_balance.FULL["steps"]
    model = preset_for_lab(lab_balance.PRESET).model
    E, K = model.n_experts, model.moe_top_k
    for arm in arms:
        if arm == "bound":
            freqs = np.bincount(np.asarray(c.train), minlength=c.vocab_size)  # (V,)
            lower, packed = identity_bound(freqs, E, K)
            common = ", ".join(
                f"{c.tokenizer.decode([int(k)])!r} {freqs[k] / freqs.sum():.3f}" for k in np.argsort(freqs)[::-1][:3]
            )
            print(
                f"balance bound: commonest characters {common}; "
                f"a token-identity router with E={E}, K={K} is forced to a MaxVio between {lower:.3f} and "
                f"{packed:.3f}",
                flush=True,
            )
            continue
        changes, times, loss = BALANCE_ARMS[arm]
        print(f"balance {arm}: {times * steps} steps", flush=True)
        gpt.load_balancing_loss = loss  # the loss GPT.extra_loss adds (restored below)
        try:
            for seed in seeds:
                start = time.process_time()
                fit = train(preset_for_lab(lab_balance.PRESET, seq_len=T, **changes), c, seed, times * steps)
                describe(
                    fit.model,
                    c,
                    f"seed {seed} (cpu {time.process_time() - start:.0f} s, "
                    f"validation loss {eval_loss(fit.model, c, T):.3f})",
                )
        finally:
            gpt.load_balancing_loss = load_balancing_loss


PROBES = {
    "moe": (run_moe, list(MOE_ARMS)),
    "mla": (run_mla, list(MLA_ARMS)),
    "balance": (run_balance, ["bound", *BALANCE_ARMS]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", choices=PROBES)
    ap.add_argument("arms", nargs="*", help="which arms (default: all)")
    ap.add_argument("--seeds", type=int, default=2, help="how many seeds (default 2)")
    ap.add_argument("--first-seed", type=int, default=0, help="the first of them (default 0)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    run, arms = PROBES[a.probe]
    if a.list:
        print(" ".join(arms))
        return
    bad = [arm for arm in a.arms if arm not in arms]
    if bad:
        ap.error(f"{a.probe} has no arm {bad[0]}; its arms: {', '.join(arms)}")
    torch.set_num_threads(1)
    run(a.arms or arms, range(a.first_seed, a.first_seed + a.seeds))


if __name__ == "__main__":
    main()

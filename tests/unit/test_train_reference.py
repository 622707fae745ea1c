"""The trainer against an independent training loop written out here.

The reference below shares nothing with glassformer/train: it uses torch's own
`torch.optim.AdamW` over the same two parameter groups (decided here from module types),
`torch.nn.utils.clip_grad_norm_`, the learning-rate schedule written out from its formula, and
draws the same next-token windows from a generator seeded with the same seed. Both loops train
copies of one model; the trainer's per-step losses, learning rates and gradient norms (read from
its metrics.jsonl) and its final weights must equal the reference's bit for bit: both do the same
float operations in the same order on the same CPU thread, so any difference is a different
computation, not rounding. (Measured: every difference is exactly 0.0 in all five scenarios.)

The scenarios are the ones whose bugs a golden loss alone did not catch: a constant rate, cosine
with warmup (a warmup that starts at 0), clipping (a norm measured but never applied), and
gradient accumulation (a loss that is not divided by the number of micro-batches).
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from glassformer.config import ModelConfig, TrainConfig
from glassformer.models import build_model
from glassformer.train.data import TextWindows
from glassformer.train.loop import Trainer

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

V, STEPS = 13, 12
MODEL = ModelConfig(vocab_size=V, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)


def corpus(n: int = 3000, seed: int = 5) -> np.ndarray:
    """A text with structure to learn (mostly counting up, some noise), as uint16 ids."""
    rng = np.random.default_rng(seed)
    ids = (np.arange(n) + (rng.random(n) < 0.2) * rng.integers(0, V, n)) % V
    return ids.astype(np.uint16)


# ---- the reference, written out from the definitions ---------------------------------------------
def lr_formula(step: int, cfg: TrainConfig) -> float:
    """Constant: lr. Cosine (nanoGPT's get_lr): linear warmup lr·(s+1)/(W+1) for s < W — so the
    very first step already moves, at lr/(W+1) — then min_lr + ½(1 + cos(π·(s−W)/(N−W)))·(lr − min_lr),
    and min_lr from step N on."""
    if cfg.lr_schedule == "constant":
        return cfg.lr
    W, N = cfg.warmup_steps, cfg.max_steps
    if step < W:
        return cfg.lr * (step + 1) / (W + 1)
    if step >= N:
        return cfg.min_lr
    return cfg.min_lr + 0.5 * (1 + math.cos(math.pi * (step - W) / (N - W))) * (cfg.lr - cfg.min_lr)


def two_groups(model: nn.Module, weight_decay: float) -> list[dict]:
    """Decay the weight matrices of Linear layers; not biases, LayerNorms or embeddings."""
    decay = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    params = list(model.parameters())
    return [
        {"params": [p for p in params if id(p) in decay], "weight_decay": weight_decay},
        {"params": [p for p in params if id(p) not in decay], "weight_decay": 0.0},
    ]


def draw_windows(data: np.ndarray, B: int, T: int, gen: torch.Generator):
    """B random windows: x = data[s : s+T], y = data[s+1 : s+T+1] (the next token of each)."""
    starts = torch.randint(0, len(data) - T, (B,), generator=gen).tolist()
    x = torch.tensor(np.stack([data[s : s + T] for s in starts]).astype(np.int64))  # (B, T)
    y = torch.tensor(np.stack([data[s + 1 : s + T + 1] for s in starts]).astype(np.int64))  # (B, T)
    return x, y


def reference_run(model: nn.Module, data: np.ndarray, cfg: TrainConfig, steps: int):
    """Plain loop; returns per-step (loss, lr, global grad norm before clipping)."""
    # the fused kernel, as build_optimizer uses on the CPU: bit-equality checks the loop, not the
    # kernel (tests/unit/test_train_optim.py checks fused AdamW against the update rule written out)
    opt = torch.optim.AdamW(two_groups(model, cfg.weight_decay), lr=cfg.lr, betas=(cfg.beta1, cfg.beta2), fused=True)
    gen = torch.Generator().manual_seed(cfg.seed)
    out = []
    model.train()
    for step in range(steps):
        lr = lr_formula(step, cfg)
        for group in opt.param_groups:
            group["lr"] = lr
        loss_sum = torch.zeros(())
        for _ in range(cfg.grad_accum):
            x, y = draw_windows(data, cfg.batch_size, cfg.block_size, gen)
            logits = model(x)  # (B, T, V)
            loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1)) / cfg.grad_accum
            loss.backward()
            loss_sum += loss.detach()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip if cfg.grad_clip > 0 else math.inf)
        opt.step()
        opt.zero_grad(set_to_none=True)
        out.append((float(loss_sum), lr, float(norm)))
    return out


def trainer_run(model: nn.Module, data: np.ndarray, cfg: TrainConfig, run_dir):
    """glassformer's trainer, every step logged; returns the same triples from metrics.jsonl."""
    source = TextWindows(data, data, cfg.batch_size, cfg.block_size, cfg.eval_iters, cfg.seed)
    result = Trainer(model, cfg, source, run_dir, evaluate=None, progress="silent").fit()
    assert result.status == "done" and result.step == cfg.max_steps
    logs = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    logs = [r for r in logs if r["kind"] == "log"]
    assert [r["step"] for r in logs] == list(range(1, cfg.max_steps + 1))
    return [(r["loss"], r["lr"], r["grad_norm"]) for r in logs]


SCENARIOS = {
    "constant": dict(lr=1e-2),
    "cosine-warmup": dict(lr=2e-2, min_lr=1e-3, lr_schedule="cosine", warmup_steps=4),
    "clipped": dict(lr=1e-2, grad_clip=0.05),
    "accumulated": dict(lr=1e-2, grad_accum=3, batch_size=4),
    "accumulated-clipped": dict(lr=1e-2, grad_accum=2, batch_size=4, grad_clip=0.2),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_trainer_matches_the_reference_loop_step_by_step(tmp_path, name):
    """Bugs this guards (each planted once and seen to fail here): a warmup that starts at lr 0
    (step 0 would not move the weights); a trainer that measures the gradient norm but never
    clips; gradient accumulation without dividing the loss by grad_accum (the logged loss and
    norm double, and the clipped step differs); a schedule, parameter group, beta or weight decay
    that is not the one configured; batches drawn from another stream or not shifted by one."""
    settings = dict(
        batch_size=8,
        block_size=8,
        max_steps=STEPS,
        seed=3,
        weight_decay=0.1,
        beta2=0.99,
        log_interval=1,
        eval_interval=STEPS,
        eval_iters=1,
    )
    cfg = TrainConfig(**{**settings, **SCENARIOS[name]})
    data = corpus()
    torch.manual_seed(0)
    model = build_model(MODEL)
    twin = copy.deepcopy(model)

    ours = trainer_run(model, data, cfg, tmp_path)
    ref = reference_run(twin, data, cfg, STEPS)

    for step, ((loss, lr, norm), (ref_loss, ref_lr, ref_norm)) in enumerate(zip(ours, ref, strict=False), start=1):
        assert loss == ref_loss, f"step {step}: loss {loss} vs reference {ref_loss}"
        assert lr == ref_lr, f"step {step}: lr {lr} vs reference {ref_lr}"
        assert norm == ref_norm, f"step {step}: grad norm {norm} vs reference {ref_norm}"
    for (name, p), q in zip(model.named_parameters(), twin.parameters(), strict=False):  # and the weights they end with
        assert torch.equal(p, q), f"{name}: max diff {float((p - q).abs().max()):.3g}"
    losses = [r[0] for r in ref]
    assert losses[-1] < losses[0]  # the scenario really trains
    if cfg.grad_clip:
        assert sum(n > cfg.grad_clip for _, _, n in ref) >= STEPS // 2  # clipping really acts
    if cfg.lr_schedule == "cosine":
        assert ref[0][1] == pytest.approx(cfg.lr / (cfg.warmup_steps + 1))  # warmup's first step moves


def test_grad_accum_divides_the_loss_so_sgd_takes_the_same_step_as_one_big_batch(tmp_path):
    """Bug guarded: accumulation that does not divide each micro-batch's loss by grad_accum. With
    AdamW that bug is nearly invisible (Adam normalises the gradient's scale), with SGD it doubles
    the step: k micro-batches of B/k rows must move the weights exactly as one batch of B rows.
    The generator is shared, so both runs see the same windows in the same order."""
    data = corpus()
    settings = dict(block_size=8, max_steps=5, seed=11, log_interval=1, eval_interval=5, eval_iters=1)
    torch.manual_seed(0)
    a = build_model(MODEL)
    b = copy.deepcopy(a)
    for model, batch, accum, where in ((a, 8, 1, "one"), (b, 4, 2, "two")):
        cfg = TrainConfig(batch_size=batch, grad_accum=accum, **settings)
        source = TextWindows(data, data, batch, cfg.block_size, 1, cfg.seed)
        sgd = torch.optim.SGD(model.parameters(), lr=0.5)
        (tmp_path / where).mkdir()
        Trainer(model, cfg, source, tmp_path / where, evaluate=None, optimizer=sgd, progress="silent").fit()
    for p, q in zip(a.parameters(), b.parameters(), strict=False):
        torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-4)
    assert not torch.equal(a.head.weight, build_model(MODEL).head.weight)  # it did move


def test_schedule_values_from_the_formula():
    """The numbers a learner can check by hand: warmup 4, lr 1, min_lr 0.1, 10 steps.
    Bug guarded: warmup starting at 0 (lr·s/W) — the first step would be wasted."""
    from glassformer.train.optim import lr_at

    cfg = TrainConfig(lr=1.0, min_lr=0.1, lr_schedule="cosine", warmup_steps=4, max_steps=10)
    got = [lr_at(s, cfg) for s in range(12)]
    want = [
        0.2,
        0.4,
        0.6,
        0.8,  # (s + 1) / 5
        1.0,  # the peak, at s = W
        0.1 + 0.45 * (1 + math.cos(math.pi / 6)),
        0.1 + 0.45 * (1 + math.cos(math.pi / 3)),
        0.55,
        0.1 + 0.45 * (1 + math.cos(2 * math.pi / 3)),
        0.1 + 0.45 * (1 + math.cos(5 * math.pi / 6)),
        0.1,
        0.1,
    ]  # min_lr from max_steps on
    assert got == pytest.approx(want, abs=1e-12)
    assert lr_at(0, TrainConfig(lr=0.3)) == lr_at(99, TrainConfig(lr=0.3)) == 0.3

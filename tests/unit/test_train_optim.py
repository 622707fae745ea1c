"""The numbers of a step (train/optim.py): AdamW's parameter groups, global-norm clipping, and the
learning-rate schedules (cosine at each edge, the config's choice, the paper's).
"""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from glassformer.config import ModelConfig, get_preset
from glassformer.models import GPT
from glassformer.train.optim import (
    build_optimizer,
    clip_global_norm,
    constant,
    cosine,
    grad_norms,
    lr_at,
    noam,
    split_decay,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


# ---- AdamW parameter groups and global-norm clipping ---------------------------------------------
def test_decay_only_on_linear_weights():
    model = GPT(get_preset("seed000").model)  # biases on, learned positions, untied head
    decay, no_decay = split_decay(model)
    params = dict(model.named_parameters())
    assert set(decay) | set(no_decay) == set(params) and not set(decay) & set(no_decay)
    assert "tok_embed.table.weight" in no_decay and "pos_embed.table.weight" in no_decay
    assert all(params[n].dim() < 2 or ".ln" in n or "ln_final" in n or "embed" in n for n in no_decay)
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            assert f"{name}.weight" in decay
            if module.bias is not None:
                assert f"{name}.bias" in no_decay


def test_tied_head_is_not_decayed_and_appears_once():
    cfg = get_preset("baby").model  # tie_weights=True: head.weight is the token embedding
    model = GPT(cfg)
    decay, no_decay = split_decay(model)
    assert "tok_embed.table.weight" in no_decay and "head.weight" not in decay + no_decay
    train = get_preset("baby").train
    opt = build_optimizer(model, train)
    wd = [g["weight_decay"] for g in opt.param_groups]
    assert wd == [train.weight_decay, 0.0]
    n_opt = sum(p.numel() for g in opt.param_groups for p in g["params"])
    assert n_opt == sum(p.numel() for p in model.parameters())  # every parameter exactly once


def test_clip_matches_torch_clip_grad_norm():
    torch.manual_seed(0)
    a = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    b = copy.deepcopy(a)
    x = torch.randn(4, 5)
    for m in (a, b):
        (m(x) ** 2).sum().mul(10).backward()
    pa, pb = list(a.parameters()), list(b.parameters())
    norms = grad_norms(pa)  # (P,)
    ours = clip_global_norm(pa, norms, max_norm=0.5)
    theirs = torch.nn.utils.clip_grad_norm_(pb, max_norm=0.5)
    assert ours > 0.5  # the case where clipping acts
    torch.testing.assert_close(ours, theirs)
    for p, q in zip(pa, pb, strict=False):
        torch.testing.assert_close(p.grad, q.grad)
    total_after = torch.linalg.vector_norm(grad_norms(pa))
    torch.testing.assert_close(total_after, torch.tensor(0.5), atol=1e-5, rtol=0)


def test_clip_zero_only_measures():
    p = nn.Parameter(torch.ones(3))
    p.grad = torch.tensor([3.0, 0.0, 4.0])
    total = clip_global_norm([p], grad_norms([p]), max_norm=0.0)
    assert float(total) == 5.0 and p.grad.tolist() == [3.0, 0.0, 4.0]


def test_fused_adamw_matches_adamw_written_out():
    """build_optimizer uses the fused kernel on the CPU: ten steps of it against AdamW written out
    (Loshchilov & Hutter 2019), on copied weights and the same gradients."""
    from glassformer.nn.loss import next_token_loss

    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=11, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=6, dropout=0.0))
    cfg = get_preset("seed000").train
    opt = build_optimizer(model, cfg)
    assert opt.defaults["fused"] is True
    decay = set(split_decay(model)[0])
    ref = {n: p.detach().clone() for n, p in model.named_parameters()}  # (the written-out copy)
    m = {n: torch.zeros_like(p) for n, p in ref.items()}
    v = {n: torch.zeros_like(p) for n, p in ref.items()}
    (b1, b2), eps = (cfg.beta1, cfg.beta2), 1e-8
    for t in range(1, 11):
        ids = torch.randint(0, 11, (3, 6))
        opt.zero_grad(set_to_none=True)
        next_token_loss(model(ids), ids).backward()
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        opt.step()
        for n, g in grads.items():
            wd = cfg.weight_decay if n in decay else 0.0
            ref[n] = ref[n] * (1 - cfg.lr * wd)  # θ ← θ − lr·λ·θ (decoupled)
            m[n] = b1 * m[n] + (1 - b1) * g  # first moment
            v[n] = b2 * v[n] + (1 - b2) * g * g  # second moment
            m_hat, v_hat = m[n] / (1 - b1**t), v[n] / (1 - b2**t)  # bias-corrected
            ref[n] = ref[n] - cfg.lr * m_hat / (v_hat.sqrt() + eps)
        with torch.no_grad():  # keep the model on the reference's path: compare one step at a time
            for n, p in model.named_parameters():
                assert (p - ref[n]).abs().max() <= 1e-6, (t, n)
                p.copy_(ref[n])


def test_the_optimizer_takes_every_setting_of_the_config_and_set_lr_moves_both_groups():
    from types import SimpleNamespace

    from glassformer.train.optim import set_lr

    model = nn.Sequential(nn.Embedding(4, 3), nn.Linear(3, 2), nn.LayerNorm(2))
    model[1].weight.requires_grad_(False)  # a frozen weight is in neither group
    assert split_decay(model) == ([], ["0.weight", "1.bias", "2.weight", "2.bias"])
    model[1].weight.requires_grad_(True)
    cfg = SimpleNamespace(weight_decay=0.25, lr=0.003, beta1=0.8, beta2=0.95, device="cpu")
    opt = build_optimizer(model, cfg)
    decay, rest = opt.param_groups
    assert [p is model[1].weight for p in decay["params"]] == [True] and decay["weight_decay"] == 0.25
    assert len(rest["params"]) == 4 and rest["weight_decay"] == 0.0
    for group in opt.param_groups:
        assert group["lr"] == 0.003 and group["betas"] == (0.8, 0.95) and group["fused"] is True
    assert isinstance(opt, torch.optim.AdamW)
    set_lr(opt, 0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.5]
    meta = build_optimizer(model, SimpleNamespace(**{**vars(cfg), "device": "meta"}))
    assert not meta.param_groups[0]["fused"]  # only the CPU and CUDA have the fused kernel


def test_unused_parameters_count_as_norm_zero_and_clipping_skips_them():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))
    a.grad = torch.tensor([3.0, 4.0])
    norms = grad_norms([a, b])
    assert norms.tolist() == [5.0, 0.0]
    total = clip_global_norm([a, b], norms, 1.0)
    assert total.item() == 5.0 and a.grad.tolist() == pytest.approx([0.6, 0.8]) and b.grad is None
    a.grad = torch.tensor([0.3, 0.4])
    assert clip_global_norm([a], grad_norms([a]), 1.0).item() == pytest.approx(0.5)
    assert a.grad.tolist() == pytest.approx([0.3, 0.4])  # under the bound: untouched


# ---- learning-rate schedules ---------------------------------------------------------------------
def test_cosine_warms_up_from_lr_over_w_plus_1_then_decays_to_min_lr_at_max_steps():
    lr, lo, w, n = 1.0, 0.1, 4, 14
    assert [cosine(s, lr, lo, w, n) for s in range(w)] == pytest.approx([0.2, 0.4, 0.6, 0.8])
    assert cosine(w, lr, lo, w, n) == pytest.approx(1.0)  # warmup done: the full rate
    assert cosine(9, lr, lo, w, n) == pytest.approx(lo + 0.5 * (lr - lo))  # half way: the mean
    assert cosine(11, lr, lo, w, n) == pytest.approx(lo + 0.5 * (1 + math.cos(math.pi * 0.7)) * (lr - lo))
    assert cosine(n, lr, lo, w, n) == lo and cosine(n + 5, lr, lo, w, n) == lo
    assert cosine(n - 1, lr, lo, w, n) > lo
    assert cosine(3, lr, lo, 3, 3) == lo and cosine(2, lr, lo, 3, 3) == pytest.approx(0.75)
    assert cosine(0, lr, lo, 0, 0) == lo  # nothing to decay over: no division by zero


def test_lr_at_follows_the_configs_schedule():
    cfg = SimpleNamespace(lr_schedule="cosine", lr=1.0, min_lr=0.1, warmup_steps=4, max_steps=14)
    assert lr_at(0, cfg) == pytest.approx(0.2) and lr_at(14, cfg) == 0.1
    flat = SimpleNamespace(lr_schedule="constant", lr=0.3, min_lr=0.1, warmup_steps=4, max_steps=14)
    assert lr_at(0, flat) == 0.3 and lr_at(100, flat) == 0.3 and constant(7, 0.5) == 0.5


# ---- the paper's schedule ------------------------------------------------------------------------
def test_noam_schedule_values_from_the_paper():
    """lr = d_model^-0.5 · min(s^-0.5, s · warmup^-1.5), s = step + 1 (Vaswani et al. 2017, eq. 3)."""
    d, w = 512, 4000
    assert noam(0, d, w) == pytest.approx(d**-0.5 * w**-1.5)  # the first step: s = 1
    assert noam(w - 1, d, w) == pytest.approx((d * w) ** -0.5)  # the peak, at s = warmup
    assert noam(4 * w - 1, d, w) == pytest.approx(0.5 * (d * w) ** -0.5)  # then 1/√s: four times on, half
    assert noam(99, d, w) == pytest.approx(100 * d**-0.5 * w**-1.5)  # linear during warmup

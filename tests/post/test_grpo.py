"""post/grpo.py: the GRPO loss equal to TRL 1.16's, the group advantages equal to TRL's formula and to
hand numbers, and the checkable reward.

The loss: TRL 1.16 computes it inside ``GRPOTrainer._compute_loss(self, model, inputs)``, after a
forward that yields the per-token log-probabilities. We call that very method with a stand-in ``self``
(its settings, an accelerator with one process, and a ``_get_per_token_logps_and_entropies`` that
returns our random per-token log-probabilities, with gradient), so the ratio, the clipping, the KL
and the averaging are TRL's code. The advantages: TRL computes them inside
``_generate_and_score_completions``, which needs generation and a model; its lines (group mean,
``trl.trainer.utils.nanstd``, + 1e-4) are reproduced here from the source, with TRL's own ``nanstd``."""

from __future__ import annotations

import math
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch

trl = pytest.importorskip("trl")
from trl.trainer.grpo_trainer import GRPOTrainer  # noqa: E402
from trl.trainer.utils import nanstd  # noqa: E402

from glassformer.errors import UsageError  # noqa: E402
from glassformer.post.grpo import (  # noqa: E402
    LOSS_TYPES,
    addition_prompts,
    exact_answer,
    group_advantages,
    grpo_loss,
    score,
)


class OneProcess:
    num_processes = 1

    def reduce(self, x, reduction="sum"):
        return x

    def gather(self, x):
        return x


def batch(B=6, T=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    logps = -torch.rand(B, T, generator=g, dtype=torch.float64) * 3  # (B, T)
    old = logps + torch.randn(B, T, generator=g, dtype=torch.float64) * 0.3  # off-policy enough to clip some
    ref = logps + torch.randn(B, T, generator=g, dtype=torch.float64) * 0.5
    mask = torch.ones(B, T, dtype=torch.long)
    for row in range(B):
        mask[row, T - row % 3 :] = 0  # completions of different lengths
    advantages = torch.randn(B, generator=g, dtype=torch.float64)
    return logps, old, ref, advantages, mask


def trl_grpo(logps, old, ref, advantages, mask, beta, loss_type, kl_by_ratio=True, eps=0.2, eps_high=0.2):
    """TRL's _compute_loss on these numbers: (loss, its logged metrics)."""
    B, T = logps.shape
    trainer = SimpleNamespace(
        _get_per_token_logps_and_entropies=lambda *a, **k: (logps, torch.zeros_like(logps), None),
        top_entropy_quantile=1.0,
        off_policy_mask_threshold=None,
        importance_sampling_level="token",
        beta=beta,
        args=SimpleNamespace(use_bias_correction_kl=kl_by_ratio, delta=None, steps_per_generation=1),
        loss_type=loss_type,
        epsilon_low=eps,
        epsilon_high=eps_high,
        use_vllm=False,
        vllm_importance_sampling_correction=False,
        model=SimpleNamespace(training=True),
        current_gradient_accumulation_steps=1,
        accelerator=OneProcess(),
        max_completion_length=T,
        _entropy_bonus_enabled=False,
        aux_loss_enabled=False,
        _metrics={"train": defaultdict(list)},
    )
    inputs = {
        "prompt_ids": torch.zeros(B, 2, dtype=torch.long),
        "prompt_mask": torch.ones(B, 2, dtype=torch.long),
        "completion_ids": torch.zeros(B, T, dtype=torch.long),
        "completion_mask": mask,
        "advantages": advantages,
        "old_per_token_logps": old,
        "ref_per_token_logps": ref,
        "num_items_in_batch": mask.sum(),
    }
    loss = GRPOTrainer._compute_loss(trainer, None, inputs)
    return loss, {k: v[0] for k, v in trainer._metrics["train"].items()}


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
@pytest.mark.parametrize(("beta", "kl_by_ratio"), [(0.0, True), (0.04, True), (0.04, False)])
def test_grpo_loss_equals_trl(loss_type, beta, kl_by_ratio):
    logps, old, ref, adv, mask = batch()
    theirs_logps, ours_logps = logps.clone().requires_grad_(), logps.clone().requires_grad_()
    loss, metrics = trl_grpo(theirs_logps, old, ref, adv, mask, beta, loss_type, kl_by_ratio)
    result = grpo_loss(
        ours_logps,
        old,
        ref,
        adv,
        mask,
        beta=beta,
        loss_type=loss_type,
        max_completion_length=5,
        kl_by_ratio=kl_by_ratio,
    )
    assert abs(result.loss.item() - loss.item()) <= 1e-12
    loss.backward()
    result.loss.backward()
    assert torch.allclose(ours_logps.grad, theirs_logps.grad, atol=1e-12, rtol=0)
    assert result.clip_ratio == pytest.approx(metrics["clip_ratio/region_mean"], abs=1e-7)  # TRL counts in float32
    assert 0 < result.clip_ratio < 1  # the batch does clip some tokens
    if beta:
        assert result.kl == pytest.approx(metrics["kl"], abs=1e-12) and result.kl > 0


def test_clip_higher_equals_trl():
    logps, old, ref, adv, mask = batch(seed=4)
    loss, _ = trl_grpo(logps, old, ref, adv, mask, 0.0, "dapo", eps=0.2, eps_high=0.28)
    assert abs(grpo_loss(logps, old, None, adv, mask, epsilon_high=0.28, beta=0.0).loss.item() - loss.item()) <= 1e-12


def test_on_policy_the_loss_is_minus_the_mean_advantage_and_the_kl_is_zero_at_the_reference():
    """ρ = 1 and π_θ = π_ref: nothing is clipped, D_KL = 0; the paper's averaging gives −mean(Â)."""
    logps, _, _, adv, mask = batch(seed=5)
    result = grpo_loss(logps, logps, logps, adv, mask, beta=0.04, loss_type="grpo")
    assert result.loss.item() == pytest.approx(-adv.mean().item(), abs=1e-15)
    assert result.kl == 0.0 and result.clip_ratio == 0.0


def test_the_k3_estimator_by_hand():
    """One token: log π_θ = log 0.5, log π_ref = log 0.25, on-policy, Â = 0 and the paper's term
    (kl_by_ratio=False): the loss is β·(0.5 − log 0.5 − 1)."""
    lp = torch.tensor([[math.log(0.5)]], dtype=torch.float64)
    ref = torch.tensor([[math.log(0.25)]], dtype=torch.float64)
    result = grpo_loss(lp, lp, ref, torch.zeros(1, dtype=torch.float64), torch.ones(1, 1), beta=0.1, kl_by_ratio=False)
    assert result.loss.item() == pytest.approx(0.1 * (0.5 - math.log(0.5) - 1), abs=1e-15)


def trl_advantages(rewards, G, scale):
    """TRL 1.16's lines (_generate_and_score_completions, "sum_then_normalize"), read from its source."""
    mean = torch.nanmean(rewards.view(-1, G), dim=1).repeat_interleave(G, dim=0)
    if scale in ("group", "none"):
        std = nanstd(rewards.view(-1, G), dim=1).repeat_interleave(G, dim=0)
    else:
        std = nanstd(rewards).expand_as(rewards)
    advantages = rewards - mean
    if scale != "none":
        advantages = advantages / (std + 1e-4)
    return advantages


@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_group_advantages_equal_trl_s_formula(scale):
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5, 2.0, -1.0, 0.0, 3.0], dtype=torch.float64)
    # TRL's nanstd makes Bessel's factor count / (count - 1) from integer tensors: a float32 (4/3 to 7 digits)
    # even for float64 rewards, so the two agree to float32's precision, not float64's
    ours, theirs = group_advantages(rewards, 4, scale), trl_advantages(rewards, 4, scale)
    assert torch.allclose(ours, theirs, atol=0, rtol=1e-7)
    if scale == "none":
        assert torch.equal(ours, theirs)


def test_group_advantages_by_hand():
    """Groups [1, 0] and [1, 1]: means 0.5 and 1, sample stds √0.5 and 0."""
    adv = group_advantages(torch.tensor([1.0, 0.0, 1.0, 1.0], dtype=torch.float64), group_size=2)
    a = 0.5 / (math.sqrt(0.5) + 1e-4)
    assert adv.tolist() == pytest.approx([a, -a, 0.0, 0.0], abs=1e-15)


@pytest.mark.parametrize(
    ("rewards", "size", "key"),
    [
        (torch.zeros(4), 1, "grpo.group"),
        (torch.zeros(5), 2, "grpo.groups_split"),
    ],
)
def test_bad_groups_are_named(rewards, size, key):
    with pytest.raises(UsageError) as e:
        group_advantages(rewards, size)
    assert e.value.key == key


def test_bad_loss_settings_are_named():
    logps, old, ref, adv, mask = batch()
    cases = [
        ({"beta": -0.1}, "grpo.beta"),
        ({"epsilon": 0.0}, "grpo.epsilon"),
        ({"loss_type": "ppo"}, "grpo.loss_type"),
        ({"loss_type": "dr_grpo"}, "grpo.max_len"),
    ]
    for kwargs, key in cases:
        with pytest.raises(UsageError) as e:
            grpo_loss(logps, old, ref, adv, mask, **kwargs)
        assert e.value.key == key
    with pytest.raises(UsageError) as e:
        grpo_loss(logps, old, None, adv, mask, beta=0.04)
    assert e.value.code == "grpo.needs_ref"
    with pytest.raises(UsageError) as e:
        grpo_loss(logps, old, ref, adv[:-1], mask)
    assert e.value.code == "grpo.shapes"


def test_the_checkable_reward():
    rewards = {"82": 1.0, "37+45=82": 1.0, " 82\n": 1.0, "8 2": 0.0, "it is 28": 0.0, "": 0.0, "82 or 83": 0.0}
    assert {completion: exact_answer(completion, "82") for completion in rewards} == rewards  # each as listed
    prompts = addition_prompts(5, seed=1)
    assert len(prompts) == 5 and prompts == addition_prompts(5, seed=1)
    for prompt, answer in prompts:
        a, b = prompt.rstrip("=").split("+")
        assert 10 <= int(a) < 100 and 10 <= int(b) < 100 and int(answer) == int(a) + int(b)
    assert score(exact_answer, ["x=5", "6"], ["5", "5"]).tolist() == [1.0, 0.0]


def test_a_reward_function_that_raises_or_returns_nan_is_named():
    def shaky(completion, answer):
        return 1 / len(completion)

    with pytest.raises(UsageError) as e:
        score(shaky, ["ab", ""], ["1", "1"])
    assert e.value.code == "grpo.reward_raised"
    assert e.value.fields["name"] == "shaky" and e.value.fields["index"] == 1
    assert e.value.fields["error"] == "ZeroDivisionError"
    with pytest.raises(UsageError) as e:
        score(lambda c, a: float("nan"), ["a"], ["1"])
    assert e.value.code == "grpo.reward_nan" and e.value.fields["index"] == 0

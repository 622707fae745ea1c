"""NaN diagnosis (train/diagnose.py): the message names the right parameter and step."""

from __future__ import annotations

import math

import pytest
import torch

from glassformer.train.loop import NonFiniteLoss, PendingSteps, explain_nonfinite, largest_gradient

NAMES = ("embed.weight", "blocks.0.attn.qkv.weight", "head.weight")


def test_largest_gradient_names_the_largest_or_counts_the_bad_ones():
    assert (
        largest_gradient(NAMES, torch.tensor([0.5, 3.0, 1.0])) == "largest gradient blocks.0.attn.qkv.weight (norm 3)"
    )
    assert largest_gradient(NAMES, torch.tensor([1.0, math.inf, math.nan])) == (
        "2 of 3 gradient norms are not finite (first: blocks.0.attn.qkv.weight)"
    )
    assert largest_gradient(NAMES, torch.tensor([math.nan, 1.0, 2.0])).endswith("(first: embed.weight)")


def test_explanation_gives_the_step_lr_and_the_last_finite_step():
    text = explain_nonfinite(
        NAMES, 7, math.nan, 3e-3, torch.tensor([1.0, math.nan, 2.0]), (6, torch.tensor([1.0, 9.0, 2.0]))
    )
    assert text == (
        "loss became nan at step 7 (lr 0.003); 1 of 3 gradient norms are not finite "
        "(first: blocks.0.attn.qkv.weight); at step 6, the last finite one: largest gradient "
        "blocks.0.attn.qkv.weight (norm 9). Try a lower lr, grad_clip=1.0, or a longer warmup."
    )
    assert "last finite" not in explain_nonfinite(NAMES, 1, math.inf, 1.0, torch.ones(3), None)


def test_pending_steps_return_every_loss_and_remember_the_last_finite_step():
    pending = PendingSteps(NAMES)
    assert not pending
    for step, loss in ((1, 2.0), (2, 1.5)):
        pending.add(step, torch.tensor(loss), torch.tensor([1.0, float(step), 0.5]), torch.tensor(10.0 * step))
    assert pending
    assert pending.check(lambda s: 0.1) == ([2.0, 1.5], [10.0, 20.0])
    assert not pending and pending.last_finite[0] == 2
    pending.add(3, torch.tensor(math.inf), torch.tensor([math.inf, 1.0, 1.0]), torch.tensor(math.inf))
    lrs = []
    with pytest.raises(NonFiniteLoss, match=r"loss became inf at step 3 \(lr 0\.25\).*first: embed\.weight.*at step 2"):
        pending.check(lambda s: lrs.append(s) or 0.25)
    assert lrs == [2]  # the lr that step 3 used: lr_at(step - 1)


def test_the_whole_explanation_in_both_languages_with_and_without_a_finite_step_before():
    from glassformer.messages import speaking

    assert explain_nonfinite(NAMES, 1, math.inf, 0.5, torch.tensor([0.25, 4.0, 1234.5]), None) == (
        "loss became inf at step 1 (lr 0.5); largest gradient head.weight (norm 1.23e+03). Try a lower lr, "
        "grad_clip=1.0, or a longer warmup."
    )
    with speaking("zh"):
        assert explain_nonfinite(
            NAMES, 4, math.nan, 0.01, torch.tensor([math.nan, 1.0, 1.0]), (3, torch.tensor([2.0, 1.0, 1.0]))
        ) == (
            "第 4 步损失变成了 nan（学习率 0.01）；3 个梯度范数中有 1 个不是有限数（第一个：embed.weight）；在最后一个有限的"
            "第 3 步：最大的梯度 embed.weight（范数 2）。试试更低的学习率、grad_clip=1.0，或更长的预热。"
        )


def test_a_bad_step_after_good_ones_in_the_same_check_names_the_good_one_before_it():
    pending = PendingSteps(NAMES)
    pending.add(5, torch.tensor(1.0), torch.tensor([1.0, 7.0, 1.0]), torch.tensor(1.0))
    pending.add(6, torch.tensor(math.nan), torch.tensor([1.0, 1.0, 8.0]), torch.tensor(1.0))
    with pytest.raises(NonFiniteLoss) as e:
        pending.check(lambda s: 0.1)
    assert str(e.value) == (
        "loss became nan at step 6 (lr 0.1); largest gradient head.weight (norm 8); at step 5, the "
        "last finite one: largest gradient blocks.0.attn.qkv.weight (norm 7). Try a lower lr, "
        "grad_clip=1.0, or a longer warmup."
    )
    assert isinstance(e.value, RuntimeError)

"""post/preference.py: the DPO loss, its implicit rewards and reward accuracy equal to TRL 1.16's.

TRL 1.16 has no free-standing DPO loss function: ``DPOTrainer._compute_loss(self, model, inputs)``
runs the model and computes the loss and metrics in one method. We call that very method with the
minimum it reads — a stand-in ``self`` holding the settings and an accelerator that gathers nothing,
and a stand-in ``model`` whose fused head returns per-token log-probabilities that TRL's own
``selective_log_softmax`` computed from random logits — so the summing over the completion, the loss
and the logged rewards are TRL's code. The reference log-probabilities go in precomputed
(``precompute_ref_log_probs``), as TRL allows."""

from __future__ import annotations

import math
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch

trl = pytest.importorskip("trl")
from trl.trainer.dpo_trainer import DPOTrainer  # noqa: E402
from trl.trainer.utils import selective_log_softmax  # noqa: E402

from glassformer.errors import UsageError  # noqa: E402
from glassformer.post.preference import PreferenceBatch, dpo_batch_loss, dpo_loss, sequence_logprobs  # noqa: E402
from glassformer.post.sft import IGNORE  # noqa: E402


class Gatherless:
    device = torch.device("cpu")

    def gather(self, x):
        return x

    gather_for_metrics = gather


def pairs(P=4, T=7, V=11, seed=0):
    """P chosen and P rejected sequences (chosen first, as TRL stacks them), a prompt of 2-3 tokens
    then a completion, right padding; policy logits; reference log-probabilities."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, V, (2 * P, T), generator=g)
    completion = torch.zeros(2 * P, T, dtype=torch.long)
    for row in range(2 * P):
        start, end = 2 + row % 2, T - row % 3  # prompt length, then where the padding starts
        completion[row, start:end] = 1
    logits = torch.randn(2 * P, T, V, generator=g, dtype=torch.float64)
    ref = torch.randn(2 * P, generator=g, dtype=torch.float64) * 3 - 10
    return ids, completion, logits, ref


def trl_dpo(ids, completion, logits, ref, beta, loss_type="sigmoid"):
    """TRL's _compute_loss on these numbers: (loss, its logged metrics)."""
    per_token = selective_log_softmax(logits[:, :-1], ids[:, 1:]) * completion[:, 1:]  # the fused head's output
    zeros = torch.zeros_like(per_token)
    outputs = SimpleNamespace(log_probs=per_token, entropy=zeros, mean_logits=zeros, is_top1=zeros.bool())
    trainer = SimpleNamespace(
        model=SimpleNamespace(training=True),
        accelerator=Gatherless(),
        aux_loss_enabled=False,
        ld_alpha=None,
        precompute_ref_logps=True,
        f_divergence_type="reverse_kl",
        loss_types=[loss_type],
        loss_weights=[1.0],
        beta=beta,
        label_smoothing=0.0,
        use_weighting=False,
        _metrics={"train": defaultdict(list)},
        _total_train_tokens=0,
        _tp_size=1,
    )
    P = ids.size(0) // 2
    inputs = {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "completion_mask": completion,
        "ref_chosen_logps": ref[:P],
        "ref_rejected_logps": ref[P:],
    }
    loss = DPOTrainer._compute_loss(trainer, lambda **kw: outputs, inputs, return_outputs=False)
    return loss, {k: v[0] for k, v in trainer._metrics["train"].items()}


def ours(ids, completion, logits, ref, beta, variant="sigmoid"):
    labels = ids[:, 1:].masked_fill(completion[:, 1:] == 0, IGNORE)  # the completion's tokens only
    logps = sequence_logprobs(logits[:, :-1], labels)  # (2P,)
    tokens = completion[:, 1:].sum(dim=1)
    P = ids.size(0) // 2
    return dpo_loss(
        logps[:P],
        logps[P:],
        ref[:P],
        ref[P:],
        beta,
        variant=variant,
        chosen_tokens=tokens[:P],
        rejected_tokens=tokens[P:],
    )


@pytest.mark.parametrize("beta", [0.1, 0.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_dpo_loss_and_rewards_equal_trl(beta, seed):
    ids, completion, logits, ref = pairs(seed=seed)
    loss, metrics = trl_dpo(ids, completion, logits, ref, beta)
    result = ours(ids, completion, logits, ref, beta)
    assert abs(result.loss.item() - loss.item()) <= 1e-12
    assert result.chosen_rewards.mean().item() == pytest.approx(metrics["rewards/chosen"], abs=1e-12)
    assert result.rejected_rewards.mean().item() == pytest.approx(metrics["rewards/rejected"], abs=1e-12)
    assert result.margins.mean().item() == pytest.approx(metrics["rewards/margins"], abs=1e-12)
    assert result.accuracy == metrics["rewards/accuracies"]


def test_ipo_equals_trl():
    ids, completion, logits, ref = pairs(seed=2)
    loss, _ = trl_dpo(ids, completion, logits, ref, 0.3, loss_type="ipo")
    assert abs(ours(ids, completion, logits, ref, 0.3, variant="ipo").loss.item() - loss.item()) <= 1e-12


def test_the_gradient_flows_through_the_policy_as_trl_s_does():
    ids, completion, logits, ref = pairs(seed=3)
    a, b = logits.clone().requires_grad_(), logits.clone().requires_grad_()
    trl_dpo(ids, completion, a, ref, 0.1)[0].backward()
    ours(ids, completion, b, ref, 0.1).loss.backward()
    assert torch.allclose(a.grad, b.grad, atol=1e-14, rtol=0)


def test_the_paper_s_formula_by_hand_and_conservative_dpo():
    """One pair: log-ratios +1 (chosen) and −1 (rejected), β = 0.5, so βΔ = 1."""
    one = torch.tensor([1.0], dtype=torch.float64)
    zero = torch.zeros(1, dtype=torch.float64)
    result = dpo_loss(one, -one, zero, zero, beta=0.5)
    assert result.loss.item() == pytest.approx(math.log(1 + math.exp(-1)), abs=1e-15)  # −log σ(1)
    assert result.chosen_rewards.item() == 0.5 and result.rejected_rewards.item() == -0.5 and result.accuracy == 1.0
    eps = 0.2
    smoothed = dpo_loss(one, -one, zero, zero, beta=0.5, label_smoothing=eps).loss.item()
    assert smoothed == pytest.approx((1 - eps) * math.log(1 + math.exp(-1)) + eps * math.log(1 + math.exp(1)))


def test_at_the_start_the_policy_is_the_reference_and_the_loss_is_log_2():
    """π_θ = π_ref: every reward is 0, the loss −log σ(0) = log 2, whatever the log-probabilities."""
    logps = torch.tensor([-3.0, -7.5, -1.25], dtype=torch.float64)
    result = dpo_loss(logps, logps - 2, logps, logps - 2, beta=0.1)
    assert result.loss.item() == pytest.approx(math.log(2), abs=1e-15) and result.accuracy == 0.0


def test_dpo_batch_loss_uses_the_reference_without_gradient():
    torch.manual_seed(0)
    policy, reference = torch.nn.Embedding(6, 6).double(), torch.nn.Embedding(6, 6).double()
    ids = torch.tensor([[1, 2, 3, 4]])
    labels = torch.tensor([[IGNORE, 3, 4, 5]])
    batch = PreferenceBatch(ids, labels, ids.flip(1), labels)
    result = dpo_batch_loss(policy, reference, batch, beta=0.2)
    result.loss.backward()
    assert policy.weight.grad is not None and reference.weight.grad is None
    expected = dpo_loss(
        sequence_logprobs(policy(ids), labels),
        sequence_logprobs(policy(ids.flip(1)), labels),
        sequence_logprobs(reference(ids), labels),
        sequence_logprobs(reference(ids.flip(1)), labels),
        beta=0.2,
    )
    assert result.loss.item() == expected.loss.item()


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"beta": 0.0}, "dpo.beta"),
        ({"beta": -1}, "dpo.beta"),
        ({"label_smoothing": 0.5}, "dpo.smoothing"),
        ({"variant": "kto"}, "dpo.variant"),
        ({"variant": "ipo"}, "dpo.ipo_tokens"),
    ],
)
def test_bad_settings_are_named(kwargs, key):
    x = torch.zeros(2)
    with pytest.raises(UsageError) as e:
        dpo_loss(x, x, x, x, **kwargs)
    assert e.value.key == key


def test_mismatched_shapes_are_named():
    with pytest.raises(UsageError) as e:
        dpo_loss(torch.zeros(2), torch.zeros(3), torch.zeros(2), torch.zeros(2))
    assert e.value.code == "dpo.shapes" and e.value.fields["shapes"][1] == (3,)

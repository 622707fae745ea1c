"""Direct Preference Optimization: learning from pairs "this answer is better than that one", with no
reward model and no sampling.

Rafailov et al. 2023, "Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
eq. 7. For a prompt x, a preferred (chosen) response y_w and a dispreferred (rejected) one y_l:

    r(x, y) = β · (log π_θ(y|x) − log π_ref(y|x))                the implicit reward (§5)
    L_DPO   = −log σ( r(x, y_w) − r(x, y_l) )                     averaged over the pairs

log π(y|x) is the sum of the response's token log-probabilities (the prompt's are masked out:
``sequence_logprobs``), under the policy being trained and under the reference, a frozen copy of
the model DPO starts from (usually the SFT model). β sets how far the policy may move from the
reference: the loss is the KL-constrained reward maximisation of RLHF solved in closed form. Reported
beside the loss, as TRL reports them: each pair's chosen and rejected rewards, their margin, and the
reward accuracy (the fraction of pairs whose chosen reward is the higher).

Variants (``variant=``):

- ``"sigmoid"`` with ``label_smoothing`` ε > 0: conservative DPO (Mitchell 2023, "A note on DPO with
  noisy preferences"), for labels flipped with probability ε:
  L = −(1−ε)·log σ(βΔ) − ε·log σ(−βΔ). TRL 1.16's ``"sigmoid"`` ignores ε (its ``"robust"`` loss is a
  different, unbiased estimator), so ε = 0 is compared with TRL and ε > 0 with the formula.
- ``"ipo"``: Azar et al. 2023, "A General Theoretical Paradigm to Understand Learning from Human
  Preferences", eq. 17: L = (Δ' − 1/(2β))² with Δ' the difference of the log-ratios. TRL divides each
  log-ratio by its response's token count first (its comment: the IPO authors' normalised form), and
  so does this one: pass ``chosen_tokens`` and ``rejected_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from glassformer.errors import UsageError
from glassformer.post.sft import token_logprobs

VARIANTS = ("sigmoid", "ipo")


def sequence_logprobs(logits: Tensor, labels: Tensor) -> Tensor:
    """log π(y|x): each row's response log-probability, the sum of log p(label) where the label is not
    IGNORE (the response's tokens): (B,)."""
    return token_logprobs(logits, labels).sum(dim=-1)  # (B,)


@dataclass
class DPOResult:
    """The loss and what TRL logs beside it, per pair."""

    loss: Tensor  # () the mean over pairs
    chosen_rewards: Tensor  # (P,) β·(log π_θ − log π_ref) of y_w, detached
    rejected_rewards: Tensor  # (P,) the same of y_l, detached

    @property
    def margins(self) -> Tensor:
        return self.chosen_rewards - self.rejected_rewards  # (P,)

    @property
    def accuracy(self) -> float:
        """The fraction of pairs whose chosen response has the higher implicit reward."""
        return (self.chosen_rewards > self.rejected_rewards).double().mean().item()


def dpo_loss(
    policy_chosen: Tensor,
    policy_rejected: Tensor,
    ref_chosen: Tensor,
    ref_rejected: Tensor,
    beta: float = 0.1,
    label_smoothing: float = 0.0,
    variant: str = "sigmoid",
    chosen_tokens: Tensor | None = None,
    rejected_tokens: Tensor | None = None,
) -> DPOResult:
    """The DPO loss of P pairs from their summed log-probabilities, each (P,). β = 0.1 is TRL's default."""
    shapes = [tuple(t.shape) for t in (policy_chosen, policy_rejected, ref_chosen, ref_rejected)]
    if len(set(shapes)) != 1 or len(shapes[0]) != 1:
        raise UsageError(
            "dpo.shapes",
            "the log-probabilities of chosen and rejected, policy and "
            "reference, must have one shape (one number per pair); got "
            "{shapes}.",
            shapes=shapes,
        )
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise UsageError(
            "dpo.beta",
            "beta={beta} must be a positive number: it weighs the pull "
            "towards the reference model, and the implicit reward is "
            "beta times the log-ratio.",
            beta=beta,
        )
    if not 0.0 <= label_smoothing < 0.5:
        raise UsageError(
            "dpo.smoothing",
            "label_smoothing={smoothing} must be at least 0 and below "
            "one half: it is the probability that a preference label is "
            "flipped.",
            smoothing=label_smoothing,
        )
    if variant not in VARIANTS:
        raise UsageError(
            "dpo.variant", "DPO variant {variant!r} is not one of {names}.", variant=variant, names=", ".join(VARIANTS)
        )
    chosen_ratio = policy_chosen - ref_chosen  # (P,) log π_θ(y_w|x) − log π_ref(y_w|x)
    rejected_ratio = policy_rejected - ref_rejected  # (P,)
    if variant == "sigmoid":
        delta = beta * (chosen_ratio - rejected_ratio)  # (P,) the reward margin
        losses = -(1 - label_smoothing) * F.logsigmoid(delta) - label_smoothing * F.logsigmoid(-delta)  # (P,)
    else:
        if chosen_tokens is None or rejected_tokens is None:
            raise UsageError(
                "dpo.ipo_tokens",
                "the IPO loss averages over the response tokens: pass "
                "chosen_tokens and rejected_tokens (the mask's sum per "
                "response).",
            )
        delta = chosen_ratio / chosen_tokens.clamp(min=1) - rejected_ratio / rejected_tokens.clamp(min=1)  # (P,)
        losses = (delta - 1 / (2 * beta)) ** 2  # (P,)
    return DPOResult(losses.mean(), beta * chosen_ratio.detach(), beta * rejected_ratio.detach())


@dataclass
class PreferenceBatch:
    """P pairs: the chosen and the rejected conversations as ids with labels (IGNORE off the response)."""

    chosen_ids: Tensor  # (P, T)
    chosen_labels: Tensor  # (P, T)
    rejected_ids: Tensor  # (P, T')
    rejected_labels: Tensor  # (P, T')


def dpo_batch_loss(
    policy: Callable[[Tensor], Tensor],
    reference: Callable[[Tensor], Tensor],
    batch: PreferenceBatch,
    beta: float = 0.1,
    label_smoothing: float = 0.0,
) -> DPOResult:
    """DPO as a function of a batch and the two models: the policy's log-probabilities with gradients,
    the frozen reference's without."""
    policy_chosen = sequence_logprobs(policy(batch.chosen_ids), batch.chosen_labels)  # (P,)
    policy_rejected = sequence_logprobs(policy(batch.rejected_ids), batch.rejected_labels)  # (P,)
    with torch.no_grad():
        ref_chosen = sequence_logprobs(reference(batch.chosen_ids), batch.chosen_labels)  # (P,)
        ref_rejected = sequence_logprobs(reference(batch.rejected_ids), batch.rejected_labels)  # (P,)
    return dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta, label_smoothing)

"""Group Relative Policy Optimization: reinforcement learning from a reward that can be checked,
without a value model.

Shao et al. 2024, "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language
Models", §4.1, eqs. 3-4. For each prompt, sample a group of G completions o_1..o_G from the old
policy, score each with the reward r_i, and use the group itself as the baseline:

    Â_i   = (r_i − mean(r)) / (std(r) + ε)                             the group-relative advantage
    ρ_i,t = π_θ(o_i,t | q, o_i,<t) / π_old(o_i,t | q, o_i,<t)           the ratio, per token
    L     = −1/G Σ_i 1/|o_i| Σ_t [ min(ρ Â_i, clip(ρ, 1−ε, 1+ε) Â_i) − β D_KL ]
    D_KL  = π_ref/π_θ − log(π_ref/π_θ) − 1                              (Schulman's "k3" estimator:
                                                                          unbiased, never negative)

Every token of a completion shares its completion's advantage. The clipped ratio is PPO's (Schulman et
al. 2017): the update gains nothing by moving a token's probability further than 1 ± ε from where the
samples were drawn. std is the sample standard deviation (Bessel's n − 1) and ε = 1e-4, as in TRL.

How the tokens are averaged is the one choice the paper's formula fixes and later work changed; TRL
1.16 names them ``loss_type`` (``group_advantages`` and ``grpo_loss`` take the same names):

    "grpo"     the paper: mean over each completion's tokens, then over completions (favours short
               right answers and long wrong ones: the length bias Dr. GRPO points out)
    "bnpo"     sum over all tokens / the number of tokens in the batch
    "dapo"     TRL 1.16's default: sum over all tokens / the tokens of the whole generation batch
               (DAPO, Yu et al. 2025); on one process with no accumulation, the same as "bnpo"
    "dr_grpo"  sum over all tokens / (completions × max_completion_length) (Liu et al. 2025)

and ``scale_rewards``: "group" (the paper: divide by the group's std), "batch" (by the whole batch's
std) or "none" (Dr. GRPO: no division, which removes a per-question difficulty weighting).

Where TRL 1.16 differs from the paper, by default: β = 0 (no KL term and no reference model; the
paper uses β = 0.04), the "dapo" averaging, and ``use_bias_correction_kl``: the KL term is multiplied by
the ratio ρ (the same value on-policy, but its gradient becomes the unbiased one of reverse KL, after
DeepSeek-V3.2). ``kl_by_ratio`` here follows TRL (True); False is the paper's term.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

import torch
from torch import Tensor

from glassformer.errors import UsageError

LOSS_TYPES = ("dapo", "grpo", "bnpo", "dr_grpo")
SCALES = ("group", "batch", "none")
STD_EPS = 1e-4  # added to the std before dividing (TRL's value): a group whose rewards all agree gets Â = 0


def _std(x: Tensor, dim: int | None = None) -> Tensor:
    """The sample standard deviation (n − 1)."""
    return x.std(dim=dim, unbiased=True) if dim is not None else x.std(unbiased=True)


def group_advantages(rewards: Tensor, group_size: int, scale: str = "group") -> Tensor:
    """Â for N = groups × group_size rewards (the completions of one prompt next to each other): (N,)."""
    if type(group_size) is not int or group_size < 2:
        raise UsageError(
            "grpo.group",
            "a group of {size} completion per prompt cannot be compared "
            "with itself: the advantage is each reward minus its group's "
            "mean, so give each prompt at least two completions.",
            size=group_size,
        )
    if rewards.dim() != 1 or rewards.numel() % group_size:
        raise UsageError(
            "grpo.groups_split",
            "{n} rewards do not split into groups of {size}: give every prompt the same number of completions.",
            n=rewards.numel(),
            size=group_size,
        )
    if scale not in SCALES:
        raise UsageError(
            "grpo.scale", "scale_rewards={scale!r} is not one of {names}.", scale=scale, names=", ".join(SCALES)
        )
    groups = rewards.view(-1, group_size)  # (n_groups, G)
    centred = (groups - groups.mean(dim=1, keepdim=True)).reshape(-1)  # (N,) r_i − mean of its group
    if scale == "none":
        return centred  # (N,)
    if scale == "group":
        std = _std(groups, dim=1).repeat_interleave(group_size)  # (N,) each group's std, per completion
    else:
        std = _std(rewards).expand_as(rewards)  # (N,) the whole batch's
    return centred / (std + STD_EPS)  # (N,)


@dataclass
class GRPOResult:
    """The loss and what TRL logs beside it (masked token means)."""

    loss: Tensor  # ()
    kl: float  # mean D_KL over the completions' tokens (0 when beta = 0)
    clip_ratio: float  # the fraction of tokens whose ratio was clipped in the direction the advantage pushes


def grpo_loss(
    logps: Tensor,
    old_logps: Tensor,
    ref_logps: Tensor | None,
    advantages: Tensor,
    mask: Tensor,
    epsilon: float = 0.2,
    epsilon_high: float | None = None,
    beta: float = 0.04,
    loss_type: str = "dapo",
    max_completion_length: int | None = None,
    kl_by_ratio: bool = True,
) -> GRPOResult:
    """The GRPO loss from per-token log-probabilities (B, T) of the completions under the policy
    (with gradient), the policy that sampled them, and the reference; one advantage per completion
    (B,); mask (B, T) 1 on the completions' tokens. ε = 0.2 as in TRL; ``epsilon_high`` (DAPO's
    "clip higher") defaults to ε."""
    shapes = [tuple(t.shape) for t in (logps, old_logps, mask) + ((ref_logps,) if ref_logps is not None else ())]
    if len(set(shapes)) != 1 or len(shapes[0]) != 2 or tuple(advantages.shape) != shapes[0][:1]:
        raise UsageError(
            "grpo.shapes",
            "the per-token tensors must share one shape (completions × "
            "tokens) and the advantages one per completion; got {shapes}.",
            shapes=[*shapes, tuple(advantages.shape)],
        )
    if not epsilon > 0 or (epsilon_high is not None and not epsilon_high > 0):
        raise UsageError(
            "grpo.epsilon",
            "epsilon={epsilon} must be a positive number: the ratio is clipped to [1 - epsilon, 1 + epsilon_high].",
            epsilon=epsilon if not epsilon > 0 else epsilon_high,
        )
    if not beta >= 0:
        raise UsageError(
            "grpo.beta",
            "beta={beta} must be zero or a positive number: it weighs the KL penalty to the reference.",
            beta=beta,
        )
    if beta > 0 and ref_logps is None:
        raise UsageError(
            "grpo.needs_ref",
            "beta={beta} asks for a KL penalty, so the reference model's log-probabilities are needed: pass ref_logps.",
            beta=beta,
        )
    if loss_type not in LOSS_TYPES:
        raise UsageError(
            "grpo.loss_type",
            "loss_type={loss_type!r} is not one of {names}.",
            loss_type=loss_type,
            names=", ".join(LOSS_TYPES),
        )
    if loss_type == "dr_grpo" and (type(max_completion_length) is not int or max_completion_length < 1):
        raise UsageError(
            "grpo.max_len", "loss_type 'dr_grpo' divides by max_completion_length: pass it as a positive whole number."
        )
    high = epsilon if epsilon_high is None else epsilon_high
    mask = mask.to(logps.dtype)  # (B, T)
    A = advantages.unsqueeze(1)  # (B, 1) one advantage for every token of a completion
    # 1) the ratio and its clipped twin; the objective takes the smaller (the pessimistic) of the two
    ratio = torch.exp(logps - old_logps)  # (B, T) ρ
    clipped = torch.clamp(ratio, 1 - epsilon, 1 + high)  # (B, T)
    per_token = -torch.min(ratio * A, clipped * A)  # (B, T)
    # 2) the KL to the reference, k3: exp(ref − θ) − (ref − θ) − 1 ≥ 0
    kl = torch.zeros_like(logps)  # (B, T)
    if beta > 0 and ref_logps is not None:
        diff = ref_logps - logps  # (B, T) log(π_ref / π_θ)
        kl = torch.exp(diff) - diff - 1  # (B, T)
        if kl_by_ratio:
            kl = kl * ratio  # (B, T)
        per_token = per_token + beta * kl  # (B, T)
    # 3) average the tokens the way loss_type says
    tokens = mask.sum().clamp(min=1.0)  # ()
    if loss_type == "grpo":
        loss = ((per_token * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)).mean()  # ()
    elif loss_type == "dr_grpo":
        loss = (per_token * mask).sum() / (per_token.size(0) * max_completion_length)  # ()
    else:  # "dapo", "bnpo": one process, one step: the batch's own tokens
        loss = (per_token * mask).sum() / tokens  # ()
    clipped_away = ((ratio < 1 - epsilon) & (A < 0)) | ((ratio > 1 + high) & (A > 0))  # (B, T)
    return GRPOResult(
        loss,
        kl=((kl * mask).sum() / tokens).item(),
        clip_ratio=((clipped_away * mask).sum() / tokens).item(),
    )


# ---- a reward that can be checked ---------------------------------------------------------------------------------
_LAST_INTEGER = re.compile(r"-?\d+")


def exact_answer(completion: str, answer: str) -> float:
    """1.0 if the completion's last integer is the answer, else 0.0: a verifiable reward for an
    arithmetic task (no reward model; nothing a model could flatter)."""
    found = _LAST_INTEGER.findall(completion)
    return float(bool(found) and found[-1] == answer.strip())


def addition_prompts(n: int, seed: int = 0, digits: int = 2) -> list[tuple[str, str]]:
    """``n`` (prompt, answer) pairs of adding two ``digits``-digit numbers: ("37+45=", "82")."""
    g = torch.Generator().manual_seed(seed)
    low, high = 10 ** (digits - 1), 10**digits
    ab = torch.randint(low, high, (n, 2), generator=g).tolist()
    return [(f"{a}+{b}=", str(a + b)) for a, b in ab]


def score(reward: Callable[[str, str], float], completions: Sequence[str], answers: Sequence[str]) -> Tensor:
    """The reward of every completion: (N,) float64. A reward function that raises, or returns NaN or
    an infinity, is named with the completion it failed on."""
    name = getattr(reward, "__name__", type(reward).__name__)
    values = []
    for i, (completion, answer) in enumerate(zip(completions, answers, strict=True)):
        try:
            value = float(reward(completion, answer))
        except Exception as e:  # the user's function: any failure is theirs to see, by name
            raise UsageError(
                "grpo.reward_raised",
                "the reward function {name} raised {error} on completion "
                "{index}: {detail}. A reward function must return a number "
                "for every completion; fix it or handle that case.",
                name=name,
                error=type(e).__name__,
                index=i,
                detail=e,
            ) from e
        if not math.isfinite(value):
            raise UsageError(
                "grpo.reward_nan",
                "the reward function {name} returned {value!r} for "
                "completion {index}; a reward must be a finite number.",
                name=name,
                value=value,
                index=i,
            )
        values.append(value)
    return torch.tensor(values, dtype=torch.float64)  # (N,)

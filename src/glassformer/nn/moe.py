"""Mixture of experts: a router sends each token to K of E feed-forward experts and adds their
outputs, weighted; the parameters grow with E, the work per token with K only.

    logits  ℓ = x W_rᵀ                         W_r: (E, C), one row per expert
    scores  s = softmax(ℓ)      rule "softmax"  (Mixtral, Qwen3-MoE)
            s = σ(ℓ)            rule "sigmoid"  (DeepSeek-V3: each expert scored alone)
    choice  top-K of s + b                     b: a selection bias, sigmoid rule only (below)
    weights w_k = s_(k) / Σ_j s_(j)            normalised over the K chosen ("normalize"), × ρ
    out     y = Σ_k w_k · FFN_(k)(x)  +  Σ_shared FFN_shared(x)

    Shazeer et al. 2017, "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts
    Layer", eq. 1-5 (top-K gating); Jiang et al. 2024, "Mixtral of Experts", §2.1 (softmax over the
    top-K logits, SwiGLU experts); Dai et al. 2024, "DeepSeekMoE", §3 (shared experts); DeepSeek-AI
    2024, "DeepSeek-V3 Technical Report", §2.1.2, eq. 12-16 (sigmoid scores, the bias, ρ).

The two rules, a two-valued choice (`Routing.rule`):

  softmax   Mixtral and Qwen3-MoE take the softmax over all E experts, then the top K, then divide
            by their sum: the same weights as Mixtral's paper's softmax over the top-K logits alone
            (softmax(ℓ)_i / Σ_top-K softmax(ℓ)_j = e^ℓ_i / Σ_top-K e^ℓ_j). Qwen3-MoE's
            `norm_topk_prob` switches that division off (`normalize=False`): the weights are then
            the softmax over all E, and sum to less than 1.
  sigmoid   DeepSeek-V3 scores each expert alone, s_i = σ(ℓ_i). The choice reads s_i + b_i; the
            weights read s_i without b_i, normalised (`norm_topk_prob`) and × ρ
            (`routed_scaling_factor`). b (`e_score_correction_bias` in transformers, a buffer, not
            learned by the gradient) balances the load without a loss: after each step
            b_i ← b_i + γ·sign(mean load - load_i) (`balance_step`, §2.1.2).

Group-limited choice (DeepSeek-V2 §2.1.2 "device-limited routing", V3 "node-limited"): the E experts
are split into n_group groups; a group is scored by the sum of its GROUP_TOP = 2 best choice scores
(V3: "the sum of the highest K_r/M affinity scores"; V3's K_r/M is 8/4 = 2, and transformers hard-codes
the 2), only the topk_group best groups stay, the top-K is taken among their experts. n_group = 1: off.

Experts are nn/glu.py's GatedFeedForward (SwiGLU), each reading only the tokens routed to it (its
hook points' axes say N_e). transformers stores the E experts as two 3-D tensors,
`experts.gate_up_proj` (E, 2F, C) = [W_gate ; W_up] and `experts.down_proj` (E, C, F); ours are E
modules, expert e's gate = gate_up_proj[e, :F], up = gate_up_proj[e, F:], down = down_proj[e].
DeepSeek-V3's shared experts are one GatedFeedForward n_shared·F wide (`shared_experts`).

Losses (added to the training loss by the trainer: models/gpt.py's GPT.extra_loss, train/loop.py):

  load balance  L_aux = E · Σ_i f_i · P_i,   f_i = share of the N tokens whose top-K holds expert i,
                                             P_i = mean over the N tokens of softmax(ℓ)_i
                Fedus et al. 2022, "Switch Transformers", eq. 4-6, with the top-1 dispatch widened to
                top-K as transformers' `load_balancing_loss_func` does: f sums to K, so the loss is K
                (not the paper's 1) at a uniform router. It reads softmax(ℓ) whatever the rule (as
                transformers); DeepSeek-V3's own sequence-wise loss (eq. 17-20) is not here.
                f and P are taken over every layer's tokens pooled, as transformers does; Switch
                writes the loss for one layer. Pooled, a layer may tip one way if another tips the
                other (bench/ledger_why.py balance, docs/modern.md).
  router z-loss L_z = (1/N) Σ_n (log Σ_i e^ℓ_ni)²     Zoph et al. 2022, "ST-MoE", eq. 5: keeps the
                                                     logits small, so the softmax stays well conditioned

Precision. DeepSeek-V3's router computes in float32 whatever the model's dtype; Mixtral and Qwen3-MoE
compute the logits in the model's dtype and the softmax in float32. Ours computes the whole router in
float32 for bfloat16 / float16 input and under autocast (DeepSeek's way), and in float64 for float64
input (transformers downcasts that to float32; the float64 tests point its casts at float64).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from glassformer.config import MOE_RULES, check_moe
from glassformer.errors import UsageError
from glassformer.nn.glu import GatedFeedForward
from glassformer.nn.hooks import HookPoint
from glassformer.nn.rmsnorm import NARROW

RULES = MOE_RULES  # ("softmax", "sigmoid"), named in config.py (no torch there)
GROUP_TOP = 2  # a group of experts is scored by its two best experts (DeepSeek-V3; transformers)
TINY = 1e-20  # added to the normaliser, as DeepSeek-V3's code does; below float64's resolution near 1


@dataclass(frozen=True)
class Routing:
    """How the router picks and weighs experts. The names map to transformers' config fields."""

    rule: str = "softmax"  # "softmax" (Mixtral, Qwen3-MoE) | "sigmoid" (DeepSeek-V3)
    top_k: int = 2  # K: experts per token (num_experts_per_tok)
    normalize: bool = True  # divide the K weights by their sum (Mixtral always; norm_topk_prob)
    n_group: int = 1  # groups of experts for the group-limited choice; 1: off (n_group)
    topk_group: int = 1  # groups kept per token (topk_group)
    scale: float = 1.0  # ρ: the weights × ρ (routed_scaling_factor)


MIXTRAL = Routing()  # the default: softmax, top-2, normalised


def check_routing(n_experts: int, r: Routing) -> None:
    """Every impossible routing refused with the numbers and the fix (config.check_moe: one check)."""
    check_moe(n_experts, r.rule, r.top_k, r.n_group, r.topk_group)


def keep_best_groups(choice: Tensor, n_group: int, topk_group: int) -> Tensor:
    """choice (..., E) -> the same with every expert outside the topk_group best groups at -inf."""
    *lead, E = choice.shape
    grouped = choice.view(*lead, n_group, E // n_group)  # (..., G, E/G)
    best = grouped.topk(min(GROUP_TOP, E // n_group), dim=-1).values  # (..., G, 2) each group's two best
    kept = best.sum(-1).topk(topk_group, dim=-1).indices  # (..., G_kept) the best groups
    keep = torch.zeros(*lead, n_group, dtype=torch.bool, device=choice.device).scatter_(-1, kept, True)  # (..., G)
    return grouped.masked_fill(~keep[..., None], float("-inf")).view(*lead, E)  # (..., E)


class Routed(NamedTuple):
    """What the router decided for each token: its logits, the chosen experts and their weights."""

    logits: Tensor  # (B, T, E)
    experts: Tensor  # (B, T, K) int64, best first
    weights: Tensor  # (B, T, K)


class Router(nn.Module):
    """(B, T, C) -> logits (B, T, E), chosen experts (B, T, K), their weights (B, T, K). E·C parameters."""

    def __init__(self, d_model: int, n_experts: int, routing: Routing = MIXTRAL) -> None:
        super().__init__()
        check_routing(n_experts, routing)
        self.routing, self.n_experts = routing, n_experts
        self.weight = nn.Parameter(torch.empty(n_experts, d_model))  # (E, C) W_r: one row per expert
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # nn.Linear's own initialisation
        if routing.rule == "sigmoid":  # b: moved by balance_step, not by the gradient
            self.register_buffer("selection_bias", torch.zeros(n_experts))  # (E,)
        else:
            self.selection_bias = None
        self.hook_logits = HookPoint("router", "B T E", "router.logits")
        self.hook_scores = HookPoint("router", "B T E", f"router.{routing.rule}")
        self.hook_experts = HookPoint("router", "B T K", "router.experts")
        self.hook_weights = HookPoint("router", "B T K", "router.weights")

    def forward(self, x: Tensor) -> Routed:
        r = self.routing
        wide = x.float() if x.dtype in NARROW else x  # (B, T, C): bf16/fp16 routed in float32
        with torch.autocast(x.device.type, enabled=False):  # autocast would make the product bf16 again
            logits = self.hook_logits(F.linear(wide, self.weight.to(wide.dtype)))  # (B, T, E) x·W_rᵀ
        scores = torch.softmax(logits, dim=-1) if r.rule == "softmax" else logits.sigmoid()  # (B, T, E)
        scores = self.hook_scores(scores)  # (B, T, E)
        choice = scores if self.selection_bias is None else scores + self.selection_bias  # (B, T, E) s + b
        if r.n_group > 1:
            choice = keep_best_groups(choice, r.n_group, r.topk_group)  # (B, T, E) -inf outside kept groups
        experts = self.hook_experts(choice.topk(r.top_k, dim=-1).indices)  # (B, T, K) best first
        weights = scores.gather(-1, experts)  # (B, T, K) s of the chosen, without b
        if r.normalize:
            weights = weights / (weights.sum(-1, keepdim=True) + TINY)  # (B, T, K) sums to 1
        return Routed(logits, experts, self.hook_weights(weights * r.scale))  # (B, T, K) × ρ

    def extra_repr(self) -> str:
        r = self.routing
        return f"E={self.n_experts}, rule={r.rule!r}, top_k={r.top_k}, groups={r.topk_group}/{r.n_group}"


class MixtureOfExperts(nn.Module):
    """(B, T, C) -> (B, T, C): each token through its K routed experts, weighted, plus the shared ones.

    `forward` gives the output, `routed` the output and the router's decision (for the losses)."""

    def __init__(
        self,
        d_model: int,
        d_ff: int,
        n_experts: int,
        routing: Routing = MIXTRAL,
        n_shared: int = 0,
        variant: str = "swiglu",
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.router = Router(d_model, n_experts, routing)
        self.experts = nn.ModuleList(
            GatedFeedForward(d_model, d_ff, variant, bias, axes="N_e") for _ in range(n_experts)
        )
        self.shared = GatedFeedForward(d_model, n_shared * d_ff, variant, bias) if n_shared > 0 else None
        self.hook_expert = nn.ModuleList(HookPoint("moe", "B T C", "moe.expert", e=e) for e in range(n_experts))
        self.hook_routed = HookPoint("moe", "B T C", "moe.routed")
        self.hook_out = HookPoint("ffn_out", "B T C", "moe.out")
        self.last_logits: Tensor | None = None  # (B, T, E) the router's logits in the latest forward: the losses'
        self.last_experts: Tensor | None = None  # (B, T, K) the experts it chose then: the bias's load

    def routed(self, x: Tensor) -> tuple[Tensor, Routed]:
        B, T, C = x.shape
        decision = self.router(x)  # (B, T, E), (B, T, K), (B, T, K)
        tokens = x.reshape(B * T, C)  # (N, C), N = B·T
        chosen = decision.experts.reshape(B * T, -1)  # (N, K)
        weights = decision.weights.reshape(B * T, -1)  # (N, K)
        routed = torch.zeros_like(x)  # (B, T, C)
        for e, expert in enumerate(self.experts):
            token, slot = (chosen == e).nonzero(as_tuple=True)  # (N_e,), (N_e,): who chose e, in which slot
            share = weights[token, slot, None] * expert(tokens[token])  # (N_e, C) w · FFN_e(x)
            contribution = tokens.new_zeros(B * T, C).index_add(0, token, share.to(x.dtype))  # (N, C) 0 elsewhere
            routed = routed + self.hook_expert[e](contribution.view(B, T, C))  # (B, T, C)
        out = self.hook_routed(routed)  # (B, T, C)
        if self.shared is not None:
            out = out + self.shared(x)  # (B, T, C) every token through the shared experts
        return self.hook_out(out), decision  # (B, T, C)

    def forward(self, x: Tensor) -> Tensor:
        out, decision = self.routed(x)  # (B, T, C)
        self.last_logits = decision.logits  # (B, T, E) kept for the balance losses (GPT.extra_loss)
        self.last_experts = decision.experts  # (B, T, K) kept for the balancing bias (GPT.expert_load)
        return out  # (B, T, C)


# ---- balance: the losses and the bias ----------------------------------------------------------------------


def _rows(router_logits: Tensor | Sequence[Tensor], mask: Tensor | None) -> tuple[Tensor, Tensor]:
    """One layer's logits (..., E), or every layer's, as rows (N, E) with each row's weight (N,): the
    mask (B, T) (1 = a real token) repeated for every layer, or 1s."""
    layers = [router_logits] if isinstance(router_logits, Tensor) else list(router_logits)
    rows = torch.cat([layer.reshape(-1, layer.size(-1)) for layer in layers])  # (N, E), N = layers × tokens
    if mask is None:
        return rows, rows.new_ones(rows.size(0))  # (N, E), (N,)
    return rows, mask.reshape(-1).to(rows.dtype).repeat(len(layers))  # (N, E), (N,)


def load_balancing_loss(router_logits: Tensor | Sequence[Tensor], top_k: int, mask: Tensor | None = None) -> Tensor:
    """E · Σ_i f_i · P_i over every token of every layer given (Switch eq. 4-6, top-K as transformers).
    router_logits: (B, T, E) or (N, E), or one such per layer; mask (B, T): padding counts for nothing."""
    rows, keep = _rows(router_logits, mask)  # (N, E), (N,)
    E = rows.size(-1)
    if not 1 <= top_k <= E:
        raise UsageError(
            "moe.top_k",
            "top_k={top_k} experts per token, but there are {n_experts} experts: choose top_k from 1 to {n_experts}.",
            top_k=top_k,
            n_experts=E,
        )
    probs = torch.softmax(rows, dim=-1)  # (N, E)
    sent = F.one_hot(probs.topk(top_k, dim=-1).indices, E).sum(-2).to(rows.dtype)  # (N, E) 1: i in the top-K
    f = (sent * keep[:, None]).sum(0) / keep.sum()  # (E,) share of tokens sent to i; Σ f = K
    P = (probs * keep[:, None]).sum(0) / keep.sum()  # (E,) mean probability of i
    return E * (f * P).sum()  # ()


def router_z_loss(router_logits: Tensor | Sequence[Tensor], mask: Tensor | None = None) -> Tensor:
    """mean over tokens of (log Σ_i e^ℓ_i)² (ST-MoE eq. 5)."""
    rows, keep = _rows(router_logits, mask)  # (N, E), (N,)
    return (torch.logsumexp(rows, dim=-1).pow(2) * keep).sum() / keep.sum()  # ()


def expert_load(experts: Tensor, n_experts: int) -> Tensor:
    """Chosen experts (..., K) -> (E,) how many token slots each expert got."""
    return torch.bincount(experts.reshape(-1), minlength=n_experts)  # (E,)


def balance_step(selection_bias: Tensor, load: Tensor, rate: float) -> Tensor:
    """DeepSeek-V3's loss-free balancing, one step: b_i + γ·sign(mean load - load_i): an overloaded
    expert's bias falls by γ, an underloaded one's rises by γ, one at the mean keeps its bias."""
    load = load.to(selection_bias.dtype)  # (E,)
    return selection_bias + rate * torch.sign(load.mean() - load)  # (E,)


def max_violation(load: Tensor) -> Tensor:
    """Loads (..., E) -> (...): how far the busiest expert is above the mean load, as a share of the
    mean, (max_i load_i - mean) / mean: 0 when every expert gets the same, E - 1 when one gets all.
    Wang et al. 2024, "Auxiliary-Loss-Free Load Balancing Strategy for Mixture-of-Experts", MaxVio."""
    load = load.float()  # (..., E)
    mean = load.mean(-1)  # (...)
    return (load.amax(-1) - mean) / mean  # (...)


def layer_loads(model: nn.Module) -> Tensor | None:
    """(L, E): how many token slots each expert of each of the model's L expert layers got in the
    latest forward (expert_load of the chosen experts); None without experts or before a forward."""
    moes = [m for m in model.modules() if isinstance(m, MixtureOfExperts)]
    loads = [expert_load(m.last_experts, m.router.n_experts) for m in moes if m.last_experts is not None]
    if not moes or len(loads) < len(moes):
        return None
    return torch.stack(loads)  # (L, E)


@torch.no_grad()
def balance_experts(model: nn.Module, load: Tensor, rate: float) -> None:
    """DeepSeek-V3's balancing without a loss, after an optimizer step (the trainer calls it): each
    sigmoid-rule router's selection bias moved by balance_step with its layer's row of load (L, E) and
    γ = `rate` (the config's moe_bias_rate). The softmax rule has no bias; γ = 0 leaves the biases."""
    moes = [m for m in model.modules() if isinstance(m, MixtureOfExperts)]
    for moe, layer_load in zip(moes, load, strict=True):
        bias = moe.router.selection_bias
        if bias is not None and rate > 0:
            bias.copy_(balance_step(bias, layer_load, rate))  # (E,)


def active_parameters(model: nn.Module) -> int:
    """Parameters one token passes through: every parameter, less, in each mixture of experts, the
    E - K routed experts it is not sent to (a layer's experts are all the same size). A dense model's
    active parameters are all of them."""
    total = sum(p.numel() for p in model.parameters())
    for moe in (m for m in model.modules() if isinstance(m, MixtureOfExperts)):
        expert = sum(p.numel() for p in moe.experts[0].parameters())
        total -= (moe.router.n_experts - moe.router.routing.top_k) * expert
    return total

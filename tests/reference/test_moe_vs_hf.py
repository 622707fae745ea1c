"""Mixture of experts (nn/moe.py) against transformers' MixtralSparseMoeBlock, Qwen3MoeSparseMoeBlock
and DeepseekV3MoE with copied weights (output, router logits, chosen experts and their weights), the
auxiliary loss against `load_balancing_loss_func`, the z-loss and the bias step on hand numbers, the
NumPy twin, finite differences, the hook points and the refusals.

float64 compares with transformers' float32 casts pointed at float64 (hf_float64.py), float32 with
transformers untouched.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import torch
from helpers import ATOL, assert_close, assert_matches, keyed, numpy_fn, randomize_
from hf_float64 import in_float64, transformers_in_float64
from torch.autograd import gradcheck

from glassformer import numpy_ref as ref
from glassformer.errors import UsageError
from glassformer.inspect.params import derived_parts
from glassformer.nn.moe import (
    MixtureOfExperts,
    Router,
    Routing,
    balance_step,
    expert_load,
    keep_best_groups,
    load_balancing_loss,
    router_z_loss,
)
from glassformer.numpy_ref import moe as twin

transformers = pytest.importorskip("transformers")
from transformers.models.deepseek_v3 import modeling_deepseek_v3  # noqa: E402
from transformers.models.mixtral import modeling_mixtral  # noqa: E402
from transformers.models.qwen3_moe import modeling_qwen3_moe  # noqa: E402

C, FF, E = 12, 10, 8


def ported(hf, routing: Routing, n_shared: int = 0) -> MixtureOfExperts:
    """Ours with a transformers MoE block's weights copied in: the weight map, in one place."""
    dtype = hf.gate.weight.dtype
    ours = MixtureOfExperts(C, FF, E, routing, n_shared).to(dtype)
    with torch.no_grad():
        ours.router.weight.copy_(hf.gate.weight)  # gate.weight (E, C)
        if routing.rule == "sigmoid":
            ours.router.selection_bias.copy_(hf.gate.e_score_correction_bias)  # (E,)
        for e, expert in enumerate(ours.experts):
            gate, up = hf.experts.gate_up_proj[e].chunk(2, dim=0)  # (E, 2F, C) -> 2 × (F, C)
            expert.gate.weight.copy_(gate), expert.up.weight.copy_(up)
            expert.down.weight.copy_(hf.experts.down_proj[e])  # (E, C, F) -> (C, F)
        if n_shared:
            for mine, theirs in (("gate", "gate_proj"), ("up", "up_proj"), ("down", "down_proj")):
                getattr(ours.shared, mine).weight.copy_(getattr(hf.shared_experts, theirs).weight)
    return ours


def mixtral(K: int, dtype):
    cfg = transformers.MixtralConfig(
        hidden_size=C, intermediate_size=FF, num_local_experts=E, num_experts_per_tok=K, num_attention_heads=2
    )
    hf = randomize_(modeling_mixtral.MixtralSparseMoeBlock(cfg)).to(dtype).eval()
    return ported(hf, Routing("softmax", K)), hf


def qwen3_moe(K: int, norm: bool, dtype):
    cfg = transformers.Qwen3MoeConfig(
        hidden_size=C, moe_intermediate_size=FF, num_experts=E, num_experts_per_tok=K, norm_topk_prob=norm
    )
    hf = randomize_(modeling_qwen3_moe.Qwen3MoeSparseMoeBlock(cfg)).to(dtype).eval()
    return ported(hf, Routing("softmax", K, normalize=norm)), hf


DEEPSEEK = {  # (top_k, n_group, topk_group, n_shared, norm_topk_prob, routed_scaling_factor)
    "groups-4-keep-2": (3, 4, 2, 1, True, 2.5),
    "no-groups": (2, 1, 1, 2, True, 1.0),
    "unnormalised": (2, 2, 1, 1, False, 1.5),
}


def deepseek_v3(case: str, dtype):
    K, G, G_kept, shared, norm, rho = DEEPSEEK[case]
    cfg = transformers.DeepseekV3Config(
        hidden_size=C,
        moe_intermediate_size=FF,
        n_routed_experts=E,
        num_experts_per_tok=K,
        n_group=G,
        topk_group=G_kept,
        n_shared_experts=shared,
        norm_topk_prob=norm,
        routed_scaling_factor=rho,
        num_attention_heads=2,
    )
    hf = randomize_(modeling_deepseek_v3.DeepseekV3MoE(cfg)).to(dtype).eval()
    with torch.no_grad():
        hf.gate.e_score_correction_bias.normal_(0.0, 0.3)  # a bias that changes the choice
    return ported(hf, Routing("sigmoid", K, norm, G, G_kept, rho), shared), hf


def reference(hf, dtype):
    return in_float64(hf) if dtype == torch.float64 else hf


def by_expert(experts: torch.Tensor, weights: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(N, K) chosen experts and weights, each row sorted by expert index (DeepSeek's top-K is unsorted)."""
    order = experts.argsort(-1)  # (N, K)
    return experts.gather(-1, order), weights.gather(-1, order)


def assert_same_routing(ours: MixtureOfExperts, hf, x: torch.Tensor, dtype, sort: bool = False) -> None:
    """Router logits, chosen experts and their weights equal to transformers' router (`hf.gate`)."""
    decision = ours.router(x)
    with transformers_in_float64() if dtype == torch.float64 else torch.no_grad():
        logits, weights, experts = hf.gate(x.reshape(-1, C))  # (N, E), (N, K), (N, K)
    mine_e, mine_w = decision.experts.reshape(-1, experts.size(-1)), decision.weights.reshape(-1, experts.size(-1))
    if sort:
        (mine_e, mine_w), (experts, weights) = by_expert(mine_e, mine_w), by_expert(experts, weights)
    assert torch.equal(mine_e, experts)
    assert_close("router logits", decision.logits.reshape(-1, E), logits.to(dtype), ATOL[dtype])
    assert_close("weights", mine_w, weights.to(dtype), ATOL[dtype])


# ---- equal to transformers -------------------------------------------------------------------------------


@pytest.mark.parametrize("K", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_equals_mixtral_sparse_moe_block(dtype, K):
    ours, hf = mixtral(K, dtype)
    x = torch.randn(2, 5, C, dtype=dtype)
    assert_matches(ours, reference(hf, dtype), x, atol=ATOL[dtype])
    assert_same_routing(ours, hf, x, dtype)


@pytest.mark.parametrize("norm", [True, False], ids=["norm_topk_prob", "raw-softmax"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_equals_qwen3_moe_sparse_moe_block(dtype, norm):
    ours, hf = qwen3_moe(2, norm, dtype)
    x = torch.randn(2, 5, C, dtype=dtype)
    assert_matches(ours, reference(hf, dtype), x, atol=ATOL[dtype])
    assert_same_routing(ours, hf, x, dtype)
    weight_sums = ours.router(x).weights.sum(-1)  # (B, T)
    assert torch.allclose(weight_sums, torch.ones_like(weight_sums)) == norm  # the switch does something


@pytest.mark.parametrize("case", DEEPSEEK)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_equals_deepseek_v3_moe(dtype, case):
    ours, hf = deepseek_v3(case, dtype)
    x = torch.randn(2, 5, C, dtype=dtype)
    assert_matches(ours, reference(hf, dtype), x, atol=ATOL[dtype])
    assert_same_routing(ours, hf, x, dtype, sort=True)


def test_deepseek_s_bias_moves_the_choice_but_not_the_weights():
    """The same router with b = 0 chooses differently somewhere; a chosen expert's weight is read
    from s without b (so every weight also appears among the unbiased router's normalised scores)."""
    ours, _ = deepseek_v3("no-groups", torch.float64)
    x = torch.randn(4, 8, C, dtype=torch.float64)
    biased = ours.router(x)
    with torch.no_grad():
        saved = ours.router.selection_bias.clone()
        ours.router.selection_bias.zero_()
    plain = ours.router(x)
    ours.router.selection_bias.copy_(saved)
    assert not torch.equal(biased.experts, plain.experts)
    scores = torch.sigmoid(biased.logits).gather(-1, biased.experts)  # (B, T, K) s of the chosen
    assert_close("weights from s", biased.weights, scores / scores.sum(-1, keepdim=True), 1e-12)


def test_group_limited_choice_only_picks_from_the_kept_groups():
    """Scores by hand: groups {0,1} {2,3} {4,5} {6,7}; group scores (sums of the two best) 0.3, 1.7,
    0.9, 0.65; keeping 2 groups leaves experts 2-5, so the top 3 are 2, 3, 4 although expert 6 (0.6)
    outscores expert 4 (0.5)."""
    choice = torch.tensor([0.2, 0.1, 0.9, 0.8, 0.5, 0.4, 0.6, 0.05], dtype=torch.float64)
    kept = keep_best_groups(choice[None], n_group=4, topk_group=2)[0]
    assert torch.isinf(kept[[0, 1, 6, 7]]).all() and torch.equal(kept[2:6], choice[2:6])
    router = Router(8, 8, Routing("sigmoid", 3, True, 4, 2)).double()
    with torch.no_grad():
        router.weight.copy_(torch.eye(8))  # logits = x, so the scores σ(x) are the hand numbers
    x = torch.logit(choice)  # (8,)
    assert sorted(router(x[None, None]).experts.flatten().tolist()) == [2, 3, 4]
    _, chosen, _ = twin.route_token(x.numpy(), ref.state_to_numpy(router.state_dict()), router.routing)
    assert chosen == [2, 3, 4]
    flat = Router(8, 8, Routing("sigmoid", 3)).double()  # no groups: expert 6 gets in
    flat.weight.data.copy_(torch.eye(8))
    assert sorted(flat(x[None, None]).experts.flatten().tolist()) == [2, 3, 6]


# ---- the losses -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("K", [1, 2])
@pytest.mark.parametrize("masked", [False, True], ids=["all-tokens", "padding-masked"])
def test_load_balancing_loss_equals_transformers(K, masked):
    layers = tuple(torch.randn(2 * 6, E, dtype=torch.float64) for _ in range(3))  # 3 layers, B = 2, T = 6
    mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]) if masked else None
    with transformers_in_float64():
        theirs = modeling_mixtral.load_balancing_loss_func(layers, E, K, mask)
        assert_close("qwen3 too", modeling_qwen3_moe.load_balancing_loss_func(layers, E, K, mask), theirs, 0.0)
    assert_close("aux loss", load_balancing_loss(layers, K, mask), theirs, 1e-12)
    assert_close("float32", load_balancing_loss([x.float() for x in layers], K, mask).double(), theirs, 1e-5)
    if not masked:
        assert math.isclose(twin.load_balancing_loss([x.numpy() for x in layers], K), float(theirs), abs_tol=1e-12)


def test_load_balancing_loss_is_k_when_uniform_and_e_when_collapsed():
    """Equal logits: f_i = K/E, P_i = 1/E, so E·Σ f·P = K. One expert takes everything (top-1, its
    probability → 1): f = P = e_0, the loss → E."""
    uniform = torch.zeros(5, E, dtype=torch.float64)
    assert math.isclose(float(load_balancing_loss(uniform + torch.arange(E) * 1e-9, 2)), 2.0, rel_tol=1e-6)
    collapsed = torch.zeros(5, E, dtype=torch.float64)
    collapsed[:, 0] = 50.0
    assert math.isclose(float(load_balancing_loss(collapsed, 1)), E, rel_tol=1e-12)


def test_router_z_loss_on_hand_numbers():
    """Two tokens: logits (0, 0): Σe = 2; (ln 3, ln 5): Σe = 8. L_z = ((ln 2)² + (ln 8)²) / 2."""
    logits = torch.tensor([[0.0, 0.0], [math.log(3), math.log(5)]], dtype=torch.float64)  # Σe: 2 and 8
    expected = (math.log(2) ** 2 + math.log(8) ** 2) / 2
    assert math.isclose(float(router_z_loss(logits)), expected, rel_tol=1e-14)
    assert math.isclose(twin.router_z_loss([logits.numpy()]), expected, rel_tol=1e-14)
    masked = router_z_loss(logits[None], mask=torch.tensor([[1, 0]]))  # the second token is padding
    assert math.isclose(float(masked), math.log(2) ** 2, rel_tol=1e-14)
    assert float(router_z_loss(logits + 100)) > 1e4  # large logits: a large penalty, whatever their spread


def test_balance_step_and_the_load_on_hand_numbers():
    """Load (4, 1, 1, 2), mean 2: the first expert's bias falls by γ, the next two rise, the last stays."""
    experts = torch.tensor([[0, 3], [0, 1], [0, 2], [0, 3]])  # 4 tokens, top-2
    load = expert_load(experts, 4)
    assert load.tolist() == [4, 1, 1, 2]
    bias = balance_step(torch.zeros(4, dtype=torch.float64), load, 0.001)
    assert bias.tolist() == [-0.001, 0.001, 0.001, 0.0]


# ---- the twin, gradients, hooks -------------------------------------------------------------------------------


TWIN_CASES = {
    "mixtral": Routing("softmax", 2),
    "qwen3-unnormalised": Routing("softmax", 3, normalize=False),
    "deepseek": Routing("sigmoid", 3, True, 4, 2, 2.5),
}


@pytest.mark.parametrize("case", TWIN_CASES)
def test_moe_equals_the_numpy_twin(case):
    routing = TWIN_CASES[case]
    ours = randomize_(MixtureOfExperts(C, FF, E, routing, n_shared=1 if routing.rule == "sigmoid" else 0)).double()
    if routing.rule == "sigmoid":
        ours.router.selection_bias.normal_(0.0, 0.3)
    params = ref.state_to_numpy(ours.state_dict())
    x = torch.randn(2, 4, C, dtype=torch.float64)
    assert_matches(ours, numpy_fn(lambda x: twin.mixture_of_experts(x, params, routing)), x, atol=1e-10, grad=False)


@pytest.mark.parametrize("rule", ["softmax", "sigmoid"])
def test_gradcheck(rule):
    """Through the weights and the experts (the choice is piecewise constant: tiny random inputs keep
    finite differences away from a change of choice)."""
    ours = randomize_(MixtureOfExperts(4, 3, 4, Routing(rule, 2), n_shared=1)).double()
    x = torch.randn(1, 3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(ours, (x,))
    logits = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda z: (load_balancing_loss(z, 2), router_z_loss(z)), (logits,))


def test_the_hooks_show_the_routing_and_each_expert_s_share():
    ours = randomize_(MixtureOfExperts(C, FF, E, Routing("softmax", 2))).double()
    x = torch.randn(2, 5, C, dtype=torch.float64)
    seen = {}
    points = {"logits": ours.router.hook_logits, "experts": ours.router.hook_experts}
    points |= {"weights": ours.router.hook_weights, "out": ours.hook_out}
    points |= {f"expert{e}": ours.hook_expert[e] for e in range(E)}
    for name, point in points.items():
        point.fns.append(lambda t, _, name=name: seen.__setitem__(name, t))
    out, decision = ours.routed(x)
    assert torch.equal(seen["logits"], x @ ours.router.weight.T) and torch.equal(seen["experts"], decision.experts)
    assert_close("experts add up", sum(seen[f"expert{e}"] for e in range(E)), out, 1e-12)
    for e in range(E):  # zero exactly where expert e was not chosen
        routed_here = (decision.experts == e).any(-1)  # (B, T)
        assert torch.equal(seen[f"expert{e}"].abs().sum(-1) > 0, routed_here)
    assert (ours.hook_expert[3].axes, ours.experts[0].hook_gate.axes, ours.router.hook_experts.axes) == (
        "B T C",
        "N_e F",
        "B T K",
    )


def test_an_expert_can_be_ablated_through_its_hook_point():
    ours = randomize_(MixtureOfExperts(C, FF, E, Routing("softmax", 2))).double()
    x = torch.randn(2, 5, C, dtype=torch.float64)
    full = ours(x)
    share = {}
    ours.hook_expert[1].fns.append(lambda t, _: share.setdefault("one", t))
    ours(x)
    ours.hook_expert[1].fns[:] = [lambda t, _: torch.zeros_like(t)]
    assert_close("without expert 1", ours(x), full - share["one"], 1e-12)


def test_the_derived_formulas_add_up():
    """The params view derives the router's E·C, the E experts as one part and the shared experts'
    2F-wide projections (n_shared = 2), and they add up to the real count."""
    ours = MixtureOfExperts(C, FF, E, Routing("sigmoid", 2), n_shared=2)
    parts = derived_parts(ours, {"C": C, "F": FF, "E": E, "K": 2})
    assert [(p, f.formula) for p, f in parts] == [
        ("router", "E·C"),
        ("experts", "E·(C·F + C·F + F·C)"),
        ("shared.gate", "C·2F"),
        ("shared.up", "C·2F"),
        ("shared.down", "2F·C"),
    ]
    from glassformer.inspect.params import FORMULA_WORDS

    assert [f.note for _, f in parts[:2]] == [FORMULA_WORDS["Router"], FORMULA_WORDS["experts"]]
    assert sum(f.value() for _, f in parts) == sum(p.numel() for p in ours.parameters())
    assert sum(p.numel() for p in ours.parameters()) == E * C + E * 3 * C * FF + 3 * C * 2 * FF
    assert "selection_bias" in ours.router.state_dict() and "selection_bias" not in dict(ours.named_parameters())


# ---- refusals --------------------------------------------------------------------------------------------


def test_impossible_routings_are_refused_with_the_numbers():
    assert keyed(UsageError, Router, C, 4, Routing(top_k=5)) == ("moe.top_k", {"top_k": 5, "n_experts": 4})
    assert keyed(UsageError, Router, C, 4, Routing(top_k=0))[0] == "moe.top_k"
    assert keyed(UsageError, Router, C, 4, Routing(rule="relu")) == (
        "moe.rule",
        {"rule": "relu", "names": ["softmax", "sigmoid"]},
    )
    assert keyed(UsageError, Router, C, 0, Routing(top_k=1)) == ("moe.experts", {"n_experts": 0})
    assert keyed(UsageError, Router, C, 6, Routing("sigmoid", 2, n_group=4)) == (
        "moe.groups",
        {"n_experts": 6, "n_group": 4, "divisors": [1, 2, 3, 6]},
    )
    assert keyed(UsageError, Router, C, 8, Routing("sigmoid", 2, n_group=4, topk_group=5)) == (
        "moe.topk_group",
        {"topk_group": 5, "n_group": 4},
    )
    assert keyed(UsageError, Router, C, 8, Routing("sigmoid", 3, n_group=4, topk_group=1)) == (
        "moe.too_few_in_groups",
        {"top_k": 3, "topk_group": 1, "reachable": 2},
    )
    assert keyed(UsageError, load_balancing_loss, torch.zeros(3, 4), 5) == (
        "moe.top_k",
        {"top_k": 5, "n_experts": 4},
    )


def test_the_twins_never_import_torch():
    code = "import sys, glassformer.numpy_ref.moe, glassformer.numpy_ref.mla; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0

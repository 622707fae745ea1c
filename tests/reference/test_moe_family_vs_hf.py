"""Mixtral and Qwen3-MoE, each one glassformer GPT with ffn="moe" built from a configuration and the
weight map of models/llama.py, against transformers itself on tiny random configurations (eager
attention, no download): logits in float64 ≤ 1e-10 and float32 ≤ 1e-5, every layer's router logits,
the auxiliary load-balancing loss of `output_router_logits`, cached decoding equal to the whole
forward, and the weight map both ways (the Hub's one tensor per expert, transformers' fused experts)."""

from __future__ import annotations

import dataclasses

import hf_families
import pytest
import torch
from helpers import ATOL, assert_close, keyed
from hf_families import assert_cached_equals_whole_forward, assert_logits_equal, assert_same_tensors, ids

from glassformer.errors import DamagedFile, UsageError
from glassformer.models.llama import (
    config_from_hf,
    gpt_from_hf,
    hf_config,
    hub_names,
    state_dict_from_hf,
    state_dict_to_hf,
)
from glassformer.nn.moe import MixtureOfExperts, load_balancing_loss

transformers = pytest.importorskip("transformers")

V, T, E = 61, 12, 4
SHARED = {
    "vocab_size": V,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-5,
    "num_experts_per_tok": 2,
    "output_router_logits": True,
    "attn_implementation": "eager",
    "experts_implementation": "eager",  # a loop over the experts: grouped_mm has no float64
}
CASES = {  # name -> (the transformers class, its config)
    "mixtral": ("MixtralForCausalLM", {"intermediate_size": 24, "num_local_experts": E, "router_aux_loss_coef": 0.02}),
    "mixtral-window-top1": (
        "MixtralForCausalLM",
        {"intermediate_size": 16, "num_local_experts": E, "sliding_window": 5, "num_experts_per_tok": 1},
    ),
    "qwen3_moe": (
        "Qwen3MoeForCausalLM",
        {
            "intermediate_size": 40,
            "moe_intermediate_size": 12,
            "num_experts": E,
            "head_dim": 12,
            "norm_topk_prob": True,
        },
    ),
    "qwen3_moe-unnormalised": (
        "Qwen3MoeForCausalLM",
        {"intermediate_size": 40, "moe_intermediate_size": 12, "num_experts": E, "norm_topk_prob": False},
    ),
    "qwen3_moe-dense-first": (  # mlp_only_layers [0]: layer 0 one SwiGLU 40 wide (moe_first_dense=1)
        "Qwen3MoeForCausalLM",
        {"intermediate_size": 40, "moe_intermediate_size": 12, "num_experts": E, "mlp_only_layers": [0]},
    ),
}


def hf_model(case: str, dtype: torch.dtype = torch.float64):
    name, extra = CASES[case]
    return hf_families.hf_model(name, {**SHARED, **extra}, dtype)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_logits_router_logits_and_aux_loss_equal_transformers(case, dtype):
    hf = hf_model(case, dtype)
    ours, out = assert_logits_equal(hf, ids(V, T), dtype)
    mine = [b.ffn.last_logits for b in ours.blocks if isinstance(b.ffn, MixtureOfExperts)]  # sparse × (B, T, E)
    assert len(out.router_logits) == len(mine) == 2 - ours.cfg.moe_first_dense  # the dense layers route nothing
    for i, (a, b) in enumerate(zip(mine, out.router_logits, strict=True)):
        assert_close(f"router logits {i}", a.reshape(-1, E), b, ATOL[dtype])  # transformers': (B·T, E)
    assert_close("aux loss", load_balancing_loss(mine, ours.cfg.moe_top_k), out.aux_loss, ATOL[dtype])
    assert ours.cfg.moe_aux_loss == hf.config.router_aux_loss_coef


@pytest.mark.parametrize("case", CASES)
def test_cached_decoding_equals_the_whole_forward(case):
    assert_cached_equals_whole_forward(gpt_from_hf(hf_model(case)), ids(V, T))


@pytest.mark.parametrize("case", CASES)
def test_the_weight_map_and_the_config_go_both_ways(case):
    hf = hf_model(case)
    ours = gpt_from_hf(hf)
    # Mixtral's config leaves head_dim out (0: C / H); config.json states it
    assert config_from_hf(hf_config(ours.cfg)) == dataclasses.replace(ours.cfg, head_dim=ours.cfg.d_head)
    back = state_dict_to_hf(ours.state_dict(), ours.cfg)  # the Hub's names: one tensor per expert
    theirs = hub_names(hf.state_dict(), ours.cfg)
    assert_same_tensors(back, theirs)
    assert "model.layers.1.mlp.experts.gate_up_proj" in hf.state_dict()  # the fused form was read


def test_what_we_would_compute_differently_is_refused_with_the_field_named():
    base = hf_model("qwen3_moe").config.to_dict()
    assert keyed(UsageError, config_from_hf, {**base, "decoder_sparse_step": 2})[1]["field"] == "decoder_sparse_step"
    assert keyed(UsageError, config_from_hf, {**base, "mlp_only_layers": [1]})[1]["field"] == "mlp_only_layers"
    assert config_from_hf({**base, "mlp_only_layers": [0, 1]}).moe_first_dense == 2  # the first k: moe_first_dense
    mixtral = hf_model("mixtral").config.to_dict()
    assert (
        keyed(UsageError, config_from_hf, {**mixtral, "router_jitter_noise": 0.1})[1]["field"] == "router_jitter_noise"
    )
    dense_first = dataclasses.replace(config_from_hf(mixtral), moe_first_dense=1)  # Mixtral has no dense layers
    assert keyed(UsageError, hf_config, dense_first) == (
        "hf.field_out",
        {"field": "moe_first_dense", "found": 1, "want": 0},
    )
    key, fields = keyed(DamagedFile, config_from_hf, {**mixtral, "num_experts_per_tok": 5})
    assert (key, fields["problem"]) == ("hf.cannot_build", ("moe.top_k", {"top_k": 5, "n_experts": 4}))


def test_a_missing_expert_tensor_is_named():
    hf = hf_model("mixtral")
    cfg = config_from_hf(hf.config)
    state = dict(hub_names(hf.state_dict(), cfg))
    del state["model.layers.1.block_sparse_moe.experts.3.w2.weight"]
    key, fields = keyed(DamagedFile, state_dict_from_hf, state, cfg, "weights")
    assert (key, fields["names"]) == ("hf.tensors_missing", "model.layers.1.block_sparse_moe.experts.3.w2.weight")

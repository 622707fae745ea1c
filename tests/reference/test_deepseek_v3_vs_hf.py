"""DeepSeek-V3: one glassformer GPT with multi-head latent attention (mla_kv_rank > 0, nn/mla.py) and
DeepSeek's experts (ffn="moe", moe_rule="sigmoid": the selection bias, group-limited choice, ρ, a
shared expert), from a configuration and models/llama.py's weight map, against transformers'
DeepseekV3ForCausalLM on tiny random configurations (eager, no download): logits in float64 ≤ 1e-10
and float32 ≤ 1e-5, cached decoding (the latent cache) equal to the whole forward, the map both ways."""

from __future__ import annotations

import hf_families
import pytest
import torch
from hf_families import assert_cached_equals_whole_forward, assert_logits_equal, assert_same_tensors, ids

from glassformer.models.llama import config_from_hf, gpt_from_hf, hf_config, hub_names, state_dict_to_hf
from glassformer.nn.mla import LatentCache
from glassformer.nn.moe import MixtureOfExperts

transformers = pytest.importorskip("transformers")

V, T = 61, 12
BASE = {
    "vocab_size": V,
    "hidden_size": 32,
    "intermediate_size": 40,
    "moe_intermediate_size": 12,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,  # every head's keys from the latent (transformers repeats H / H_kv)
    "kv_lora_rank": 16,
    "qk_nope_head_dim": 8,
    "qk_rope_head_dim": 4,
    "v_head_dim": 6,
    "n_routed_experts": 8,
    "num_experts_per_tok": 2,
    "first_k_dense_replace": 0,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-5,
    "attn_implementation": "eager",
    "experts_implementation": "eager",
}
CASES = {  # q_lora_rank, n_group, topk_group, n_shared_experts, norm_topk_prob, routed_scaling_factor
    "query-latent-groups": {"q_lora_rank": 24, "n_group": 4, "topk_group": 2, "n_shared_experts": 1},
    "no-query-latent": {
        "q_lora_rank": None,
        "n_group": 1,
        "topk_group": 1,
        "n_shared_experts": 2,
        "norm_topk_prob": False,
    },
    # DeepSeek-V3's dense first layers (first_k_dense_replace: 3 in the real one): block 0's FFN is one
    # SwiGLU intermediate_size (40) wide, block 1's the experts moe_intermediate_size (12) wide
    "dense-first": {
        "q_lora_rank": 24,
        "n_group": 2,
        "topk_group": 1,
        "n_shared_experts": 1,
        "first_k_dense_replace": 1,
    },
}


def hf_model(case: str, dtype: torch.dtype = torch.float64):
    model = hf_families.hf_model("DeepseekV3ForCausalLM", {**BASE, "routed_scaling_factor": 2.5, **CASES[case]}, dtype)
    with torch.no_grad():
        for name, b in model.named_buffers():
            if name.endswith("e_score_correction_bias"):  # a selection bias that moves the choice
                b.copy_(torch.randn_like(b) * 0.1)
    return model


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_logits_equal_transformers(case, dtype):
    assert_logits_equal(hf_model(case, dtype), ids(V, T), dtype)


@pytest.mark.parametrize("case", CASES)
def test_cached_decoding_keeps_the_latent_and_equals_the_whole_forward(case):
    cache = assert_cached_equals_whole_forward(gpt_from_hf(hf_model(case)), ids(V, T))
    layer = cache.layers[0]
    assert isinstance(layer, LatentCache) and layer.latent.shape == (2, T, 16) and layer.rope_key.shape == (2, 1, T, 4)


@pytest.mark.parametrize("case", CASES)
def test_the_weight_map_and_the_config_go_both_ways(case):
    hf = hf_model(case)
    ours = gpt_from_hf(hf)
    assert config_from_hf(hf_config(ours.cfg)) == ours.cfg
    back = state_dict_to_hf(ours.state_dict(), ours.cfg)
    theirs = hub_names(hf.state_dict(), ours.cfg)
    assert_same_tensors(back, theirs)


def test_dense_first_layers_are_a_configuration_read_and_written_back():
    hf = hf_model("dense-first")
    ours = gpt_from_hf(hf)
    assert ours.cfg.moe_first_dense == 1 and ours.cfg.d_ff == 40 and ours.cfg.expert_d_ff == 12
    dense, sparse = ours.blocks[0].ffn, ours.blocks[1].ffn
    assert not isinstance(dense, MixtureOfExperts) and dense.up.weight.shape == (40, 32)
    assert isinstance(sparse, MixtureOfExperts)
    assert torch.equal(dense.down.weight, hf.model.layers[0].mlp.down_proj.weight)
    assert hf_config(ours.cfg)["first_k_dense_replace"] == 1
    base = hf.config.to_dict()
    for k, want in ((5, 2), (None, 0)):  # past the last layer: every layer dense, as transformers builds it
        assert config_from_hf({**base, "first_k_dense_replace": k}).moe_first_dense == want
    assert config_from_hf({k: v for k, v in base.items() if k != "first_k_dense_replace"}).moe_first_dense == 2

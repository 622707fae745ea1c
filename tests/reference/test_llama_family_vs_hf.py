"""Llama, Qwen3 and Mistral, each one glassformer GPT built from a configuration and a weight map
(models/llama.py), against transformers itself on tiny random configurations (eager attention, no
download): logits in float64 ≤ 1e-10 and float32 ≤ 1e-5, greedy tokens equal to `generate`, cached
decoding equal to the whole forward (grouped-query heads, the sliding window past its length, RoPE
scaling past the original context), and the weight map both ways."""

from __future__ import annotations

import hf_families
import pytest
import torch
from helpers import assert_close, keyed
from hf_families import assert_cached_equals_whole_forward, assert_logits_equal, assert_same_tensors, ids
from hf_float64 import transformers_in_float64

from glassformer.errors import DamagedFile, UsageError
from glassformer.models.llama import config_from_hf, gpt_from_hf, hf_config, state_dict_from_hf, state_dict_to_hf
from glassformer.sample import generate_ids

transformers = pytest.importorskip("transformers")

V, T = 61, 24  # vocabulary; tokens read: past the window, past the scaled RoPE's original context
SHARED = {
    "vocab_size": V,
    "hidden_size": 32,
    "intermediate_size": 48,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-5,
    "attn_implementation": "eager",
}
# name -> (the transformers class, its config): every choice of the three families at least once
CASES = {
    "llama-gqa": (
        "LlamaForCausalLM",
        {"num_key_value_heads": 2, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}},
    ),
    "llama3-mqa-tied": (
        "LlamaForCausalLM",
        {
            "num_key_value_heads": 1,
            "tie_word_embeddings": True,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 5e5,
                "factor": 4.0,
                "original_max_position_embeddings": 8,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
            },
        },
    ),
    "qwen3-yarn": (
        "Qwen3ForCausalLM",
        {
            "num_key_value_heads": 2,
            "head_dim": 12,  # H·D = 48 ≠ C = 32, as Qwen3's checkpoints
            "tie_word_embeddings": True,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 1e6,
                "factor": 4.0,
                "original_max_position_embeddings": 8,
            },
        },
    ),
    "qwen3-mha-untied": ("Qwen3ForCausalLM", {"num_key_value_heads": 4, "tie_word_embeddings": False}),
    "mistral-window": (
        "MistralForCausalLM",
        {"num_key_value_heads": 2, "sliding_window": 5, "head_dim": 8, "hidden_act": "silu"},
    ),
    "mistral-geglu-linear": (
        "MistralForCausalLM",
        {
            "num_key_value_heads": 2,
            "sliding_window": 3,
            "hidden_act": "gelu",
            "rope_parameters": {"rope_type": "linear", "rope_theta": 1e4, "factor": 2.0},
        },
    ),
}


def hf_model(case: str, dtype: torch.dtype = torch.float64):
    name, extra = CASES[case]
    return hf_families.hf_model(name, {**SHARED, **extra}, dtype)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
def test_logits_equal_transformers(case, dtype):
    assert_logits_equal(hf_model(case, dtype), ids(V, T), dtype)


@pytest.mark.parametrize("case", CASES)
def test_cached_decoding_equals_the_whole_forward_past_the_window(case):
    ours = gpt_from_hf(hf_model(case))
    cache = assert_cached_equals_whole_forward(ours, ids(V, T))
    assert cache.layers[0].k.size(1) == ours.cfg.kv_heads  # the cache holds the key-value heads only


@pytest.mark.parametrize("case", CASES)
def test_greedy_tokens_equal_generate(case):
    hf = hf_model(case, torch.float32)
    ours = gpt_from_hf(hf)
    prompt = ids(V, 4, B=1)
    with torch.no_grad():
        theirs = hf.generate(prompt, max_new_tokens=20, do_sample=False, pad_token_id=0)[:, 4:]  # (1, 20)
    mine = torch.stack(list(generate_ids(ours, prompt, 20, temperature=0)), dim=1)  # (1, 20)
    assert torch.equal(mine, theirs)


@pytest.mark.parametrize("case", CASES)
def test_the_weight_map_and_the_config_go_both_ways(case):
    hf = hf_model(case)
    ours = gpt_from_hf(hf)
    assert config_from_hf(hf_config(ours.cfg)) == ours.cfg
    back = state_dict_to_hf(ours.state_dict(), ours.cfg)
    theirs = {k: v for k, v in hf.state_dict().items() if not (ours.cfg.tie_weights and k == "lm_head.weight")}
    assert_same_tensors(back, theirs)
    with transformers_in_float64():
        config = transformers.AutoConfig.for_model(**hf_config(ours.cfg), attn_implementation="eager")
        again = transformers.AutoModelForCausalLM.from_config(config).to(torch.float64).eval()
    again.load_state_dict(back, strict=not ours.cfg.tie_weights)
    x = ids(V, T)
    with torch.no_grad(), transformers_in_float64():
        assert_close("exported", again(x).logits, hf(x).logits, 0.0)


def test_what_we_would_compute_differently_is_refused_with_the_field_named():
    base = hf_model("llama-gqa").config.to_dict()
    assert keyed(UsageError, config_from_hf, {**base, "model_type": "gemma3"})[1]["found"] == "gemma3"
    assert keyed(UsageError, config_from_hf, {**base, "attention_bias": True})[1]["field"] == "attention_bias"
    assert keyed(UsageError, config_from_hf, {**base, "hidden_act": "gelu_pytorch_tanh"})[1]["field"] == "hidden_act"
    longrope = {**base, "rope_parameters": {"rope_type": "longrope", "rope_theta": 1e4}}
    assert keyed(UsageError, config_from_hf, longrope)[0] == "hf.rope_type"
    beta = {**base, "rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4, "factor": 2.0, "beta_fast": 8.0}}
    assert keyed(UsageError, config_from_hf, beta)[1]["field"] == "rope_parameters.beta_fast"
    heads = {**base, "num_key_value_heads": 3}
    key, fields = keyed(DamagedFile, config_from_hf, heads)  # config.json's numbers, refused as ModelConfig would
    assert (key, fields["problem"][0]) == ("hf.cannot_build", "gqa.heads")
    assert keyed(DamagedFile, config_from_hf, {**base, "hidden_size": "32"})[1]["missing"] == "hidden_size"


def test_missing_and_unknown_tensors_are_named():
    hf = hf_model("qwen3-yarn")
    cfg = config_from_hf(hf.config)
    state = dict(hf.state_dict())
    del state["model.layers.1.self_attn.k_norm.weight"]
    key, fields = keyed(DamagedFile, state_dict_from_hf, state, cfg, "weights")
    assert (key, fields["names"]) == ("hf.tensors_missing", "model.layers.1.self_attn.k_norm.weight")
    extra = {**hf.state_dict(), "model.layers.2.mlp.up_proj.weight": torch.zeros(1)}
    assert (
        keyed(UsageError, state_dict_from_hf, extra, cfg, "weights")[1]["names"] == "model.layers.2.mlp.up_proj.weight"
    )


@pytest.mark.parametrize("case", ["llama3-mqa-tied", "qwen3-yarn", "mistral-window"])
def test_hook_points_equal_transformers_hidden_states_and_attention_weights(case):
    """The stream before the blocks and after each, and every layer's attention weights (B, H, T, T),
    as transformers returns them (output_hidden_states, output_attentions)."""
    hf = hf_model(case)
    ours = gpt_from_hf(hf)
    x = ids(V, T)
    with torch.no_grad(), transformers_in_float64():
        out = hf(x, output_hidden_states=True, output_attentions=True)
    _, cache = ours.run_with_cache(x)
    n = ours.cfg.n_layers
    mine = [cache["resid_pre"], *(cache[f"blocks.{i}.resid_post"] for i in range(n - 1)), cache["ln_final"]]
    assert len(out.hidden_states) == len(mine) == n + 1  # transformers' last is after the final norm
    for i, (a, b) in enumerate(zip(mine, out.hidden_states, strict=True)):
        assert_close(f"hidden state {i}", a, b, 1e-10)
    for i in range(n):
        assert_close(f"weights {i}", cache[f"blocks.{i}.attn.weights"], out.attentions[i], 1e-10)

"""`glassformer import mixtral|qwen3_moe|deepseek_v3 DIR` and `export llama` of a mixture of experts: a tiny random
checkpoint that transformers saved into a run with equal logits, and back to a directory transformers
loads with equal logits; a checkpoint whose expert tensors are missing gets one clear line and
nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from helpers import said
from hf_families import tokenizer_json
from reliability_kit import assert_clean_failure, cli, cli_error
from safetensors.torch import load_file, save_file

from glassformer.errors import DamagedFile, UsageError
from glassformer.train.checkpoint import load_model

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

CONFIGS = {
    "mixtral": ("MixtralConfig", "MixtralForCausalLM", {"num_local_experts": 4, "num_key_value_heads": 2}),
    "qwen3_moe": (
        "Qwen3MoeConfig",
        "Qwen3MoeForCausalLM",
        {"num_experts": 4, "moe_intermediate_size": 16, "norm_topk_prob": True, "head_dim": 12},
    ),
    "deepseek_v3": (
        "DeepseekV3Config",
        "DeepseekV3ForCausalLM",
        {
            "n_routed_experts": 4,
            "n_group": 2,
            "topk_group": 1,
            "moe_intermediate_size": 12,
            "first_k_dense_replace": 1,  # as a real DeepSeek-V3 (3 there): layer 0's FFN is dense
            "num_key_value_heads": 4,
            "kv_lora_rank": 16,
            "q_lora_rank": 24,
            "qk_nope_head_dim": 8,
            "qk_rope_head_dim": 4,
            "v_head_dim": 6,
        },
    ),
}


def checkpoint(folder: Path, family: str):
    config_name, model_name, extra = CONFIGS[family]
    config = getattr(transformers, config_name)(
        vocab_size=48,
        hidden_size=32,
        intermediate_size=24,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
        num_experts_per_tok=2,
        attn_implementation="eager",
        experts_implementation="eager",
        **extra,
    )
    torch.manual_seed(0)
    hf = getattr(transformers, model_name)(config).eval()
    hf.save_pretrained(folder)
    (folder / "tokenizer.json").write_text(tokenizer_json(), encoding="utf-8")
    return hf


@pytest.mark.parametrize("family", CONFIGS)
def test_import_gives_a_run_equal_to_transformers_and_export_gives_it_back(tmp_path, family):
    hf = checkpoint(tmp_path / "hf", family)
    code, out, err = cli(["import", family, str(tmp_path / "hf"), "--out", str(tmp_path / "run")])
    assert code == 0, err
    model, _, _ = load_model(tmp_path / "run")
    x = torch.randint(0, 48, (2, 10), generator=torch.Generator().manual_seed(1))  # (2, 10)
    with torch.no_grad():
        theirs = hf(x).logits  # (2, 10, V)
        assert torch.allclose(model(x), theirs, atol=1e-5)
    code, out, err = cli(["export", "llama", str(tmp_path / "run"), "--out", str(tmp_path / "out")])
    assert code == 0, err
    assert json.loads((tmp_path / "out" / "config.json").read_text())["model_type"] == family
    again = transformers.AutoModelForCausalLM.from_pretrained(
        tmp_path / "out", attn_implementation="eager", experts_implementation="eager"
    ).eval()
    with torch.no_grad():
        assert torch.allclose(again(x).logits, theirs, atol=1e-5)


def test_a_checkpoint_whose_expert_tensors_are_missing_gets_one_line_and_nothing_is_written(tmp_path):
    checkpoint(tmp_path / "hf", "mixtral")
    weights = tmp_path / "hf" / "model.safetensors"
    state = load_file(weights)
    gone = sorted(name for name in state if "layers.1." in name and "experts" in name)
    save_file({k: v for k, v in state.items() if k not in gone}, weights, metadata={"format": "pt"})
    out = tmp_path / "run"
    code, _, err, error = cli_error(["import", "mixtral", str(tmp_path / "hf"), "--out", str(out)])
    assert_clean_failure(code, err)
    assert isinstance(error, DamagedFile) and error.code == "hf.tensors_missing"
    assert "layers.1" in error.fields["names"] and "experts" in error.fields["names"]
    assert not out.exists()  # nothing half-written


def with_prediction_layer(folder: Path, extra: int = 1) -> dict:
    """A DeepSeek-V3 directory as the real one is saved: config.json announcing one multi-token prediction
    layer, its tensors model.layers.2.* (past num_hidden_layers = 2) beside the model's; `extra` more
    layers past it. Returns the tensors added."""
    checkpoint(folder, "deepseek_v3")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "num_nextn_predict_layers": 1}))
    state = load_file(folder / "model.safetensors")
    added = {k.replace("layers.1.", "layers.2."): v.clone() for k, v in state.items() if "layers.1." in k}
    added |= {"model.layers.2.enorm.weight": torch.ones(32), "model.layers.2.eh_proj.weight": torch.zeros(32, 64)}
    added |= {f"model.layers.{2 + i}.hnorm.weight": torch.ones(32) for i in range(1, extra + 1)}
    save_file({**state, **added}, folder / "model.safetensors", metadata={"format": "pt"})
    return added


def test_multi_token_prediction_layers_are_skipped_with_one_note(tmp_path):
    added = with_prediction_layer(tmp_path / "hf", extra=0)
    hf = transformers.AutoModelForCausalLM.from_pretrained(
        tmp_path / "hf", attn_implementation="eager", experts_implementation="eager"
    ).eval()
    with said() as heard:
        code, _, err = cli(["import", "deepseek_v3", str(tmp_path / "hf"), "--out", str(tmp_path / "run")])
    assert code == 0, err
    assert heard.carrying(tensors=len(added), first=2)  # one note: how many, from which layer
    model, _, _ = load_model(tmp_path / "run")
    assert model.cfg.n_layers == 2 and model.cfg.moe_first_dense == 1
    x = torch.randint(0, 48, (2, 10), generator=torch.Generator().manual_seed(1))  # (2, 10)
    with torch.no_grad():
        assert torch.allclose(model(x), hf(x).logits, atol=1e-5)


def test_layers_past_the_prediction_layers_are_still_refused(tmp_path):
    with_prediction_layer(tmp_path / "hf", extra=1)
    code, _, err, error = cli_error(["import", "deepseek_v3", str(tmp_path / "hf"), "--out", str(tmp_path / "run")])
    assert_clean_failure(code, err)
    assert isinstance(error, UsageError) and error.code == "hf.tensors_unused"
    assert error.fields["names"] == "model.layers.3.hnorm.weight" and not (tmp_path / "run").exists()


def test_a_mixtral_state_with_transformers_5s_fused_experts_is_split_under_mixtrals_own_names():
    """transformers 5 keeps every expert of a layer in two fused tensors under "mlp"; the Hub's
    Mixtral files name them one matrix per expert under "block_sparse_moe" (w1 gate, w3 up, w2 down)."""
    from glassformer.config import get_preset
    from glassformer.models.llama import family_of, hub_names

    cfg = get_preset("baby-moe").model
    assert family_of(cfg) == "mixtral"
    E, F, C = 2, 3, 4
    gate_up = torch.arange(E * 2 * F * C, dtype=torch.float32).view(E, 2 * F, C)  # (E, 2F, C)
    down = torch.arange(E * C * F, dtype=torch.float32).view(E, C, F)  # (E, C, F)
    router = torch.zeros(E, C)  # (E, C)
    layer = "model.layers.0."
    state = {f"{layer}mlp.experts.gate_up_proj": gate_up, f"{layer}mlp.experts.down_proj": down}
    out = hub_names({**state, f"{layer}mlp.gate.weight": router}, cfg)
    experts = [f"{layer}block_sparse_moe.experts.{e}.{w}.weight" for e in range(E) for w in ("w1", "w2", "w3")]
    assert sorted(out) == sorted([*experts, f"{layer}block_sparse_moe.gate.weight"])
    for e in range(E):
        mine = f"{layer}block_sparse_moe.experts.{e}."
        assert torch.equal(out[mine + "w1.weight"], gate_up[e, :F]) and torch.equal(
            out[mine + "w3.weight"], gate_up[e, F:]
        )
        assert torch.equal(out[mine + "w2.weight"], down[e])

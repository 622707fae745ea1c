"""The modern presets (config.py: baby-llama, baby-qwen3; baby-moe, baby-mla) train through the one trainer like every
other: their modern choices reach the built model and config.json, an interrupted run resumed equals
the uninterrupted one bit for bit, bfloat16 trains them, and the trained run samples.

Bugs guarded: a preset whose modern fields are lost on the way to the model (a plain GPT trained
under a modern name), a piece whose state the checkpoint misses (the resumed run would differ), a
piece that breaks under autocast."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load_file
from seed_runs import seed_run, step_losses, stop_at

from glassformer.config import get_preset
from glassformer.nn.rmsnorm import RMSNorm
from glassformer.sample import sample
from glassformer.train.run import load_model, resume_run, train

MODERN = ["baby-llama", "baby-qwen3"]
EVERY = [*MODERN, "baby-moe", "baby-mla"]  # and the presets with experts and latent attention
# the preset's model, a few short steps (the seed text has ~18 validation tokens: seq_len 16)
QUICK = ["--max_steps=6", "--eval_interval=3", "--eval_iters=1", "--batch_size=2", "--seq_len=16"]
QUICK += ["--log_interval=1", "--threads=1"]


def make(tmp_path, preset, name, overrides=QUICK):
    return seed_run(tmp_path, name, overrides, preset)


@pytest.mark.parametrize("preset", MODERN)
def test_a_modern_preset_builds_its_modern_model_and_records_it(tmp_path, preset):
    run = make(tmp_path, preset, "run")
    cfg = get_preset(preset).model
    config = json.loads((run.dir / "config.json").read_text())["model"]
    for name in ("norm_type", "ffn", "n_kv_heads", "head_dim", "qk_norm", "position", "rope_base", "tie_weights"):
        assert config[name] == getattr(cfg, name), name
    assert (cfg.norm_type, cfg.ffn, cfg.position, cfg.kv_heads < cfg.n_heads) == ("rms", "swiglu", "rope", True)
    model = run.trainer.model
    norms = [m for m in model.modules() if isinstance(m, RMSNorm)]
    per_block = 2 + 2 * cfg.qk_norm  # before attention and before the FFN; QK-norm: one for q, one for k
    assert len(norms) == cfg.n_layers * per_block + 1  # and the final norm
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in model.modules())


@pytest.mark.parametrize("preset", EVERY)
def test_a_modern_preset_interrupted_and_resumed_equals_the_run_uninterrupted(tmp_path, preset):
    whole = make(tmp_path, preset, "whole")
    assert train(whole).status == "done"
    part = make(tmp_path, preset, "part")
    part.trainer.callbacks.append(stop_at(4))  # between evaluations (at 3 and 6)
    assert train(part).step == 4
    resumed = resume_run(part.dir, cache_dir=tmp_path / "cache", progress=False, sample_chars=0)
    assert resumed.trainer.step == 4
    assert train(resumed).step == 6
    losses = step_losses(whole.dir)
    assert list(losses) == [1, 2, 3, 4, 5, 6] and losses == step_losses(part.dir)  # bit-equal
    w1, w2 = load_file(whole.dir / "model.safetensors"), load_file(part.dir / "model.safetensors")
    assert set(w1) == set(w2) and all(torch.equal(w1[k], w2[k]) for k in w1)
    model, tokenizer, _ = load_model(whole.dir)
    (text,) = sample(model, tokenizer, "a", max_new_tokens=12, seed=0)
    assert len(tokenizer.encode(text)) == 12  # the 12 new characters (the prompt is not repeated)


def test_a_deepseek_style_moe_resumed_keeps_its_balancing_biases_and_equals_the_run_uninterrupted(tmp_path):
    """The sigmoid rule's selection biases move after every step (the trainer, balance_step) and are
    buffers, not parameters: a checkpoint that missed them would resume with other choices."""
    moe = [*QUICK, "--ffn=moe", "--n_experts=4", "--moe_top_k=2", "--moe_rule=sigmoid", "--moe_bias_rate=0.01"]
    whole = make(tmp_path, "baby-llama", "whole", moe)
    assert train(whole).status == "done"
    part = make(tmp_path, "baby-llama", "part", moe)
    part.trainer.callbacks.append(stop_at(4))  # between evaluations (at 3 and 6)
    assert train(part).step == 4
    resumed = resume_run(part.dir, cache_dir=tmp_path / "cache", progress=False, sample_chars=0)
    assert train(resumed).step == 6
    losses = step_losses(whole.dir)
    assert list(losses) == [1, 2, 3, 4, 5, 6] and losses == step_losses(part.dir)  # bit-equal
    w1, w2 = load_file(whole.dir / "model.safetensors"), load_file(part.dir / "model.safetensors")
    biases = [k for k in w1 if k.endswith("router.selection_bias")]
    assert len(biases) == get_preset("baby-llama").model.n_layers and set(w1) == set(w2)
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
    assert all(w1[k].abs().sum() > 0 for k in biases)  # moved: six steps of ±0.01 each


@pytest.mark.parametrize("preset", EVERY)
def test_a_modern_preset_trains_in_bfloat16(tmp_path, preset):
    run = make(tmp_path, preset, "bf16", [*QUICK, "--dtype=bfloat16", "--max_steps=3"])
    assert train(run).status == "done"
    assert json.loads((run.dir / "config.json").read_text())["train"]["dtype"] == "bfloat16"
    losses = step_losses(run.dir)
    assert list(losses) == [1, 2, 3] and all(math.isfinite(v) for v in losses.values())

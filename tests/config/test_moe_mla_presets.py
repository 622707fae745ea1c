"""The presets baby-moe and baby-mla (config.py): baby-llama with experts at its active parameters per
token, and baby-llama with latent attention at its parameter count. They build what they name, train
through the one trainer with the loss falling (the resume and bfloat16 tests are
tests/config/test_modern_presets.py's, over these presets too).

Bugs guarded: an expert width that no longer matches the dense FFN (a comparison at unequal work per
token), an MLA preset whose FFN no longer makes up the attention's parameters, experts or a latent
lost on the way from the preset to the model."""

from __future__ import annotations

import json

import pytest
from seed_runs import seed_run, step_losses

from glassformer.config import PRESETS, get_preset, matched_expert_width
from glassformer.lab.mla import equal_width
from glassformer.models import build_model
from glassformer.nn.kv_cache import KVCache
from glassformer.nn.mla import LatentAttention, LatentCache
from glassformer.nn.moe import MixtureOfExperts, active_parameters
from glassformer.train.run import train

QUICK = ["--eval_interval=6", "--eval_iters=1", "--batch_size=4", "--seq_len=16", "--log_interval=1"]
QUICK += ["--threads=1", "--warmup_steps=0", "--lr=3e-3"]


def built(name: str):
    return build_model(PRESETS[name].model)


def test_baby_moe_passes_a_token_through_as_many_parameters_as_baby_llama():
    """Active parameters: all of baby-llama's; baby-moe's router and 2 of its 8 experts. The expert
    width is a whole number, so the two differ by at most half a width step of K experts a layer."""
    dense, moe = built("baby-llama"), built("baby-moe")
    cfg = PRESETS["baby-moe"].model
    C, K, L = cfg.d_model, cfg.moe_top_k, cfg.n_layers
    tolerance = L * K * 3 * C // 2  # half a unit of F_e in each of the K experts' three matrices, every layer
    assert active_parameters(dense) == sum(p.numel() for p in dense.parameters())
    gap = active_parameters(moe) - active_parameters(dense)
    assert abs(gap) <= tolerance and abs(gap) / active_parameters(dense) < 0.002
    assert gap == L * (K * 3 * C * cfg.d_ff + cfg.n_experts * C - 3 * C * PRESETS["baby-llama"].model.d_ff)
    assert sum(p.numel() for p in moe.parameters()) > 3 * active_parameters(moe)  # the experts it holds
    # the rounding picks the nearest width: one step either way is further from the dense count
    assert cfg.d_ff == matched_expert_width(PRESETS["baby-llama"].model.d_ff, cfg.n_experts, K) == 175
    for other in (cfg.d_ff - 1, cfg.d_ff + 1):
        assert abs(gap + L * K * 3 * C * (other - cfg.d_ff)) > abs(gap)


@pytest.mark.parametrize(
    ("d_ff", "E", "K", "want"), [(352, 8, 2, 175), (352, 4, 1, 351), (128, 8, 2, 63), (96, 6, 3, 31)]
)
def test_the_matched_expert_width_solves_k_experts_and_the_router_against_one_ffn(d_ff, E, K, want):
    assert matched_expert_width(d_ff, E, K) == want
    assert abs(K * 3 * want + E - 3 * d_ff) <= 3 * K / 2  # in units of C: K·3·F_e + E against 3·F


def test_baby_mla_has_baby_llamas_parameters_and_the_nearest_ffn_width():
    gqa, mla = built("baby-llama"), built("baby-mla")
    cfg = PRESETS["baby-mla"].model
    gap = sum(p.numel() for p in mla.parameters()) - sum(p.numel() for p in gqa.parameters())
    assert abs(gap) <= cfg.n_layers * 3 * cfg.d_model // 2  # half a unit of d_ff in every layer
    vocab = cfg.vocab_size
    assert equal_width(get_preset("baby-mla"), sum(p.numel() for p in gqa.parameters()), vocab) == cfg.d_ff == 336


def test_the_presets_build_the_experts_and_the_latent_they_name():
    moe, mla = built("baby-moe"), built("baby-mla")
    moes = [m for m in moe.modules() if isinstance(m, MixtureOfExperts)]
    cfg = PRESETS["baby-moe"].model
    assert len(moes) == cfg.n_layers and all(len(m.experts) == cfg.n_experts for m in moes)
    assert all(m.router.routing.top_k == cfg.moe_top_k and m.router.routing.rule == "softmax" for m in moes)
    assert (cfg.moe_aux_loss, cfg.moe_z_loss) == (0.01, 0.001)
    latent = [m for m in mla.modules() if isinstance(m, LatentAttention)]
    assert len(latent) == PRESETS["baby-mla"].model.n_layers
    cache = KVCache.for_model(mla, 1)
    assert all(isinstance(layer, LatentCache) for layer in cache.layers)


@pytest.mark.parametrize("preset", ["baby-moe", "baby-mla"])
def test_the_preset_trains_through_the_one_trainer_and_its_loss_falls(tmp_path, preset):
    run = seed_run(tmp_path, "run", [*QUICK, "--max_steps=12"], preset)
    assert train(run).status == "done"
    config = json.loads((run.dir / "config.json").read_text())["model"]
    cfg = get_preset(preset).model
    for name in ("ffn", "n_experts", "moe_top_k", "d_ff", "mla_kv_rank", "mla_d_rope", "n_kv_heads"):
        assert config[name] == getattr(cfg, name), name
    losses = step_losses(run.dir)
    assert list(losses) == list(range(1, 13))
    first, last = sum(losses[s] for s in (1, 2, 3)) / 3, sum(losses[s] for s in (10, 11, 12)) / 3
    assert last < first - 0.3  # nats: the seed text's characters are being learnt
    if preset == "baby-moe":  # the balance losses were added and logged
        logs = [json.loads(line) for line in (run.dir / "metrics.jsonl").read_text().splitlines()]
        extra = [r["extra_loss"] for r in logs if r["kind"] == "log"]
        assert len(extra) == 12 and all(e > 0 for e in extra)

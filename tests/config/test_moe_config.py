"""The mixture of experts as a configuration (ffn="moe", the n_experts and moe_* fields): refused with
a key and fields when the routing cannot be computed, built into the one GPT's Block by feed_forward,
and its balance losses (α·L_aux + β·L_z) added to the training loss by the one trainer and logged."""

from __future__ import annotations

import json

import pytest
import torch
from helpers import keyed

from glassformer.config import MOE_FIELDS, ModelConfig, TrainConfig
from glassformer.errors import UsageError
from glassformer.models import GPT
from glassformer.nn.glu import GatedFeedForward
from glassformer.nn.moe import (
    RULES,
    MixtureOfExperts,
    balance_experts,
    balance_step,
    layer_loads,
    load_balancing_loss,
    router_z_loss,
)
from glassformer.train.data import TensorBatches
from glassformer.train.loop import Trainer

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

SMALL = {"vocab_size": 11, "d_model": 16, "n_heads": 4, "d_ff": 24, "n_layers": 2, "max_len": 8, "bias": False}
MOE = {"ffn": "moe", "n_experts": 4, "moe_top_k": 2}


def cfg(**changes) -> ModelConfig:
    return ModelConfig(**{**SMALL, **changes})


def test_the_config_names_the_rules_the_router_computes():
    assert RULES == ("softmax", "sigmoid")


@pytest.mark.parametrize(
    "changes, key, fields",
    [
        ({"moe_top_k": 5}, "moe.top_k", {"top_k": 5, "n_experts": 4}),
        ({"moe_top_k": 0}, "moe.top_k", {"top_k": 0, "n_experts": 4}),
        ({"n_experts": 0, "moe_top_k": 1}, "moe.experts", {"n_experts": 0}),
        ({"moe_rule": "deepseek"}, "moe.rule", {"rule": "deepseek", "names": ["softmax", "sigmoid"]}),
        ({"moe_shared": -1}, "config.non_negative", {"name": "moe_shared", "value": -1}),
        ({"moe_aux_loss": float("nan")}, "config.non_negative", {"name": "moe_aux_loss"}),
        ({"moe_z_loss": -0.1}, "config.non_negative", {"name": "moe_z_loss", "value": -0.1}),
        ({"moe_bias_rate": -0.001}, "config.non_negative", {"name": "moe_bias_rate", "value": -0.001}),
        ({"moe_bias_rate": float("nan")}, "config.non_negative", {"name": "moe_bias_rate"}),
        ({"moe_first_dense": 3}, "config.moe_first_dense", {"k": 3, "n_layers": 2}),
        ({"moe_first_dense": -1}, "config.moe_first_dense", {"k": -1, "n_layers": 2}),
    ],
)
def test_a_routing_that_cannot_be_computed_is_refused_with_the_numbers(changes, key, fields):
    got_key, got = keyed(UsageError, cfg, **{**MOE, **changes})
    assert got_key == key and fields.items() <= got.items()


@pytest.mark.parametrize("name", list(MOE_FIELDS))
def test_an_experts_field_set_without_ffn_moe_is_refused_naming_it(name):
    value = {bool: False, str: "sigmoid", int: 3, float: 0.5}[type(MOE_FIELDS[name])]
    assert keyed(UsageError, cfg, ffn="swiglu", **{name: value}) == (
        "config.moe_only",
        {"field": name, "value": value, "ffn": "swiglu"},
    )


def test_feed_forward_builds_the_experts_the_config_names():
    model = GPT(cfg(**MOE, moe_shared=1, moe_d_ff=8, moe_normalize=False))
    ffn = model.blocks[1].ffn
    assert isinstance(ffn, MixtureOfExperts) and len(ffn.experts) == 4
    assert ffn.router.routing.top_k == 2 and ffn.router.routing.normalize is False
    assert ffn.experts[0].up.weight.shape == (8, 16) and ffn.shared is not None
    assert ffn.shared.up.weight.shape == (8, 16)
    assert cfg(**MOE).expert_d_ff == 24  # 0: d_ff


def test_the_first_dense_blocks_get_one_ffn_d_ff_wide_and_the_rest_the_experts():
    model = GPT(cfg(**MOE, n_layers=3, moe_first_dense=2, moe_d_ff=8))
    dense = [b.ffn for b in model.blocks[:2]]
    assert all(type(f) is GatedFeedForward and f.up.weight.shape == (24, 16) for f in dense)  # d_ff, not moe_d_ff
    ffn = model.blocks[2].ffn
    assert isinstance(ffn, MixtureOfExperts) and ffn.experts[0].up.weight.shape == (8, 16)
    assert all(isinstance(b.ffn, MixtureOfExperts) for b in GPT(cfg(**MOE, moe_first_dense=0)).blocks)
    assert not any(isinstance(b.ffn, MixtureOfExperts) for b in GPT(cfg(**MOE, moe_first_dense=2)).blocks)


def test_the_balance_losses_load_and_bias_read_the_expert_layers_only():
    torch.manual_seed(0)
    model = GPT(cfg(**MOE, moe_first_dense=1, moe_rule="sigmoid", moe_aux_loss=0.02, moe_z_loss=0.001))
    model(model.example_input(2, 5))
    logits = [model.blocks[1].ffn.last_logits]  # (2, 5, 4): block 0 is dense
    want = 0.02 * load_balancing_loss(logits, 2) + 0.001 * router_z_loss(logits)
    assert torch.equal(model.extra_loss(), want)
    load = layer_loads(model)  # (1, 4): one expert layer
    assert load is not None and load.shape == (1, 4) and int(load.sum()) == 2 * 5 * 2
    balance_experts(model, load, 0.1)  # one row of load for the one router (zip strict)
    bias = model.blocks[1].ffn.router.selection_bias
    assert bias is not None and torch.equal(bias, balance_step(torch.zeros(4), load[0], 0.1)) and bias.any()


def test_extra_loss_is_the_balance_losses_of_every_layer_of_the_last_forward():
    torch.manual_seed(0)
    model = GPT(cfg(**MOE, moe_aux_loss=0.02, moe_z_loss=0.001))
    assert model.extra_loss() is None  # no forward yet
    model(model.example_input(2, 5))
    logits = [block.ffn.last_logits for block in model.blocks]  # 2 × (2, 5, 4)
    want = 0.02 * load_balancing_loss(logits, 2) + 0.001 * router_z_loss(logits)
    assert torch.equal(model.extra_loss(), want) and want > 0
    assert GPT(cfg()).extra_loss() is None  # a dense model has none


def test_under_bf16_autocast_the_router_and_the_balance_losses_stay_float32():
    """The balance losses are small differences of near-uniform numbers: in bfloat16 (8 bits of
    mantissa) they would move in steps of about 2e-4 at 0.04, and the router's choice with them."""
    torch.manual_seed(0)
    model = GPT(cfg(**MOE, moe_aux_loss=0.02, moe_z_loss=0.001))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(model.example_input(2, 5))
        extra = model.extra_loss()
    assert model.blocks[0].ffn.last_logits.dtype == torch.float32 and extra.dtype == torch.float32


def train_records(tmp_path, model_cfg: ModelConfig, steps: int = 3) -> list[dict]:
    tmp_path.mkdir()
    torch.manual_seed(0)
    model = GPT(model_cfg)
    ids = torch.randint(0, 11, (8, 6))  # (8, 6)
    batches = TensorBatches(ids[:, :-1], ids[:, 1:], 4)
    train = TrainConfig(max_steps=steps, eval_interval=steps, log_interval=1, batch_size=4, seq_len=5, threads=1)
    Trainer(model, train, batches, tmp_path, evaluate=None, progress="silent").fit()
    return [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]


def test_the_trainer_adds_the_balance_losses_and_logs_them(tmp_path):
    on = train_records(tmp_path / "on", cfg(**MOE, moe_aux_loss=1.0, moe_z_loss=0.5))
    off = train_records(tmp_path / "off", cfg(**MOE))
    assert all(r["extra_loss"] > 0 for r in on) and all(r["extra_loss"] == 0 for r in off)
    # the first step's forward is the same; its loss is the cross-entropy plus the extra loss
    assert on[0]["loss"] == pytest.approx(off[0]["loss"] + on[0]["extra_loss"], abs=1e-6)
    # the extra loss's gradient reaches the routers: the second step's cross-entropy differs
    assert on[1]["loss"] - on[1]["extra_loss"] != pytest.approx(off[1]["loss"], abs=1e-7)
    dense = train_records(tmp_path / "dense", cfg())
    assert all("extra_loss" not in r and "expert_max_violation" not in r for r in dense)  # as before
    assert all(r["expert_max_violation"] >= 0 for r in on)  # an expert model's balance logged beside


def test_the_trainer_balances_and_logs_the_expert_layers_after_the_dense_ones(tmp_path):
    records = train_records(tmp_path / "run", cfg(**MOE, moe_first_dense=1, moe_rule="sigmoid", moe_aux_loss=0.1))
    assert len(records) == 3 and all(r["extra_loss"] > 0 and r["expert_max_violation"] >= 0 for r in records)

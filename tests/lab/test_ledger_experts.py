"""The ledger entries of issue 47: a mixture of experts against a dense model at equal active
parameters (moe), the router's balance with and without a balance loss or a moving bias (balance),
latent attention against GQA and MHA at equal parameters (mla). Their rules on made-up numbers, and
the constructions they rest on (the loss read at the dense run's time; the load's share, MaxVio and
entropy; equal parameter counts; the cache measured from a real cache equal to the formula)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from glassformer.lab import balance, mla, moe
from glassformer.lab.common import spread
from glassformer.models import build_model


# ---- moe -----------------------------------------------------------------------------------------
def curve(seconds: float, final: float) -> list:
    """A made-up validation curve of 3 points ending at `final` after `seconds` of CPU time."""
    return [(0, 0.0, 0.0, 4.0), (150, seconds / 2, seconds, (4.0 + final) / 2), (300, seconds, 2 * seconds, final)]


def moe_results(dense=(2.00, 2.01, 2.02), mixture=(1.95, 1.96, 1.97), dense_s=10.0, moe_s=20.0) -> dict:
    models = {}
    for kind, finals, s in (("dense", dense, dense_s), ("moe", mixture, moe_s)):
        curves = [curve(s, f) for f in finals]
        models[kind] = {
            "preset": moe.MODELS[kind],
            "params": 100,
            "active": 100,
            "curves": curves,
            "val_loss": spread(finals),
            "cpu_s": spread([s] * len(finals)),
            "wall_s": spread([2 * s] * len(finals)),
        }
    r = {"steps": 300, "T": 64, "unigram": 3.3, "models": models}
    r["at_dense_time"] = spread(moe.at_dense_time(r))
    return r


def test_the_mixtures_loss_at_the_dense_runs_time_is_read_on_its_own_curve():
    r = moe_results(dense=(2.0,), mixture=(1.9,), dense_s=10.0, moe_s=20.0)
    # the mixture's curve: 4.0 at 0 s, 2.95 at 10 s, 1.9 at 20 s: at the dense run's 10 s it stands at 2.95
    assert moe.at_dense_time(r) == [pytest.approx(2.95)]
    r = moe_results(dense=(2.0,), mixture=(1.9,), dense_s=10.0, moe_s=5.0)  # a mixture faster than dense
    assert moe.at_dense_time(r) == [pytest.approx(1.9)]  # past its last point: its final loss


def test_moe_better_per_step_and_worse_per_second_is_both_claims_holding():
    v = moe.verdicts(moe_results())
    assert v["moe.step"].level == "holds" and v["moe.time"].level == "holds"
    f = v["moe.step"].figures
    assert (f["cpu_dense"], f["cpu_moe"], f["slower"]) == ("10.0", "20.0", "2.00")


def test_overlapping_seeds_are_half_true_and_a_worse_mixture_fails_per_step():
    v = moe.verdicts(moe_results(mixture=(1.97, 2.00, 2.015)))  # mean below, one seed above a dense seed
    assert v["moe.step"].level == "half-true"
    v = moe.verdicts(moe_results(mixture=(2.05, 2.06, 2.07)))
    assert v["moe.step"].level == "fails"


def test_a_mixture_as_fast_as_the_dense_model_fails_natchats_note():
    v = moe.verdicts(moe_results(dense_s=10.0, moe_s=10.0))  # same time, lower loss: MoE wins per second too
    assert v["moe.time"].level == "fails"
    assert v["moe.time"].figures["moe_at"] == v["moe.time"].figures["moe"]


def test_baby_moe_and_baby_llama_are_the_entrys_two_models():
    assert moe.MODELS == {"dense": "baby-llama", "moe": "baby-moe"}


# ---- balance -------------------------------------------------------------------------------------
def test_the_load_of_a_layer_gives_its_shares_maxvio_and_entropy():
    b = balance.balance(np.array([[10, 10, 10, 10], [40, 0, 0, 0], [20, 20, 0, 0]]))
    assert b["shares"] == [[0.25] * 4, [1.0, 0, 0, 0], [0.5, 0.5, 0, 0]]
    assert b["max_violation"] == pytest.approx([0.0, 3.0, 1.0])  # (max - mean) / mean; E - 1 all on one
    assert b["entropy"] == pytest.approx([1.0, 0.0, 0.5])  # over ln E: ln 2 / ln 4 for two of four


def balance_results(none=(2.0, 2.5, 3.0), loss=(0.2, 0.3, 0.25), bias=(0.3, 0.4, 0.45), h_none=None) -> dict:
    def variant(worst, entropy):
        return {"seeds": [], "worst": spread(worst), "entropy": spread(entropy), "val_loss": spread([2.0] * 3)}

    return {
        "steps": 200,
        "T": 64,
        "variants": {
            "none": variant(none, h_none or (0.6, 0.65, 0.7)),
            "loss": variant(loss, (0.95, 0.96, 0.97)),
            "bias": variant(bias, (0.93, 0.94, 0.95)),
        },
    }


def test_balance_holds_on_the_papers_picture():
    v = balance.verdicts(balance_results())
    assert v["balance.collapse"].level == "holds" and v["balance.even"].level == "holds"
    assert v["balance.collapse"].figures["none"] == "2.50 ± 0.50"


def test_one_seed_without_the_loss_below_the_collapse_line_is_half_true():
    v = balance.verdicts(balance_results(none=(0.9, 2.5, 3.0)))  # one seed under MaxVio 1
    assert v["balance.collapse"].level == "half-true"
    v = balance.verdicts(balance_results(none=(0.3, 0.4, 0.5), h_none=(0.95, 0.96, 0.97)))  # no collapse
    assert v["balance.collapse"].level == "fails"


def test_a_bias_that_leaves_one_layer_uneven_is_half_true():
    assert balance.verdicts(balance_results(bias=(0.3, 0.6, 0.4)))["balance.even"].level == "half-true"
    v = balance.verdicts(balance_results(bias=(0.6, 0.7, 0.8), loss=(0.5, 0.55, 0.6)))
    assert v["balance.even"].level == "fails"


# ---- mla -----------------------------------------------------------------------------------------
def mla_results(mha=(2.00, 2.01, 2.02), gqa=(2.01, 2.02, 2.03), latent=(2.00, 2.02, 2.03), bytes_=None) -> dict:
    bytes_ = bytes_ or {"mha": 4096, "gqa": 2048, "mla": 768}
    models = {
        name: {"d_ff": 300, "params": 1000, "cache_bytes": bytes_[name], "formula_bytes": bytes_[name]}
        | {"val_loss": spread(v), "seconds": spread([1.0])}
        for name, v in (("mha", mha), ("gqa", gqa), ("mla", latent))
    }
    return {"steps": 200, "T": 64, "unigram": 3.3, "models": models}


def test_mla_holds_on_the_papers_picture():
    v = mla.verdicts(mla_results())
    assert v["mla.cache"].level == "holds" and v["mla.quality"].level == "holds"
    assert v["mla.cache"].figures["share"] == "18.8%"


def test_a_latent_cache_larger_than_a_quarter_of_mhas_is_half_true():
    v = mla.verdicts(mla_results(bytes_={"mha": 4096, "gqa": 2048, "mla": 1536}))
    assert v["mla.cache"].level == "half-true"
    v = mla.verdicts(mla_results(bytes_={"mha": 4096, "gqa": 2048, "mla": 3072}))
    assert v["mla.cache"].level == "fails"


def test_a_latent_attention_clearly_worse_than_both_fails_quality():
    v = mla.verdicts(mla_results(latent=(2.10, 2.11, 2.12)))
    assert v["mla.quality"].level == "fails"
    v = mla.verdicts(mla_results(mha=(1.90, 1.91, 1.92), latent=(2.02, 2.03, 2.04)))  # > 0.03 above MHA, near GQA
    assert v["mla.quality"].level == "half-true"


def test_the_three_attentions_have_baby_llamas_parameters_and_caches_measured_as_the_formula_says():
    vocab = 65
    presets = mla.variants(64, vocab)
    counts = {name: mla.parameters(p, vocab) for name, p in presets.items()}
    C, L = presets["gqa"].model.d_model, presets["gqa"].model.n_layers
    assert all(abs(n - counts["gqa"]) <= L * 3 * C // 2 for n in counts.values())  # half a d_ff step a layer
    assert presets["mha"].model.kv_heads == presets["mha"].model.n_heads and presets["mla"].model.mla_kv_rank
    measured = {}
    for name, p in presets.items():
        model = build_model(p.model.__class__(**{**p.model.__dict__, "vocab_size": vocab}))
        measured[name] = mla.measured_cache(model)
        assert measured[name] == mla.formula_cache(model.cfg), name
    # float32, 4 layers: MHA 2·4·32 numbers a layer, GQA 2·2·32, MLA R_kv 32 + D_r 16
    assert measured == {"mha": 4 * 256 * 4, "gqa": 4 * 128 * 4, "mla": 4 * 48 * 4}
    assert math.isclose(measured["mla"] / measured["mha"], 48 / 256)

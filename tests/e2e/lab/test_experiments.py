"""Every experiment in --fast mode (the lab's own offline text, seconds each), with assertions on
what it computed — the properties that hold whatever the training noise, never only that it ran."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from glassformer.lab import get_experiment, length, order
from glassformer.lab.runner import run_experiment
from glassformer.nn.position import POSITION_SCHEMES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lab_out(tmp_path_factory):
    return tmp_path_factory.mktemp("lab")


def fast(name: str, out) -> dict:
    before = torch.get_num_threads()
    record = run_experiment(get_experiment(name), fast=True, out=out, echo=lambda s: None)
    assert torch.get_num_threads() == before  # --threads is restored afterwards
    saved = json.loads((out / name / "results.json").read_text(encoding="utf-8"))
    assert saved["fast"] and saved["claims"] and all(c["level"] for c in saved["claims"])
    for fig in saved["figures"]:
        assert (out / name / fig).read_bytes()[:4] == b"\x89PNG" and (out / name / fig).stat().st_size < 200_000
    return record


def test_mask_fill_nan_in_the_naive_recipe_never_in_ours(lab_out):
    r = fast("mask-fill", lab_out)["results"]
    cells = 64 * 8
    for dtype in ("float32", "bfloat16", "float16"):
        assert r["naive"][dtype]["-inf"]["fully"]["nan"] == cells  # every weight of those rows
        for row in ("partly", "fully"):
            assert r["ours"][dtype][row]["nan"] == 0 and r["ours"][dtype][row]["hidden_mass"] == 0
        assert r["naive"][dtype]["-inf"]["partly"]["hidden_nonzero"] == 0  # exactly 0, not "close to"
    assert r["naive"]["float32"]["-1e9"]["fully"]["hidden_mass"] == pytest.approx(1.0)  # even spread
    assert r["naive"]["float16"]["-1e9"]["fully"]["refused"]  # PyTorch will not store -1e9 in float16
    assert r["stored_fill"]["float16"]["-1e9"] == "-inf"


def test_length_has_per_position_losses_for_every_registered_scheme(lab_out):
    r = fast("length", lab_out)["results"]
    T, T_eval = r["T"], r["T_eval"]
    assert set(POSITION_SCHEMES) <= set(r["variants"])
    for label, v in r["variants"].items():
        per = np.array(v["per_position"], dtype=float)  # (seeds, T_eval)
        assert per.shape[1] == T_eval and np.isfinite(per[:, : v["reach"]]).all(), label
        assert np.isnan(per[:, v["reach"] :]).all(), label
    assert r["variants"]["learned"]["reach"] == T  # no table rows past max_len: reported, not crashed
    assert r["variants"]["sinusoidal"]["reach"] == r["variants"]["none"]["reach"] == T_eval
    for name in POSITION_SCHEMES:  # a scheme registered later (rotary, ALiBi) reaches one or the other
        assert r["variants"][name]["reach"] in (T, T_eval), name
    assert r["variants"][length.WIDE]["max_len"] == T_eval  # a learned table with rows past T


def test_extrapolation_copies_with_every_registered_scheme_and_reads_the_char_model_long(lab_out):
    record = fast("extrapolation", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    r = record["results"]
    c, lm = r["copy"], r["lm"]
    assert list(c["schemes"]) == list(POSITION_SCHEMES) and c["lengths"] == list(range(1, 2 * c["L"] + 1))
    for name, v in c["schemes"].items():
        token = np.array([x["token"] for x in v["runs"]])  # (seeds, 2L)
        exact = np.array([x["exact"] for x in v["runs"]])
        assert token.shape == (1, 2 * c["L"]) and ((0 <= token) & (token <= 1)).all(), name
        assert (exact <= token + 1e-9).all(), name  # a row copied exactly has every token right
        assert v["inside"]["mean"] > 1.5 / c["V"], name  # it learned more than guessing a symbol
        assert v["beyond"]["mean"] == pytest.approx(token[:, c["L"] :].mean()), name
    assert set(lm["variants"]) == {"alibi", "sinusoidal"}
    for v in lm["variants"].values():
        per = np.array(v["per_position"])  # (seeds, T_eval)
        assert per.shape == (1, lm["T_eval"]) and np.isfinite(per).all()
        assert v["bands"]["2x"]["mean"] == pytest.approx(per[0, lm["T"] : 2 * lm["T"]].mean())
    claims = {x["key"]: x for x in record["claims"]}
    assert claims["extrapolation.nope"]["figures"]["n"] == len(POSITION_SCHEMES)
    assert claims["extrapolation.alibi"]["paper"] == "arXiv 2108.12409"


def test_order_equivariance_holds_for_the_encoder_only(lab_out):
    r = fast("order", lab_out)["results"]
    eq = r["equivariance"]
    encoder, learned, decoder = order.CASES  # by what they are: ("encoder", no causal mask, positions)
    assert [order.CASES[k] for k in (encoder, learned, decoder)] == [
        ("encoder", False, "none"),
        ("encoder", False, "learned"),
        ("gpt", True, "none"),
    ]
    assert eq[encoder] < 1e-6
    assert eq[learned] > 1e-3 and eq[decoder] > 1e-3
    assert r["schemes"]["none"]["val_loss"]["mean"] < r["unigram"]  # it learned something


def test_scaling_variance_and_the_unscaled_wrapper(lab_out):
    r = fast("scaling", lab_out)["results"]
    for d, ways in r["numbers"].items():
        assert ways["scaled"]["variance"] == pytest.approx(1.0, rel=0.1)
        assert ways["unscaled"]["variance"] == pytest.approx(int(d), rel=0.1)
        assert ways["unscaled"]["saturated"] >= ways["scaled"]["saturated"]
    assert set(r["training"]) == {"D=64 scaled", "D=64 unscaled"}


def test_unscaled_really_drops_the_square_root():
    from glassformer.lab.common import lab_preset
    from glassformer.lab.scaling import Unscaled
    from glassformer.models import build_model

    torch.manual_seed(0)
    model = build_model(lab_preset(n_heads=2, vocab_size=20).model).eval()
    ids = torch.randint(0, 20, (1, 8))
    wrapped = Unscaled(model)
    seen = {}
    with torch.no_grad():
        _, plain = model.run_with_cache(ids, names=["blocks.0.attn.q", "blocks.0.attn.k"])
        logits = wrapped(ids)
        model.run_with_hooks(
            ids, hooks={**wrapped.hooks, "blocks.0.attn.weights": lambda t, name: seen.update({name: t})}
        )
        assert not torch.allclose(logits, model(ids))  # a different function ...
    q, k = plain["blocks.0.attn.q"], plain["blocks.0.attn.k"]  # (1, H, T, D)
    future = ~torch.tril(torch.ones(8, 8, dtype=torch.bool))
    expected = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(future, -math.inf), dim=-1)  # no 1/√D
    assert torch.allclose(seen["blocks.0.attn.weights"], expected, atol=1e-6)  # ... and exactly this one
    assert all(not hp.fns for hp in model.hook_points().values())  # nothing left attached


def test_heads_keep_the_parameter_count_and_measure_entropy(lab_out):
    r = fast("heads", lab_out)["results"]
    for h, v in r["heads"].items():
        assert v["D"] * int(h) == 64
        assert 0.0 <= v["entropy"]["mean"] <= 1.0 and 0.0 <= v["self_weight"]["mean"] <= 1.0
        assert 0.0 <= v["diagonal_share"]["mean"] + v["uniform_share"]["mean"] <= 2.0


def test_ffn_width_zero_removes_the_ffn(lab_out):
    r = fast("ffn-width", lab_out)["results"]
    w = r["widths"]
    params = [w[k]["params"] for k in sorted(w, key=int)]
    assert params == sorted(params) and len(set(params)) == len(params)  # more width, more parameters
    C = 64
    assert w["64"]["params"] - w["0"]["params"] == 2 * (2 * (C * C + C) + 2 * C)  # 2 blocks: fc1, fc2, ln2
    assert r["nonlinearity_at_C"] > 0.1  # an FFN of width C is not a linear map


def test_glu_trains_four_ffns_at_equal_parameters(lab_out):
    record = fast("glu", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    v = record["results"]["variants"]
    assert list(v) == ["relu", "gelu", "swiglu", "geglu"]
    assert v["relu"]["params"] == v["gelu"]["params"] and v["swiglu"]["params"] == v["geglu"]["params"]
    assert abs(v["swiglu"]["params"] - v["gelu"]["params"]) < 0.01 * v["gelu"]["params"]
    assert v["gelu"]["d_ff"] == 256 and v["swiglu"]["d_ff"] == 171
    for x in v.values():
        assert len(x["val_loss"]["values"]) == 1 and x["val_loss"]["mean"] < record["results"]["unigram"]


def test_gqa_trains_every_h_kv_and_its_cache_shrinks_with_it(lab_out):
    record = fast("gqa", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    v = record["results"]["kv_heads"]
    assert list(v) == ["8", "4", "2", "1"]
    assert [v[k]["kv_bytes"] for k in v] == [1024, 512, 256, 128]  # 2 layers × (K, V) × H_kv·8 × 4 bytes
    params = [v[k]["params"] for k in v]
    assert params == sorted(params, reverse=True) and len(set(params)) == 4  # fewer K, V columns
    for x in v.values():
        assert len(x["val_loss"]["values"]) == 1 and x["val_loss"]["mean"] < record["results"]["unigram"]


def test_yarn_reads_one_trained_rope_model_four_times_longer_under_each_scaling(lab_out):
    record = fast("yarn", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    r = record["results"]
    assert r["T_eval"] == r["factor"] * r["T"]
    assert (r["corpus"], r["zh"]["corpus"]) == ("toy", "toy")  # --fast: the toy text read twice, by the same code
    for scalings in (r["scalings"], r["zh"]["scalings"]):
        assert list(scalings) == ["none", "linear", "dynamic", "yarn", "llama3"]
        for name, v in scalings.items():
            per = np.array(v["per_position"])  # (seeds, T_eval)
            assert per.shape == (1, r["T_eval"]) and np.isfinite(per).all(), name
            assert v["beyond"]["mean"] == pytest.approx(per[:, r["T"] :].mean()), name
            assert v["inside"]["mean"] == pytest.approx(per[:, r["T"] // 2 : r["T"]].mean()), name
    assert [c["key"] for c in record["claims"]] == ["yarn.flat", "yarn.flat_zh"]


def test_moe_trains_baby_llama_and_baby_moe_at_equal_active_parameters_and_times_them(lab_out):
    record = fast("moe", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    r = record["results"]
    dense, mixture = r["models"]["dense"], r["models"]["moe"]
    assert abs(mixture["active"] - dense["active"]) < 0.002 * dense["active"] < mixture["params"] - dense["params"]
    for v in (dense, mixture):
        (c,) = v["curves"]  # one seed
        assert [p[0] for p in c] == [0, 4, 8]  # step 0, then every 4 steps
        assert all(a[1] < b[1] and a[2] < b[2] for a, b in zip(c, c[1:], strict=False))  # CPU and wall seconds grow
        assert v["val_loss"]["mean"] == c[-1][3] < c[0][3]
    assert r["at_dense_time"]["values"] == pytest.approx(
        [np.interp(dense["curves"][0][-1][1], *np.array(mixture["curves"][0])[:, [1, 3]].T)]
    )


def test_balance_counts_each_experts_share_of_the_token_slots(lab_out):
    record = fast("balance", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    v = record["results"]["variants"]
    assert list(v) == ["none", "loss", "bias"]
    for x in v.values():
        (seed,) = x["seeds"]
        shares = np.array(seed["shares"])  # (L, E)
        assert shares.shape == (4, 8) and np.allclose(shares.sum(1), 1.0)
        assert np.allclose(seed["max_violation"], (shares.max(1) - 1 / 8) * 8, atol=1e-6)
        assert x["worst"]["values"] == [max(seed["max_violation"])]


def test_mla_measures_three_caches_at_equal_parameters(lab_out):
    record = fast("mla", lab_out)
    assert record["cpu_seconds"] < 15  # the --fast budget
    v = record["results"]["models"]
    assert list(v) == ["mha", "gqa", "mla"]
    assert all(x["cache_bytes"] == x["formula_bytes"] for x in v.values())
    assert v["mha"]["cache_bytes"] > v["gqa"]["cache_bytes"] > v["mla"]["cache_bytes"]
    assert all(abs(x["params"] - v["gqa"]["params"]) <= 4 * 3 * 128 // 2 for x in v.values())  # half a d_ff step
    for x in v.values():  # 8 steps inside baby's 100-step warmup: trained a little, nowhere near done
        assert len(x["val_loss"]["values"]) == 1 and math.isfinite(x["val_loss"]["mean"])


def test_no_ffn_block_adds_nothing():
    from glassformer.lab.common import lab_preset
    from glassformer.lab.ffn_width import remove_ffn
    from glassformer.models import build_model

    torch.manual_seed(0)
    model = build_model(lab_preset(vocab_size=20, d_ff=1).model)
    remove_ffn(model)
    _, cache = model.run_with_cache(torch.randint(0, 20, (2, 8)))
    assert torch.equal(cache["blocks.0.resid_mid"], cache["blocks.0.resid_post"])
    assert "blocks.0.ffn.hidden" not in model.hook_points()


def test_causal_leak_gradient_is_exactly_zero_with_the_mask(lab_out):
    r = fast("causal-leak", lab_out)["results"]
    assert r["text"]["causal"]["future_grad"]["mean"] == 0.0
    assert r["text"]["none"]["future_grad"]["mean"] > 0.0
    rt = r["random_tokens"]
    assert rt["held_out"]["none"] < rt["held_out"]["causal"]
    for mask in ("causal",):  # with the mask, honest and teacher-forced loss are the same computation
        v = r["text"][mask]
        assert v["honest"]["mean"] == pytest.approx(v["teacher_forced"]["mean"], abs=1e-4)


def test_init_measures_every_start(lab_out):
    r = fast("init", lab_out)["results"]
    assert len(r["runs"]) == 8
    large, xavier = r["runs"]["no LN / large"]["at_init"], r["runs"]["no LN / xavier"]["at_init"]
    assert large["score_std"] > 100 * xavier["score_std"]
    for v in r["runs"].values():
        assert v["status"] and set(v["at_init"]["grad_norm"]) >= {"blocks.0", "blocks.1", "head"}


def test_layernorm_sweep_is_complete(lab_out):
    r = fast("layernorm", lab_out)["results"]
    assert len(r["sweep"]) == 2 * len(r["warmups"]) * len(r["depths"]) * len(r["lrs"])
    for norm in ("pre", "post"):
        g = r["grad_at_init"][norm]
        assert len(g) == max(r["depths"]) and all(x > 0 for x in g)


def test_attention_steps_records_the_chosen_steps(lab_out):
    r = fast("attention-steps", lab_out)["results"]
    assert r["steps"] == [0, 5, 20, 60]
    assert min(r["entropy"][0]) > 0.9  # untrained heads spread their weight almost evenly
    page = (lab_out / "attention-steps" / "attention_steps.html").read_text(encoding="utf-8")
    assert 'type="range"' in page and "http" not in page


def test_attention_explanation_measures_every_probe_example_and_keeps_the_adversary_in_budget(lab_out):
    from glassformer.lab.attention_explanation import EPS

    r = fast("attention-explanation", lab_out)["results"]
    P, T = len(r["probe"]), r["T"]
    assert len(r["models"]) == 2 and len(r["seed_jsd"]) == 1  # the yardstick's pair of seeds
    for m in r["models"]:
        assert np.array(m["attention"]).shape == (P, T + 1)
        assert np.allclose(np.array(m["attention"]).sum(1), 1.0, atol=1e-4)  # stored to 5 decimals, T+1 of them
        for key in ("grad", "loo", "grad_loo"):
            tau = np.array(m["tau"][key], dtype=float)
            assert tau.shape == (P,) and (np.nan_to_num(np.abs(tau)) <= 1 + 1e-9).all()
        assert max(m["adv_gap"]) <= EPS and min(m["adv_jsd"]) >= 0 and max(m["adv_jsd"]) <= math.log(2) + 1e-6
        assert 0 <= m["key_weight"] <= 1 and all(0 <= a <= 1 for a in m["top_agree"].values())
    assert 0 <= r["seed_jsd"][0] <= math.log(2)
    for task in ("bag", "keyed"):
        (x,) = r["uniform"][task]
        assert 0 <= x["uniform"] <= 1 and 0 <= x["learned"] <= 1


def test_induction_text_watches_both_models_on_the_text_with_the_induction_entrys_score(lab_out):
    from glassformer.lab.induction import icl_tokens, summary

    r = fast("induction-text", lab_out)["results"]
    assert r["corpus"] == "toy" and (r["early"], r["late"]) == icl_tokens(r["L"])
    assert 0 < r["perfect"]["induction"] < 1 and 0 < r["perfect"]["previous_token"] <= 1
    curves = {}
    for m in ("attention", "ffn"):
        (run,) = r["runs"][m]
        assert run["status"] == "done"
        assert [row["step"] for row in run["curve"]] == list(range(0, r["steps"] + 1, r["every"]))
        for row in run["curve"]:
            assert np.isfinite(row["icl"]) and np.isfinite(row["eval_loss"])
            for kind in ("induction", "previous_token"):
                scores = np.array(row[kind])  # (layers, heads)
                assert scores.shape == (2, r["heads"]) and (scores >= 0).all() and (scores <= 1 + 1e-6).all()
        assert run["curve"][0]["eval_loss"] > run["curve"][-1]["eval_loss"]  # it trained on the text
        assert run["summary"] == pytest.approx(summary(run["curve"], r["steps"], r["perfect"]))
        curves[m] = [row["eval_loss"] for row in run["curve"]]
    assert curves["attention"][0] != curves["ffn"][0]  # two different models from the same seed

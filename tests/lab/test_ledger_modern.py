"""The ledger entries of the modern decoder's pieces: the gated FFN against the plain one (Shazeer
2020), grouped-query attention against multi-head (Ainslie et al. 2023) and RoPE scaling past the
training length (Peng et al. 2023). Their rules on made-up numbers, and the constructions they rest on
(equal parameters; the cache's bytes per token; one trained state read under every scaling)."""

from __future__ import annotations

import pytest

from glassformer.lab import glu, gqa, yarn
from glassformer.lab.common import lab_preset, spread
from glassformer.models import build_model


# ---- glu -----------------------------------------------------------------------------------------
def glu_results(**losses) -> dict:
    """Made-up results: each FFN's per-seed validation losses (defaults: both gated FFNs clearly lower)."""
    base = {
        "relu": (2.10, 2.12, 2.11),
        "gelu": (2.08, 2.09, 2.10),
        "swiglu": (2.00, 2.01, 2.02),
        "geglu": (2.03, 2.02, 2.04),
    }
    base.update(losses)
    variants = {
        name: {"d_ff": glu.changes(name)["d_ff"], "params": 1000, "ffn_params": 600, "val_loss": spread(v)}
        for name, v in base.items()
    }
    return {"steps": 600, "C": 64, "unigram": 3.3, "variants": variants}


def test_glu_holds_when_both_gated_ffns_beat_both_plain_ones_beyond_the_seeds_scatter():
    v = glu.verdicts(glu_results())["glu.beats"]
    assert v.level == "holds" and (v.figures["wins"], v.figures["pairs"]) == (4, 4)


def test_a_difference_inside_the_seeds_scatter_is_not_shown():
    # GeGLU's mean is below GELU's, but one GeGLU seed is above one GELU seed: that pair is not won
    v = glu.verdicts(glu_results(geglu=(2.05, 2.06, 2.085)))["glu.beats"]
    assert v.level == "half-true" and v.figures["wins"] == 3


def test_glu_fails_when_no_gated_ffn_is_clearly_lower():
    same = (2.08, 2.09, 2.10)
    v = glu.verdicts(glu_results(swiglu=same, geglu=(2.2, 2.3, 2.25)))["glu.beats"]
    assert v.level == "fails" and v.figures["wins"] == 0


def test_one_seed_each_is_judged_by_the_values_themselves():
    r = glu_results(relu=(2.1,), gelu=(2.0,), swiglu=(1.9,), geglu=(2.05,))
    v = glu.verdicts(r)["glu.beats"]
    assert v.level == "half-true" and v.figures["wins"] == 3  # GeGLU beats ReLU only


def test_the_gated_ffn_is_two_thirds_as_wide_and_as_large_within_a_percent():
    assert glu.F_GLU == round(2 * glu.F / 3)
    sizes = {}
    for name in glu.PLAIN + glu.GATED:
        model = build_model(lab_preset(vocab_size=65, **glu.changes(name)).model)
        sizes[name] = (sum(p.numel() for p in model.parameters()), glu.ffn_params(model))
    C, F, G = glu.C, glu.F, glu.F_GLU
    layers = lab_preset().model.n_layers
    assert sizes["relu"] == sizes["gelu"] and sizes["swiglu"] == sizes["geglu"]
    assert sizes["gelu"][1] == layers * 2 * C * F  # W₁, W₂, no biases
    assert sizes["swiglu"][1] == layers * 3 * C * G  # W_gate, W_up, W_down, no biases
    assert sizes["swiglu"][0] == pytest.approx(sizes["gelu"][0], rel=0.01)


# ---- gqa -----------------------------------------------------------------------------------------
def gqa_results(**losses) -> dict:
    """Made-up results: per-seed validation losses by H_kv (defaults: GQA close to MHA, MQA clearly worse)."""
    base = {"8": (2.00, 2.01, 2.02), "4": (2.01, 2.02, 2.03), "2": (2.02, 2.03, 2.04), "1": (2.08, 2.09, 2.10)}
    base.update({k.removeprefix("kv"): v for k, v in losses.items()})
    kv_heads = {kv: {"params": 1000, "kv_bytes": 128 * int(kv), "val_loss": spread(v)} for kv, v in base.items()}
    return {"steps": 600, "H": 8, "unigram": 3.3, "kv_heads": kv_heads}


def test_gqa_close_and_mqa_worse_hold_on_the_papers_picture():
    v = gqa.verdicts(gqa_results())
    assert v["gqa.close"].level == "holds" and v["gqa.mqa"].level == "holds"
    assert (v["gqa.close"].figures["bytes_mha"], v["gqa.close"].figures["bytes_gqa4"]) == ("1,024", "256")
    assert v["gqa.close"].figures["diff4"] == "+0.020"
    figures = v["gqa.close"].figures
    assert (figures["kv2"], figures["kv4"]) == (4, 2)  # the H_kv of the gqa2 and gqa4 rows, H = 8


def test_a_grouped_model_clearly_and_far_above_mha_is_not_close():
    v = gqa.verdicts(gqa_results(kv2=(2.10, 2.11, 2.12)))  # +0.10 nats, every seed above every MHA seed
    assert v["gqa.close"].level == "half-true"
    v = gqa.verdicts(gqa_results(kv4=(2.10, 2.11, 2.12), kv2=(2.10, 2.11, 2.12)))
    assert v["gqa.close"].level == "fails"


def test_a_large_mean_gap_inside_the_seeds_scatter_is_not_shown_so_it_counts_as_close():
    v = gqa.verdicts(gqa_results(kv2=(1.95, 2.2, 2.25)))  # mean +0.123, but one seed below every MHA seed
    assert v["gqa.close"].level == "holds"


def test_mqa_inside_the_mha_scatter_does_not_show_degradation():
    v = gqa.verdicts(gqa_results(kv1=(2.00, 2.05, 2.06)))  # above GQA H/2 on average, but overlaps MHA
    assert v["gqa.mqa"].level == "half-true"
    v = gqa.verdicts(gqa_results(kv1=(1.99, 2.0, 2.01)))  # MQA as good as MHA and better than GQA
    assert v["gqa.mqa"].level == "fails"


def test_the_cache_bytes_are_the_packages_formula_for_each_h_kv():
    from glassformer.nn.mla import kv_cache_bytes_per_token

    for kv in gqa.KV_HEADS:
        cfg = gqa.preset_for(kv, 64).model
        mine = gqa.kv_cache_per_token(cfg).mine
        assert mine == cfg.n_layers * 2 * kv * (64 // gqa.H) * 4  # layers × (K, V) × H_kv·D × float32
        assert mine == kv_cache_bytes_per_token("gqa", cfg.n_layers, n_heads=gqa.H, n_kv_heads=kv, d_head=8)


# ---- yarn ----------------------------------------------------------------------------------------
def yarn_results(**pairs) -> dict:
    """Made-up results: per scaling, per-seed (inside, beyond) means (defaults: YaRN flat, plain RoPE not)."""
    base = {
        "none": ((1.60, 1.62), (2.60, 2.70)),
        "linear": ((1.70, 1.72), (1.80, 1.82)),
        "dynamic": ((1.61, 1.63), (1.90, 1.95)),
        "yarn": ((1.62, 1.64), (1.68, 1.70)),
        "llama3": ((1.61, 1.63), (1.75, 1.80)),
    }
    base.update(pairs)
    scalings = {k: {"per_position": [], "inside": spread(i), "beyond": spread(b)} for k, (i, b) in base.items()}
    return {"steps": 600, "T": 64, "T_eval": 256, "factor": 4, "corpus": "shakespeare", "scalings": scalings}


def both_texts(en: dict, zh: dict) -> dict:
    """Results on two texts: `en`'s as the English one, `zh`'s scalings as zh-poems'."""
    return {**en, "zh": {"corpus": "zh-poems", "scalings": zh["scalings"]}}


def test_yarn_holds_when_flat_and_below_plain_rope():
    v = yarn.verdicts(both_texts(yarn_results(), yarn_results()))["yarn.flat"]
    assert v.level == "holds" and (v.figures["T"], v.figures["T_eval"], v.figures["corpus"]) == (64, 256, "shakespeare")


def test_each_text_gets_its_own_verdict_by_the_same_rule():
    flat, rising = yarn_results(), yarn_results(yarn=((1.6, 1.6), (1.9, 2.6)))
    v = yarn.verdicts(both_texts(flat, rising))
    assert (v["yarn.flat"].level, v["yarn.flat_zh"].level) == ("holds", "fails")
    assert v["yarn.flat_zh"].figures["corpus"] == "zh-poems"
    assert v["yarn.flat_zh"].figures == {**yarn.verdict("zh-poems", 64, 256, rising["scalings"]).figures}
    v = yarn.verdicts(both_texts(rising, flat))
    assert (v["yarn.flat"].level, v["yarn.flat_zh"].level) == ("fails", "holds")


def test_yarn_rising_past_the_flat_limit_is_half_true_and_overlapping_plain_rope_fails():
    rises = yarn_results(yarn=((1.6, 1.6), (1.75, 1.76)))  # +0.155
    assert yarn.verdicts(both_texts(rises, rises))["yarn.flat"].level == "half-true"
    # YaRN rises and one seed reaches plain RoPE's lowest: neither part
    reaches = yarn_results(yarn=((1.6, 1.6), (1.9, 2.6)))
    assert yarn.verdicts(both_texts(reaches, reaches))["yarn.flat"].level == "fails"


def test_every_scaling_reads_the_one_trained_state_and_plain_is_unchanged():
    import torch

    from glassformer.config import apply_overrides

    preset = lab_preset(position="rope", seq_len=16, max_len=64)
    torch.manual_seed(0)
    trained = build_model(apply_overrides(preset, {"vocab_size": 20}).model)
    x = torch.randint(0, 20, (2, 64))  # (B, T_eval)
    y = torch.randint(0, 20, (2, 64))
    losses = {name: yarn.read_long(trained, preset, name, 16, 4, 20, x, y) for name in yarn.SCALINGS}
    from glassformer.lab.common import position_losses

    assert (losses["none"] == position_losses(trained, x, y)).all()  # plain: the trained model itself
    for name in ("linear", "dynamic", "yarn", "llama3"):  # a scaling changes what the same weights compute
        assert not (losses[name] == losses["none"]).all(), name
    with pytest.raises(RuntimeError):  # a state of another shape does not load
        yarn.read_long(trained, lab_preset(position="rope", d_model=32), "yarn", 16, 4, 20, x, y)

"""Verdict rules on made-up numbers: each rule can come out either way, and reads only numbers."""

from __future__ import annotations

import math

from glassformer.lab import attention_steps, causal_leak, ffn_width, heads, layernorm, length, order
from glassformer.lab.common import spread


def s(*values):
    return spread(values)


def length_results(sin_far: float, wide_far: float, learned_reach: int = 64) -> dict:
    def bands(i, near, far):
        return {"in": s(i), "2x": s(near), "far": None if far is None else s(far), "ranges": {}}

    return {
        "T": 64,
        "T_eval": 256,
        "unigram": 3.3,
        "variants": {
            "learned": {"max_len": 64, "reach": learned_reach, "bands": bands(1.6, None, None)},
            "sinusoidal": {"max_len": 64, "reach": 256, "bands": bands(1.6, 1.65, sin_far)},
            "none": {"max_len": 64, "reach": 256, "bands": bands(1.6, 1.62, 1.63)},
            length.WIDE: {"max_len": 256, "reach": 256, "bands": bands(1.6, 2.5, wide_far)},
        },
    }


def test_length_rule():
    v = length.verdicts(length_results(sin_far=1.65, wide_far=3.0))
    assert v["length.sinusoidal"].level == "holds" and v["length.learned"].level == "holds"
    v = length.verdicts(length_results(sin_far=2.4, wide_far=1.7))
    assert v["length.sinusoidal"].level == "half-true" and v["length.learned"].level == "half-true"
    assert v["length.sinusoidal"].figures["best"] == "none"
    assert v["length.sinusoidal"].figures["near"] == "1.650"  # the 2x band, read by the finding
    v = length.verdicts(length_results(sin_far=2.4, wide_far=1.7, learned_reach=256))
    assert v["length.learned"].level == "fails"


def sweep(post_fails_at: float, warm_rescues: bool) -> dict:
    cells = []
    for norm in ("pre", "post"):
        for warmup in (0, 50):
            for depth in (2, 12):
                for lr in (1e-3, 1e-2):
                    bad = norm == "post" and lr >= post_fails_at and not (warmup and warm_rescues)
                    loss = math.inf if bad else (2.0 if norm == "pre" else 2.1)
                    cells.append(
                        {
                            "norm": norm,
                            "warmup": warmup,
                            "depth": depth,
                            "lr": lr,
                            "val_loss": s(loss),
                            "failed": int(bad),
                        }
                    )
    return {"sweep": cells, "depths": [2, 12], "lrs": [1e-3, 1e-2], "warmups": [0, 50]}


def test_layernorm_rule():
    v = layernorm.verdicts(sweep(post_fails_at=1e-2, warm_rescues=True))
    assert v["layernorm.post_unstable"].level == "holds"
    assert v["layernorm.post_must"].level == "fails"  # pre-LN ends lower at every depth
    assert v["layernorm.warmup"].level == "half-true"  # rescues post-LN only
    v = layernorm.verdicts(sweep(post_fails_at=1.0, warm_rescues=False))
    assert v["layernorm.post_unstable"].level == "half-true" and v["layernorm.warmup"].level == "fails"


def heads_results(loss16: float) -> dict:
    def row(D, loss, ent=0.8, gap=0.0, diag=0.0, uni=0.0):
        return {
            "D": D,
            "val_loss": s(loss, loss + 0.01),
            "overfit_gap": s(gap),
            "entropy": s(ent),
            "self_weight": s(0.1),
            "diagonal_share": s(diag),
            "uniform_share": s(uni),
        }

    return {
        "heads": {
            "1": row(64, 1.9),
            "2": row(32, 2.0),
            "4": row(16, 2.0),
            "8": row(8, 2.0, ent=0.7, gap=0.05),
            "16": row(4, loss16, diag=0.4, uni=0.3),
        }
    }


def test_heads_rule():
    v = heads.verdicts(heads_results(loss16=2.2))
    assert v["heads.many"].level == "holds"
    v = heads.verdicts(heads_results(loss16=1.9))
    assert v["heads.many"].level == "half-true"
    assert v["heads.sharp"].level == "half-true"  # sharper and overfits, but 2 heads tie with 4


def test_heads_sharp_holds_when_two_wide_heads_do_worse_than_four():
    r = heads_results(loss16=1.9)
    r["heads"]["2"]["val_loss"] = s(2.1, 2.2)  # every seed above every seed of 4 heads (2.0, 2.01)
    assert heads.verdicts(r)["heads.sharp"].level == "holds"


def test_ffn_rule():
    w = {
        "0": {"params": 10, "val_loss": s(2.5, 2.6)},
        "64": {"params": 20, "val_loss": s(2.2)},
        "256": {"params": 40, "val_loss": s(2.0, 2.05)},
    }
    v = ffn_width.verdicts({"widths": w, "unigram": 3.3, "nonlinearity_at_C": 0.4})
    assert v["ffn-width.equal"].level == "fails" and v["ffn-width.removed"].level == "half-true"
    w["0"]["val_loss"] = s(3.25)
    v = ffn_width.verdicts({"widths": w, "unigram": 3.3, "nonlinearity_at_C": 0.0})
    assert v["ffn-width.removed"].level == "holds" and v["ffn-width.equal"].level == "half-true"


def test_attention_steps_rule():
    v = attention_steps.verdicts({"entropy": [[0.95, 0.97], [0.6, 0.7]], "steps": [0, 100]})
    assert v["attention-steps.sharpen"].level == "holds"
    v = attention_steps.verdicts({"entropy": [[0.5, 0.97], [0.3, 0.4]], "steps": [0, 100]})
    assert v["attention-steps.sharpen"].level == "half-true"


def test_causal_leak_rule():
    def text(forced, honest, grad):
        return {"teacher_forced": s(forced), "honest": s(honest), "future_grad": s(grad)}

    rt = {"symbols": 16, "chance": math.log(16), "held_out": {"none": 0.7, "causal": 2.8}}
    r = {"random_tokens": rt, "text": {"causal": text(2.0, 2.0, 0.0), "none": text(0.8, 3.0, 0.2)}}
    assert causal_leak.verdicts(r)["causal-leak.cheat"].level == "holds"
    r["text"]["none"] = text(2.0, 2.0, 0.2)
    assert causal_leak.verdicts(r)["causal-leak.cheat"].level == "half-true"


def test_causal_leak_copying_needs_strictly_below_half_of_chance():
    """Held-out loss exactly 0.5 × chance is not "copies": the other two parts hold, so half-true."""

    def text(forced, honest, grad):
        return {"teacher_forced": s(forced), "honest": s(honest), "future_grad": s(grad)}

    rt = {"symbols": 16, "chance": 2.0, "held_out": {"none": 1.0, "causal": 2.0}}
    r = {"random_tokens": rt, "text": {"causal": text(2.0, 2.0, 0.0), "none": text(0.8, 3.0, 0.2)}}
    assert causal_leak.verdicts(r)["causal-leak.cheat"].level == "half-true"
    rt["held_out"]["none"] = 0.999
    assert causal_leak.verdicts(r)["causal-leak.cheat"].level == "holds"


def test_order_rule_and_its_figures():
    r = {
        "equivariance": {
            "encoder, no positions": 1e-9,
            "encoder, learned positions": 0.3,
            "causal decoder, no positions": 0.2,
        },
        "schemes": {
            "none": {"val_loss": s(3.25), "shuffle_penalty": s(0.01)},
            "learned": {"val_loss": s(2.0), "shuffle_penalty": s(0.4)},
        },
        "unigram": 3.3,
        "bigram": 2.5,
        "steps": 100,
    }
    v = order.verdicts(r)
    assert v["order.set"].level == "holds" and v["order.stuck"].level == "holds"
    assert v["order.stuck"].figures == {
        "none": "3.250",
        "learned": "2.000",
        "unigram": "3.300",
        "bigram": "2.500",
        "steps": 100,
    }


def test_the_spread_of_seeds_that_all_diverged_is_an_infinite_mean_with_no_spread():
    """Every seed NaN or infinite: the mean is infinite (a diverged run is worse than any finite one)
    and the spread 0, under the same keys as a finite spread (pm and the ledger read both)."""
    out = spread([math.nan, math.inf])
    assert set(out) == {"mean", "spread", "values"} == set(spread([1.0, 2.0]))
    assert out["mean"] == math.inf and out["spread"] == 0.0
    assert math.isnan(out["values"][0]) and out["values"][1] == math.inf

"""The attention-explanation ledger entry: its measures (JSD, Kendall τ-b, the two importances through
the causal tools, the adversarial search, the uniform freeze), its rules on made-up numbers every
way, its chart words, and the rules re-applied to the committed full-run numbers."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
import torch
from helpers import ROOT, said
from test_charts import catalogues

from glassformer.lab import attention_explanation as ae
from glassformer.lab.runner import Context
from glassformer.messages import speaking
from glassformer.models import build_model

DOCS = ROOT / "docs" / "lab" / "attention-explanation" / "results.json"
TINY = {**ae.FAST, "T": 6}


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    m = build_model(ae.preset(TINY, 0).model)
    m.eval()
    return m


def test_jsd_is_zero_on_itself_ln2_on_disjoint_supports_and_symmetric():
    a = torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]])  # (2, 4)
    b = torch.tensor([[0.0, 0.0, 0.5, 0.5], [0.4, 0.3, 0.2, 0.1]])  # (2, 4)
    assert ae.jsd(a, a).abs().max() < 1e-7
    assert ae.jsd(a, b)[0].item() == pytest.approx(math.log(2))
    assert torch.allclose(ae.jsd(a, b), ae.jsd(b, a))
    m = (a[1] + b[1]) / 2  # by hand: ½ KL(a‖m) + ½ KL(b‖m)
    want = 0.5 * (a[1] * (a[1] / m).log()).sum() + 0.5 * (b[1] * (b[1] / m).log()).sum()
    assert ae.jsd(a, b)[1].item() == pytest.approx(want.item())


def test_kendall_tau_b_by_hand_with_and_without_ties():
    assert ae.kendall([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)  # 5 concordant, 1 discordant
    assert ae.kendall([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert ae.kendall([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(2 * 3))  # τ-b: a tie in a
    assert math.isnan(ae.kendall([1, 1, 1], [1, 2, 3]))  # a constant ranking has no order


def test_the_keyed_task_has_one_marker_before_the_deciding_word_and_the_bag_task_a_majority():
    x, y = ae.examples("keyed", 200, 10, seed=1)
    assert x.shape == y.shape == (200, 11) and (x[:, 0] == ae.CLS).all()
    assert ((y[:, 1:] == ae.IGNORE).all()) and set(y[:, 0].tolist()) == {ae.POS, ae.NEG}
    assert ((x == ae.MARK).sum(1) == 1).all()
    after = x[torch.arange(200), (x == ae.MARK).int().argmax(1) + 1]  # (200,)
    positive = torch.isin(after, torch.tensor(ae.POSITIVE))
    assert (positive == (y[:, 0] == ae.POS)).all()
    assert (torch.isin(x, torch.tensor(ae.POSITIVE + ae.NEGATIVE)).sum(1) == ae.DISTRACTORS + 1).all()
    x, y = ae.examples("bag", 200, 10, seed=1)
    pos = torch.isin(x, torch.tensor(ae.POSITIVE)).sum(1)  # (200,)
    neg = torch.isin(x, torch.tensor(ae.NEGATIVE)).sum(1)  # (200,)
    assert ((pos > neg) == (y[:, 0] == ae.POS)).all() and (x != ae.MARK).all()


def test_frozen_replaces_every_attention_layer_by_even_weights(model):
    x, _ = ae.examples("keyed", 4, TINY["T"], seed=2)
    frozen = ae.Frozen(model)
    assert frozen.names == [f"blocks.{i}.attn.weights" for i in range(ae.LAYERS)]
    seen = {}

    def keep(z, name):
        seen[name] = z.detach()

    zs = [f"blocks.{i}.attn.z" for i in range(ae.LAYERS)]
    with model.hooks_attached({n: keep for n in zs}):
        out = frozen(x)
    for z in seen.values():  # (B, H, T, D): even weights give every query the same mix of the values
        assert torch.allclose(z, z[:, :, :1].expand_as(z), atol=1e-6)
    assert len(seen) == ae.LAYERS
    assert not torch.allclose(out, model(x))  # the freeze changed the output


def test_the_importances_are_the_gradient_times_input_and_the_leave_one_out_effect(model):
    x, _ = ae.examples("keyed", 3, TINY["T"], seed=3)
    grad, loo = ae.importances(model, x)
    assert grad.shape == loo.shape == (3, TINY["T"])

    def m(ids):
        logits = model(ids)  # (N, T+1, V)
        return logits[:, 0, ae.POS] - logits[:, 0, ae.NEG]  # (N,)

    with torch.no_grad():  # leave-one-out by hand: token t replaced by the neutral word
        for i in range(3):
            for t_ in range(TINY["T"]):
                y = x[i : i + 1].clone()
                y[0, t_ + 1] = ae.NULL
                assert loo[i, t_] == pytest.approx(abs(m(x[i : i + 1]) - m(y)).item(), abs=1e-5)
    # gradient × (embedding − the neutral word's embedding), by hand
    emb = model.tok_embed.table.weight  # (V, C)
    e = emb[x[0]].detach().clone().requires_grad_(True)  # (T+1, C)
    logits = model.run_with_hooks(x[:1], hooks={"embed": lambda a, name: e[None]})  # (1, T+1, V)
    (g,) = torch.autograd.grad(logits[0, 0, ae.POS] - logits[0, 0, ae.NEG], [e])  # (T+1, C)
    want = (g * (e - emb[ae.NULL])).sum(-1).abs()[1:].detach().numpy()  # (T,)
    np.testing.assert_allclose(grad[0], want, rtol=1e-4, atol=1e-6)


def test_the_adversary_changes_the_attention_and_keeps_the_output_within_eps(model):
    x, _ = ae.examples("keyed", 8, TINY["T"], seed=4)
    adv = ae.adversarial(model, x, steps=20)
    alpha = ae.attention_row(model, x)  # (8, T+1)
    assert (adv["gap"] <= ae.EPS).all() and (adv["jsd"] >= 0).all() and adv["jsd"].max() > 0.1
    np.testing.assert_allclose(ae.jsd(adv["row"], alpha).numpy(), adv["jsd"], atol=1e-6)

    def put(w, name):
        w = w.clone()  # (N, 1, T+1, T+1)
        w[:, :, 0, :] = adv["row"][:, None, :]
        return w

    with torch.no_grad():  # the stored rows, put back in, give the same class probability within EPS
        p0 = ae.p_positive(model(x))
        p = ae.p_positive(model.run_with_hooks(x, hooks={ae.STUDIED: put}))
    assert ((p - p0).abs() <= ae.EPS + 1e-6).all()


def results(grad=(0.1, 0.2), loo=(0.2, 0.1), far=(0.8, 0.7), median=(0.5, 0.6), seed_jsd=(0.1,), bag=None, keyed=None):
    bag = bag or [(1.0, 0.99), (1.0, 1.0)]
    keyed = keyed or [(1.0, 0.7), (0.99, 0.72)]
    models = [
        {
            "mean_tau": {"grad": g, "loo": lo, "grad_loo": 0.6},
            "accuracy": 1.0,
            "far_share": f,
            "median_adv": md,
            "key_weight": 0.8,
        }
        for g, lo, f, md in zip(grad, loo, far, median, strict=True)
    ]
    return {
        "models": models,
        "seed_jsd": list(seed_jsd),
        "uniform": {
            "bag": [{"learned": a, "uniform": b} for a, b in bag],
            "keyed": [{"learned": a, "uniform": b} for a, b in keyed],
        },
    }


def levels(r: dict) -> list[str]:
    v = ae.verdicts(r)
    return [v[f"attention-explanation.{k}"].level for k in ("tau", "adversarial", "uniform")]


def test_the_rules_come_out_every_way():
    assert levels(results()) == ["holds"] * 3
    assert levels(results(grad=(0.1, 0.6)))[0] == "half-true"  # one seed correlates with the gradient
    assert levels(results(grad=(0.6, 0.6), loo=(0.7, 0.5)))[0] == "fails"
    assert levels(results(far=(0.8, 0.4)))[1] == "half-true"  # too few examples reach FAR in one seed
    assert levels(results(seed_jsd=(0.55,)))[1] == "half-true"  # within the seeds' own spread
    assert levels(results(far=(0.1, 0.1), seed_jsd=(0.7,)))[1] == "fails"
    assert levels(results(bag=[(1.0, 0.9), (1.0, 0.9)]))[2] == "half-true"  # uniform loses on the bag task
    assert levels(results(keyed=[(1.0, 0.95), (0.9, 0.7)]))[2] == "half-true"  # a gap within the seeds
    v = ae.verdicts(results())
    assert v["attention-explanation.tau"].figures["grad"] == "0.10, 0.20"
    assert v["attention-explanation.uniform"].figures["keyed_uniform"] == "0.710 ± 0.010"


def test_with_three_seeds_the_adversary_must_beat_the_largest_seed_to_seed_divergence():
    """Three seeds give three pairs; the adversarial medians (smallest 0.5) beat the smallest pair's
    divergence (0.1) and the middle one (0.2) but not the largest (0.55): within the seeds' own spread.
    Bug guarded: comparing with the smallest pair ("holds")."""

    def three(seed_jsd):
        return results(
            grad=(0.1, 0.2, 0.1), loo=(0.2, 0.1, 0.2), far=(0.8, 0.7, 0.8), median=(0.5, 0.6, 0.7), seed_jsd=seed_jsd
        )

    assert levels(three((0.1, 0.55, 0.2)))[1] == "half-true"
    assert levels(three((0.1, 0.45, 0.2)))[1] == "holds"
    assert levels(three((0.55, 0.1, 0.2)))[1] == "half-true"  # in any order


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chart_words_are_the_catalogues(lang, tmp_path):
    drawn = []

    class Keeping(Context):
        def figure(self, fig, name):
            drawn.append(fig)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                saved = super().figure(fig, name)
            assert not [w for w in caught if str(w.message).startswith("Glyph")]  # every glyph drawn
            return saved

    T = 4
    m = {
        "tau": {"grad": [0.1, 0.2], "loo": [0.0, 0.3], "grad_loo": [0.5, 0.6]},
        "adv_jsd": [0.3, 0.5],
        "attention": [[0.2] * (T + 1)],
        "adv_row": [[0.1, 0.1, 0.1, 0.1, 0.6]],
    }
    out = {"models": [m], "seed_jsd_all": [0.1, 0.2], "T": T, "probe": [[0, 5, 3, 9, 20]]}
    with said() as heard, speaking(lang):
        ae.plot(Keeping(out=tmp_path, fast=True, seeds=1), out)
    (fig,) = drawn
    axes = fig.axes[:3]
    assert catalogues([a.get_xlabel() for a in axes], heard, lang) == [{}, {}, {}]  # tau, JSD, token id
    legend = [s.get_text() for s in axes[0].get_legend().get_texts()]
    assert catalogues(legend, heard, lang) == [{}, {}, {}, {"weak": "0.5"}]  # the three pairs, then the bar
    assert catalogues([axes[1].get_title()], heard, lang) == [{"eps": ae.figure(ae.EPS)}]


def test_the_committed_full_run_follows_its_rules():
    if not DOCS.exists():
        pytest.skip("no committed full run yet")
    r = json.loads(DOCS.read_text(encoding="utf-8"))
    assert not r["fast"] and r["seeds"] >= 3 and r["cpu_seconds"] <= 12 * 60
    v = ae.verdicts(r["results"])
    assert [c["level"] for c in r["claims"]] == [v[c["key"]].level for c in r["claims"]]
    for m in r["results"]["models"]:
        assert m["accuracy"] >= 0.95  # the explained classifier solved its task
        assert max(m["adv_gap"]) <= ae.EPS and len(m["adv_jsd"]) == len(r["results"]["probe"])

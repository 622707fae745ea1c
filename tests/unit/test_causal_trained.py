"""The planted report on a trained model: training is seeded, the model learns induction, the ground
truth comes from single-head zero ablation, and each method's precision and recall are as measured."""

import pytest
import torch

from glassformer.causal import trained
from glassformer.causal.detectors import half_losses
from glassformer.causal.planted import planted_prompts
from glassformer.causal.trained import (
    TRUTH_SEEDS,
    ablation_rise,
    find_trained,
    trained_induction_model,
    trained_truth,
)
from glassformer.messages import speaking, t


@pytest.fixture(scope="module")
def model():
    torch.set_num_threads(1)
    return trained_induction_model()


def test_training_is_seeded_and_leaves_the_global_generator_alone():
    state = torch.random.get_rng_state()
    a, b = trained_induction_model(steps=5), trained_induction_model(steps=5)
    other = trained_induction_model(steps=5, seed=1)
    assert torch.equal(torch.random.get_rng_state(), state)
    for (name, x), y, z in zip(
        a.state_dict().items(), b.state_dict().values(), other.state_dict().values(), strict=True
    ):
        assert torch.equal(x, y), name
        if "ffn" in name:  # attention only: the FFNs stay zero
            assert not x.any() and not z.any(), name
    assert not torch.equal(a.tok_embed.table.weight, other.tok_embed.table.weight)


def test_the_trained_model_completes_the_repeated_half(model):
    tokens = torch.cat([planted_prompts(s)[0] for s in TRUTH_SEEDS])  # (32, 16)
    with torch.no_grad():
        first, second = half_losses(model(tokens), tokens)  # (1,), (1,) over the mean
    assert second.mean() < 1.0 and first.mean() > 2.5  # ln 16 = 2.77: the first half is a guess


def test_the_ground_truth_is_the_heads_whose_ablation_matters(model):
    rise = ablation_rise(model)  # (2, 4)
    assert 1.6 < rise[0, 0] < 2.0  # the previous-token head: far the largest
    assert 0.18 < rise[1, 0] < 0.3 and 0.22 < rise[1, 2] < 0.32  # two induction heads share the work
    assert rise[1, 1] < 0.16 and rise[1, 3] < 0.16 and rise[0, 1:].abs().max() < 0.06
    assert trained_truth(model) == ([(0, 0), (1, 0), (1, 2)], (1, 2), [(0, 0)])
    assert trained_truth(model, share=0.05)[0] == [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)]


def test_each_method_scored_on_the_trained_heads(model):
    got = [(f.found, round(f.precision, 2), round(f.recall, 2)) for f in find_trained(model)]
    assert got == [
        ([(0, 0)], 1.0, 0.33),  # activation patching: only the previous-token head stands out
        ([(0, 0)], 1.0, 0.33),  # attribution patching
        ([(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)], 0.6, 1.0),  # detectors: every layer-1 head looks inductive
        ([(0, 0), (1, 0), (1, 2)], 1.0, 1.0),  # detectors + ablation check
        ([(1, 0), (1, 1), (1, 2), (1, 3)], 0.5, 0.67),  # DLA: layer 1 writes the logits directly
        ([(0, 0)], 1.0, 1.0),  # path patching into 1.2's keys: the previous-token head
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_in_both_languages(model, monkeypatch, capsys, lang):
    monkeypatch.setattr(trained, "trained_induction_model", lambda: model)
    with speaking(lang):
        trained.main()
        rise = ablation_rise(model)
        heads = ", ".join(f"{i}.{j} (+{rise[i, j]:.2f})" for i, j in [(0, 0), (1, 0), (1, 2)])
        truth = t("causal.trained.truth", share=0.1, largest=float(rise.max()), heads=heads)
        path = t("causal.planted.method.path", head="1.2")
        check = t("causal.planted.row", method=t("causal.planted.method.checked"), found="0.0, 1.0, 1.2",
                  precision=1.0, recall=1.0)  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and lines[0] == truth and lines[4] == check and lines[6].startswith(path)

"""Ground truth (causal/ground_truth.py). The planted model: the hand-set induction circuit, the
detectors' ablation check, and each method's precision and recall on finding the planted heads.
The trained model: training is seeded, the model learns induction, the ground truth comes from
single-head zero ablation, and each method's precision and recall are as measured."""

import pytest
import torch

from glassformer.causal import ground_truth
from glassformer.causal.detectors import ablation_check, half_losses
from glassformer.causal.ground_truth import (
    DECOY,
    INDUCTION,
    PREVIOUS,
    TRUTH_SEEDS,
    ablation_rise,
    find_planted,
    find_trained,
    planted_induction_model,
    planted_prompts,
    trained_induction_model,
    trained_truth,
)
from glassformer.errors import UsageError
from glassformer.messages import speaking, t


@pytest.fixture(scope="module")
def planted():
    return planted_induction_model()


def repeated(k=6):
    return torch.cat([planted_prompts(s)[0] for s in range(k)])  # (k, 16)


def test_the_planted_model_completes_the_repeated_half_only(planted):
    tokens = repeated()  # (6, 16)
    logits = planted(tokens)  # (6, 16, V)
    assert torch.equal(logits[:, 8:-1].argmax(-1), tokens[:, 9:])  # every repeated-half prediction right
    first, second = half_losses(logits, tokens)  # (6,), (6,)
    assert (second < 0.01).all() and (first > 2.0).all()


def test_ablating_a_circuit_head_raises_the_repeated_half_loss_and_a_decoy_changes_nothing(planted):
    tokens = repeated()
    heads = [PREVIOUS, INDUCTION, DECOY, (0, 3)]
    for how in ("zero", "mean"):
        check = ablation_check(planted, tokens, heads, how)
        up = check.repeated - check.base_repeated  # (4,)
        assert (up[:2] > 1.0).all() and up[2:].abs().max() < 1e-9
        assert (check.raised()[:2] > 1.0).all() and check.matters() == [PREVIOUS, INDUCTION]
        if how == "zero":  # zeroed, neither circuit head raises the first half's loss
            assert (check.first[:2] - check.base_first <= 1e-9).all()
    one_row = ablation_check(planted, tokens, heads, "zero", max_bytes=3_000_000)  # one row per forward
    torch.testing.assert_close(one_row.repeated, ablation_check(planted, tokens, heads).repeated, rtol=0, atol=1e-12)
    with pytest.raises(UsageError) as e:
        ablation_check(planted, tokens, heads, "noise")
    assert e.value.code == "causal.bad_ablation"


def test_each_method_scored_on_the_planted_heads(planted):
    found = {f.method: f for f in find_planted(planted)}
    got = {m: (f.found, f.precision, f.recall) for m, f in found.items()}
    assert list(got.values()) == [
        ([PREVIOUS, INDUCTION], 1.0, 1.0),  # activation patching
        ([PREVIOUS, INDUCTION], 1.0, 1.0),  # attribution patching
        ([PREVIOUS, DECOY, INDUCTION], 2 / 3, 1.0),  # detectors: the decoy looks like a previous-token head
        ([PREVIOUS, INDUCTION], 1.0, 1.0),  # detectors + ablation: the decoy does not matter
        ([INDUCTION], 1.0, 0.5),  # DLA sees direct effects only: 0.1 writes nothing the head reads
        ([PREVIOUS], 1.0, 1.0),  # path patching into the induction head's keys
    ]
    assert all("precision" in f.words() for f in found.values())


@pytest.fixture(scope="module")
def trained():
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


def test_the_trained_model_completes_the_repeated_half(trained):
    tokens = torch.cat([planted_prompts(s)[0] for s in TRUTH_SEEDS])  # (32, 16)
    with torch.no_grad():
        first, second = half_losses(trained(tokens), tokens)  # (1,), (1,) over the mean
    assert second.mean() < 1.0 and first.mean() > 2.5  # ln 16 = 2.77: the first half is a guess


def test_the_ground_truth_is_the_heads_whose_ablation_matters(trained):
    rise = ablation_rise(trained)  # (2, 4)
    assert 1.6 < rise[0, 0] < 2.0  # the previous-token head: far the largest
    assert 0.18 < rise[1, 0] < 0.3 and 0.22 < rise[1, 2] < 0.32  # two induction heads share the work
    assert rise[1, 1] < 0.16 and rise[1, 3] < 0.16 and rise[0, 1:].abs().max() < 0.06
    assert trained_truth(trained) == ([(0, 0), (1, 0), (1, 2)], (1, 2), [(0, 0)])
    assert trained_truth(trained, share=0.05)[0] == [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)]


def test_each_method_scored_on_the_trained_heads(trained):
    got = [(f.found, round(f.precision, 2), round(f.recall, 2)) for f in find_trained(trained)]
    assert got == [
        ([(0, 0)], 1.0, 0.33),  # activation patching: only the previous-token head stands out
        ([(0, 0)], 1.0, 0.33),  # attribution patching
        ([(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)], 0.6, 1.0),  # detectors: every layer-1 head looks inductive
        ([(0, 0), (1, 0), (1, 2)], 1.0, 1.0),  # detectors + ablation check
        ([(1, 0), (1, 1), (1, 2), (1, 3)], 0.5, 0.67),  # DLA: layer 1 writes the logits directly
        ([(0, 0)], 1.0, 1.0),  # path patching into 1.2's keys: the previous-token head
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_in_both_languages(trained, monkeypatch, capsys, lang):
    monkeypatch.setattr(ground_truth, "trained_induction_model", lambda: trained)
    with speaking(lang):
        ground_truth.main()
        rise = ablation_rise(trained)
        heads = ", ".join(f"{i}.{j} (+{rise[i, j]:.2f})" for i, j in [(0, 0), (1, 0), (1, 2)])
        truth = t(
            "ground truth: heads whose zero-ablation raises the repeated "
            "half's loss by at least {share} of the largest rise "
            "({largest:.2f} nats): {heads}",
            share=0.1,
            largest=float(rise.max()),
            heads=heads,
        )
        path = t("path patching into {head}'s keys (senders)", head="1.2")
        check = t(
            "{method}: found {found}; precision {precision:.2f}, recall {recall:.2f}",
            method=t("head detectors + ablation check"),
            found="0.0, 1.0, 1.2",
            precision=1.0,
            recall=1.0,
        )
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and lines[0] == truth and lines[4] == check and lines[6].startswith(path)

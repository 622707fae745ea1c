"""Ground truth: the hand-set induction circuit, the detectors' ablation check, and each method's
precision and recall on finding the planted heads."""

import pytest
import torch

from glassformer.causal.detectors import ablation_check, half_losses
from glassformer.causal.planted import (
    DECOY,
    INDUCTION,
    PREVIOUS,
    find_planted,
    planted_induction_model,
    planted_prompts,
)
from glassformer.errors import UsageError


@pytest.fixture(scope="module")
def model():
    return planted_induction_model()


def repeated(k=6):
    return torch.cat([planted_prompts(s)[0] for s in range(k)])  # (k, 16)


def test_the_planted_model_completes_the_repeated_half_only(model):
    tokens = repeated()  # (6, 16)
    logits = model(tokens)  # (6, 16, V)
    assert torch.equal(logits[:, 8:-1].argmax(-1), tokens[:, 9:])  # every repeated-half prediction right
    first, second = half_losses(logits, tokens)  # (6,), (6,)
    assert (second < 0.01).all() and (first > 2.0).all()


def test_ablating_a_circuit_head_raises_the_repeated_half_loss_and_a_decoy_changes_nothing(model):
    tokens = repeated()
    heads = [PREVIOUS, INDUCTION, DECOY, (0, 3)]
    for how in ("zero", "mean"):
        check = ablation_check(model, tokens, heads, how)
        up = check.repeated - check.base_repeated  # (4,)
        assert (up[:2] > 1.0).all() and up[2:].abs().max() < 1e-9
        assert (check.raised()[:2] > 1.0).all() and check.matters() == [PREVIOUS, INDUCTION]
        if how == "zero":  # zeroed, neither circuit head raises the first half's loss
            assert (check.first[:2] - check.base_first <= 1e-9).all()
    one_row = ablation_check(model, tokens, heads, "zero", max_bytes=3_000_000)  # one row per forward
    torch.testing.assert_close(one_row.repeated, ablation_check(model, tokens, heads).repeated, rtol=0, atol=1e-12)
    with pytest.raises(UsageError) as e:
        ablation_check(model, tokens, heads, "noise")
    assert e.value.key == "error.causal.bad_ablation"


def test_each_method_scored_on_the_planted_heads(model):
    found = {f.method: f for f in find_planted(model)}
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

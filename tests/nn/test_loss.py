"""The losses against their definitions, written out in float64 (nn/loss.py)."""

from __future__ import annotations

import pytest
import torch

from glassformer.nn.loss import LOSSES, mse_loss, next_token_loss


def cross_entropy_by_hand(logits: torch.Tensor, targets: torch.Tensor, skip: int | None) -> float:
    """-1/N Σ log softmax(z)[y] over the positions whose target is not `skip`, one at a time."""
    total, n = 0.0, 0
    for z, y in zip(logits.reshape(-1, logits.size(-1)).double(), targets.reshape(-1).tolist(), strict=False):
        if y == skip:
            continue
        log_p = z[y] - torch.log(torch.exp(z - z.max()).sum()) - z.max()  # log softmax, stable
        total, n = total - float(log_p), n + 1
    return total / n


def test_next_token_loss_is_the_mean_negative_log_likelihood():
    gen = torch.Generator().manual_seed(0)
    logits = 3 * torch.randn(2, 5, 7, generator=gen)  # (B, T, V)
    targets = torch.randint(0, 7, (2, 5), generator=gen)  # (B, T)
    assert float(next_token_loss(logits, targets)) == pytest.approx(
        cross_entropy_by_hand(logits, targets, None), rel=1e-6
    )
    assert LOSSES["next_token"] is next_token_loss and LOSSES["mse"] is mse_loss


@pytest.mark.parametrize("pad", [0, -100])
def test_padded_targets_are_not_counted(pad):
    """Bug guarded: ignore_index dropped from the loss, so padded targets count (as class 0, or
    an error for -100) and the mean is taken over every position. Here a third of the targets
    are padding and the loss must be the mean over the other two thirds alone."""
    gen = torch.Generator().manual_seed(1)
    logits = 2 * torch.randn(3, 6, 5, generator=gen)  # (B, T, V)
    targets = torch.randint(1, 5, (3, 6), generator=gen)  # (B, T), no real target is 0
    targets[:, 4:] = pad  # the last two positions of every row are padding
    got = float(next_token_loss(logits, targets, ignore_index=pad))
    assert got == pytest.approx(cross_entropy_by_hand(logits, targets, pad), rel=1e-6)
    # the padded positions really have no say: change their logits wildly, the loss stays
    other = logits.clone()
    other[:, 4:] = 50 * torch.randn(3, 2, 5, generator=gen)
    assert float(next_token_loss(other, targets, ignore_index=pad)) == pytest.approx(got, rel=1e-6)


def test_mse_is_the_mean_squared_difference():
    pred = torch.tensor([[[1.0], [2.0], [4.0]]])  # (B, T, d_out)
    target = torch.tensor([[[0.0], [2.0], [1.0]]])
    assert float(mse_loss(pred, target)) == pytest.approx((1 + 0 + 9) / 3)


def test_mismatched_shapes_are_explained():
    with pytest.raises(ValueError) as e:  # targets must be (B, T) for logits (B, T, V)
        next_token_loss(torch.zeros(2, 3, 4), torch.zeros(2, 4, dtype=torch.long))
    assert (e.value.code, e.value.fields) == ("loss.shapes", {"logits": (2, 3, 4), "targets": (2, 4)})
    with pytest.raises(ValueError) as e:  # a regressor's targets have the shape of its output
        mse_loss(torch.zeros(1, 3, 1), torch.zeros(1, 3))
    assert e.value.code == "loss.mse_shapes" and (e.value.fields["pred"], e.value.fields["target"]) == (
        (1, 3, 1),
        (1, 3),
    )

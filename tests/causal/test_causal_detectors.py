"""Head detectors: patterns from tokens, scores from the attention-weight hook points."""

import pytest
import torch

from glassformer.causal.detectors import (
    AblationCheck,
    half_losses,
    head_scores,
    pattern,
    reference_scores,
    repeated_tokens,
)
from glassformer.config import ModelConfig
from glassformer.errors import Unsupported, UsageError
from glassformer.models.kinds import build_model


def test_patterns_on_a_repeated_sequence():
    tokens = torch.tensor([5, 1, 7, 5, 1, 7])  # (T,)
    assert pattern(tokens, "previous_token")[4].tolist() == [0, 0, 0, 1, 0, 0]
    assert pattern(tokens, "duplicate_token")[4].tolist() == [0, 1, 0, 0, 0, 0]
    assert pattern(tokens, "induction")[4].tolist() == [0, 0, 1, 0, 0, 0]
    assert pattern(tokens, "induction")[:3].sum() == 0  # the first half has no earlier copy
    with pytest.raises(UsageError) as e:
        pattern(tokens, "copy")
    assert e.value.code == "causal.bad_kind"


def test_the_induction_pattern_of_an_adjacent_repeat_holds_the_diagonal():
    """`4 4 4 2`: at position 1 the token after the earlier copy (position 0) is position 1 itself,
    and at 2 both 1 and 2 are; the diagonal belongs to the pattern (a causal head may look at itself)."""
    got = pattern(torch.tensor([4, 4, 4, 2]), "induction")
    want = torch.tensor([[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]], dtype=got.dtype)
    assert torch.equal(got, want)
    assert torch.equal(pattern(torch.tensor([4, 4, 4, 2]), "duplicate_token").diagonal(), torch.zeros(4))


def test_half_losses_average_every_prediction_of_each_half():
    """tokens (1, 2n = 6) of zeros, logits [0, log(e^c − 1)] so the loss at position p is exactly c_p:
    the first half is positions 0..n−2 = 0, 1 (mean of 1 and 2), the repeated half 3..4 (4 and 5)."""
    losses = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float64)  # (T,)
    logits = torch.stack([torch.zeros(6, dtype=torch.float64), losses.exp().sub(1).log()], -1)[None]  # (1, T, 2)
    first, repeated = half_losses(logits, torch.zeros(1, 6, dtype=torch.long))
    assert first.tolist() == pytest.approx([1.5]) and repeated.tolist() == pytest.approx([4.5])


def test_a_head_that_hurts_both_halves_equally_is_not_a_copying_head():
    """The check subtracts the first half's rise: a general head (both halves +0.5) does not matter,
    a copying head (only the repeated half) does, and one that helps copying (−0.3) does not."""
    check = AblationCheck(
        heads=[(0, 0), (0, 1), (1, 0)],
        first=torch.tensor([2.5, 2.0, 2.0], dtype=torch.float64),
        repeated=torch.tensor([1.5, 1.5, 0.7], dtype=torch.float64),
        base_first=2.0,
        base_repeated=1.0,
        how="zero",
    )
    torch.testing.assert_close(check.raised(), torch.tensor([0.0, 0.5, -0.3], dtype=torch.float64))
    assert check.matters() == [(0, 1)]


def test_scores_read_the_attention_weights():
    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=20, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=32)).double()
    tokens = repeated_tokens(20, 8, batch=3)  # (3, 16)
    assert torch.equal(tokens[:, :8], tokens[:, 8:])
    scores = head_scores(model, tokens, "previous_token")  # (L, H)
    _, cache = model.run_with_cache(tokens)
    w = cache["blocks.1.attn.weights"][:, 2]  # (B, T, T)
    expected = w.diagonal(offset=-1, dim1=-2, dim2=-1).sum(-1) / w.sum((-1, -2))  # (B,)
    assert scores.shape == (2, 4) and abs(scores[1, 2].item() - expected.mean().item()) < 1e-12


def test_fused_attention_is_refused():
    model = build_model(ModelConfig(vocab_size=20, d_model=16, n_heads=4, d_ff=32, n_layers=2, attention="fused"))
    with pytest.raises(Unsupported) as e:
        head_scores(model, repeated_tokens(20, 4), "induction")
    assert e.value.code == "causal.fused"


def test_reference_scores_are_an_even_and_a_perfect_heads_worked_by_hand():
    """On 1 2 1 2 the previous-token cells are (1, 0), (2, 1), (3, 2). A head even over the keys it
    may see puts 1/2, 1/3, 1/4 of rows 1..3 on them: chance (1/2 + 1/3 + 1/4) / 4 = 13/48; a perfect
    head puts rows 1..3 whole on them and row 0 (no cell) evenly: 3/4. Without the causal mask
    every row is even over all four keys: chance 3/16, perfect 3/4 again."""
    tokens = torch.tensor([[1, 2, 1, 2]])
    assert reference_scores(tokens, "previous_token") == pytest.approx((13 / 48, 3 / 4), abs=1e-12)
    assert reference_scores(tokens, "previous_token", causal=False) == pytest.approx((3 / 16, 3 / 4), abs=1e-12)

"""The samplers draw from the distribution they promise, checked statistically.

A model that predicts the same logits z at every position is sampled N times in one batch; the
counts of each token are compared with the distribution the sampler should draw from:

    temperature τ     softmax(z / τ)
    top-k             softmax(z / τ) over the k largest z, 0 elsewhere
    top-p             softmax(z / τ) over the smallest set of most likely tokens whose mass ≥ p

Pearson's χ² = Σ (count - N·p)² / (N·p) over the tokens that may be drawn, with a token that must
never be drawn asserted to have count 0. The bound is the 99.9% point of the χ² distribution with
(tokens - 1) degrees of freedom, from the standard table (CHI2_999 below): a correct sampler
exceeds it with probability 0.001. Every draw uses a fixed seed, so each test gives the same counts
on every run and never flakes; each test also shows the bound has power, by checking that the
distribution a typical bug would draw from is rejected by a wide margin.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from glassformer.sample import generate_ids, sample
from glassformer.text.tokenizers import CharTokenizer

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py

N = 20_000  # draws per test: the counts' relative error is ~1/√(N·p), under 3% for p >= 0.05
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515}  # χ²(df).ppf(0.999)
Z = torch.tensor([2.0, 1.2, 0.9, 0.1, -0.5, -1.5])  # logits of a six-token vocabulary


class FixedLogits(nn.Module):
    """Every position predicts the logits z."""

    def __init__(self, z: torch.Tensor, max_len: int = 8) -> None:
        super().__init__()
        self.cfg = type("Cfg", (), {"max_len": max_len})()
        self.z = z
        self.w = nn.Parameter(torch.zeros(()))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.z.expand(ids.size(0), ids.size(1), -1)  # (B, T, V)


def draw(n: int = N, seed: int = 0, **how) -> torch.Tensor:
    """How many times each token was drawn in n one-token samples, (V,)."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.zeros(n, 1, dtype=torch.long)  # n rows = n independent draws in one batch
    drawn = next(generate_ids(FixedLogits(Z), ids, 1, generator=gen, **how))  # (n,)
    return torch.bincount(drawn, minlength=len(Z)).double()  # (V,)


def chi2(counts: torch.Tensor, probs: torch.Tensor) -> float:
    """Pearson's statistic over the tokens with p > 0; a draw where p = 0 is an error."""
    allowed = probs > 0
    assert counts[~allowed].sum() == 0, (
        f"drew tokens {(~allowed & (counts > 0)).nonzero().flatten().tolist()} that must never be drawn"
    )
    expected = counts.sum() * probs[allowed]
    return float(((counts[allowed] - expected) ** 2 / expected).sum())


def assert_follows(counts: torch.Tensor, probs: torch.Tensor) -> None:
    df = int((probs > 0).sum()) - 1
    stat = chi2(counts, probs)
    assert stat < CHI2_999[df], (
        f"χ² = {stat:.1f} >= {CHI2_999[df]} (df {df}): counts {counts.tolist()}, "
        f"expected {(counts.sum() * probs).tolist()}"
    )


def renormalised(z: torch.Tensor, keep: list[int]) -> torch.Tensor:
    """softmax over the kept tokens only, 0 for the others, (V,)."""
    p = torch.zeros(len(z), dtype=torch.float64)
    p[keep] = torch.softmax(z[keep].double(), dim=0)
    return p


@pytest.mark.parametrize("tau", [0.5, 1.0, 2.0])
def test_temperature_draws_follow_softmax_of_logits_over_tau(tau):
    """Bug guarded: temperature applied where it has no effect on the draw (after the softmax's
    probabilities were taken, or only on the greedy path): every τ would then draw from softmax(z).
    """
    counts = draw(temperature=tau)
    assert_follows(counts, torch.softmax(Z.double() / tau, dim=0))
    if tau != 1.0:  # the untempered distribution is far outside the bound: the test has power
        assert chi2(counts, torch.softmax(Z.double(), dim=0)) > 20 * CHI2_999[5]


@pytest.mark.parametrize("k", [1, 2, 4])
def test_top_k_keeps_exactly_k_tokens_in_their_tempered_proportions(k):
    """Bug guarded: top-k keeping k±1 tokens, or the wrong ones, or renormalising wrongly.
    With temperature 0.8: the filter cuts after tempering, the kept k keep softmax(z/τ)'s ratios."""
    counts = draw(seed=k, temperature=0.8, top_k=k)
    top = torch.argsort(Z, descending=True)[:k].tolist()
    assert (counts > 0).sum() == k  # exactly k distinct tokens are ever drawn ...
    if k > 1:
        assert_follows(counts, renormalised(Z / 0.8, top))  # ... in the right proportions
        assert chi2(counts, renormalised(Z, top)) > 5 * CHI2_999[k - 1]  # untempered ratios are rejected
    else:
        assert counts[top[0]] == N


def smallest_set_reaching(probs: torch.Tensor, p: float) -> list[int]:
    """The most likely tokens, in order, until their mass is >= p (Holtzman et al. 2020)."""
    kept, mass = [], 0.0
    for i in torch.argsort(probs, descending=True).tolist():
        kept.append(i)
        mass += float(probs[i])
        if mass >= p:
            break
    return kept


@pytest.mark.parametrize("p,tau", [(0.5, 1.0), (0.8, 1.0), (0.95, 1.0), (0.8, 2.0)])
def test_top_p_keeps_the_smallest_set_reaching_p(p, tau):
    """Bug guarded: top-p keeping one token too many or too few (a cumulative sum that includes
    the token itself, > instead of >=), or applied before the temperature."""
    probs = torch.softmax(Z.double() / tau, dim=0)
    keep = smallest_set_reaching(probs, p)
    assert 1 < len(keep) < len(Z)  # the cases are chosen so the cut is inside the vocabulary
    counts = draw(seed=int(100 * p), temperature=tau, top_p=p)
    assert sorted((counts > 0).nonzero().flatten().tolist()) == sorted(keep)
    assert_follows(counts, renormalised(Z / tau, keep))


def test_top_k_then_top_p_on_the_renormalised_top_k():
    """Top-p cuts the distribution top-k left (renormalised): top-3 of Z has mass
    0.46, 0.21, 0.15 of the whole, i.e. 0.56, 0.26, 0.18 after renormalising, so p = 0.7 keeps two."""
    top3 = renormalised(Z, [0, 1, 2])
    keep = smallest_set_reaching(top3, 0.7)
    assert keep == [0, 1]
    assert_follows(draw(seed=7, top_k=3, top_p=0.7), renormalised(Z, keep))


def test_sample_passes_the_temperature_through_to_the_draw():
    """The user-facing `sample` (what the CLI calls) draws from softmax(z/τ) too."""
    tok = CharTokenizer(list("abcdef"))
    texts = sample(FixedLogits(Z), tok, "a", max_new_tokens=1, temperature=0.5, num_samples=4000, seed=1)
    counts = torch.tensor([sum(t == c for t in texts) for c in "abcdef"], dtype=torch.float64)
    assert_follows(counts, torch.softmax(Z.double() / 0.5, dim=0))


def test_greedy_is_the_argmax_whatever_the_seed():
    counts = draw(n=50, temperature=0)
    assert counts[int(Z.argmax())] == 50


def test_top_p_stops_as_soon_as_the_mass_reaches_p_exactly():
    """Four equal logits: probabilities 1/4 each and cumulative sums 1/4, 1/2, 3/4, 1, all exact
    in floating point. p = 1/2 is reached by two tokens, so exactly two are kept (bug guarded:
    "> p" instead of ">= p", which keeps a third)."""
    from glassformer.sample import top_p_filter

    for p, n in [(0.25, 1), (0.5, 2), (0.75, 3), (0.7, 3)]:
        assert int(torch.isfinite(top_p_filter(torch.zeros(1, 4), p)).sum()) == n, p

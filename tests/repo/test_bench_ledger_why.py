"""bench/ledger_why.py probes why three ledger entries failed; its training is the entries' own, its
arithmetic is checked here by hand on tiny inputs (the probes themselves take minutes: not run)."""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest
import torch
from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import ledger_why  # noqa: E402  (bench/ is not a package)


@pytest.mark.parametrize(
    ("freqs", "E", "K", "lower", "packed"),
    [
        ([2, 1, 1], 4, 1, 1.0, 1.0),  # half the tokens are one token: its expert holds 0.5 against 0.25
        ([1, 1], 2, 1, 0.0, 0.0),  # one token an expert: even
        ([3, 1], 2, 1, 0.5, 0.5),  # 0.75 against a mean of 0.5
        ([0.4, 0.3, 0.3], 2, 1, 0.0, 0.2),  # no token is too common, but 0.4 | 0.3 + 0.3 is the best packing
        ([1, 1, 1], 3, 2, 0.0, 0.0),  # each token to 2 of 3 experts: every expert gets two tokens
    ],
)
def test_the_identity_bound_by_hand(freqs, E, K, lower, packed):
    got = ledger_why.identity_bound(np.array(freqs, dtype=float), E, K)
    assert got == pytest.approx((lower, packed))


def test_identity_share_counts_each_tokens_slots_in_its_commonest_experts():
    tokens = np.array([0, 0, 0, 1, 1])  # (N,)
    experts = np.array([[0], [0], [1], [1], [1]])  # (N, K=1)
    share = ledger_why.identity_share(tokens, experts, vocab=3)
    assert share[:2] == pytest.approx([2 / 3, 1.0])
    assert math.isnan(share[2])  # never seen
    two = ledger_why.identity_share(np.array([0, 0]), np.array([[0, 1], [2, 3]]), vocab=1)  # K = 2 of 4
    assert two[0] == pytest.approx(0.5)  # 2 of its 4 slots in its 2 commonest experts


def test_the_pooled_loss_is_blind_to_layers_that_collapse_opposite_ways():
    """What balance.even's probe found: the loss over every layer's rows pooled (ours, as
    transformers') is at its even value K when layer 0 sends every token to expert 0 and layer 1 every
    token to expert 1; the per-layer form sees both collapses."""
    N = 6
    one = torch.tensor([[6.0, 0.0]]).expand(N, 2)  # (N, E=2): all to expert 0
    other = one.flip(-1)  # (N, 2): all to expert 1
    p = math.exp(6) / (math.exp(6) + 1)  # the chosen expert's probability
    pooled = ledger_why.load_balancing_loss([one, other], 1)
    assert pooled.item() == pytest.approx(1.0)  # E · Σ f P = 2 · (0.5·0.5 + 0.5·0.5): even
    assert ledger_why.per_layer_balance_loss([one, other], 1).item() == pytest.approx(2 * p)  # each layer: 2·1·p


def test_paired_differences_are_per_seed():
    said = ledger_why.paired([2.0, 2.5], [2.1, 2.3])  # the mean difference, then each seed's
    assert re.findall(r"[-+]\d\.\d{3}", said) == ["-0.050", "+0.100", "-0.200"]


def test_an_unknown_arm_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["ledger_why.py", "moe", "nonsense"])
    with pytest.raises(SystemExit) as e:
        ledger_why.main()
    assert e.value.code == 2
    assert "capacity" in capsys.readouterr().err  # the arms it has are named

"""The degeneration ledger entry (Holtzman et al. 2020): its two rules on made-up numbers, the
probability-per-copy measure on a model whose answer is known, and one run at quick settings."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from glassformer.lab import degeneration as dg
from glassformer.lab import get_experiment
from glassformer.lab.common import spread
from glassformer.lab.runner import run_experiment

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


def results(copy_p=((0.2, 0.3, 0.4, 0.5, 0.6),) * 3, **seq_rep) -> dict:
    """Made-up results: each decoding's per-seed mean seq-rep-4 (defaults: greedy and beam far above nucleus)."""
    base = {
        "greedy": (0.6, 0.7, 0.65),
        "beam": (0.8, 0.75, 0.9),
        "nucleus": (0.05, 0.04, 0.06),
        "pure": (0.02, 0.03, 0.02),
        "human": (0.03, 0.03, 0.03),
    }
    base.update(seq_rep)
    decodings = {name: {"seq_rep": spread(v), "loops": spread([0.5] * len(v))} for name, v in base.items()}
    return {
        "decodings": decodings,
        "beam": 8,
        "top_p": 0.95,
        "copies": len(copy_p[0]),
        "copy_p": [list(c) for c in copy_p],
    }


def test_greedy_and_beam_far_above_nucleus_on_every_seed_holds():
    v = dg.verdicts(results())["degeneration.repeat"]
    assert v.level == "holds" and v.figures["held"] == 2
    assert (v.figures["greedy"], v.figures["nucleus_loops"]) == ("0.650 ± 0.050", "50%")


def test_above_but_not_far_above_or_inside_the_scatter_is_not_counted():
    # beam: every seed above nucleus, but its mean under FAR times nucleus's: not "far more"
    v = dg.verdicts(results(beam=(0.07, 0.08, 0.09)))["degeneration.repeat"]
    assert v.level == "half-true" and v.figures["held"] == 1
    # greedy's mean is far above, but one seed sits below a nucleus seed: inside the scatter
    v = dg.verdicts(results(greedy=(0.055, 0.9, 0.9), beam=(0.01, 0.02, 0.03)))["degeneration.repeat"]
    assert v.level == "fails" and v.figures["held"] == 0


def test_feedback_holds_only_when_every_seed_rises_at_every_copy():
    rising = (0.2, 0.3, 0.4)
    assert dg.verdicts(results(copy_p=(rising, rising)))["degeneration.feedback"].level == "holds"
    dip = (0.2, 0.19, 0.4)  # the last above the first, not every step
    v = dg.verdicts(results(copy_p=(rising, dip)))["degeneration.feedback"]
    assert v.level == "half-true" and v.figures["path"] == "0.200 → 0.245 → 0.400"
    falling = (0.3, 0.25, 0.2)
    assert dg.verdicts(results(copy_p=(rising, falling)))["degeneration.feedback"].level == "fails"


class Copier(nn.Module):
    """Knows nothing until a token has appeared: a token seen before gets probability 0.9, else
    uniform over V. So copy 1 of a phrase of distinct tokens reads 1/V, every later copy 0.9."""

    V = 10

    def forward(self, x):
        B, T = x.shape
        logits = torch.zeros(B, T, self.V)  # (B, T, V)
        for t in range(T - 1):
            nxt = x[:, t + 1]  # (B,)
            seen = (x[:, : t + 1] == nxt[:, None]).any(1)  # (B,)
            # the token that does come next: likely when it was seen (a copying model)
            logits[seen, t, nxt[seen]] = float(np.log(0.9 * (self.V - 1) / 0.1))
        return logits


def test_copy_probabilities_reads_each_copy_with_the_text_given():
    val = np.arange(Copier.V)  # every phrase of 4 consecutive ids holds 4 distinct tokens
    p = dg.copy_probabilities(Copier(), val, n=3, length=4)
    assert len(p) == dg.COPIES
    assert p[0] == pytest.approx(1 / Copier.V) and p[1:] == pytest.approx([0.9] * (dg.COPIES - 1))


def test_prompts_are_held_out_windows_followed_by_what_came_next():
    val = np.arange(100)
    prompts, truth = dg.prompts_and_truth(val, n=5, P=4, new=3)
    assert prompts.shape == (5, 4)
    for row, after in zip(prompts.tolist(), truth, strict=True):
        assert row == list(range(row[0], row[0] + 4)) and after == [row[-1] + 1, row[-1] + 2, row[-1] + 3]


def test_a_quick_run_measures_every_decoding_of_every_prompt(tmp_path):
    record = run_experiment(get_experiment("degeneration"), fast=True, out=tmp_path, echo=lambda s: None)
    r, s = record["results"], dg.FAST
    assert list(r["decodings"]) == list(dg.DECODINGS) and r["beam"] == dg.BEAM
    for name, m in r["decodings"].items():
        assert 0 <= m["seq_rep"]["mean"] <= 1 and 0 <= m["loops"]["mean"] <= 1, name
        assert len(m["seq_rep"]["values"]) == 1, name  # one seed at quick settings
    assert np.shape(r["copy_p"]) == (1, dg.COPIES) and all(0 < p < 1 for p in r["copy_p"][0])
    assert set(r["examples"]) == set(dg.DECODINGS)
    saved = json.loads((tmp_path / "degeneration" / "results.json").read_text(encoding="utf-8"))
    rule = dg.verdicts(saved["results"])  # the rule, read again from what was written
    assert saved["fast"] and [c["level"] for c in saved["claims"]] == [v.level for v in rule.values()]
    assert (tmp_path / "degeneration" / "degeneration.png").read_bytes()[:4] == b"\x89PNG"
    assert s["P"] + s["new"] > s["T"]  # the continuations run past the context: the window slides

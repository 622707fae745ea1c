"""bench/peers.py and bench/peers_spread.py still run (a smoke test: no speed is asserted here).

The speed bars live in the benchmark itself (`peers.TARGETS`); this checks that the bars are the
issue's, that one round of the training contenders runs at the `baby` shape, that bad options get
a message, and that the docs' tables can be remade from the runs kept in bench/runs/.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from pathlib import Path

import pytest
from helpers import ROOT

BENCH = str(ROOT / "bench")
sys.path.insert(0, BENCH)

import peers  # noqa: E402  (bench/ is not a package)
import peers_spread  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


class Reads:
    """A stand-in for a results dict that remembers the keys a target reads: a bar is known by the figure
    it judges (shape, contender, measure), not by the words of its title."""

    def __init__(self, trail: tuple = ()):
        self.trail = trail

    def __getitem__(self, key):
        return Reads((*self.trail, key))


def test_the_targets_are_the_issues_bars():
    bars = {get(Reads()).trail: (bar, higher) for _, get, bar, higher in peers.TARGETS}
    assert len(bars) == len(peers.TARGETS)  # each target judges a figure of its own
    assert bars["shapes", "baby", "training", "fused", "vs_hf"] == (1.4, True)
    assert bars["shapes", "small", "training", "fused", "vs_hf"] == (1.25, True)
    assert bars["shapes", "baby", "training", "fused", "fraction_of_peak"] == (0.8, True)
    assert bars["shapes", "small", "training", "glass", "vs_fused"] == (0.85, True)
    assert bars["sampling", "kv-cache", "ms_per_token"] == (0.4, False)
    assert bars["sampling", "kv-cache", "vs_hf"] == (2.5, True)  # issue 42: through the model's one forward
    [batched] = [bar for trail, bar in bars.items() if trail[0] == "batched_sampling"]
    assert batched == (8.0, True)  # 16 samples in one batch vs one by one


def test_one_training_round_of_every_contender_runs():
    pytest.importorskip("transformers")
    rows = peers.bench_training("baby", "cpu", steps=1, warmup=0, compile_too=False)
    peaks = set(peers.PEAKS.values())  # the fp32 and bf16 product rates, timed in the same rounds
    assert set(rows) == {"glass", "fused", "glass bf16", "fused bf16", "hf-gpt2", *peaks}
    assert all(rows[p]["gflops"] > 0 for p in peaks)
    steps = {n: r for n, r in rows.items() if n not in peaks}
    assert all(r["ms_per_step"] > 0 and r["tokens_per_s"] > 0 for r in steps.values())
    assert {n: r["dtype"] for n, r in steps.items() if "bf16" in n} == {
        "glass bf16": "bfloat16",
        "fused bf16": "bfloat16",
    }


def test_flops_per_token_counts_the_matrices_not_the_position_table():
    from glassformer.config import get_preset

    cfg = get_preset("baby").model
    C, F, L, V = cfg.d_model, cfg.d_ff, cfg.n_layers, peers.VOCAB
    T, b = get_preset("baby").train.seq_len, int(cfg.bias)
    norm = C + b * C  # LayerNorm gain (and shift)
    per_layer = 4 * C * C + 2 * C * F + b * (3 * C + C + F + C) + 2 * norm  # qkv, proj, fc1, fc2, norms
    head = 0 if cfg.tie_weights else C * V + b * V
    n = V * C + L * per_layer + norm + head  # embedding, blocks, final norm, head
    assert peers.flops_per_token("baby") == 6 * n + 12 * L * C * T


@pytest.mark.parametrize("argv, named", [(["--shapes", "tiny"], "'tiny'"), (["--device", "cuda"], "--device")])
def test_bad_options_say_what_is_wrong(monkeypatch, capsys, argv, named):
    import torch

    if argv[:2] == ["--device", "cuda"] and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(sys, "argv", ["peers.py"] + argv)
    assert peers.main() == 2
    err = capsys.readouterr().err
    assert named in err and len(err.splitlines()) == 1  # one line naming the bad value or flag


def test_the_docs_tables_are_remade_from_the_kept_runs(capsys):
    runs = sorted(glob.glob(os.path.join(BENCH, "runs", "peers_*.json")))
    assert len(runs) >= 3
    assert peers_spread.main(runs) == 0
    out = capsys.readouterr().out
    first = json.loads(Path(runs[0]).read_text())
    assert out.startswith(f"{len(runs)} ")  # how many runs the spread is over
    assert first["targets"] and all(f"| {what} | {t['bar']} |" in out for what, t in first["targets"].items())
    contenders = {name for shape in first["shapes"].values() for name in shape["training"]}
    assert {"fused", "hf-gpt2"} <= contenders and all(f"| {name} | " in out for name in contenders)

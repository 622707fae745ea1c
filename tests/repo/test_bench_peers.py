"""bench/peers.py and bench/peers_spread.py still run (a smoke test: no speed is asserted here).

The speed bars live in the benchmark itself (`peers.TARGETS`); this checks that the bars are the
issue's, that one round of the training contenders runs at the `baby` shape, that bad options get
a message, and that the docs' tables can be remade from the runs kept in bench/runs/.
"""

from __future__ import annotations

import glob
import os
import sys

import pytest
from helpers import ROOT

BENCH = str(ROOT / "bench")
sys.path.insert(0, BENCH)

import peers  # noqa: E402  (bench/ is not a package)
import peers_spread  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


def test_the_targets_are_the_issues_bars():
    bars = {what: (bar, higher) for what, _, bar, higher in peers.TARGETS}
    assert bars["fused training vs HF, baby"] == (1.4, True)
    assert bars["fused training vs HF, small"] == (1.25, True)
    assert bars["fused model FLOP/s of matmul peak, baby"] == (0.8, True)
    assert bars["glass / fused training, small"] == (0.85, True)
    assert bars["cached decoding ms per token, batch 1"] == (0.4, False)
    assert bars["cached decoding vs HF generate"] == (2.5, True)  # issue 42: through the model's one forward
    assert bars["16 samples in one batch vs one by one"] == (8.0, True)


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


@pytest.mark.parametrize(
    "argv, message", [(["--shapes", "tiny"], "unknown ['tiny']"), (["--device", "cuda"], "no CUDA device")]
)
def test_bad_options_say_what_is_wrong(monkeypatch, capsys, argv, message):
    import torch

    if argv[:2] == ["--device", "cuda"] and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(sys, "argv", ["peers.py"] + argv)
    assert peers.main() == 2
    assert message in capsys.readouterr().err


def test_the_docs_tables_are_remade_from_the_kept_runs(capsys):
    runs = sorted(glob.glob(os.path.join(BENCH, "runs", "peers_*.json")))
    assert len(runs) >= 3
    assert peers_spread.main(runs) == 0
    out = capsys.readouterr().out
    assert f"{len(runs)} runs" in out
    assert "| glass / fused training, baby | 0.85 |" in out
    assert "| fused | " in out and "| hf-gpt2 | " in out

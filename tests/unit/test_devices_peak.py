"""The machine's speed of light (devices.py) and the FLOP count every benchmark divides by."""

from __future__ import annotations

import json

import pytest
import torch

import glassformer.devices as devices
from glassformer.cli import main
from glassformer.config import ModelConfig
from glassformer.devices import MachinePeak, flops_per_token, matmul_params, model_flops_per_token
from glassformer.models import GPT

TINY = dict(vocab_size=10, d_model=8, n_heads=2, d_ff=16, n_layers=2, max_len=4)


def test_the_flop_count_of_a_tiny_model_matches_a_count_by_hand():
    # per block: ln1 2·8, qkv 8·24 + 24, proj 8·8 + 8, ln2 2·8, fc1 8·16 + 16, fc2 16·8 + 8 = 600
    # the model: 2 blocks, final norm 2·8, head 8·10 + 10 (untied); not the (4, 8) position table and
    # not the untied (10, 8) token table: both only looked up
    n = 2 * 600 + 16 + 90
    model = GPT(ModelConfig(**TINY))
    assert matmul_params(model) == n == 1306
    # attention: Q Kᵀ and weights @ V, 2·T·C FLOPs each per token per layer (L = 2) forward, ×3 with backward
    assert model_flops_per_token(model, context=4) == 6 * n + 2 * 3 * (2 * 4 * 8 + 2 * 4 * 8) == 8604
    assert flops_per_token(n, 2, 8, 4) == 8604


def test_a_head_tied_to_the_token_table_counts_once():
    model = GPT(ModelConfig(**TINY, tie_weights=True))  # head: the (10, 8) table, no bias when tied
    assert matmul_params(model) == 2 * 600 + 16 + 80


def test_the_peak_matches_the_run_s_arithmetic():
    peak = MachinePeak("cpu", 1, float32_flops=50e9, bfloat16_flops=300e9, bandwidth=20e9)
    assert peak.flops("float32") == 50e9 and peak.flops("bfloat16") == 300e9
    assert peak.bf16_speedup == 6.0 and peak.bf16_pays
    assert not MachinePeak("cpu", 1, 50e9, 60e9, 20e9).bf16_pays  # 1.2×: below FAST_BF16


def test_the_probe_measures_positive_rates_within_its_budget():
    peak = devices.measure_machine("cpu", budget_s=0.001, size=64)
    assert peak.threads == torch.get_num_threads()
    assert peak.float32_flops > 0 and peak.bfloat16_flops > 0 and peak.bandwidth > 0


@pytest.fixture
def no_peaks(monkeypatch, tmp_path):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path))
    monkeypatch.setattr(devices, "_PEAKS", {})
    return tmp_path


def test_a_saved_peak_is_used_and_is_the_careful_one(no_peaks, monkeypatch):
    saved = MachinePeak("cpu", torch.get_num_threads(), 1e9, 7e9, 3e9)
    path = devices.save_peak(saved)
    assert path == no_peaks / "machine.json"
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: pytest.fail("probed though one was saved"))
    assert devices.machine_peak("cpu") == (saved, True)


def test_without_a_saved_peak_a_quick_probe_runs_once_per_process(no_peaks, monkeypatch):
    calls = []
    quick = MachinePeak("cpu", 1, 1e9, 1e9, 1e9)
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: calls.append(k) or quick)
    assert devices.machine_peak("cpu") == (quick, False)
    assert devices.machine_peak("cpu") == (quick, False)
    assert len(calls) == 1 and calls[0]["budget_s"] <= 0.05  # a tiny budget: a short run stays short


def test_a_peak_saved_at_another_thread_count_is_not_used(no_peaks, monkeypatch):
    devices.save_peak(MachinePeak("cpu", torch.get_num_threads() + 1, 1e9, 7e9, 3e9))
    quick = MachinePeak("cpu", 1, 2e9, 2e9, 2e9)
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: quick)
    assert devices.machine_peak("cpu") == (quick, False)


@pytest.mark.parametrize(("bf16", "expect"), [(6e9, "bfloat16"), (1.1e9, "float32")])
def test_dtype_auto_follows_the_probe(no_peaks, monkeypatch, bf16, expect):
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: MachinePeak("cpu", 1, 1e9, bf16, 1e9))
    assert devices.resolve_dtype("auto", "cpu") == expect
    assert devices.resolve_dtype("float32", "cpu") == "float32"  # a chosen dtype is kept
    assert devices.resolve_dtype("bfloat16", "cpu") == "bfloat16"


def test_bench_machine_prints_and_keeps_the_figures(no_peaks, monkeypatch, capsys):
    monkeypatch.setattr(devices, "PROBE_SIZE", 64)
    fake = MachinePeak("cpu", 1, 40e9, 200e9, 30e9)
    import glassformer.cli.train as train_cli

    monkeypatch.setattr(train_cli, "measure_machine", lambda device, budget_s: fake)
    assert main(["bench", "machine", "--budget", "0.01", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "40.0 GFLOP/s" in out and "200.0 GFLOP/s" in out and "30.0 GB/s" in out and "5.0×" in out
    kept = json.loads((no_peaks / "machine.json").read_text())
    assert [entry["bfloat16_flops"] for entry in kept.values()] == [200e9]


def test_bench_machine_refuses_a_bad_budget(no_peaks, capsys):
    from glassformer.messages import t

    with pytest.raises(SystemExit) as refused:  # argparse's range type: above 0
        main(["bench", "machine", "--budget", "0"])
    assert refused.value.code == 2 and t("arg.positive", value="0") in capsys.readouterr().err
    assert main(["bench", "machine", "--budget", "61", "--no-save"]) == 2  # the verb's own cap: 60 s
    assert t("bench.budget", value=61.0, most=60) in capsys.readouterr().err


def test_train_s_summary_says_the_fraction_of_the_saved_peak(no_peaks, tmp_path, capsys):
    from glassformer.messages import t

    devices.save_peak(MachinePeak("cpu", 1, float32_flops=1e9, bfloat16_flops=9e9, bandwidth=1e9))
    argv = ["train", "--preset", "seed000", "--data", "builtin:seed", "--out", str(tmp_path / "run")]
    argv += ["--cache-dir", str(tmp_path / "cache"), "--no-progress", "--max_steps=20", "--eval_interval=10"]
    assert main([*argv, "--eval_iters=2", "--threads=1", "--log_interval=5"]) == 0
    out = capsys.readouterr().out
    logs = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    speeds = sorted(r["tokens_per_s"] for r in logs if r["kind"] == "log")
    assert len(speeds) == 4
    tokens_per_s = speeds[2]  # the median of the four log lines (the upper middle one)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    model = GPT(ModelConfig(**config["model"]))
    flops = tokens_per_s * model_flops_per_token(model, config["train"]["seq_len"])  # FLOP/s
    line = t(
        "bench.train_speed",
        tokens_per_s=tokens_per_s,
        gflops=flops / 1e9,
        mfu=flops / 1e9,
        dtype="float32",
        peak=1.0,
        how=t("bench.peak_saved"),
    )
    assert line in out
    assert t("bench.bf16_hint", ratio=9.0) in out  # float32 chosen on a machine whose bf16 pays: say so


@pytest.mark.parametrize(("bf16", "autocasts"), [(6e9, True), (1.1e9, False)])
def test_the_trainer_autocasts_under_dtype_auto_only_where_bf16_pays(no_peaks, monkeypatch, bf16, autocasts):
    from types import SimpleNamespace

    from glassformer.config import TrainConfig
    from glassformer.train.loop import Trainer

    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: MachinePeak("cpu", 1, 1e9, bf16, 1e9))
    trainer = SimpleNamespace(cfg=TrainConfig(dtype="auto"))
    with Trainer.autocast(trainer):
        assert torch.is_autocast_enabled("cpu") == autocasts

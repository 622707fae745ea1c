"""The machine's speed of light (devices.py) and the FLOP count every benchmark divides by."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
import torch
from helpers import said, strict_json, train_argv

import glassformer.devices as devices
from glassformer.cli import main
from glassformer.config import ModelConfig
from glassformer.devices import MachinePeak, flops_per_token, matmul_params, model_flops_per_token
from glassformer.errors import DamagedFile
from glassformer.messages import t
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


BIG = dict(batch_size=32, seq_len=64, d_model=64)  # B·T·C² = 2²³ exactly: the least that pays
CASES = [  # (bf16 rate against float32's 1e9, device, attention, batch, seq_len, d_model) -> dtype, why
    ((6e9, "cpu", "glass", 32, 64, 64), ("bfloat16", "this machine's bfloat16 products are {ratio:.1f}× float32's")),
    (
        (6e9, "cpu", "glass", 32, 64, 63),
        (
            "float32",
            "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for bfloat16 to pay on a CPU",
        ),
    ),  # just below 2²³
    (
        (6e9, "cpu", "glass", 16, 64, 64),
        (
            "float32",
            "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for bfloat16 to pay on a CPU",
        ),
    ),
    (
        (6e9, "cpu", "fused", 32, 64, 64),
        ("float32", "on a CPU, the fused attention ({attention}) is slower in bfloat16"),
    ),
    (
        (1.1e9, "cpu", "glass", 32, 64, 64),
        ("float32", "this machine's bfloat16 products are only {ratio:.1f}× float32's"),
    ),
    (
        (1.1e9, "cpu", "fused", 16, 16, 16),
        ("float32", "this machine's bfloat16 products are only {ratio:.1f}× float32's"),
    ),  # the probe is asked first
]


@pytest.mark.parametrize(("case", "expect"), CASES)
def test_dtype_auto_picks_bf16_only_where_it_was_measured_to_pay(no_peaks, monkeypatch, case, expect):
    from glassformer.config import TrainConfig
    from glassformer.messages import t

    bf16, device, attention, B, T, C = case
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: MachinePeak(device, 1, 1e9, bf16, 1e9))
    model = ModelConfig(vocab_size=10, d_model=C, n_heads=1, d_ff=C, n_layers=1, max_len=T, attention=attention)
    train = TrainConfig(batch_size=B, seq_len=T)
    dtype, why, fields = devices.auto_dtype(device, model, train)
    assert (dtype, why) == expect
    assert devices.resolve_dtype("auto", device, model, train) == dtype
    t(why, **fields)  # every reason's fields fill its sentence (a missing one raises KeyError)
    if why == "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for bfloat16 to pay on a CPU":
        assert fields == {"work": B * T * C * C, "least": devices.BF16_MIN_WORK}


def test_the_least_work_is_two_to_the_23rd():
    assert devices.BF16_MIN_WORK == 2**23 == 32 * 64 * 64**2  # the docs' rule; baby's step is 12.6M


def _fast_bf16(ratio: float = 9.0) -> None:
    """Keep a careful peak whose bf16 products are `ratio`× float32's, at one thread (train_argv's)."""
    devices.save_peak(MachinePeak("cpu", 1, float32_flops=1e9, bfloat16_flops=ratio * 1e9, bandwidth=1e9))


def _config(run_dir) -> dict:
    return json.loads((run_dir / "config.json").read_text())


def test_a_new_cli_run_records_the_dtype_auto_picked_and_says_why(no_peaks, tmp_path, monkeypatch, capsys):
    from glassformer.messages import t

    _fast_bf16()
    assert main(train_argv(tmp_path, "small", "--max_steps=2")) == 0  # seed000: 1M of work, below 2²³
    assert _config(tmp_path / "small")["train"]["dtype"] == "float32"
    why = t(
        "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for bfloat16 to pay on a CPU",
        work=16 * 16 * 64**2,
        least=devices.BF16_MIN_WORK,
    )
    assert (
        t(
            "computes in {dtype} (--dtype=auto: {why}; --dtype=float32 or --dtype=bfloat16 chooses)",
            dtype="float32",
            why=why,
        )
        in capsys.readouterr().out
    )
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)  # the same run, as if it were big enough
    assert main(train_argv(tmp_path, "big", "--max_steps=2")) == 0
    assert _config(tmp_path / "big")["train"]["dtype"] == "bfloat16"  # what ran, not "auto"
    why = t("this machine's bfloat16 products are {ratio:.1f}× float32's", ratio=9.0)
    assert (
        t(
            "computes in {dtype} (--dtype=auto: {why}; --dtype=float32 or --dtype=bfloat16 chooses)",
            dtype="bfloat16",
            why=why,
        )
        in capsys.readouterr().out
    )


def test_a_dtype_the_user_gives_is_kept_and_not_explained(no_peaks, tmp_path, monkeypatch, capsys):
    from glassformer.messages import t

    _fast_bf16()
    assert main(train_argv(tmp_path, "run", "--max_steps=2", "--dtype=bfloat16")) == 0  # below 2²³: auto says float32
    assert _config(tmp_path / "run")["train"]["dtype"] == "bfloat16"
    out = capsys.readouterr().out
    assert (
        t(
            "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for bfloat16 to pay on a CPU",
            work=16 * 16 * 64**2,
            least=devices.BF16_MIN_WORK,
        )
        not in out
    )
    assert t("this machine's bfloat16 products are {ratio:.1f}× float32's", ratio=9.0) not in out


def test_a_resumed_run_keeps_its_dtype_when_the_probe_changes_its_mind(no_peaks, tmp_path, monkeypatch, capsys):
    _fast_bf16()
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)
    assert main(train_argv(tmp_path, "run", "--max_steps=2")) == 0
    assert _config(tmp_path / "run")["train"]["dtype"] == "bfloat16"
    monkeypatch.setattr(devices, "_PEAKS", {})
    _fast_bf16(ratio=1.0)  # the same key: this machine's bf16 is now measured as slow
    with devices.using_threads(1):
        assert devices.resolve_dtype("auto", "cpu") == "float32"
    resume = ["train", "--resume", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    assert main([*resume, "--threads=1", "--max_steps=4"]) == 0
    assert _config(tmp_path / "run")["train"]["dtype"] == "bfloat16"


def test_a_resume_that_names_a_preset_asks_auto_like_a_new_run(no_peaks, tmp_path, monkeypatch, capsys):
    _fast_bf16()
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)
    assert main(train_argv(tmp_path, "run", "--max_steps=2")) == 0
    resume = ["train", "--resume", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    with said() as heard:
        assert main([*resume, "--preset", "seed000", "--threads=1", "--max_steps=4"]) == 0  # the preset: float32
    assert _config(tmp_path / "run")["train"]["dtype"] == "bfloat16"  # auto again, on the same machine: unchanged
    changed = [
        fields["changes"] for key, fields in heard if key == "resuming with changed training settings: {changes}"
    ]
    assert len(changed) == 1 and "max_steps" in changed[0] and "dtype" not in changed[0]


def test_the_library_default_stays_float32():
    from glassformer.config import TrainConfig

    assert TrainConfig().dtype == "float32"  # only the command line's new runs ask for auto


def test_bench_machine_prints_and_keeps_the_figures(no_peaks, monkeypatch, capsys):
    monkeypatch.setattr(devices, "PROBE_SIZE", 64)
    fake = MachinePeak("cpu", 1, 40e9, 200e9, 30e9)
    monkeypatch.setattr(devices, "measure_machine", lambda device, budget_s: fake)  # the verb imports it when run
    assert main(["bench", "machine", "--budget", "0.01", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "40.0 GFLOP/s" in out and "200.0 GFLOP/s" in out and "30.0 GB/s" in out and "5.0×" in out
    kept = json.loads((no_peaks / "machine.json").read_text())
    assert [entry["bfloat16_flops"] for entry in kept.values()] == [200e9]


def test_bench_machine_refuses_a_bad_budget(no_peaks, capsys):
    from glassformer.messages import t

    with pytest.raises(SystemExit) as refused:  # argparse's range type: above 0
        main(["bench", "machine", "--budget", "0"])
    assert (
        refused.value.code == 2
        and t("must be a finite number > 0, got {value!r}", value="0") in capsys.readouterr().err
    )
    assert main(["bench", "machine", "--budget", "61", "--no-save"]) == 2  # the verb's own cap: 60 s
    assert (
        t("--budget {value}: give a number of seconds above 0 and at most {most}.", value=61.0, most=60)
        in capsys.readouterr().err
    )


def test_train_s_summary_says_the_fraction_of_the_saved_peak(no_peaks, tmp_path, monkeypatch, capsys):
    from glassformer.messages import t

    devices.save_peak(MachinePeak("cpu", 1, 1e12, 9e12, 1e9))  # fast bf16, and a peak no run here comes near
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)  # auto would pick bf16 for this run ...
    slow = MachinePeak("cpu", 0, 1e9, 1e9, 1e9)  # any other thread count's quick probe: bf16 slow there
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: slow)  # every question must ask the run's 1
    argv = train_argv(tmp_path, "run", "--max_steps=20", "--eval_interval=10", "--eval_iters=2")
    assert main([*argv, "--log_interval=5", "--dtype=float32"]) == 0  # ... but float32 was asked for
    out = capsys.readouterr().out
    logs = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    speeds = sorted(r["tokens_per_s"] for r in logs if r["kind"] == "log")
    assert len(speeds) == 4
    tokens_per_s = speeds[2]  # the median of the four log lines (the upper middle one)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    model = GPT(ModelConfig(**config["model"]))
    flops = tokens_per_s * model_flops_per_token(model, config["train"]["seq_len"])  # FLOP/s
    line = t(
        "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s "
        "of model arithmetic = {mfu:.0%} of this machine's {dtype} "
        "matrix-product peak ({peak:.1f} GFLOP/s, {how})",
        tokens_per_s=tokens_per_s,
        gflops=flops / 1e9,
        mfu=flops / 1e12,
        dtype="float32",
        peak=1000.0,
        how=t("measured by `glassformer bench machine`"),
    )
    assert line in out
    assert (
        t(
            "this machine's bfloat16 products are {ratio:.1f}× faster, "
            "and this run is big enough for them to pay: leave --dtype "
            "out (auto) or give --dtype=bfloat16 (docs/performance.md: "
            "the losses stay within 0.1%)",
            ratio=9.0,
        )
        in out
    )  # float32 chosen where auto would take bf16: say so


def test_no_bf16_hint_where_bf16_would_not_pay(no_peaks, tmp_path, capsys):
    from glassformer.messages import t

    _fast_bf16()  # fast bf16, but seed000's step is below BF16_MIN_WORK
    assert main(train_argv(tmp_path, "run", "--max_steps=10", "--log_interval=5", "--dtype=float32")) == 0
    out = capsys.readouterr().out
    assert (
        t(
            "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s "
            "of model arithmetic = {mfu:.0%} of this machine's {dtype} "
            "matrix-product peak ({peak:.1f} GFLOP/s, {how})",
            tokens_per_s=1,
            gflops=1,
            mfu=1,
            dtype="x",
            peak=1,
            how="y",
        )[:6]
        in out
    )
    assert (
        t(
            "this machine's bfloat16 products are {ratio:.1f}× faster, "
            "and this run is big enough for them to pay: leave --dtype "
            "out (auto) or give --dtype=bfloat16 (docs/performance.md: "
            "the losses stay within 0.1%)",
            ratio=9.0,
        )
        not in out
    )


@pytest.mark.parametrize(("bf16", "autocasts"), [(6e9, True), (1.1e9, False)])
def test_the_trainer_autocasts_under_dtype_auto_only_where_bf16_pays(no_peaks, monkeypatch, bf16, autocasts):
    from types import SimpleNamespace

    from glassformer.config import TrainConfig
    from glassformer.train.loop import Trainer

    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: MachinePeak("cpu", 1, 1e9, bf16, 1e9))
    trainer = SimpleNamespace(cfg=TrainConfig(dtype="auto"), model=None)  # no model config: the probe alone
    with Trainer.autocast(trainer):
        assert torch.is_autocast_enabled("cpu") == autocasts


# ---- a machine.json that is no measurement: ignored (or replaced) with one line naming it -----------
def _entry(**figures) -> dict:
    """machine.json holding one entry for this machine at one thread, with `figures` in place."""
    good = asdict(MachinePeak("cpu", 1, 1e9, 2e9, 3e9))
    return {devices._peak_key("cpu", 1): {**good, **figures}}


def _nested(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


DAMAGED = {  # what the file holds -> the key of the problem said about it
    "text values": (json.dumps(_entry(float32_flops="fast", bandwidth="3e9")), "bench.peak.impossible"),
    "zero": (json.dumps(_entry(float32_flops=0)), "bench.peak.impossible"),
    "1e400": (json.dumps(_entry()).replace("1000000000.0", "1e400"), "bench.peak.impossible"),  # inf
    "nan": (json.dumps(_entry(bfloat16_flops=float("nan"))), "bench.peak.impossible"),
    "negative": (json.dumps(_entry(bandwidth=-3e9)), "bench.peak.impossible"),
    "absurd": (json.dumps(_entry(float32_flops=1e-3)), "bench.peak.impossible"),  # 398152842320% of peak
    "deep nesting": (_nested(), "files.json_nested"),
    "nested entry": (json.dumps({devices._peak_key("cpu", 1): {"a": [[[[1]]]]}}), "bench.peak.not_entry"),
    "not json": ("{machine: fast", "files.json"),
    "a list": (json.dumps([_entry()]), "it holds a JSON {found}, not the object of measurements glassformer writes."),
    "empty": ("", "files.empty"),
    "text entry": (json.dumps({devices._peak_key("cpu", 1): "fast"}), "bench.peak.not_entry"),
}


@pytest.fixture
def damaged_cache(no_peaks, monkeypatch, request):
    monkeypatch.setattr(devices, "_SAID", set())
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: MachinePeak("cpu", 1, 1e12, 1e12, 5e9))  # quick
    text, problem = DAMAGED[request.param]
    (no_peaks / "machine.json").write_text(text)
    return no_peaks / "machine.json", problem, text


def _said_ignored(
    heard,
    path,
    problem: str,
    key: str = "ignored {path}: {problem} The speed summary uses a quick "
    "probe instead; `glassformer bench machine` measures "
    "carefully and writes the file again.",
) -> None:
    """Exactly one line about machine.json: `key`, naming the file, its problem made from `problem`."""
    lines = heard.of(key)
    assert len(lines) == 1 and lines[0]["path"] == path
    assert heard.of(problem), problem


@pytest.mark.parametrize("damaged_cache", list(DAMAGED), indirect=True)
def test_a_machine_json_that_is_no_measurement_is_ignored_with_one_line_naming_it(damaged_cache):
    path, problem, text = damaged_cache
    quick = MachinePeak("cpu", 1, 1e12, 1e12, 5e9)  # the fixture's probe
    with said() as heard, devices.using_threads(1):
        assert devices.machine_peak("cpu") == (quick, False)  # the quick probe, not the impossible figure
        devices._PEAKS.clear()
        assert devices.machine_peak("cpu") == (quick, False)  # read again: said once all the same
    _said_ignored(heard, path, problem)


@pytest.mark.parametrize("damaged_cache", list(DAMAGED), indirect=True)
def test_float32_training_then_its_summary_finish_past_a_damaged_machine_json(damaged_cache, tmp_path, capsys):
    path, problem, text = damaged_cache
    with said() as heard:
        assert (
            main(train_argv(tmp_path, "run", "--max_steps=4", "--log_interval=2", "--eval_iters=1", "--dtype=float32"))
            == 0
        )
    _said_ignored(heard, path, problem)
    [summary] = heard.of(
        "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s "
        "of model arithmetic = {mfu:.0%} of this machine's {dtype} "
        "matrix-product peak ({peak:.1f} GFLOP/s, {how})"
    )
    assert (
        summary["how"] == t("a quick probe; `glassformer bench machine` measures it carefully")
        and 0 < summary["mfu"] < 100
    )  # a fraction, not 398152842320%
    assert path.read_text() == text  # train only reads it


@pytest.mark.parametrize("damaged_cache", ["text values", "zero", "1e400", "deep nesting"], indirect=True)
def test_a_new_run_with_dtype_auto_trains_past_a_damaged_machine_json(damaged_cache, tmp_path):
    path, problem, text = damaged_cache
    with said() as heard:
        assert main(train_argv(tmp_path, "run", "--max_steps=2")) == 0  # was: internal error
    _said_ignored(heard, path, problem)
    assert _config(tmp_path / "run")["train"]["dtype"] in ("float32", "bfloat16")


@pytest.mark.parametrize("damaged_cache", list(DAMAGED), indirect=True)
def test_bench_machine_writes_over_a_damaged_machine_json(damaged_cache, monkeypatch):
    path, problem, text = damaged_cache
    fake = MachinePeak("cpu", 1, 40e9, 200e9, 30e9)
    monkeypatch.setattr(devices, "measure_machine", lambda device, budget_s: fake)  # the verb imports it when run
    with said() as heard:
        assert main(["bench", "machine", "--budget", "0.01", "--threads", "1"]) == 0
    kept = json.loads(path.read_text())
    assert kept[devices._peak_key("cpu", 1)] == asdict(fake)
    unreadable = ("files.json_nested", "files.json", "files.empty")  # DAMAGED's, as a file
    file_damaged = (
        problem in unreadable
        or problem == "it holds a JSON {found}, not the object of measurements glassformer writes."
    )
    assert len(heard.of("replacing {path}: {problem}")) == (1 if file_damaged else 0)  # a bad entry is just replaced
    devices._PEAKS.clear()
    with devices.using_threads(1):
        assert devices.machine_peak("cpu") == (fake, True)


def test_a_saved_peak_at_the_edges_of_the_range_is_a_measurement():
    low, high = devices.PEAK_RANGE
    for value in (low, high, 1, 2**40):
        if low <= value <= high:
            entry = asdict(MachinePeak("cpu", 1, value, value, value))
            assert devices.checked_peak(entry, 1) == MachinePeak(**entry)
    entry = asdict(MachinePeak("cpu", 1, 1e9, 1e9, 1e9))
    for name, value in (("float32_flops", low / 2), ("bandwidth", high * 2), ("bfloat16_flops", True)):
        with pytest.raises(DamagedFile) as e:
            devices.checked_peak({**entry, name: value}, 1)
        assert e.value.code == "bench.peak.impossible" and e.value.fields["name"] == name
    with pytest.raises(DamagedFile) as e:
        devices.checked_peak(entry, 2)  # another thread count's figures
    assert e.value.code == "bench.peak.not_entry"


def test_a_fraction_above_the_whole_peak_blames_the_peak_not_the_run(no_peaks, tmp_path, monkeypatch):
    """A saved peak within PEAK_RANGE can still be below what a run does (1 MFLOP/s here): a fraction
    over 100% is no speed, so the summary says the peak is wrong instead of "398152842320% of peak"."""
    low = devices.PEAK_RANGE[0]
    devices.save_peak(MachinePeak("cpu", 1, float32_flops=low, bfloat16_flops=low, bandwidth=1e9))
    with said() as heard:
        assert main(train_argv(tmp_path, "run", "--max_steps=4", "--log_interval=2", "--dtype=float32")) == 0
    [wrong] = heard.of(
        "speed: {gflops:.1f} GFLOP/s of model arithmetic, {mfu:.0%} "
        "of this machine's peak ({peak:.3g} GFLOP/s): more than the "
        "machine can do, so that peak is wrong; `glassformer bench "
        "machine` measures it again."
    )
    assert (
        wrong["mfu"] > 1
        and wrong["peak"] == low / 1e9
        and not heard.of(
            "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s "
            "of model arithmetic = {mfu:.0%} of this machine's {dtype} "
            "matrix-product peak ({peak:.1f} GFLOP/s, {how})"
        )
    )


def test_machine_json_is_json_even_when_a_figure_is_not_finite(no_peaks):
    """machine.json comes from the one JSON writer (files.json_text): a bandwidth measured as NaN is
    null (it was a bare NaN, not JSON), and the entry is then read as no measurement."""
    path = devices.save_peak(MachinePeak("cpu", 1, 1e9, 7e9, float("nan")))
    saved = strict_json(path.read_text(encoding="utf-8"))
    (entry,) = saved.values()
    assert entry["bandwidth"] is None and entry["float32_flops"] == 1e9
    with pytest.raises(DamagedFile) as e:
        devices.checked_peak(entry, 1)
    assert e.value.code == "bench.peak.impossible" and e.value.fields["name"] == "bandwidth"


@pytest.mark.parametrize("held, found", [([1, 2], "list"), ("fast", "str"), (3.5, "float"), (None, "NoneType")])
def test_a_machine_json_that_holds_no_object_names_what_it_holds(no_peaks, monkeypatch, held, found):
    monkeypatch.setattr(devices, "_SAID", set())
    (no_peaks / "machine.json").write_text(json.dumps(held))
    with said() as heard:
        assert devices._read_peaks(no_peaks / "machine.json", "ignored {path}: {problem}") == {}
    assert heard.of("it holds a JSON {found}, not the object of measurements glassformer writes.") == [{"found": found}]
    assert [line["path"] for line in heard.of("ignored {path}: {problem}")] == [no_peaks / "machine.json"]

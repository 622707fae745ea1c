"""The machine's speed of light (devices.py) and the FLOP count every benchmark divides by."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
import torch
from helpers import said, strict_json, train_argv

import glassformer.devices as devices
from glassformer.cli import main
from glassformer.cli.train import PEAK_MEASURED, PEAK_PROBED
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


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_probe_multiplies_its_own_seeded_matrices_and_leaves_torchs_generator_alone(dtype):
    """A probe may run inside a training process (`--dtype auto` asks it): drawing its matrices from
    torch's global generator would change that run's random numbers (its init, its batches)."""
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    fn, flops = devices.matmul_call(dtype, "cpu", size=8)
    assert torch.equal(torch.get_rng_state(), before) and flops == 2 * 8**3
    g = torch.Generator().manual_seed(0)
    a, b = (torch.randn(8, 8, generator=g).to(dtype) for _ in range(2))  # 2 × (8, 8)
    assert torch.equal(fn(), torch.mm(a, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_probe_multiplies_on_the_device_and_in_the_dtype_it_measures(monkeypatch, dtype):
    """Both matrices and the output live on the device the probe was asked about, in its dtype: one
    left on the CPU would time a copy between devices, or the CPU, not the accelerator's products.
    The meta device stands in for an accelerator (one CPU has no second device)."""
    fn, _ = devices.matmul_call(dtype, "meta", size=8)
    seen = []
    mm = torch.mm
    monkeypatch.setattr(torch, "mm", lambda a, b, out: seen.append((a, b, out)) or mm(a, b, out=out))
    fn()
    [(a, b, out)] = seen
    assert [(x.device.type, x.dtype, tuple(x.shape)) for x in (a, b, out)] == [("meta", dtype, (8, 8))] * 3


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


def _sentence(heard, **fields) -> str:
    """The one sentence said with these field values, worded as the catalogue words it now: what the
    output must hold, found by its figures rather than typed in English (an error's code, heard beside
    its sentence, is left out)."""
    [words] = {t(m, **f) for m, f in heard if " " in m and all(k in f and f[k] == v for k, v in fields.items())}
    return words


SPEED = {"tokens_per_s", "gflops", "mfu", "dtype", "peak", "how"}  # the speed line's fields


def test_a_new_cli_run_records_the_dtype_auto_picked_and_says_why(no_peaks, tmp_path, monkeypatch, capsys):
    _fast_bf16()
    with said() as heard:
        assert main(train_argv(tmp_path, "small", "--max_steps=2")) == 0  # seed000: 1M of work, below 2²³
    assert _config(tmp_path / "small")["train"]["dtype"] == "float32"
    why = _sentence(heard, work=16 * 16 * 64**2, least=devices.BF16_MIN_WORK)  # too little work for bf16
    assert heard.carrying(dtype="float32", why=why) and _sentence(heard, why=why) in capsys.readouterr().out
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)  # the same run, as if it were big enough
    with said() as heard:
        assert main(train_argv(tmp_path, "big", "--max_steps=2")) == 0
    assert _config(tmp_path / "big")["train"]["dtype"] == "bfloat16"  # what ran, not "auto"
    why = _sentence(heard, ratio=9.0)  # this machine's bf16 is 9× float32
    assert heard.carrying(dtype="bfloat16", why=why) and _sentence(heard, why=why) in capsys.readouterr().out


def test_a_dtype_the_user_gives_is_kept_and_not_explained(no_peaks, tmp_path, monkeypatch, capsys):
    _fast_bf16()
    with said() as heard:
        assert main(train_argv(tmp_path, "run", "--max_steps=2", "--dtype=bfloat16")) == 0  # below 2²³: auto: float32
    assert _config(tmp_path / "run")["train"]["dtype"] == "bfloat16"
    assert not heard.carrying(work=16 * 16 * 64**2) and not heard.carrying(ratio=9.0)  # no reason given
    assert not [fields for _, fields in heard if "why" in fields]


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
    with said() as heard, pytest.raises(SystemExit) as refused:  # argparse's range type: above 0
        main(["bench", "machine", "--budget", "0"])
    assert refused.value.code == 2 and _sentence(heard, value="0") in capsys.readouterr().err
    with said() as heard:
        assert main(["bench", "machine", "--budget", "61", "--no-save"]) == 2  # the verb's own cap: 60 s
    assert heard.of("bench.budget") == [{"value": 61.0, "most": 60}]
    assert _sentence(heard, value=61.0, most=60) in capsys.readouterr().err


def test_train_s_summary_says_the_fraction_of_the_saved_peak(no_peaks, tmp_path, monkeypatch, capsys):
    devices.save_peak(MachinePeak("cpu", 1, 1e12, 9e12, 1e9))  # fast bf16, and a peak no run here comes near
    monkeypatch.setattr(devices, "BF16_MIN_WORK", 1)  # auto would pick bf16 for this run ...
    slow = MachinePeak("cpu", 0, 1e9, 1e9, 1e9)  # any other thread count's quick probe: bf16 slow there
    monkeypatch.setattr(devices, "measure_machine", lambda *a, **k: slow)  # every question must ask the run's 1
    argv = train_argv(tmp_path, "run", "--max_steps=20", "--eval_interval=10", "--eval_iters=2")
    with said() as heard:
        assert main([*argv, "--log_interval=5", "--dtype=float32"]) == 0  # ... but float32 was asked for
    out = capsys.readouterr().out
    logs = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    speeds = sorted(r["tokens_per_s"] for r in logs if r["kind"] == "log")
    assert len(speeds) == 4
    tokens_per_s = speeds[2]  # the median of the four log lines (the upper middle one)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    model = GPT(ModelConfig(**config["model"]))
    flops = tokens_per_s * model_flops_per_token(model, config["train"]["seq_len"])  # FLOP/s
    [line] = [fields for _, fields in heard if set(fields) == SPEED]
    assert line == {
        "tokens_per_s": tokens_per_s,
        "gflops": flops / 1e9,
        "mfu": flops / 1e12,
        "dtype": "float32",
        "peak": 1000.0,
        "how": t(PEAK_MEASURED),  # the careful peak bench machine saved
    }
    assert _sentence(heard, tokens_per_s=tokens_per_s, how=t(PEAK_MEASURED)) in out
    assert _sentence(heard, ratio=9.0) in out  # float32 chosen where auto would take bf16: say so


def test_no_bf16_hint_where_bf16_would_not_pay(no_peaks, tmp_path, capsys):
    _fast_bf16()  # fast bf16, but seed000's step is below BF16_MIN_WORK
    with said() as heard:
        assert main(train_argv(tmp_path, "run", "--max_steps=10", "--log_interval=5", "--dtype=float32")) == 0
    [line] = [
        fields for _, fields in heard if "mfu" in fields
    ]  # a speed line is said (this 1 GFLOP/s peak is slow) ...
    assert _sentence(heard, **line) in capsys.readouterr().out
    assert not heard.carrying(ratio=9.0)  # ... but no hint that bf16 would pay


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


DAMAGED = {  # what the file holds -> the code of the problem said about it (or the fields it is said with)
    "text values": (json.dumps(_entry(float32_flops="fast", bandwidth="3e9")), "bench.peak.impossible"),
    "zero": (json.dumps(_entry(float32_flops=0)), "bench.peak.impossible"),
    "1e400": (json.dumps(_entry()).replace("1000000000.0", "1e400"), "bench.peak.impossible"),  # inf
    "nan": (json.dumps(_entry(bfloat16_flops=float("nan"))), "bench.peak.impossible"),
    "negative": (json.dumps(_entry(bandwidth=-3e9)), "bench.peak.impossible"),
    "absurd": (json.dumps(_entry(float32_flops=1e-3)), "bench.peak.impossible"),  # 398152842320% of peak
    "deep nesting": (_nested(), "files.json_nested"),
    "nested entry": (json.dumps({devices._peak_key("cpu", 1): {"a": [[[[1]]]]}}), "bench.peak.not_entry"),
    "not json": ("{machine: fast", "files.json"),
    "a list": (json.dumps([_entry()]), {"found": "list"}),
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


def _lines_naming(heard, path) -> list[dict]:
    """The fields of each line said about `path` and its problem (the error that made the problem,
    heard too, carries the path but no problem)."""
    return [fields for msgid, fields in heard if "problem" in fields and fields.get("path") == path]


def _said_problem(heard, problem) -> None:
    """The problem was said: an error's code, or a sentence's fields."""
    assert heard.carrying(**problem) if isinstance(problem, dict) else heard.of(problem), problem


def _said_ignored(heard, path, problem) -> None:
    """Exactly one line about machine.json, naming the file, its problem made from `problem`."""
    [line] = _lines_naming(heard, path)
    assert set(line) == {"path", "problem"}
    _said_problem(heard, problem)


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
    [summary] = [fields for _, fields in heard if set(fields) == SPEED]
    assert summary["how"] == t(PEAK_PROBED) and summary["peak"] == 1000.0  # the fixture's quick probe
    assert 0 < summary["mfu"] < 100  # a fraction, not 398152842320%
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
    unreadable = ("files.json_nested", "files.json", "files.empty", {"found": "list"})  # DAMAGED's, as a file
    replacing = _lines_naming(heard, path)  # a damaged file: one line naming it; a bad entry is just replaced
    assert len(replacing) == (1 if problem in unreadable else 0)
    if replacing:
        _said_problem(heard, problem)
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
    [wrong] = [fields for _, fields in heard if "mfu" in fields]  # one speed line, and not the usual one:
    assert set(wrong) == {"gflops", "mfu", "peak"} != SPEED  # no tokens/s, no "of this machine's float32 peak"
    assert wrong["mfu"] > 1 and wrong["peak"] == low / 1e9


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


NOTE = "{path}: {problem}"  # the caller's own note (a test template, not the package's words)


@pytest.mark.parametrize("held, found", [([1, 2], "list"), ("fast", "str"), (3.5, "float"), (None, "NoneType")])
def test_a_machine_json_that_holds_no_object_names_what_it_holds(no_peaks, monkeypatch, held, found):
    monkeypatch.setattr(devices, "_SAID", set())
    (no_peaks / "machine.json").write_text(json.dumps(held))
    with said() as heard:
        assert devices._read_peaks(no_peaks / "machine.json", NOTE) == {}
    assert [fields for _, fields in heard.exactly("found")] == [{"found": found}]  # what the file holds, named
    assert [line["path"] for line in heard.of(NOTE)] == [no_peaks / "machine.json"]  # the note the caller gave


def test_the_quick_probe_is_kept_per_device_and_thread_count(no_peaks, monkeypatch):
    """One probe per (device, threads) in a process: another thread count or device is probed
    afresh, never served the first one's figures."""
    calls = []

    def probe(device, **kw):
        calls.append((device, torch.get_num_threads()))
        return MachinePeak(device, torch.get_num_threads(), 1e9, 1e9, 1e9)

    monkeypatch.setattr(devices, "measure_machine", probe)
    with devices.using_threads(1):
        one = devices.machine_peak("cpu")[0]
        assert devices.machine_peak("cpu")[0] is one
    with devices.using_threads(2):
        two = devices.machine_peak("cpu")[0]
        other = devices.machine_peak("meta")[0]
    assert calls == [("cpu", 1), ("cpu", 2), ("meta", 2)] and (one.threads, two.threads, other.device) == (1, 2, "meta")

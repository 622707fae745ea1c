"""`glassformer bench machine`: this machine's own speed of light, measured now.

Times a float32 and a bfloat16 matrix product and a large memory copy on the device, at the thread
count of --threads, and keeps the result (glassformer/devices.py: save_peak) so that `train` can say
what fraction of it a run reaches. docs/performance.md explains the figures.
"""

from __future__ import annotations

import argparse

from glassformer.cli.options import add_threads, positive
from glassformer.devices import check_device, measure_machine, save_peak
from glassformer.errors import UsageError
from glassformer.messages import say, t

DEFAULT_BUDGET = 1.0  # seconds per measurement: the fastest of the calls made within it counts


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help=t("help.bench"), description=t("help.bench.about"))
    what = p.add_subparsers(dest="bench_what", metavar="WHAT")
    m = what.add_parser("machine", help=t("help.bench.machine"), description=t("help.bench.machine"))
    m.add_argument("--device", default="cpu", help=t("help.bench.device"))
    m.add_argument(
        "--budget", type=positive, default=DEFAULT_BUDGET, help=t("help.bench.budget", default=DEFAULT_BUDGET)
    )
    m.add_argument("--no-save", action="store_true", help=t("help.bench.no_save"))
    add_threads(m)
    m.set_defaults(func=run_machine)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def run_machine(args: argparse.Namespace) -> int:
    if not 0 < args.budget <= 60:
        raise UsageError("bench.budget", value=args.budget, most=60)
    device = check_device(args.device)
    peak = measure_machine(device, budget_s=args.budget)
    say("bench.machine.title", device=device, threads=peak.threads)
    say("bench.machine.float32", gflops=peak.float32_flops / 1e9)
    say("bench.machine.bfloat16", gflops=peak.bfloat16_flops / 1e9, ratio=peak.bf16_speedup)
    say("bench.machine.bandwidth", gbs=peak.bandwidth / 1e9)
    say("bench.machine.bf16_pays" if peak.bf16_pays else "bench.machine.bf16_slow", ratio=peak.bf16_speedup)
    if not args.no_save:
        say("bench.machine.saved", path=save_peak(peak))
    return 0


def say_train_speed(run, start_step: int) -> None:
    """train's summary line: the run's tokens/s (median of its log lines since start_step), the model
    FLOP/s that makes (devices.flops_per_token) and its fraction of this machine's matching peak."""
    from glassformer.devices import machine_peak, model_flops_per_token, resolve_dtype
    from glassformer.threads import using_threads

    cfg = run.trainer.cfg
    if run.model.inputs != "tokens" or not run.trainer.files:
        return  # the formula counts a token stack; a run without files kept no log lines
    records = run.trainer.files.metrics.read()
    logged = [r["tokens_per_s"] for r in records if r["kind"] == "log" and r["step"] > start_step]
    if not logged:
        return
    tokens_per_s = sorted(logged)[len(logged) // 2]
    model_flops = tokens_per_s * model_flops_per_token(run.model, cfg.seq_len)  # FLOP/s
    with using_threads(cfg.threads):  # the peak at the run's own thread count
        peak, careful = machine_peak(cfg.device)
    dtype = resolve_dtype(cfg.dtype, cfg.device)
    ranks = run.trainer.world.size  # tokens/s counts every process's tokens; each has its own peak
    say(
        "bench.train_speed",
        tokens_per_s=tokens_per_s,
        gflops=model_flops / 1e9,
        mfu=model_flops / (ranks * peak.flops(dtype)),
        dtype=dtype,
        peak=ranks * peak.flops(dtype) / 1e9,
        how=t("bench.peak_saved" if careful else "bench.peak_quick"),
    )
    if dtype == "float32" and cfg.dtype == "float32" and peak.bf16_pays:
        say("bench.bf16_hint", ratio=peak.bf16_speedup)

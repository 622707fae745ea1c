"""Median and spread of several bench/peers.py runs: the tables of docs/performance.md.

    for i in 1 2 3; do python bench/peers.py --threads 1 --json /tmp/peers_$i.json; done
    python bench/peers_spread.py /tmp/peers_*.json

Prints, per shape and contender, the median of the runs' figures and their range (min–max), and
the same for sampling, batched sampling and every target.
"""

from __future__ import annotations

import json
import statistics
import sys


def spread(values: list[float], fmt: str) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return format(med, fmt)
    return f"{format(med, fmt)} ({format(min(values), fmt)}–{format(max(values), fmt)})"


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__)
        return 2
    runs = [json.load(open(p)) for p in paths]
    first = runs[0]
    print(f"{len(runs)} runs: device {first['device']}, torch {first['torch']}, {first['threads']} thread(s)")
    for shape, res in first.get("shapes", {}).items():
        rates = [r["shapes"][shape]["matmul_gflops"] for r in runs]
        print(f"\n{shape} (B {res['batch']}, T {res['block']}), fp32 matmul {spread(rates, '.0f')} GFLOP/s")
        print("| contender | ms/step | tokens/s | vs HF | vs nanoGPT | MFU (of its dtype's peak) | peak MiB |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name in res["training"]:
            rows = [r["shapes"][shape]["training"][name] for r in runs]
            peak = [row["peak_mib"] for row in rows if row.get("peak_mib") == row.get("peak_mib") and "peak_mib" in row]
            print(
                f"| {name} | {spread([r['ms_per_step'] for r in rows], '.1f')} "
                f"| {spread([r['tokens_per_s'] for r in rows], ',.0f')} "
                f"| {spread([r['vs_hf'] for r in rows], '.2f')}× "
                f"| {spread([r['vs_nanogpt'] for r in rows], '.2f') + '×' if 'vs_nanogpt' in rows[0] else '–'} "
                f"| {spread([100 * r['fraction_of_peak'] for r in rows], '.0f')}% {rows[0].get('dtype', 'float32')} "
                f"| {spread(peak, '.0f') if peak else '–'} |"
            )
    if "sampling" in first:
        print("\n| sampling contender | ms/token | tokens/s | vs HF |")
        print("|---|---:|---:|---:|")
        for name in first["sampling"]:
            rows = [r["sampling"][name] for r in runs]
            print(
                f"| {name} | {spread([r['ms_per_token'] for r in rows], '.3f')} "
                f"| {spread([r['tokens_per_s'] for r in rows], ',.0f')} "
                f"| {spread([r['vs_hf'] for r in rows], '.2f')}× |"
            )
        if "decode_memory" in first:
            bw = [r["decode_memory"]["bandwidth_gbs"] for r in runs]
            cached = [r["sampling"].get("kv-cache") or r["sampling"]["kv-cache, decode step"] for r in runs]  # old runs
            use = [c["bandwidth_utilisation"] * 100 for c in cached]
            print(f"\nbandwidth {spread(bw, '.1f')} GB/s; cached decoding reads at {spread(use, '.0f')}% of it")
    if "batched_sampling" in first:
        print("\n| batched sampling | s | tokens/s | vs one by one |")
        print("|---|---:|---:|---:|")
        for name in first["batched_sampling"]:
            rows = [r["batched_sampling"][name] for r in runs]
            print(
                f"| {name} | {spread([r['s'] for r in rows], '.2f')} "
                f"| {spread([r['tokens_per_s'] for r in rows], ',.0f')} "
                f"| {spread([r['vs_one_by_one'] for r in rows], '.2f')}× |"
            )
    print("\n| target | bar | median (range) | met in |")
    print("|---|---:|---:|---:|")
    for what, t in first.get("targets", {}).items():
        values = [r["targets"][what]["value"] for r in runs if what in r.get("targets", {})]
        met = sum(r["targets"][what]["met"] for r in runs if what in r.get("targets", {}))
        print(f"| {what} | {t['bar']} | {spread(values, '.3f')} | {met} of {len(values)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

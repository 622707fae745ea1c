"""The words of `glassformer bench` (cli/bench.py) and the speed line of `train`'s summary."""

TEXT = {
    "help.bench": "measure this machine: its own peak speed",
    "help.bench.about": "Measure this machine's speed of light. `glassformer bench machine` times a float32 "
    "and a bfloat16 matrix product and a large memory copy, so a run can say what fraction of the machine "
    "it uses.",
    "help.bench.machine": "float32 and bfloat16 matrix-product rates and memory bandwidth, measured now",
    "help.bench.device": "the device to measure: cpu, cuda, cuda:N, mps (default: cpu)",
    "help.bench.budget": "seconds spent on each measurement (default: {default}); the fastest call counts",
    "help.bench.no_save": "do not keep the figures for later `train` summaries",
    "bench.budget": "--budget {value}: give a number of seconds above 0 and at most {most}.",
    "bench.machine.title": "this machine, {device}, {threads} thread(s):",
    "bench.machine.float32": "  float32 matrix product   {gflops:9.1f} GFLOP/s",
    "bench.machine.bfloat16": "  bfloat16 matrix product  {gflops:9.1f} GFLOP/s  ({ratio:.1f}× float32)",
    "bench.machine.bandwidth": "  memory bandwidth         {gbs:9.1f} GB/s (a large copy: read + write)",
    "bench.machine.bf16_pays": "bfloat16 products are {ratio:.1f}× faster here: --dtype=auto trains in bfloat16 "
    "on this machine.",
    "bench.machine.bf16_slow": "bfloat16 products are only {ratio:.1f}× float32 here: --dtype=auto stays in "
    "float32 on this machine.",
    "bench.machine.saved": "kept in {path} (train's summary divides by these figures)",
    "bench.train_speed": "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s of model arithmetic = "
    "{mfu:.0%} of this machine's {dtype} matrix-product peak ({peak:.1f} GFLOP/s, {how})",
    "bench.bf16_hint": "this machine's bfloat16 products are {ratio:.1f}× faster: --dtype=auto (or "
    "--dtype=bfloat16) trains with them (docs/performance.md: the losses stay within 0.1%)",
    "bench.peak_saved": "measured by `glassformer bench machine`",
    "bench.peak_quick": "a quick probe; `glassformer bench machine` measures it carefully",
}

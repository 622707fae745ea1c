"""`glassformer bench`（cli/bench.py）的用语，以及 `train` 总结里的速度一行。"""

TEXT = {
    "help.bench": "测量这台机器：它自身的峰值速度",
    "help.bench.about": "测量这台机器的“光速”。`glassformer bench machine` 计时一次 float32 和一次 bfloat16 "
    "矩阵乘法以及一次大块内存复制，这样一次训练就能说出它用到了机器能力的几成。",
    "help.bench.machine": "现在测量 float32 与 bfloat16 矩阵乘法速率和内存带宽",
    "help.bench.device": "要测量的设备：cpu、cuda、cuda:N、mps（默认：cpu）",
    "help.bench.budget": "每项测量花费的秒数（默认：{default}）；取最快的一次",
    "help.bench.no_save": "不保存结果（之后 `train` 的总结不用它）",
    "bench.budget": "--budget {value}：请给出大于 0、至多 {most} 的秒数。",
    "bench.machine.title": "这台机器，{device}，{threads} 个线程：",
    "bench.machine.float32": "  float32 矩阵乘法    {gflops:9.1f} GFLOP/s",
    "bench.machine.bfloat16": "  bfloat16 矩阵乘法   {gflops:9.1f} GFLOP/s（float32 的 {ratio:.1f} 倍）",
    "bench.machine.bandwidth": "  内存带宽           {gbs:9.1f} GB/s（大块复制：读 + 写）",
    "bench.machine.bf16_pays": "这里 bfloat16 乘法快 {ratio:.1f} 倍：--dtype=auto 在这台机器上用 bfloat16 训练。",
    "bench.machine.bf16_slow": "这里 bfloat16 乘法只有 float32 的 {ratio:.1f} 倍："
    "--dtype=auto 在这台机器上保持 float32。",
    "bench.machine.saved": "已保存到 {path}（train 的总结以这些数字为分母）",
    "bench.train_speed": "速度：每秒 {tokens_per_s:,.0f} 个词元，模型运算 {gflops:.1f} GFLOP/s = 本机 {dtype} "
    "矩阵乘法峰值（{peak:.1f} GFLOP/s，{how}）的 {mfu:.0%}",
    "bench.bf16_hint": "这台机器的 bfloat16 乘法快 {ratio:.1f} 倍：用 --dtype=auto（或 --dtype=bfloat16）训练即可用上"
    "（docs/performance.md：损失相差不到 0.1%）",
    "bench.peak_saved": "由 `glassformer bench machine` 测得",
    "bench.peak_quick": "快速探测；`glassformer bench machine` 会仔细测量",
}

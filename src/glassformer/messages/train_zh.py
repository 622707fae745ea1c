"""train_en.py 的中文：训练器拆并成较少文件（loop.py、data.py、record.py、distributed.py）后带来的话。"""

TEXT = {
    # ---- 训练循环（train/loop.py）------------------------------------------------------------------------
    "train.compile_failed": "torch.compile 在这里用不了（{error}：{first}）；不用它继续训练"
    "（去掉 --compile=true 就不会再看到这条消息）。",
    "train.early_stop": "连续 {patience} 次评估 {key} 都没有变好",
    "train.sigterm": "SIGTERM：这一步做完就停，并保存检查点（再发一次立即停止）……",
    # ---- 批次来源与生成的数据（train/data.py）----------------------------------------------------------------
    "error.data.rows": "inputs（{inputs} 行）和 targets（{targets} 行）必须非空且行数相同。",
    "error.data.no_pairs": "PairBatches 需要训练对和验证对；其中之一是空的。",
    "error.data.blank_pair": "每一对都需要非空的源序列和目标序列（<BOS>/<EOS> 由解码器加上）。",
    "error.data.wave_source": "未知的数值数据源 {source!r}；请从 {choices} 中选一个。",
    "error.data.digit_capacity": "最多 {max_digits} 位的数字串只有 {capacity:,} 个；请要少于 {n:,} 对，"
    "或允许更长的数字串。",
    "error.data.pair_source": "未知的序列对数据源 {source!r}；请从 {choices} 中选一个。",
    # ---- 进度显示（train/record.py）---------------------------------------------------------------------
    "error.write.disk_full": "存放 {dir} 的磁盘满了：还剩 {free:.1f} MB，一个检查点大约需要 {need:.1f} MB。"
    "上一个完好的检查点（第 {step} 步）保留着；腾出空间后用 glassformer train --resume {dir} 继续。",
    "error.write.disk_full_first": "存放 {dir} 的磁盘满了：还剩 {free:.1f} MB，一个检查点大约需要 {need:.1f} MB；"
    "还没有保存过检查点。腾出空间后重新开始训练。",
    "error.progress.mode": "progress={mode!r} 不在 {modes} 之中。",
    # ---- torchrun 下的多个进程（train/distributed.py）------------------------------------------------------
    "error.world.source": "多进程训练切分的是文本语料的窗口（词元模型）；{source}（生成的数值或序列对）很小："
    "请在一个进程里训练它，不用 torchrun。",
    "error.world.gpus": "--device=cuda：这台机器有 {gpus} 块 GPU，但 torchrun 启动了一个 LOCAL_RANK 为 "
    "{local_rank} 的进程。--nproc_per_node 最多只能是 GPU 的数量。",
    "error.world.device": "torchrun 下的 --device={device}：每个进程自己使用它 LOCAL_RANK 对应的 GPU。"
    "请用 --device=cuda（或 --device=cpu）。",
    "error.world.peer_stopped": "这个 torchrun 作业的另一个进程停止了（它自己的消息说明了原因）；第 {rank} "
    "号进程也停止。",
    "error.world.env": "WORLD_SIZE={size}，但没有设置 {missing}：请用 torchrun 启动多个进程（docs/scale.md），"
    "或取消 WORLD_SIZE。",
    # ---- 导入的 GPT-2 运行（train/gpt2_runs.py：config.json 的 "about"）------------------------------
    "train.gpt2.about": "从 {source} 导入的 GPT-2",
}

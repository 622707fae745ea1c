"""The words of a run, from its config to its speed: the presets' one-line descriptions (their numbers
read from the preset itself, so this is the only place a description is written) and the refusals of a
config or an override (config.py); the trainer's typed errors of the batch sources, the generated data
and the torchrun world, and two notes of the loop (train/); writing with a model (sample.py's typed
errors and its notes on what the model reads past max_len, translate.py's of greedy and beam search; the
repetition knobs, their measures and bits per byte);
`glassformer bench` and the speed line of `train`'s summary. The command line's help and printed
lines are in core.py. EN in English, ZH in Chinese: the same keys, the same {fields}.

ZH 是 EN 的中文：同样的键，同样的 {fields}。一次运行从配置到速度的话：预设的一行描述与配置、覆盖项的拒绝
（config.py）；训练器的批数据源、生成数据与 torchrun 世界的类型化错误和训练循环的两条提示（train/）；用模型写字
（sample.py、translate.py 的错误与提示；抑制重复的旋钮、重复的度量与每字节比特数）；
`glassformer bench` 与 `train` 总结里的速度一行。"""

EN = {
    # ==== config ====================================================================================
    # ---- presets (config.py; their numbers are read from the preset itself) -----------------------------
    "preset.seed000": "first tutorial: {n_layers} layers, {n_heads} heads, d_model {d_model}, d_ff {d_ff}",
    "preset.baby": "nanoGPT's CPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}",
    "preset.baby_llama": "baby the Llama 3 way: {n_layers} layers, RMSNorm, SwiGLU, RoPE θ={rope_base:.0f}, {n_heads} "
    "query heads sharing {n_kv_heads} key-value heads, d_model {d_model}, seq_len {seq_len}",
    "preset.baby_qwen3": "baby the Qwen3 way: {n_layers} layers, RMSNorm, SwiGLU, RoPE θ={rope_base:.0f}, QK-norm, "
    "{n_heads} query heads of {head_dim} sharing {n_kv_heads} key-value heads, d_model {d_model}, seq_len {seq_len}",
    "preset.small": "nanoGPT's GPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}",
    "preset.seed002": "second tutorial: {n_layers} layer, {n_heads} heads, d_model {d_model}, d_ff {d_ff}, no "
    "LayerNorm",
    "preset.sine": "third tutorial: {n_layers} post-LN layers, {n_heads} heads, d_model {d_model}, GELU, sinusoidal PE",
    "preset.seq2seq": "the 2017 encoder-decoder, small: {n_layers}+{n_layers} post-LN layers, d_model {d_model}, one "
    "shared embedding",
    # ---- configs and overrides (config.py) ------------------------------------------------------------
    "error.config.did_you_mean": " Did you mean {near!r}?",
    "error.config.did_you_mean_flag": " Did you mean --{near}?",
    "error.config.choice": "{name}={value!r} is not one of {valid}.{hint}",
    "error.config.positive": "{name} must be positive, got {name}={value}.",
    "error.config.heads": "d_model={d_model} is not divisible by n_heads={n_heads}: each head gets d_model // "
    "n_heads features. Use n_heads={nearest} (nearest divisor) or change d_model to a "
    "multiple of {n_heads}.",
    "error.config.dropout": "dropout must be in [0, 1), got dropout={value}.",
    "error.config.mha_fused": "mha_style='fused' was renamed: use mha_style='packed' (one Linear makes Q, K and V "
    "for every head). 'fused' now only names PyTorch's attention kernel "
    "(attention='fused').",
    "error.config.pad_id": "pad_id={pad_id} is outside the vocabulary [0, {vocab_size}).",
    "error.config.threads": "threads must be from 0 (torch's choice) to {most}, got threads={value}.",
    "error.config.non_negative": "{name} must be >= 0, got {name}={value}.",
    "error.config.min_lr": "min_lr={min_lr} is above lr={lr}: the schedule decays from lr down to min_lr. Use a min_lr "
    "of at most {lr}.",
    "error.config.beta": "{name} must be in [0, 1), got {name}={value} (AdamW's moments average over about "
    "1/(1 - {name}) steps; 0.9 and 0.999 are the usual values).",
    "error.config.seed": "seed must be a whole number from 0 to {most}, got seed={value}.",
    "error.config.preset": "unknown preset {name!r}; choose one of {names}.{hint}",
    "error.config.type": "--{key}={value!r}: expected a value of type {type}.",
    "error.config.finite": "--{key}={value!r}: expected a finite number.",
    "error.config.override_form": "override {item!r} must look like --key=value or --key value.",
    "error.config.override_value": "override {item!r} must look like --key=value or --key value; it has no value "
    "(write --{key}=VALUE or --{key} VALUE).",
    "error.config.unknown_key": "unknown config key --{key}.{hint}",
    "error.config.not_read": "{field}={value!r} means nothing to a {kind} model: only {kinds} read {field}. Leave "
    "it out for kind={kind!r}.",
    "error.config.renamed": "--{key} is now called --{new}: write --{new}={value}.",
    # ==== train =====================================================================================
    # ---- the loop (train/loop.py) -----------------------------------------------------------------
    "train.compile_failed": "torch.compile does not work here ({error}: {first}); continuing without it "
    "(drop --compile=true to skip this message).",
    "train.early_stop": "no better {key} for {patience} evaluations",
    "train.sigterm": "SIGTERM: stopping after this step and saving a checkpoint (send it again to stop at once) ...",
    # ---- batch sources and generated data (train/data.py) ---------------------------------------------
    "error.batch.short": "data has {n} tokens but a window needs seq_len + 1 = {need}; use a longer corpus or a "
    "smaller seq_len.",
    "error.data.rows": "inputs ({inputs} rows) and targets ({targets} rows) must be non-empty and the same length.",
    "error.data.no_pairs": "PairBatches needs training and validation pairs; one of them is empty.",
    "error.data.blank_pair": "every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>).",
    "error.data.wave_source": "unknown numeric source {source!r}; choose one of {choices}.",
    "error.data.digit_capacity": "only {capacity:,} digit strings have at most {max_digits} digits; ask for fewer "
    "than {n:,} pairs or allow longer strings.",
    "error.data.pair_source": "unknown pair source {source!r}; choose one of {choices}.",
    # ---- the progress display (train/record.py) -------------------------------------------------------
    "error.write.disk_full": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB. The last good checkpoint, step {step}, is kept; free some space, then continue with: "
    "glassformer train --resume {dir}",
    "error.write.disk_full_first": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB; no checkpoint had been saved yet. Free some space, then start the run again.",
    "error.progress.mode": "progress={mode!r} is not one of {modes}.",
    # ---- several processes under torchrun (train/distributed.py) --------------------------------------
    "error.world.source": "multi-process training splits windows of a text corpus (token models); {source} "
    "(generated numbers or pairs) is small: train it in one process, without torchrun.",
    "error.world.gpus": "--device=cuda: this machine has {gpus} GPU(s), but torchrun started a process with "
    "LOCAL_RANK {local_rank}. Pass --nproc_per_node at most the number of GPUs.",
    "error.world.device": "--device={device} under torchrun: each process takes the GPU of its LOCAL_RANK by "
    "itself. Pass --device=cuda (or --device=cpu).",
    "error.world.peer_stopped": "another process of this torchrun job stopped (its own message says why); rank "
    "{rank} stops too.",
    "error.world.env": "WORLD_SIZE={size} but {missing} not set: start several processes with torchrun "
    "(docs/scale.md), or unset WORLD_SIZE.",
    # ---- an imported GPT-2 run (train/run.py: config.json's "about") -------------------------
    "train.gpt2.about": "GPT-2 imported from {source}",
    # ==== sampling ==================================================================================
    # ---- sampling (sample.py) ---------------------------------------------------------------------------
    "error.sample.no_cache": "{model} has no KV cache; sample with use_cache=False.",
    "error.sample.max_new_tokens": "max_new_tokens must be a whole number >= 0, got {value!r}",
    "error.sample.num_samples": "num_samples must be a whole number >= 1, got {value!r}",
    "error.sample.temperature": "temperature must be a finite number >= 0 (0 = greedy), got {value}",
    "error.sample.top_k": "top_k must be a whole number >= 1, got {value!r}",
    "error.sample.top_p": "top_p must be in (0, 1], got {value}",
    "error.sample.empty_prompt": "the prompt is empty: give the model at least one token to continue",
    "error.sample.stop_unseen": "the stop string {stop!r} can never appear in this model's text: {chars} cannot "
    "be written with its vocabulary, so sampling would never stop there. Use a stop string made of what the model "
    "writes.",
    "sample.window_slides": "position={name}: a table of max_len={max_len} positions; past it the model sees only the "
    "last {max_len} tokens (the window slides).",
    "sample.cache_grows": "position={name}: no position table; past max_len={max_len} the model keeps reading every "
    "token, at distances it never trained on (the KV cache grows).",
    # ---- greedy and beam search (translate.py) ------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens must be in {low} … {high} (the model's max_len), got {value}.",
    "error.translate.beam_width": "beam_width must be in {low} … {high} (the vocabulary minus <PAD> and <BOS>), "
    "got {value}.",
    "error.translate.length_penalty": "the length penalty α must be >= {low}, got {value}.",
    # ---- the repetition knobs (logits_processors.py), its measures (inspect/repetition.py), bits per byte --
    "error.sample.repetition_penalty": "repetition_penalty must be a finite number > 0 (1 = off; above 1 makes a "
    "token already written less likely), got {value}",
    "error.sample.additive_penalty": "{name} must be a finite number (0 = off; above 0 makes a token already "
    "written less likely), got {value}",
    "error.sample.no_repeat_ngram": "no_repeat_ngram must be a whole number >= 1, the length of the n-grams that "
    "may not appear twice (1 forbids writing any token twice), got {value!r}",
    "error.sample.min_p": "min_p must be in [0, 1]: a token is kept if its probability is at least min_p times "
    "the most likely token's (0 = off), got {value}",
    "error.sample.typical_p": "typical_p must be in (0, 1]: the probability mass the most typical tokens keep "
    "(1 = off), got {value}",
    "error.repetition.ids": "the repetition measures read the token ids of one text: a list of whole numbers or a "
    "1-D tensor, got {got}",
    "error.repetition.size": "{name} must be a whole number >= 1, got {value!r}",
    "error.repetition.min_repeats": "min_repeats must be a whole number >= 2 (a loop is a span written at least "
    "twice in a row), got {value!r}",
    "error.eval.bytes": "bits per byte divides by the text's UTF-8 byte count, which must be a whole number >= 1, "
    "got {value!r}",
    "error.eval.nll": "bits per byte reads the text's summed negative log-likelihood, which must be a finite number "
    "of nats >= 0, got {value}",
    # ==== bench =====================================================================================
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
    "bench.machine.bf16_pays": "bfloat16 products are {ratio:.1f}× faster here: a new run (--dtype=auto, the "
    "default of train and demo) trains in bfloat16 on this machine when its attention is glass and a step's "
    "batch × seq_len × d_model² is at least {least:,}.",
    "bench.machine.bf16_slow": "bfloat16 products are only {ratio:.1f}× float32 here: --dtype=auto stays in "
    "float32 on this machine.",
    "bench.machine.saved": "kept in {path} (train's summary divides by these figures)",
    "bench.train_speed": "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s of model arithmetic = "
    "{mfu:.0%} of this machine's {dtype} matrix-product peak ({peak:.1f} GFLOP/s, {how})",
    "bench.bf16_hint": "this machine's bfloat16 products are {ratio:.1f}× faster, and this run is big enough "
    "for them to pay: leave --dtype out (auto) or give --dtype=bfloat16 (docs/performance.md: the losses stay "
    "within 0.1%)",
    "train.dtype_auto": "computes in {dtype} (--dtype=auto: {why}; --dtype=float32 or --dtype=bfloat16 chooses)",
    "dtype.why.fast": "this machine's bfloat16 products are {ratio:.1f}× float32's",
    "dtype.why.slow": "this machine's bfloat16 products are only {ratio:.1f}× float32's",
    "dtype.why.fused": "on a CPU, the fused attention ({attention}) is slower in bfloat16",
    "dtype.why.small": "batch × seq_len × d_model² = {work:,} is below {least:,}, too little work for "
    "bfloat16 to pay on a CPU",
    "bench.peak_ignored": "ignored {path}: {problem} The speed summary uses a quick probe instead; "
    "`glassformer bench machine` measures carefully and writes the file again.",
    "bench.peak_replaced": "replacing {path}: {problem}",
    "bench.peak_fix": "`glassformer bench machine` writes it.",
    "bench.peak.not_object": "it holds a JSON {found}, not the object of measurements glassformer writes.",
    "bench.peak.not_entry": "its entry for this machine is not a measurement glassformer wrote (an object of "
    "{fields}, at this thread count).",
    "bench.peak.impossible": "its {name} is {value}, which no machine measures (a rate per second from {low:g} to "
    "{high:g}).",
    "bench.peak_below_run": "speed: {gflops:.1f} GFLOP/s of model arithmetic, {mfu:.0%} of this machine's peak "
    "({peak:.3g} GFLOP/s): more than the machine can do, so that peak is wrong; `glassformer bench machine` measures "
    "it again.",
    "bench.peak_saved": "measured by `glassformer bench machine`",
    "bench.peak_quick": "a quick probe; `glassformer bench machine` measures it carefully",
}


ZH = {
    # ==== config ====================================================================================
    # ---- 预设（config.py；数字从预设本身读出）-----------------------------------------------------------
    "preset.seed000": "第一篇教程：{n_layers} 层，{n_heads} 个头，d_model {d_model}，d_ff {d_ff}",
    "preset.baby": "nanoGPT 的 CPU 配方：{n_layers} 层，{n_heads} 个头，d_model {d_model}，序列长度 {seq_len}",
    "preset.baby_llama": "Llama 3 式的 baby：{n_layers} 层，RMSNorm，SwiGLU，RoPE θ={rope_base:.0f}，{n_heads} 个查询头"
    "共用 {n_kv_heads} 个键值头，d_model {d_model}，序列长度 {seq_len}",
    "preset.baby_qwen3": "Qwen3 式的 baby：{n_layers} 层，RMSNorm，SwiGLU，RoPE θ={rope_base:.0f}，QK-norm，"
    "{n_heads} 个宽 {head_dim} 的查询头共用 {n_kv_heads} 个键值头，d_model {d_model}，序列长度 {seq_len}",
    "preset.small": "nanoGPT 的 GPU 配方：{n_layers} 层，{n_heads} 个头，d_model {d_model}，序列长度 {seq_len}",
    "preset.seed002": "第二篇教程：{n_layers} 层，{n_heads} 个头，d_model {d_model}，d_ff {d_ff}，没有 LayerNorm",
    "preset.sine": "第三篇教程：{n_layers} 层后归一化，{n_heads} 个头，d_model {d_model}，GELU，正弦位置编码",
    "preset.seq2seq": "2017 年的编码器-解码器，小号：{n_layers}+{n_layers} 层后归一化，d_model {d_model}，共用一个嵌入",
    # ---- 配置与覆盖项（config.py）-------------------------------------------------------------------------
    "error.config.did_you_mean": "你是想写 {near!r} 吗？",
    "error.config.did_you_mean_flag": "你是想写 --{near} 吗？",
    "error.config.choice": "{name}={value!r} 不在 {valid} 之中。{hint}",
    "error.config.positive": "{name} 必须为正数，收到的是 {name}={value}。",
    "error.config.heads": "d_model={d_model} 不能被 n_heads={n_heads} 整除：每个头分到 d_model // n_heads 个特征。"
    "请用 n_heads={nearest}（最接近的约数），或把 d_model 改成 {n_heads} 的倍数。",
    "error.config.dropout": "dropout 必须在 [0, 1) 之内，收到的是 dropout={value}。",
    "error.config.mha_fused": "mha_style='fused' 已改名：请用 mha_style='packed'（一个 Linear 为所有头生成 Q、K、V）。"
    "'fused' 现在只指 PyTorch 的注意力内核（attention='fused'）。",
    "error.config.pad_id": "pad_id={pad_id} 超出了词表范围 [0, {vocab_size})。",
    "error.config.threads": "threads 必须在 0（由 torch 决定）到 {most} 之间，收到的是 threads={value}。",
    "error.config.non_negative": "{name} 必须 >= 0，现在是 {name}={value}。",
    "error.config.min_lr": "min_lr={min_lr} 大于 lr={lr}：调度是从 lr 降到 min_lr。请让 min_lr 不超过 {lr}。",
    "error.config.beta": "{name} 必须在 [0, 1) 内，现在是 {name}={value}（AdamW 的矩约在 1/(1 - {name}) 步上平均；"
    "常用 0.9 和 0.999）。",
    "error.config.seed": "seed 必须是 0 到 {most} 之间的整数，现在是 seed={value}。",
    "error.config.preset": "未知的预设 {name!r}；请从 {names} 中选一个。{hint}",
    "error.config.type": "--{key}={value!r}：需要 {type} 类型的值。",
    "error.config.finite": "--{key}={value!r}：需要一个有限数。",
    "error.config.override_form": "覆盖项 {item!r} 应写成 --key=value 或 --key value。",
    "error.config.override_value": "覆盖项 {item!r} 应写成 --key=value 或 --key value；它没有值（写成 "
    "--{key}=VALUE 或 --{key} VALUE）。",
    "error.config.unknown_key": "未知的配置键 --{key}。{hint}",
    "error.config.not_read": "{field}={value!r} 对 {kind} 模型没有意义：只有 {kinds} 读取 {field}。"
    "kind={kind!r} 时请不要设置它。",
    "error.config.renamed": "--{key} 已改名为 --{new}：请写 --{new}={value}。",
    # ==== train =====================================================================================
    # ---- 训练循环（train/loop.py）------------------------------------------------------------------------
    "train.compile_failed": "torch.compile 在这里用不了（{error}：{first}）；不用它继续训练"
    "（去掉 --compile=true 就不会再看到这条消息）。",
    "train.early_stop": "连续 {patience} 次评估 {key} 都没有变好",
    "train.sigterm": "SIGTERM：这一步做完就停，并保存检查点（再发一次立即停止）……",
    # ---- 批次来源与生成的数据（train/data.py）----------------------------------------------------------------
    "error.batch.short": "数据只有 {n} 个词元，而一个窗口需要 seq_len + 1 = {need} 个；"
    "请换更长的语料或更小的 seq_len。",
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
    # ---- 导入的 GPT-2 运行（train/run.py：config.json 的 "about"）------------------------------
    "train.gpt2.about": "从 {source} 导入的 GPT-2",
    # ==== sampling ==================================================================================
    # ---- 采样（sample.py）--------------------------------------------------------------------------------------
    "error.sample.no_cache": "{model} 没有 KV 缓存；请用 use_cache=False 采样。",
    "error.sample.max_new_tokens": "max_new_tokens 必须是 >= 0 的整数，收到的是 {value!r}",
    "error.sample.num_samples": "num_samples 必须是 >= 1 的整数，收到的是 {value!r}",
    "error.sample.temperature": "temperature 必须是 >= 0 的有限数（0 表示贪心），收到的是 {value}",
    "error.sample.top_k": "top_k 必须是 >= 1 的整数，收到的是 {value!r}",
    "error.sample.top_p": "top_p 必须在 (0, 1] 之内，收到的是 {value}",
    "error.sample.empty_prompt": "提示词是空的：至少给模型一个词元让它续写",
    "error.sample.stop_unseen": "停止字符串 {stop!r} 永远不会出现在这个模型写出的文本里：{chars} 无法用它的词表写出，"
    "采样永远不会在那里停下。请用模型能写出的内容作停止字符串。",
    "sample.window_slides": "position={name}：一张 max_len={max_len} 个位置的表；超出之后模型只看最后 {max_len} 个词元"
    "（窗口滑动）。",
    "sample.cache_grows": "position={name}：没有位置表；超过 max_len={max_len} 之后模型仍读入每个词元，距离是它训练时"
    "没见过的（KV 缓存不断变大）。",
    # ---- 贪心搜索与束搜索（translate.py） -------------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens 必须在 {low} … {high} 之内（模型的 max_len），收到的是 {value}。",
    "error.translate.beam_width": "beam_width 必须在 {low} … {high} 之内（词表大小减去 <PAD> 和 <BOS>），"
    "收到的是 {value}。",
    "error.translate.length_penalty": "长度惩罚 α 必须 >= {low}，收到的是 {value}。",
    # ---- 抑制重复的旋钮（logits_processors.py）、重复的度量（inspect/repetition.py）、每字节比特数 -----
    "error.sample.repetition_penalty": "repetition_penalty 必须是 > 0 的有限数（1 表示关闭；大于 1 让已经写过的词元"
    "更不可能再出现），收到的是 {value}",
    "error.sample.additive_penalty": "{name} 必须是有限数（0 表示关闭；大于 0 让已经写过的词元更不可能再出现），"
    "收到的是 {value}",
    "error.sample.no_repeat_ngram": "no_repeat_ngram 必须是 >= 1 的整数，即不许出现两次的 n 元组的长度（1 表示任何"
    "词元都不许写两次），收到的是 {value!r}",
    "error.sample.min_p": "min_p 必须在 [0, 1] 之内：一个词元的概率至少是最可能词元概率的 min_p 倍才保留（0 表示"
    "关闭），收到的是 {value}",
    "error.sample.typical_p": "typical_p 必须在 (0, 1] 之内：最典型的词元所保留的概率质量（1 表示关闭），"
    "收到的是 {value}",
    "error.repetition.ids": "重复度量读取一段文本的词元 id：一个整数列表或 1-D 张量，收到的是 {got}",
    "error.repetition.size": "{name} 必须是 >= 1 的整数，收到的是 {value!r}",
    "error.repetition.min_repeats": "min_repeats 必须是 >= 2 的整数（循环是一段接连写了至少两次的片段），"
    "收到的是 {value!r}",
    "error.eval.bytes": "每字节比特数要除以文本的 UTF-8 字节数，它必须是 >= 1 的整数，收到的是 {value!r}",
    "error.eval.nll": "每字节比特数读取文本的负对数似然之和，它必须是 >= 0 的有限数（单位：奈特），收到的是 {value}",
    # ==== bench =====================================================================================
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
    "bench.machine.bf16_pays": "这里 bfloat16 乘法快 {ratio:.1f} 倍：新的运行（--dtype=auto，train 和 demo 的默认）"
    "在注意力为 glass、每步 batch × seq_len × d_model² 不小于 {least:,} 时用 bfloat16 训练。",
    "bench.machine.bf16_slow": "这里 bfloat16 乘法只有 float32 的 {ratio:.1f} 倍："
    "--dtype=auto 在这台机器上保持 float32。",
    "bench.machine.saved": "已保存到 {path}（train 的总结以这些数字为分母）",
    "bench.train_speed": "速度：每秒 {tokens_per_s:,.0f} 个词元，模型运算 {gflops:.1f} GFLOP/s = 本机 {dtype} "
    "矩阵乘法峰值（{peak:.1f} GFLOP/s，{how}）的 {mfu:.0%}",
    "bench.bf16_hint": "这台机器的 bfloat16 乘法快 {ratio:.1f} 倍，这个运行的计算量也够大：不写 --dtype（auto）"
    "或写 --dtype=bfloat16 即可用上（docs/performance.md：损失相差不到 0.1%）",
    "train.dtype_auto": "用 {dtype} 计算（--dtype=auto：{why}；写 --dtype=float32 或 --dtype=bfloat16 可自选）",
    "dtype.why.fast": "这台机器的 bfloat16 乘法是 float32 的 {ratio:.1f} 倍",
    "dtype.why.slow": "这台机器的 bfloat16 乘法只有 float32 的 {ratio:.1f} 倍",
    "dtype.why.fused": "在 CPU 上，融合注意力（{attention}）用 bfloat16 反而更慢",
    "dtype.why.small": "batch × seq_len × d_model² = {work:,}，小于 {least:,}，计算量太小，在 CPU 上用 bfloat16 不划算",
    "bench.peak_ignored": "已忽略 {path}：{problem}速度总结改用快速探测；`glassformer bench machine` 会仔细测量并"
    "重新写出这个文件。",
    "bench.peak_replaced": "正在替换 {path}：{problem}",
    "bench.peak_fix": "它由 `glassformer bench machine` 写出。",
    "bench.peak.not_object": "它存的是 JSON {found}，而不是 glassformer 写的测量结果对象。",
    "bench.peak.not_entry": "它为这台机器存的条目不是 glassformer 写的测量结果（应是含 {fields} 的对象，且线程"
    "数与本次相同）。",
    "bench.peak.impossible": "它的 {name} 是 {value}，没有哪台机器会测出这个数（每秒的速率应在 {low:g} 到 "
    "{high:g} 之间）。",
    "bench.peak_below_run": "速度：模型运算 {gflops:.1f} GFLOP/s，是这台机器峰值（{peak:.3g} GFLOP/s）的 {mfu:.0%}："
    "超出了机器的能力，所以这个峰值是错的；`glassformer bench machine` 会重新测量。",
    "bench.peak_saved": "由 `glassformer bench machine` 测得",
    "bench.peak_quick": "快速探测；`glassformer bench machine` 会仔细测量",
}

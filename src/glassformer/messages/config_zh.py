"""config.py 的文字：预设的一行说明（数字从预设本身读出）与配置、覆盖项的报错。"""

TEXT = {
    # ---- 预设（config.py；数字从预设本身读出）-----------------------------------------------------------
    "preset.seed000": "第一篇教程：{n_layers} 层，{n_heads} 个头，d_model {d_model}，d_ff {d_ff}",
    "preset.baby": "nanoGPT 的 CPU 配方：{n_layers} 层，{n_heads} 个头，d_model {d_model}，序列长度 {seq_len}",
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
}

"""因果工具的文字（glassformer/causal：激活、归因与路径修补，直接 logit 归因，头探测器）：
它抛出的类型化错误与报告中的行；然后是因果视图：`glassformer patch | heads | attribute`
（cli/inspect.py，视图在 inspect/causal_views.py）与探索页的修补面板（英文见 causal_en.py）。"""

TEXT = {
    # ==== causal ====================================================================================
    "error.causal.no_point": "此模型没有名为 {point!r} 或 blocks.<i>.{point} 的钩子点；"
    "model.hook_names() 会列出全部（例如 {example!r}）。",
    "error.causal.no_batch_axis": "钩子点 {name!r} 的轴是 {axes!r}，没有批次轴 B：批量修补的每一行都需要自己的一份；"
    "请改为修补带 B 的钩子点（例如 resid_pre）。",
    "error.causal.bad_axis": "无法按 {by} 修补 {name!r}：它的轴是 {axes!r}；请从 {choices} 中选择。",
    "error.causal.lengths": "干净输入和被破坏的输入形状必须相同，现在是 {clean} 和 {corrupt}；"
    "请让两个提示的词元数相同。",
    "causal.method.detectors": "头检测器",
    "error.causal.no_hook": "此模型没有 {method} 需要的钩子点 {name!r}；{fix}",
    "error.causal.fused": "attention='fused' 不显示注意力权重；请先运行 model.set_attention('glass')（权重不变）。",
    "error.causal.norm_post": "直接 logit 归因要求残差流在最终归一化之前是各部分之和；norm={norm!r} 在每个块内"
    "都对残差流做归一化。请使用前置归一化或无归一化的模型。",
    "error.causal.budget": "max_bytes={max_bytes} 小于修补一行所需的 {row} 字节；请至少给 {row}。",
    "error.causal.top_k": "top_k 必须在 1 到网格的 {n} 个格子之间，现在是 {k}。",
    "error.causal.bad_kind": "没有名为 {kind!r} 的注意力头检测器；请从 {kinds} 中选择。",
    "causal.agreement": "归因修补与精确修补在 {cells} 个格子上的比较：Spearman ρ = {rho:.3f}，"
    "前 {k} 名重合 {overlap}/{k}；漏掉的：{missed}",
    "causal.method.dla": "直接 logit 归因",
    "error.causal.no_head_parts": "这个归因结果没有按头拆分的部分；请调用 logit_attribution(..., heads=True)。",
    "error.causal.bad_via": "路径修补只能经由 {choices} 进入接收头；现在是 {via}。",
    "error.causal.bad_receiver": "接收头是 (层, 头) 对，要求 1 <= 层 < {layers}（发送头必须在它下面），"
    "0 <= 头 < {heads}；现在是 {receivers}。",
    "error.causal.bad_ablation": "没有名为 {how!r} 的消融方式；请从 {choices} 中选择。",
    "causal.planted.row": "{method}：找到 {found}；精确率 {precision:.2f}，召回率 {recall:.2f}",
    "causal.planted.method.patching": "激活修补（按头修补 attn.z）",
    "causal.planted.method.attribution": "归因修补（按头估计 attn.z）",
    "causal.planted.method.detectors": "注意力头检测器（得分 >= 阈值）",
    "causal.planted.method.checked": "头检测器 + 消融检验",
    "causal.planted.method.dla": "直接 logit 归因（按头）",
    "causal.planted.method.path": "路径修补：进入 {head} 键的发送头",
    "causal.trained.truth": "基准答案：单独置零后使重复后半段损失的上升至少达到最大上升（{largest:.2f} nats）"
    "{share} 倍的头：{heads}",
    # ==== causal_views ==============================================================================
    # ---- 命令行帮助
    "help.patch": "激活修补：哪一层、哪个位置或哪个注意力头能把干净答案找回来",
    "help.heads": "注意力头探测器（前一词元、重复词元、归纳头），附消融检验",
    "help.attribute": "直接 logit 归因：模型的哪些部分写下了答案",
    "help.causal.about": "{verb}。读取一个预测词元的已训练运行（gpt、encoder）。",
    "help.causal.run": "运行目录（glassformer train 写出的）",
    "help.causal.clean": "干净提示：答案正确的那一个",
    "help.causal.corrupt": "被破坏的提示：词元数相同，只改一处",
    "help.causal.prompt": "要归因其下一个词元的提示",
    "help.causal.answer": "正确的下一个词元（恰好一个词元）",
    "help.causal.wrong": "用来对比的错误下一个词元（恰好一个词元）",
    "help.causal.wrong_optional": "错误的下一个词元（默认：模型最可能的另一个词元）",
    "help.causal.by": "修补什么：position（层 × 位置）、layer（注意力、前馈）、head（层 × 头）",
    "help.causal.out": "输出文件夹（默认：out/{verb}/）",
    "help.heads.n": "每条重复序列中随机那一半的长度（默认：{default}）",
    "help.heads.batch": "重复序列的条数（默认：{default}）",
    "help.heads.seed": "随机序列的种子（默认：{default}）",
    # ---- 拒绝：一行，说明怎么改
    "cview.kind": "glassformer {verb} 读取由词元预测词元、带 Transformer 块钩子点的模型；这个运行的种类是 "
    "{kind!r}（它读取 {inputs}）。请给一个 gpt 或 encoder 种类的运行。",
    "cview.post_norm": "直接 logit 归因需要前置归一化或无归一化的模型；这个运行是 norm={norm!r}，"
    "每个块内部都会对残差流归一化。请改用 glassformer patch。",
    "cview.empty": "{flag} 分词后为空；请给它一些文字。",
    "cview.too_long": "{flag} 有 {n} 个词元，超过模型的 max_len {max_len}；请缩短。",
    "cview.not_one_token": "{flag} {text!r} 是 {n} 个词元（{tokens}），不是一个；请给运行词表中的单个词元。",
    "cview.lengths": "--clean 有 {clean} 个词元（{clean_tokens}），--corrupt 有 {corrupt} 个"
    "（{corrupt_tokens}）；修补按位置逐一复制，请让两者的词元数相同。",
    # ---- 视图显示的内容
    "cview.header": "# 运行 {run}（{kind}）；答案 {answer!r} 对比 {wrong!r}",
    "cview.heads.header": "# 运行 {run}（{kind}）",
    "cview.part.attn": "注意力",
    "cview.part.ffn": "前馈",
    "cview.patch.title.position": "修补残差流，按层和位置（干净 = 1，被破坏 = 0）",
    "cview.patch.title.layer": "修补整个注意力或前馈输出（干净 = 1，被破坏 = 0）",
    "cview.patch.title.head": "修补一个头在所有位置的输出（干净 = 1，被破坏 = 0）",
    "cview.patch.scale": "logit 差：干净 {clean:.4f}，被破坏 {corrupt:.4f}",
    "cview.heads.title": "注意力头探测器与消融检验",
    "cview.heads.col.previous_token": "前一词元",
    "cview.heads.col.duplicate_token": "重复词元",
    "cview.heads.col.induction": "归纳",
    "cview.heads.col.ablation": "消融 Δ损失",
    "cview.heads.data": "读自 {batch} 条随机序列，每条 {n} 个词元并重复一次（种子 {seed}）；"
    "得分是该头的注意力落在这类头所看格子上的比例。",
    "cview.heads.check": "因果检验：把 {head}（归纳得分 {score:.3f}）置零消融，重复那一半上的损失升高 "
    "{rise:.4f}（原为 {base:.4f}）；其他头的中位数：{median:.4f}。",
    "cview.attr.title": "{answer!r} 对比 {wrong!r} 的直接 logit 归因",
    "cview.attr.col": "份额",
    "cview.attr.bias": "偏置（归一化 β、输出头偏置）",
    "cview.attr.sum": "各部分与偏置之和为 {total:.6f}；模型的 logit 差 {answer!r} − {wrong!r} 为 {diff:.6f}"
    "（最终归一化的尺度冻结为 {scale:.4f}）。",
    # ---- 探索页的因果面板
    "error.explore.causal.lengths": "被破坏的文本有 {corrupt} 个词元，原文有 {clean} 个；修补按位置逐一复制，"
    "请让两者的词元数相同。",
    "error.explore.causal.no_corrupt": "请先输入被破坏的文本：修补从原文复制到它里面。",
    "explore.page.causal.title": "什么真正起作用：激活修补",
    "explore.page.causal.help": "输入一个词元数相同的被破坏文本（只改一处）。每个格子把原文运行中的一个激活复制到"
    "被破坏的运行里：1 = 答案回来了，0 = 没有变化。点击格子，查看只做这一处修补时的下一个词元概率条。",
    "explore.page.causal.corrupt": "被破坏的文本",
    "explore.page.causal.positions": "层 × 位置（每个块之后的残差流）",
    "explore.page.causal.heads": "层 × 头（每个头在所有位置的输出）",
    "explore.page.causal.status": "答案 {a}（原文的首选词元）对比 {w}（被破坏运行的首选）；"
    "logit 差：原文 {clean}，被破坏 {corrupt}",
    "explore.page.causal.none": "没有被破坏的文本：每个头下面显示把它置零后 {a} 的对数概率变化多少。",
    "explore.page.causal.patched": "已修补 {what}：logit 差 {d}（原文 {clean}，被破坏 {corrupt}）；"
    "灰色标记：被破坏的运行",
    "explore.page.causal.what.position": "第 {l} 层、位置 {i}（{tok}）",
    "explore.page.causal.what.head": "第 {l} 层、第 {h} 个头",
    "explore.page.causal.thumb.patch": "修补 {v}",
    "explore.page.causal.thumb.ablation": "置零 Δlog p {v}",
}

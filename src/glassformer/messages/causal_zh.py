"""glassformer/causal 的文字（激活修补、归因修补、直接 logit 归因、注意力头检测器）：它抛出的错误和报告里的句子。"""

TEXT = {
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
}

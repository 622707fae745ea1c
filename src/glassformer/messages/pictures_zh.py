"""The words drawn in glassformer's pictures, in Chinese: the same keys and {fields} as pictures_en.py."""

TEXT = {
    "inspect.font.missing": (
        "这台机器上没有字体能画出 {chars}；标签改用码位显示。"
        "要看到这些字，请安装中文字体（Debian/Ubuntu：`{install}`），再删掉 ~/.cache/matplotlib。"
    ),
    "pictures.attn.masked": "灰色斜线 = 被掩码遮住（不可关注）",
    "pictures.attn.cell_title": "{name} · 头 {head}",
    "pictures.attn.colorbar": "注意力权重",
    "pictures.attn.grid_title": "注意力权重：行 = 查询（在看的词元），列 = 键（被看的词元）{masked}",
    "pictures.attn.key_axis": "键：被看的词元",
    "pictures.attn.query_axis": "查询：在看的词元",
    "pictures.attn.head_title": "{name}，头 {head}（每行之和为 1）{masked}",
    # ---- 一次训练的损失曲线（train/record.py：loss.png）----------------------------------------------
    "pictures.loss.step_axis": "步数",
    "pictures.loss.loss_axis": "交叉熵（奈特 / 词元）",
    "pictures.loss.batch_curve": "训练（批次，每个记录间隔的平均）",
    "pictures.loss.eval_curve": "{split}（评估）",
    "pictures.loss.split.train": "训练集",
    "pictures.loss.split.val": "验证集",
    # ---- 实验室的图（lab/*.py，docs/lab/*/*.png）--------------------------------------------------
    "pictures.lab.val_loss": "验证损失（奈特）",
    "pictures.lab.heads.loss_title": "损失随头数的变化（d_model {d_model}）",
    "pictures.lab.heads.entropy": "平均归一化熵",
    "pictures.lab.heads.diagonal_share": "对角头的占比",
    "pictures.lab.heads.uniform_share": "近乎均匀的头的占比",
    "pictures.lab.heads.heads_axis": "头数",
    "pictures.lab.ffn-width.no_ffn": "没有 FFN",
    "pictures.lab.ffn-width.d_ff": "d_ff={d_ff}",
    "pictures.lab.ffn-width.unigram": "只用字符频率",
    "pictures.lab.ffn-width.params_axis": "参数量",
    "pictures.lab.ffn-width.title": "d_model {d_model} 时的 FFN 宽度，{steps} 步",
    "pictures.lab.block_axis": "块",
    "pictures.lab.train_loss_mean": "训练损失（各种子的平均）",
    "pictures.lab.nats": "奈特",
    "pictures.chance": "随机猜测 ln {symbols}",
    # ---- 梯度流图 (inspect/gradflow.py: GradientMonitor.plot) --------------------
    "pictures.grads.layer": "层的 ‖梯度‖",
    "pictures.grads.param": "单个参数的 ‖梯度‖",
    "pictures.grads.vanish": "消失阈值 {level}",
    "pictures.grads.explode": "爆炸阈值 {level}",
    "pictures.grads.axis": "梯度 L2 范数（对数坐标）",
    "pictures.grads.title": "梯度流：左边是输入端，右边是输出端",
    "pictures.lab.length.position_axis": "位置（训练时为 1..{T}）",
    "pictures.lab.length.loss_axis": "验证损失（奈特），5 个位置的滑动平均",
    "pictures.lab.length.unigram": "只用字符频率",
    "pictures.lab.length.unreached": "{label}（{reach} 之后没有位置）",
    "pictures.lab.extrapolation.length_axis": "n，要复制的序列长度（训练时为 1..{L}）",
    "pictures.lab.extrapolation.accuracy_axis": "复制的逐词元准确率",
    "pictures.lab.extrapolation.copy_title": "复制任务，{V} 个符号，{steps} 步，{seeds} 个种子的平均",
    "pictures.lab.extrapolation.lm_title": "字符模型：在 {T} 的窗口上训练，读 {T_eval} 的窗口",
    "pictures.lab.attention-explanation.tau_grad": "注意力对梯度",
    "pictures.lab.attention-explanation.tau_loo": "注意力对留一",
    "pictures.lab.attention-explanation.tau_grad_loo": "梯度对留一",
    "pictures.lab.attention-explanation.weak": "弱相关：tau < {weak}",
    "pictures.lab.attention-explanation.tau_axis": "每个样例的 Kendall tau-b",
    "pictures.lab.attention-explanation.examples": "样例数",
    "pictures.lab.attention-explanation.tau_title": "[CLS] 注意力的秩相关（种子 0）",
    "pictures.lab.attention-explanation.adversary": "对抗注意力",
    "pictures.lab.attention-explanation.seeds": "种子 0 对种子 1",
    "pictures.lab.attention-explanation.far": "很不一样：{far}",
    "pictures.lab.attention-explanation.jsd_axis": "与学到的注意力的 JSD（nats）",
    "pictures.lab.attention-explanation.jsd_title": "输出不变（变化不超过 {eps}），注意力不同（种子 0）",
    "pictures.lab.attention-explanation.learned": "学到的注意力",
    "pictures.lab.attention-explanation.tokens_axis": "词元编号（0 = [CLS]，3 = 标记词）",
    "pictures.lab.attention-explanation.weight_axis": "注意力权重",
    "pictures.lab.attention-explanation.example_title": "一个样例：散度 {jsd}",
    "pictures.lab.attention-explanation.table.models": (
        "| 种子 | 键控任务测试准确率 | 决定类别的词上的权重 | 与梯度的 tau | 与留一的 tau | 梯度对留一的 "
        "tau | 排第一的词元相同（梯度 / 留一） | 达到“很不一样”的占比（散度中位数） |"
    ),
    "pictures.lab.attention-explanation.table.uniform": "| 任务 | 种子 | 学到的注意力准确率 | 均匀注意力准确率 |",
    "pictures.lab.attention-explanation.table.note": (
        "两个种子的 [CLS] 行之间 Jensen-Shannon 散度的中位数：{seed_jsd}。对抗预算：p(正面) 变化不超过 "
        "{eps}；{probe} 个探针样例，每个 {T} 个词元。"
    ),
}

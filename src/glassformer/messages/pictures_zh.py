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
    # grokking.png（lab/grokking.py）
    "pictures.lab.grokking.train": "训练，权重衰减 {wd}",
    "pictures.lab.grokking.test": "测试，权重衰减 {wd}",
    "pictures.lab.grokking.step_axis": "步数（全批量）",
    "pictures.lab.grokking.accuracy_axis": "准确率",
    "pictures.lab.grokking.accuracy_title": "a + b mod {p}，{fraction}% 的数对用于训练（种子 0）",
    "pictures.lab.grokking.decay": "有权重衰减",
    "pictures.lab.grokking.no_decay": "无权重衰减",
    "pictures.lab.grokking.even": "均匀占比的 {times} 倍",
    "pictures.lab.grokking.frequency_axis": "频率 k",
    "pictures.lab.grokking.energy_axis": "嵌入的傅里叶能量占比",
    "pictures.lab.grokking.spectrum_title": "训练后的嵌入频谱（种子 0）",
    # induction.png（lab/induction.py）
    "pictures.lab.induction.layers": "{layers} 层",
    "pictures.lab.induction.best_induction": "第 {layer} 层最佳归纳头",
    "pictures.lab.induction.best_previous": "第 {layer} 层最佳前一词元头",
    "pictures.lab.induction.one_layer_induction": "一层：最佳归纳头",
    "pictures.lab.induction.loss_axis": "损失（奈特）",
    "pictures.lab.induction.icl_axis": "ICL 分数：第 {late} 个词元 − 第 {early} 个词元",
    "pictures.lab.induction.detector_axis": "检测器分数",
    "pictures.lab.induction.step_axis": "训练步数（种子 0）",
    "pictures.lab.induction.title": "重复随机片段上的只有注意力的模型（{L} 个词元，词表 {V}）",
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
}

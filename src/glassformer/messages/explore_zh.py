"""The explorer's words in Chinese: the same keys and {fields} as explore_en.py."""

TEXT = {
    # -------- the page
    "explore.page.app.explore": "探索",
    "explore.page.model.line": "{source} · {layers} 层 × {heads} 头 · d_model {d_model} · {params} 个参数",
    "explore.page.input.title": "输入文本",
    "explore.page.input.help": (
        "随意输入，所有面板随之更新。每个方框是一个词元：上面是它的文字，下面是它在词表中的 id。把鼠标移到词元上，"
        "看所选的头让它看向哪里；点击词元，看它的 Q、K、V 向量。"
    ),
    "explore.page.input.help_numbers": "输入用空格分隔的数，每步一个。每个方框是模型读入的一步。",
    "explore.page.note.cropped": "模型只有 {kept} 个位置：它看到的是你这 {total} 个词元中的最后 {kept} 个。",
    "explore.page.err.network": "探索服务器没有回应（{msg}）。`glassformer explore` 还在运行吗？",
    "explore.page.next.title": "下一个词元",
    "explore.page.next.help": (
        "最后一个词元之后得分最高的 20 个词元。条形：经过温度、top-k、top-p 之后的概率——采样就从这里抽。细线："
        "模型自己的概率（温度 1，不截断）。斜线：被 top-k 或 top-p 截掉。"
    ),
    "explore.page.next.temperature": "温度",
    "explore.page.next.top_k": "top-k（0 = 不用）",
    "explore.page.next.top_p": "top-p",
    "explore.page.next.kept": "{vocab} 个词元中有 {kept} 个可能被抽到。",
    "explore.page.next.base": "灰线：置零任何头之前的完整模型。",
    "explore.page.next.cut": "截掉",
    "explore.page.next.tip": "id {id}：p {p} · 模型 {m}",
    "explore.page.next.tip_base": " · 完整模型 {b}",
    "explore.page.gen.step": "+1 个词元",
    "explore.page.gen.run": "连续生成",
    "explore.page.gen.stop": "停止",
    "explore.page.gen.seed": "随机种子",
    "explore.page.gen.status": "已生成 {n} 个词元。KV 缓存：{cached} 个位置{how}。",
    "explore.page.gen.resumed": "，沿用上一步的缓存（只计算了新词元）",
    "explore.page.gen.fresh": "，由整段文本重新填入",
    "explore.page.gen.no_cache": "这个模型没有 KV 缓存（它的词元能看到后文），所以每一步都要全部重算。",
    "explore.page.pred.title": "预测",
    "explore.page.pred.help": "蓝色：你输入的数。橙色：模型在每一步输出的数。虚线：置零某些头之前的完整模型。",
    "explore.page.attn.title": "注意力",
    "explore.page.attn.stage": "阶段",
    "explore.page.attn.layer": "层",
    "explore.page.attn.head": "头",
    "explore.page.attn.grid_help": (
        "所有层（行）× 头（列）在这一阶段的图。点击一张图，在下方放大。“置零”会消融一个头——把它的输出 z 乘以 0——"
        "所有面板随之显示没有它的模型。"
    ),
    "explore.page.attn.zero": "置零",
    "explore.page.attn.ablated": "已置零：{list}。",
    "explore.page.attn.none": "没有头被置零。",
    "explore.page.attn.clear": "全部恢复",
    "explore.page.attn.matrix_help": (
        "行：发出注视的词元（query）。列：被注视的词元（key）。灰色斜线：被遮挡，不允许看。把鼠标移到格子上。"
    ),
    "explore.page.attn.cell": "query {q}“{qt}”→ key {k}“{kt}”：{v}",
    "explore.page.attn.masked": "被遮挡",
    "explore.page.attn.scale.absolute": "颜色：0（暗）到 1（亮）",
    "explore.page.attn.scale.per_head": "颜色：每个头从它自己的最小值（暗）到最大值（亮）",
    "explore.page.attn.layer_n": "第 {n} 层",
    "explore.page.attn.head_n": "第 {n} 头",
    "explore.page.vec.title": "一个词元的 Q、K、V",
    "explore.page.vec.help": (
        "点击一个词元。每个小方块是所选的头为这个词元算出的向量中的一个数（蓝 < 0 < 红）；悬停可看数值。"
    ),
    "explore.page.vec.of": "词元 {i}“{t}”，第 {l} 层，第 {h} 头",
    "explore.page.stream.title": "残差流与 logit lens",
    "explore.page.stream.help": (
        "每个词元在残差流中的向量长度 ‖x‖，取自模型声明为残差流的每一处：进入第 0 块时，以及每次注意力、每次前馈之后。"
        "橙色：所选词元。灰色：所有词元的平均。"
    ),
    "explore.page.stream.point": "残差流位置",
    "explore.page.stream.norm": "‖x‖",
    "explore.page.lens.title": "Logit lens（逐层预测）",
    "explore.page.lens.help": (
        "如果模型在这里停下会预测什么：把它的最终归一化和输出头用在这一处的残差流上。每格是该位置最可能的下一个词元；"
        "颜色越深越确定。悬停可看前三名。"
    ),
    "explore.page.lens.help_numbers": "如果模型在这里停下会输出什么：把它的最终归一化和输出层用在这一处的残差流上。",
    "explore.page.trace.title": "形状追踪",
    "explore.page.trace.help": (
        "在这段输入上做一次前向计算时，每个有名字的张量，按产生的先后排列，并说明每个维度的含义。"
    ),
    # -------- refused requests
    "error.explore.body.constant": "请求体中有 {constant}，这不是 JSON：请发送有限的数。",
    "error.explore.body.not_utf8": "请求体不是 UTF-8 文本。",
    "error.explore.body.not_json": "请求体不是有效的 JSON（{reason}，位于第 {pos} 个字符）。",
    "error.explore.body.not_object": "请求体必须是一个 JSON 对象（{{...}}），而不是 {kind}。",
    "error.explore.body.content_type": "请以 JSON 发送请求，并带上 Content-Type: application/json（收到的是 {got}）。",
    "error.explore.body.too_large": "请求体有 {size} 字节；最多接受 {most} 字节。",
    "error.explore.body.over": "请求体超过了 {most} 字节，这是能接受的上限。",
    "error.explore.field.unknown": "未知字段 {unknown}；这个接口读取的字段是 {known}。",
    "error.explore.field.int": "'{field}' 必须是整数，收到的是 {got}。",
    "error.explore.field.float": "'{field}' 必须是数，收到的是 {got}。",
    "error.explore.field.str": "'{field}' 必须是字符串，收到的是 {got}。",
    "error.explore.field.bool": "'{field}' 必须是 true 或 false，收到的是 {got}。",
    "error.explore.field.ints": "'{field}' 必须是整数列表，收到的是 {got}。",
    "error.explore.field.pairs": "'{field}' 必须是由 [层, 头] 组成的列表，收到的是 {got}。",
    "error.explore.field.choice": "'{field}' 必须是 {choices} 之一，收到的是 {got}。",
    "error.explore.field.at_least": "'{field}' 至少要是 {lo}，收到的是 {got}。",
    "error.explore.field.between": "'{field}' 必须在 {lo} 到 {hi} 之间，收到的是 {got}。",
    "error.explore.field.too_long.str": "'{field}' 太长了：{length} 个字符，最多 {most} 个。",
    "error.explore.field.too_long.list": "'{field}' 太长了：{length} 项，最多 {most} 项。",
    "error.explore.range.layers": "{field}={value} 超出范围：这个模型有 {size} 个注意力层（0 到 {last}）。",
    "error.explore.range.heads": "{field}={value} 超出范围：这个模型有 {size} 个头（0 到 {last}）。",
    "error.explore.range.tokens": "{field}={value} 超出范围：这段输入有 {size} 个词元（0 到 {last}）。",
    "error.explore.no_endpoint": "没有接口 '{endpoint}'；现有的接口是 {endpoints}。",
    "error.explore.wrong_host": "这个探索服务器只回应发往 {hosts} 的请求，不回应发往 '{host}' 的。",
    "error.explore.internal": "{endpoint} 内部出错：{error}",
    "explore.failed": "explore {endpoint} 出错：\n{traceback}",
    "error.explore.http": "{method} {path}：{detail}。接口是 GET /api/model、GET /api/words 和 POST /api/{endpoints}。",
    "error.explore.empty": "输入是空的：请输入一些文字（回归模型则输入数）。",
    "error.explore.no_z_hook": "注意力层 {layer} 没有声明各头输出的钩子：无法消融。",
    "error.explore.no_stages": "这个模型没有声明注意力矩阵（没有形状为 B H T_q T_k 的钩子）。",
    "error.explore.stage": "'{stage}' 不是这个模型的注意力阶段；它有的是 {stages}。",
    "error.explore.generate_empty": "generate 需要 'ids'：到目前为止的词元 id（来自 analyze），至少一个。",
    "error.explore.numbers_only.next": (
        "这个模型（{kind}）读入数、预测数：没有下一个词元的概率。它的预测随 /api/analyze 返回。"
    ),
    "error.explore.numbers_only.generate": (
        "这个模型（{kind}）读入数、预测数：不能生成文本。它的预测随 /api/analyze 返回。"
    ),
    "error.explore.no_text.next": "{kind} 模型不写文本：没有下一个词元的概率。",
    "error.explore.no_text.generate": "{kind} 模型不写文本：不能生成。",
    "error.explore.text_or_ids": "'text'（输入的文字）和 'ids'（词元 id）必须恰好发送一个。",
    "error.explore.ids_outside": "词元 id {ids} 超出了词表（0 到 {last}）。",
    "error.explore.no_tokenizer": "这个模型没有分词器：请发送 'ids' 而不是 'text'。",
    "error.explore.unknown_chars": (
        "有 {n} 个字符不在这个模型的词表（{vocab} 个，学自它的训练文本）中：{shown}。请输入它认识的字符。"
    ),
    "error.explore.numbers.send_text": "这个模型读的是数：请在 'text' 中发送像 \"{example}\" 这样的数。",
    "error.explore.numbers.not_numbers": '这个模型读的是数：{text} 不是一串数（请写成 "{example}" 这样）。',
    "error.explore.numbers.finite": "数必须是有限的（不能是 nan 或 inf）。",
    "error.explore.numbers.per_step": "这个模型每步读 {d_in} 个数：请给出 {d_in} 的倍数个数。",
    "error.explore.no_readout": (
        "{model} 的顶层模块中没有从 d_model={d_model} 到它的 {n_out} 个输出的 Linear 层：logit lens 需要一个。"
    ),
}

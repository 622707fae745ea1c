"""The explorer's words (glassformer explore; src/glassformer/explore): what the page
shows (explore.page.*, served to it as JSON by GET /api/words?lang=..., the page's {fields}
filled in by its own JavaScript the same way), every refusal of a request (error.explore.*,
a RequestError's key) and the server's log line for a bug (explore.failed). EN holds them in
English, ZH in Chinese, with the same keys and the same {fields}.
"""

EN = {
    # -------- the page
    "explore.page.app.explore": "explore",
    "explore.page.model.line": "{source} · {layers} layers × {heads} heads · d_model {d_model} · {params} parameters",
    "explore.page.input.title": "Your text",
    "explore.page.input.help": (
        "Type anything: every panel follows as you type. Each box is one token — its text, and below it its id in the "
        "vocabulary. Hover a token to see where the chosen head makes it look; click it for its Q, K, V vectors."
    ),
    "explore.page.input.help_numbers": (
        "Type numbers separated by spaces, one per step. Each box is one step the model reads."
    ),
    "explore.page.note.cropped": "The model has {kept} positions: it sees the last {kept} of your {total} tokens.",
    "explore.page.err.network": "The explorer did not answer ({msg}). Is `glassformer explore` still running?",
    "explore.page.next.title": "Next token",
    "explore.page.next.help": (
        "The 20 tokens with the highest scores after the last token. Bar: probability after temperature, top-k and "
        "top-p — what sampling draws from. Thin mark: the model's own probability (temperature 1, nothing cut). "
        "Hatched: cut by top-k or top-p."
    ),
    "explore.page.next.temperature": "temperature",
    "explore.page.next.top_k": "top-k (0 = off)",
    "explore.page.next.top_p": "top-p",
    "explore.page.next.kept": "{kept} of {vocab} tokens can be drawn.",
    "explore.page.next.base": "Grey mark: the intact model, before any head was zeroed.",
    "explore.page.next.base_corrupted": "Grey mark: the corrupted run, unpatched.",
    "explore.page.next.cut": "cut",
    "explore.page.next.tip": "id {id}: p {p} · model {m}",
    "explore.page.next.tip_base": " · intact {b}",
    "explore.page.next.tip_base_corrupted": " · corrupted run {b}",
    "explore.page.gen.step": "+1 token",
    "explore.page.gen.run": "Run",
    "explore.page.gen.stop": "Stop",
    "explore.page.gen.seed": "seed",
    "explore.page.gen.status": "Generated {n} token(s). KV cache: {cached} positions{how}.",
    "explore.page.gen.resumed": ", kept from the step before (only the new token was computed)",
    "explore.page.gen.fresh": ", filled from the whole text",
    "explore.page.gen.no_cache": (
        "This model has no KV cache (its tokens see the future), so each step recomputes everything."
    ),
    "explore.page.pred.title": "Prediction",
    "explore.page.pred.help": (
        "Blue: the numbers you typed. Orange: what the model outputs at each step. Dashed: the intact model, when "
        "heads are zeroed."
    ),
    "explore.page.attn.title": "Attention",
    "explore.page.attn.stage": "stage",
    "explore.page.attn.layer": "layer",
    "explore.page.attn.head": "head",
    "explore.page.attn.grid_help": (
        'Every layer (rows) × head (columns) at this stage. Click a map to open it below. "zero" ablates a head — '
        "its output z is multiplied by 0 — and every panel shows the model without it."
    ),
    "explore.page.attn.zero": "zero",
    "explore.page.attn.ablated": "Zeroed: {list}.",
    "explore.page.attn.none": "No head is zeroed.",
    "explore.page.attn.clear": "restore all",
    "explore.page.attn.matrix_help": (
        "Rows: the token that looks (query). Columns: the token looked at (key). Grey hatching: masked, it may not "
        "look there. Hover a cell."
    ),
    "explore.page.attn.cell": "query {q} “{qt}” → key {k} “{kt}”: {v}",
    "explore.page.attn.masked": "masked",
    "explore.page.attn.scale.absolute": "colour: 0 (dark) to 1 (bright)",
    "explore.page.attn.scale.per_head": "colour: each head from its own lowest (dark) to highest (bright) value",
    "explore.page.attn.layer_n": "layer {n}",
    "explore.page.attn.head_n": "head {n}",
    "explore.page.vec.title": "Q, K, V of one token",
    "explore.page.vec.help": (
        "Click a token. Each square is one number of the chosen head's vector for that token (blue < 0 < red); hover "
        "for the value."
    ),
    "explore.page.vec.of": "token {i} “{t}”, layer {l}, head {h}",
    "explore.page.stream.title": "Residual stream and logit lens",
    "explore.page.stream.help": (
        "The length ‖x‖ of each token's vector in the residual stream, at every point the model declares as the "
        "stream: entering block 0, then after each attention and each feed-forward. Orange: the chosen token. Grey: "
        "the mean over tokens."
    ),
    "explore.page.stream.norm": "‖x‖",
    "explore.page.lens.title": "Logit lens",
    "explore.page.lens.help": (
        "What the model would predict if it stopped at each point: its final norm and head applied to the stream "
        "there. Each cell is the most likely next token at that position; darker = more sure. Hover for the top 3."
    ),
    "explore.page.lens.help_numbers": (
        "What the model would output if it stopped at each point: its final norm and output layer applied to the "
        "stream there."
    ),
    "explore.page.trace.title": "Shape trace",
    "explore.page.trace.help": (
        "Every named tensor of one forward pass on this input, in the order it was made, with the meaning of each axis."
    ),
    # -------- refused requests
    "error.explore.body.constant": "the body contains {constant}, which is not JSON: send finite numbers.",
    "error.explore.body.not_utf8": "the body is not UTF-8 text.",
    "error.explore.body.not_json": "the body is not valid JSON ({reason} at character {pos}).",
    "error.explore.body.not_object": "the body must be a JSON object ({{...}}), not a {kind}.",
    "error.explore.body.content_type": "send the request as JSON with Content-Type: application/json (got {got}).",
    "error.explore.body.too_large": "the request body is {size} bytes; at most {most} are accepted.",
    "error.explore.body.over": "the request body is over {most} bytes, the most accepted.",
    "error.explore.field.unknown": "unknown field(s) {unknown}; this endpoint reads {known}.",
    "error.explore.field.int": "'{field}' must be a whole number, got {got}.",
    "error.explore.field.float": "'{field}' must be a number, got {got}.",
    "error.explore.field.str": "'{field}' must be a string, got {got}.",
    "error.explore.field.bool": "'{field}' must be true or false, got {got}.",
    "error.explore.field.ints": "'{field}' must be a list of whole numbers, got {got}.",
    "error.explore.field.pairs": "'{field}' must be a list of [layer, head] pairs, got {got}.",
    "error.explore.field.choice": "'{field}' must be one of {choices}, got {got}.",
    "error.explore.field.at_least": "'{field}' must be at least {lo}, got {got}.",
    "error.explore.field.between": "'{field}' must be between {lo} and {hi}, got {got}.",
    "error.explore.field.too_long.str": "'{field}' is too long: {length} characters, at most {most}.",
    "error.explore.field.too_long.list": "'{field}' is too long: {length} entries, at most {most}.",
    "error.explore.range.layers": (
        "{field}={value} is out of range: this model has {size} attention layers (0 to {last})."
    ),
    "error.explore.range.heads": "{field}={value} is out of range: this model has {size} heads (0 to {last}).",
    "error.explore.range.tokens": "{field}={value} is out of range: this input has {size} tokens (0 to {last}).",
    "error.explore.no_endpoint": "no endpoint '{endpoint}'; there are {endpoints}.",
    "error.explore.wrong_host": "this explorer answers requests addressed to {hosts} only, not to '{host}'.",
    "error.explore.internal": "internal error in {endpoint}: {error}",
    "explore.failed": "explore {endpoint} failed:\n{traceback}",  # the server's log, beside that 500 answer
    "error.explore.http": (
        "{method} {path}: {detail}. The API is GET /api/model, GET /api/words and POST /api/{endpoints}."
    ),
    "error.explore.empty": "the input is empty: type some text (or numbers, for a regressor).",
    "error.explore.no_z_hook": "attention layer {layer} declares no heads' output hook: it cannot be ablated.",
    "error.explore.no_stages": "this model declares no attention matrices (no hook on B H T_q T_k).",
    "error.explore.kind": "the explorer shows a model that reads one sequence (tokens or numbers); this run is "
    "kind {kind!r}, which reads {inputs}. Look inside it with glassformer trace --run or glassformer attention "
    "--run instead.",
    "error.explore.stage": "stage '{stage}' is not an attention stage of this model; it has {stages}.",
    "error.explore.generate_empty": "generate needs 'ids': the token ids so far (from analyze), at least one.",
    "error.explore.numbers_only.next": (
        "this model ({kind}) reads numbers and predicts numbers: there are no next-token probabilities. Its "
        "predictions come with /api/analyze."
    ),
    "error.explore.numbers_only.generate": (
        "this model ({kind}) reads numbers and predicts numbers: there is no generation. Its predictions come with "
        "/api/analyze."
    ),
    "error.explore.no_text.next": "a {kind} model does not write text: it has no next-token probabilities.",
    "error.explore.no_text.generate": "a {kind} model does not write text: it cannot generate.",
    "error.explore.text_or_ids": "send exactly one of 'text' (what was typed) and 'ids' (token ids).",
    "error.explore.ids_outside": "token ids {ids} are outside the vocabulary (0 to {last}).",
    "error.explore.no_tokenizer": "this model has no tokenizer: send 'ids' instead of 'text'.",
    "error.explore.unknown_chars": (
        "{n} character(s) are not in this model's vocabulary of {vocab} (learned from its training text): {shown}. "
        "Type text made of characters it knows."
    ),
    "error.explore.numbers.send_text": "this model reads numbers: send 'text' with numbers like \"{example}\".",
    "error.explore.numbers.not_numbers": (
        'this model reads numbers: {text} is not a list of numbers (write them like "{example}").'
    ),
    "error.explore.numbers.finite": "numbers must be finite (no nan or inf).",
    "error.explore.numbers.per_step": "this model reads {d_in} numbers per step: give a multiple of {d_in}.",
    "error.explore.no_readout": (
        "{model} has no Linear layer from d_model={d_model} to its {n_out} outputs among its top-level modules: the "
        "logit lens needs one."
    ),
}


ZH = {
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
    "explore.page.next.base_corrupted": "灰线：未修补的被破坏运行。",
    "explore.page.next.cut": "截掉",
    "explore.page.next.tip": "id {id}：p {p} · 模型 {m}",
    "explore.page.next.tip_base": " · 完整模型 {b}",
    "explore.page.next.tip_base_corrupted": " · 被破坏运行 {b}",
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
    "error.explore.kind": "探索器显示读取一条序列（词元或数字）的模型；这个运行的种类是 {kind!r}，它读取 {inputs}。"
    "请改用 glassformer trace --run 或 glassformer attention --run 查看它的内部。",
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

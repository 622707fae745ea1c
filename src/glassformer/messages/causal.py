"""The words of glassformer/causal (activation, attribution and path patching, direct logit attribution,
head detectors): the typed errors it raises and the lines of its reports; then the causal views:
`glassformer patch | heads | attribute` (cli/inspect.py, the views in inspect/causal_views.py) and the
explorer's patching panel (explore/explorer.py). EN in English, ZH in Chinese: the same keys, the
same {fields}.

因果工具的文字（glassformer/causal：激活、归因与路径修补，直接 logit 归因，头探测器）：
它抛出的类型化错误与报告中的行；然后是因果视图：`glassformer patch | heads | attribute`
（cli/inspect.py，视图在 inspect/causal_views.py）与探索页的修补面板。英文在 EN，中文在 ZH。"""

EN = {
    # ==== causal ====================================================================================
    "error.causal.no_point": "No hook point named {point!r} or blocks.<i>.{point} in this model; "
    "model.hook_names() lists them (e.g. {example!r}).",
    "error.causal.no_batch_axis": "Hook point {name!r} has axes {axes!r}, without a batch axis B: each row of a "
    "batched patch needs its own copy; patch a point with B (e.g. resid_pre) instead.",
    "error.causal.bad_axis": "Cannot patch {name!r} by {by}: its axes are {axes!r}; choose from {choices}.",
    "error.causal.lengths": "The clean and corrupted inputs must have the same shape, got {clean} and {corrupt}; "
    "make the prompts the same number of tokens.",
    "causal.method.detectors": "the head detectors",
    "error.causal.no_hook": "This model has no hook point {name!r}, which {method} needs; {fix}",
    "error.causal.fused": "attention='fused' shows no attention weights; run model.set_attention('glass') first "
    "(same weights).",
    "error.causal.norm_post": "Direct logit attribution needs the residual stream to be a sum of its parts up to "
    "the final norm; norm={norm!r} normalises the stream inside every block. Use a pre-norm or no-norm model.",
    "error.causal.budget": "max_bytes={max_bytes} is below one patched row ({row} bytes); give at least {row}.",
    "error.causal.top_k": "top_k must be between 1 and the {n} cells of the grid, got {k}.",
    "error.causal.bad_kind": "No head detector {kind!r}; choose from {kinds}.",
    "causal.agreement": "attribution vs exact patching on {cells} cells: Spearman ρ = {rho:.3f}, "
    "top-{k} overlap {overlap}/{k}; missed: {missed}",
    "causal.method.dla": "direct logit attribution",
    "error.causal.no_head_parts": "This attribution has no per-head parts; call logit_attribution(..., heads=True).",
    "error.causal.bad_via": "Path patching goes into a receiver through {choices}; got {via}.",
    "error.causal.bad_receiver": "Receivers are (layer, head) pairs with 1 <= layer < {layers} (a sender must sit "
    "below) and 0 <= head < {heads}; got {receivers}.",
    "error.causal.bad_ablation": "No ablation {how!r}; choose from {choices}.",
    "error.causal.same_tokens": "The answer and the wrong token are the same token ({token}): their logit "
    "difference is 0 whatever the model does; give two different tokens.",
    "error.causal.no_gap": "The clean and the corrupted run give the same metric ({clean} and {corrupt}): there "
    "is no gap to normalise by; corrupt a detail the metric depends on.",
    "causal.planted.row": "{method}: found {found}; precision {precision:.2f}, recall {recall:.2f}",
    "causal.planted.method.patching": "activation patching (attn.z by head)",
    "causal.planted.method.attribution": "attribution patching (attn.z by head)",
    "causal.planted.method.detectors": "head detectors (score >= threshold)",
    "causal.planted.method.checked": "head detectors + ablation check",
    "causal.planted.method.dla": "direct logit attribution (per head)",
    "causal.planted.method.path": "path patching into {head}'s keys (senders)",
    "causal.trained.truth": "ground truth: heads whose zero-ablation raises the repeated half's loss by at least "
    "{share} of the largest rise ({largest:.2f} nats): {heads}",
    # the activation cache (nn/hooks.py), as a TransformerLens user reaches for it
    "error.cache.missing": "This cache holds no activation {hint}; cache.keys() lists the {n} it holds.",
    "error.cache.not_kept": "{name!r} is a hook point, but this run did not keep it (its names / names_filter "
    "left it out of the {n} kept); run run_with_cache again with it among the names.",
    "error.cache.names_twice": "Give run_with_cache names or names_filter (TransformerLens's name for it), not both.",
    # ==== causal_views ==============================================================================
    # ---- command line help
    "help.patch": "activation patching: which layer, position or head brings the clean answer back",
    "help.heads": "head detectors (previous-token, duplicate-token, induction) with an ablation check",
    "help.attribute": "direct logit attribution: which parts of the model write the answer",
    "help.causal.about": "{verb}. Reads a trained run of a kind that predicts tokens (gpt, encoder).",
    "help.causal.run": "the run directory (as written by glassformer train)",
    "help.causal.clean": "the clean prompt, whose answer is right",
    "help.causal.corrupt": "the corrupted prompt: the same number of tokens, one detail changed",
    "help.causal.prompt": "the prompt whose next token is attributed",
    "help.causal.answer": "the right next token (exactly one token)",
    "help.causal.wrong": "the wrong next token to compare with (exactly one token)",
    "help.causal.wrong_optional": "the wrong next token (default: the model's likeliest other token)",
    "help.causal.by": "what to patch: position (layer × position), layer (attention, FFN), head (layer × head) "
    "(default: {default})",
    "help.patch.example": 'example: glassformer patch runs/baby-<time> --clean "ROMEO: the cat" --corrupt '
    '"ROMEO: the mat" --answer " " --wrong s --by head (the two prompts the same number of tokens; '
    "--answer and --wrong one token each)",
    "help.heads.example": "example: glassformer heads runs/baby-<time> --n 20 --batch 8",
    "help.attribute.example": 'example: glassformer attribute runs/baby-<time> --prompt "ROMEO: the cat" --answer " "',
    "help.causal.out": "output folder (default: out/{verb}/)",
    "help.heads.n": "length of the random half of each repeated sequence (default: {default})",
    "help.heads.batch": "how many repeated sequences (default: {default})",
    "help.heads.seed": "seed of the random sequences (default: {default})",
    # ---- refusals: one line, naming the fix
    "cview.kind": "glassformer {verb} reads a model that predicts tokens from tokens, with Transformer "
    "blocks' hook points; this run is kind {kind!r} (it reads {inputs}). Give a run of kind gpt or encoder.",
    "cview.post_norm": "Direct logit attribution needs a pre-norm or norm-free model; this run has "
    "norm={norm!r}, which normalises the stream inside every block. Use glassformer patch instead.",
    "cview.empty": "{flag} is empty after tokenizing; give it some text.",
    "cview.too_long": "{flag} has {n} tokens, more than the model's max_len of {max_len}; shorten it.",
    "cview.not_one_token": "{flag} {text!r} is {n} tokens ({tokens}), not one; give a single token of the "
    "run's vocabulary.",
    "cview.lengths": "--clean has {clean} tokens ({clean_tokens}) and --corrupt has {corrupt} "
    "({corrupt_tokens}); patching copies position by position, so make them the same number of tokens.",
    "cview.same_prompts": "The clean and the corrupted prompt are the same tokens ({tokens}): a patch copies one "
    "run into the other, so nothing could change; change one detail of the corrupted prompt.",
    "cview.same_tokens": "--answer and --wrong are the same token {token!r}: their logit difference is 0 whatever "
    "the model does; give two different tokens.",
    "cview.gap.inverted": "The corruption does not lower the answer's lead: logit difference clean {clean:.4f}, "
    "corrupted {corrupt:.4f} (gap {gap:.4f}), so clean = 1, corrupted = 0 would read upside down; corrupt a "
    "detail the answer depends on (on the command line, or swap --answer and --wrong).",
    "cview.gap.small": "The clean and the corrupted run barely differ: logit difference clean {clean:.4f}, "
    "corrupted {corrupt:.4f}, a gap of {gap:.4f}, under the {floor:.4f} a grid is normalised by (a tenth of the "
    "larger value, at least 0.1): every cell would be noise over it; corrupt a detail the answer depends on more.",
    # ---- what the views show
    "cview.header": "# run {run} ({kind}); answer {answer!r} against {wrong!r}",
    "cview.heads.header": "# run {run} ({kind})",
    "cview.part.attn": "attention",
    "cview.part.ffn": "feed-forward",
    "cview.patch.title.position": "patching the residual stream, by layer and position (clean = 1, corrupted = 0)",
    "cview.patch.title.layer": "patching a whole attention or FFN output (clean = 1, corrupted = 0)",
    "cview.patch.title.head": "patching one head's output at every position (clean = 1, corrupted = 0)",
    "cview.patch.scale": "logit difference: clean {clean:.4f}, corrupted {corrupt:.4f}, gap {gap:.4f}",
    "cview.patch.legend": "1 = the clean run, 0 = the corrupted run; above 1 a patch overshoots the clean run, "
    "below 0 it moves further from the answer than the corruption did.",
    "cview.heads.title": "head detectors and the ablation check",
    "cview.heads.col.previous_token": "previous",
    "cview.heads.col.duplicate_token": "duplicate",
    "cview.heads.col.induction": "induction",
    "cview.heads.col.ablation": "ablation Δloss",
    "cview.heads.data": "read from {batch} random sequences of {n} tokens each repeated once (seed {seed}); "
    "a score is the share of the head's attention on the cells that kind looks at.",
    "cview.heads.chance": "chance: a head attending evenly scores {chance:.3f} on induction here, a perfect "
    "induction head {perfect:.3f}; a head counts as an induction head from {bar:.3f} (a quarter of the way).",
    "cview.heads.none": "no induction head found: the highest induction score, {head}'s {score:.3f}, is under "
    "{bar:.3f}.",
    "cview.heads.check.raises": "causal check: zero-ablating {head} (induction score {score:.3f}) raises the loss "
    "on the repeated half by {rise:.4f} (from {base:.4f}); the median other head's change: {median:+.4f}.",
    "cview.heads.check.lowers": "causal check: zero-ablating {head} (induction score {score:.3f}) lowers the loss "
    "on the repeated half by {rise:.4f} (from {base:.4f}); the median other head's change: {median:+.4f}.",
    "cview.attr.title": "direct logit attribution of {answer!r} against {wrong!r}",
    "cview.attr.col.contribution": "contribution",
    "cview.attr.bias": "bias (norm β, head bias)",
    "cview.attr.sum": "the parts and bias sum to {total:.6f}; the model's logit difference {answer!r} − "
    "{wrong!r} is {diff:.6f} (final norm's scale frozen at {scale:.4f}).",
    # ---- the explorer's causal panel (explore/explorer.py, static/causal.js)
    "error.explore.causal.lengths": "The corrupted text has {corrupt} tokens and the text {clean}; patching "
    "copies position by position, so make them the same number of tokens.",
    "error.explore.causal.no_corrupt": "Type a corrupted text first: a patch copies from the text into it.",
    "explore.page.causal.title": "What matters: activation patching",
    "explore.page.causal.help": "Type a corrupted text of the same number of tokens (change one detail). Each "
    "cell copies one activation from the text's run into the corrupted run: 1 = the answer comes back, "
    "0 = nothing changes. Click a cell to see the next-token bars with that one patch.",
    "explore.page.causal.corrupt": "corrupted text",
    "explore.page.causal.positions": "layer × position (the residual stream after each block)",
    "explore.page.causal.heads": "layer × head (each head's output at every position)",
    "explore.page.causal.status": "answer {a} (the text's top token) against {w} (the corrupted run's likeliest "
    "token other than the answer); logit difference: text {clean}, corrupted {corrupt}, gap {gap}",
    "explore.page.causal.legend": "1 = the text's run, 0 = the corrupted run; above 1 a patch overshoots the "
    "text's run, below 0 it moves further from the answer than the corruption did.",
    "explore.page.causal.none": "No corrupted text: under each head, how much zeroing it changes the "
    "log-probability of {a}.",
    "explore.page.causal.patched": "patched {what}: logit difference {d} (text {clean}, corrupted {corrupt}); "
    "grey marks: the corrupted run, unpatched",
    "explore.page.causal.what.position": "layer {l} at position {i} ({tok})",
    "explore.page.causal.what.head": "layer {l}, head {h}",
    "explore.page.causal.thumb.patch": "patch {v}",
    "explore.page.causal.thumb.ablation": "zeroed Δlog p {v}",
    # ==== explore/repeats.py: `glassformer repeats`, why a model repeats itself ==========================
    "help.repeats": "why does my model repeat itself? the loop greedy decoding falls into, the heads that copy it, "
    "the logit lens there, and those heads ablated",
    "help.repeats.about": "Write greedily from --prompt, find the loop the text ends in, and look at it: each "
    "head's induction and copy scores on the text, the probability of continuing the loop with each head zeroed, "
    "the logit lens where the loop first repeats, and a control prompt. Reads a trained run that writes text.",
    "help.repeats.example": 'example: glassformer repeats runs/baby-<time> --prompt "ROMEO:" --control "JULIET:"',
    "help.repeats.prompt": "the prompt greedy decoding continues (\\n and \\t are newline and tab)",
    "help.repeats.control": "a control prompt, written and measured the same way (one that does not loop)",
    "help.repeats.max_new_tokens": "tokens to write (default: the rest of the context)",
    "repeats.header": "# run {run} ({kind}), greedy decoding from {prompt!r}",
    "repeats.too_long": "{flag} has {n} tokens; the model reads {max_len}, and a loop needs {room} more to be "
    "seen: give at most {most} tokens.",
    "repeats.no_loop": "greedy decoding wrote {n} tokens after --prompt that end in no loop (at least {repeats} "
    "copies of a span covering {span} tokens or more); try another prompt, or see repetition at work with "
    "`glassformer eval`.",
    "repeats.no_loop_found": "no loop",
    "repeats.loop_found": "a loop of period {period}, {span!r}, {repeats:.1f} copies",
    "repeats.loop": "greedy decoding wrote {n} tokens: {loop}, from token {start} of what it wrote; given the text, "
    "the model continues the loop with probability {p:.3f} on average.",
    "repeats.heads.title": "the heads at the loop: detector scores on the text, and each head zeroed",
    "repeats.col.loop_p": "Δp(loop)",
    "repeats.named": "heads that look at the token after the previous occurrence (induction score >= {bar:.3f}): "
    "{heads}.",
    "repeats.none_named": "no head's induction score reaches {bar:.3f} (the highest: {head}, {score:.3f}): by the "
    "detectors no head here copies the previous occurrence; the column Δp(loop) shows which heads the loop leans on "
    "all the same.",
    "repeats.ablated": "causal test: with {heads} zeroed, the probability of continuing the loop goes from "
    "{before:.3f} to {after:.3f}; the greedy text then has seq-rep-4 {rep_after:.3f} (was {rep_before:.3f}) "
    "and {loop}.",
    "repeats.control": "control prompt: greedy decoding writes {loop}, seq-rep-4 {rep:.3f}.",
    "repeats.control_ablated": "control prompt with {heads} zeroed: {loop}, seq-rep-4 {rep:.3f}.",
    "repeats.lens.title": "logit lens where the loop first repeats",
    "repeats.lens.where": "after each block, at token {pos}, which predicts the first token of the loop's second "
    "copy, {token}; a near tie: the two top logits within {near} nats.",
    "repeats.lens.ties": "near ties at {layers}: there greedy decoding's pick hangs on a small difference.",
    "repeats.lens.no_ties": "no near tie at any layer: the pick is clear.",
    "repeats.lens.col.loop": "p(loop)",
    "repeats.lens.col.first": "p(1st)",
    "repeats.lens.col.second": "p(2nd)",
    "repeats.lens.col.third": "p(3rd)",
    "repeats.lens.col.gap": "logit gap",
    "help.repeats.sweep": "instead: sample with each repetition knob at a few values and chart seq-rep-4 and "
    "distinct-2 against each (the same seeds for every setting)",
    "help.repeats.samples": "samples per setting of --sweep (default: {default})",
    "help.repeats.temperature": "temperature of --sweep's samples (default: {default})",
    "help.repeats.seed": "seed of --sweep's samples, the same for every setting (default: {default})",
    "repeats.sweep.title": "repetition against each knob",
    "repeats.sweep.header": "# run {run} ({kind}), sampling from {prompt!r}",
    "repeats.sweep.data": "{samples} samples of {n} tokens per setting, temperature {temperature}, seed {seed} (the "
    "same for every setting); each knob moved alone from its off value, the others off.",
}


ZH = {
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
    "error.causal.same_tokens": "答案和错误词元是同一个词元（{token}）：无论模型怎样，它们的 logit 差都是 0；"
    "请给两个不同的词元。",
    "error.causal.no_gap": "干净运行和被破坏运行的指标相同（{clean} 和 {corrupt}）：没有差距可以用来归一化；"
    "请破坏一个指标依赖的细节。",
    "causal.planted.row": "{method}：找到 {found}；精确率 {precision:.2f}，召回率 {recall:.2f}",
    "causal.planted.method.patching": "激活修补（按头修补 attn.z）",
    "causal.planted.method.attribution": "归因修补（按头估计 attn.z）",
    "causal.planted.method.detectors": "注意力头检测器（得分 >= 阈值）",
    "causal.planted.method.checked": "头检测器 + 消融检验",
    "causal.planted.method.dla": "直接 logit 归因（按头）",
    "causal.planted.method.path": "路径修补：进入 {head} 键的发送头",
    "causal.trained.truth": "基准答案：单独置零后使重复后半段损失的上升至少达到最大上升（{largest:.2f} nats）"
    "{share} 倍的头：{heads}",
    # 激活缓存（nn/hooks.py），TransformerLens 用户会这样用它
    "error.cache.missing": "这个缓存里没有激活 {hint}；cache.keys() 列出它保存的 {n} 个。",
    "error.cache.not_kept": "{name!r} 是一个钩子点，但这次运行没有保存它（names / names_filter 把它排除在"
    "保存的 {n} 个之外）；请把它加入 names 再运行一次 run_with_cache。",
    "error.cache.names_twice": "run_with_cache 的 names 和 names_filter（TransformerLens 对它的叫法）只能给一个。",
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
    "help.causal.by": "修补什么：position（层 × 位置）、layer（注意力、前馈）、head（层 × 头）（默认：{default}）",
    "help.patch.example": '示例：glassformer patch runs/zh-poems-<time> --clean "床前明月光" --corrupt "床前明日光" '
    '--answer "，" --wrong "。" --by head（两个提示的词元数相同；--answer 和 --wrong 各为一个词元）',
    "help.heads.example": "示例：glassformer heads runs/zh-poems-<time> --n 20 --batch 8",
    "help.attribute.example": '示例：glassformer attribute runs/zh-poems-<time> --prompt "床前明月光" --answer "，"',
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
    "cview.same_prompts": "干净提示和被破坏的提示是相同的词元（{tokens}）：修补把一个运行复制到另一个里，"
    "什么都不会变；请改动被破坏提示中的一处细节。",
    "cview.same_tokens": "--answer 和 --wrong 是同一个词元 {token!r}：无论模型怎样，它们的 logit 差都是 0；"
    "请给两个不同的词元。",
    "cview.gap.inverted": "破坏没有降低答案的领先：logit 差干净 {clean:.4f}、被破坏 {corrupt:.4f}（差距 {gap:.4f}），"
    "“干净 = 1，被破坏 = 0”会上下颠倒；请破坏答案所依赖的细节（命令行上也可以交换 --answer 和 --wrong）。",
    "cview.gap.small": "干净运行和被破坏运行几乎没有差别：logit 差干净 {clean:.4f}、被破坏 {corrupt:.4f}，"
    "差距 {gap:.4f}，小于归一化所需的 {floor:.4f}（较大值的十分之一，至少 0.1）：每个格子都只是噪声除以它；"
    "请破坏答案更依赖的细节。",
    # ---- 视图显示的内容
    "cview.header": "# 运行 {run}（{kind}）；答案 {answer!r} 对比 {wrong!r}",
    "cview.heads.header": "# 运行 {run}（{kind}）",
    "cview.part.attn": "注意力",
    "cview.part.ffn": "前馈",
    "cview.patch.title.position": "修补残差流，按层和位置（干净 = 1，被破坏 = 0）",
    "cview.patch.title.layer": "修补整个注意力或前馈输出（干净 = 1，被破坏 = 0）",
    "cview.patch.title.head": "修补一个头在所有位置的输出（干净 = 1，被破坏 = 0）",
    "cview.patch.scale": "logit 差：干净 {clean:.4f}，被破坏 {corrupt:.4f}，差距 {gap:.4f}",
    "cview.patch.legend": "1 = 干净运行，0 = 被破坏运行；大于 1 表示修补超过了干净运行，"
    "小于 0 表示它比破坏本身离答案更远。",
    "cview.heads.title": "注意力头探测器与消融检验",
    "cview.heads.col.previous_token": "前一词元",
    "cview.heads.col.duplicate_token": "重复词元",
    "cview.heads.col.induction": "归纳",
    "cview.heads.col.ablation": "消融 Δ损失",
    "cview.heads.data": "读自 {batch} 条随机序列，每条 {n} 个词元并重复一次（种子 {seed}）；"
    "得分是该头的注意力落在这类头所看格子上的比例。",
    "cview.heads.chance": "随机水平：在这里均匀关注的头归纳得分为 {chance:.3f}，完美的归纳头为 {perfect:.3f}；"
    "得分达到 {bar:.3f}（四分之一处）才算归纳头。",
    "cview.heads.none": "没有找到归纳头：最高的归纳得分是 {head} 的 {score:.3f}，低于 {bar:.3f}。",
    "cview.heads.check.raises": "因果检验：把 {head}（归纳得分 {score:.3f}）置零消融，重复那一半上的损失升高 "
    "{rise:.4f}（原为 {base:.4f}）；其他头变化的中位数：{median:+.4f}。",
    "cview.heads.check.lowers": "因果检验：把 {head}（归纳得分 {score:.3f}）置零消融，重复那一半上的损失降低 "
    "{rise:.4f}（原为 {base:.4f}）；其他头变化的中位数：{median:+.4f}。",
    "cview.attr.title": "{answer!r} 对比 {wrong!r} 的直接 logit 归因",
    "cview.attr.col.contribution": "贡献",
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
    "explore.page.causal.status": "答案 {a}（原文的首选词元）对比 {w}（被破坏运行中除答案外最可能的词元）；"
    "logit 差：原文 {clean}，被破坏 {corrupt}，差距 {gap}",
    "explore.page.causal.legend": "1 = 原文的运行，0 = 被破坏的运行；大于 1 表示修补超过了原文的运行，"
    "小于 0 表示它比破坏本身离答案更远。",
    "explore.page.causal.none": "没有被破坏的文本：每个头下面显示把它置零后 {a} 的对数概率变化多少。",
    "explore.page.causal.patched": "已修补 {what}：logit 差 {d}（原文 {clean}，被破坏 {corrupt}）；"
    "灰色标记：未修补的被破坏运行",
    "explore.page.causal.what.position": "第 {l} 层、位置 {i}（{tok}）",
    "explore.page.causal.what.head": "第 {l} 层、第 {h} 个头",
    "explore.page.causal.thumb.patch": "修补 {v}",
    "explore.page.causal.thumb.ablation": "置零 Δlog p {v}",
    # ==== explore/repeats.py：`glassformer repeats`，模型为什么会复读 ===================================
    "help.repeats": "我的模型为什么会复读？贪心解码陷入的循环、复制它的注意力头、那里的 logit lens，以及消融这些头",
    "help.repeats.about": "从 --prompt 出发贪心解码，找到文本结尾的循"
    "环并观察它：每个头在这段文本上的归纳分数和复制分数、"
    "逐个置零每个头后继续循环的概率、循环第一次重复处的 logit lens，以及一个对照提示词。读取一个会写文本的已训练运行。",
    "help.repeats.example": '示例：glassformer repeats runs/zh-poems-<time> --prompt "床前" --control "春眠"',
    "help.repeats.prompt": "贪心解码要续写的提示词（\\n 和 \\t 表示换行和制表符）",
    "help.repeats.control": "对照提示词，用同样的方式续写和度量（一个不会循环的提示词）",
    "help.repeats.max_new_tokens": "要写的词元数（默认：上下文剩下的全部）",
    "repeats.header": "# 运行 {run}（{kind}），从 {prompt!r} 贪心解码",
    "repeats.too_long": "{flag} 有 {n} 个词元；模型最多读 {max_len} 个"
    "，而要看出一个循环还需要 {room} 个：请给出最多 {most} "
    "个词元。",
    "repeats.no_loop": "贪心解码在 --prompt 之后写了 {n} 个词元，结尾没有循环（至少 {repeats} 份同一片段，覆盖 {span} "
    "个或更多词元）；换一个提示词试试，或者用 `glassformer eval` 观察重复。",
    "repeats.no_loop_found": "没有循环",
    "repeats.loop_found": "一个周期为 {period} 的循环 {span!r}，共 {repeats:.1f} 份",
    "repeats.loop": "贪心解码写了 {n} 个词元：{loop}，从它写的第 "
    "{start} 个词元开始；给定这段文本，模型继续循环的平均概率为 "
    "{p:.3f}。",
    "repeats.heads.title": "循环处的注意力头：在这段文本上的探测分数，以及逐个置零",
    "repeats.col.loop_p": "Δp(循环)",
    "repeats.named": "看向上一次出现之后那个词元的头（归纳分数 >= {bar:.3f}）：{heads}。",
    "repeats.none_named": "没有头的归纳分数达到 {bar:.3f}（最高的是 {head}，{score:.3f}）：按探测器的标准，这里没有头"
    "复制上一次出现；不过 Δp(循环) 这一列仍显示循环依赖哪些头。",
    "repeats.ablated": "因果检验：把 {heads} 置零后，继续循环的概率从 "
    "{before:.3f} 变为 {after:.3f}；此时贪心写出的文本 "
    "seq-rep-4 为 {rep_after:.3f}（原为 {rep_before:.3f}），{loop}。",
    "repeats.control": "对照提示词：贪心解码写出{loop}，seq-rep-4 为 {rep:.3f}。",
    "repeats.control_ablated": "对照提示词，{heads} 置零后：{loop}，seq-rep-4 为 {rep:.3f}。",
    "repeats.lens.title": "循环第一次重复处的 logit lens",
    "repeats.lens.where": "每个块之后，在第 {pos} 个词元处，它预测循环第二份的第"
    "一个词元 {token}；两个最高的 logit 相差不到 "
    "{near} 奈特即为近乎打平。",
    "repeats.lens.ties": "近乎打平的层：{layers}；在那里贪心解码的选择取决于一个很小的差别。",
    "repeats.lens.no_ties": "没有哪一层近乎打平：选择很明确。",
    "repeats.lens.col.loop": "p(循环)",
    "repeats.lens.col.first": "p(第1)",
    "repeats.lens.col.second": "p(第2)",
    "repeats.lens.col.third": "p(第3)",
    "repeats.lens.col.gap": "logit 差",
    "help.repeats.sweep": "改为：让每个抑制重复的旋钮取几个值分别采样，画出 seq-rep-4 和 distinct-2 随它的变化"
    "（每种设置用同样的种子）",
    "help.repeats.samples": "--sweep 每种设置的样本数（默认：{default}）",
    "help.repeats.temperature": "--sweep 采样的温度（默认：{default}）",
    "help.repeats.seed": "--sweep 采样的种子，每种设置相同（默认：{default}）",
    "repeats.sweep.title": "重复程度随每个旋钮的变化",
    "repeats.sweep.header": "# 运行 {run}（{kind}），从 {prompt!r} 采样",
    "repeats.sweep.data": "每种设置 {samples} 个样本，每个 {n} 个词元，温度 {temperature}，种子 {seed}"
    "（每种设置相同）；每次只从关闭值移动一个旋钮，其余关闭。",
}

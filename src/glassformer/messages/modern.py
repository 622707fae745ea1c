"""The words of the modern decoder's pieces (nn/rmsnorm.py, nn/glu.py, nn/rope_scaling.py,
nn/attention_variants.py): their glossary entries (stages, what each tensor is, a letter, parameter
notes) and the typed errors they raise. Kept in one file while the pieces stand alone; when a model
is built from them, the glossary entries join glossary.py and the errors model.py.

现代解码器各部件的文字：词汇表条目（阶段、张量含义、字母、参数注释）和它们抛出的类型化错误；中文在 ZH。"""

EN = {
    # ---- glossary: stages, meanings, the key-value head letter, parameter notes ------------------------
    "stage.rms_norm": "RMSNorm",
    "stage.qk_norm": "QK-norm",
    "means.rms_norm.scale": "√(mean(x²) + ε) of each vector: what it is divided by before the gain",
    "means.glu.gate": "the gate: act(x·W_gate), one number per hidden unit",
    "means.glu.up": "the value path: x·W_up, no activation",
    "means.glu.hidden": "gate ⊙ up: what the down projection reads",
    "means.qk_norm.q": "queries with each head's D features RMS-normalised, before the rotation",
    "means.qk_norm.k": "keys normalised the same way (one gain shared by every key-value head)",
    "letter.H_kv": "key-value heads (n_kv_heads): each serves H / H_kv query heads",
    "formula.RMSNorm": "a gain per feature; no shift",
    "formula.ScaledRotary": "angles p·θ'_i are computed from the base and the scaling, not learned",
    # ---- errors ------------------------------------------------------------------------------------------
    "error.glu.variant": "gate={variant!r} is not one of {names}: a gated feed-forward is SwiGLU or GeGLU.",
    "error.rope.scaling": "RoPE scaling {kind!r} is not one of {names}.",
    "error.rope.original_len": "RoPE scaling {kind!r} needs original_max_len, the context length the model was "
    "trained on, as a positive whole number; got {got}.",
    "error.rope.factor": "RoPE scaling {kind!r} needs factor >= 1 (how many times the original context to reach); "
    "got {factor}.",
    "error.gqa.heads": "n_heads={n_heads} is not a multiple of n_kv_heads={n_kv_heads}: every key-value head "
    "serves the same number of query heads. Choose n_kv_heads among {divisors}.",
    "error.window.size": "a sliding window holds at least one key (the query's own); got window={window}.",
    "error.config.heads_style": "mha_style='heads' builds one q, k, v module of width d_model // n_heads per head; "
    "it has no shared key-value heads (n_kv_heads={n_kv_heads}) and no head width of its own (d_head={d_head}). "
    "Use mha_style='packed'.",
    "error.config.window_causal": "sliding_window={sliding_window} limits how far back a query looks, which only a "
    "causal model has: set causal=True or sliding_window=0.",
    "error.config.rope_only": "{field}={value!r} is read by position='rope' only, and this model's position is "
    "{position!r}: set position='rope' or leave {field} out.",
    # ---- Llama, Qwen3, Mistral import and export (models/llama.py) --------------------------------------------
    "error.hf.model_type": "{source}: model_type {found!r} is not one of {known}; glassformer reads these "
    "families of transformers' decoders (GPT-2 has its own import).",
    "error.hf.lacks_numbers": "{source} lacks whole numbers for {missing}: not a config.json of a decoder.",
    "error.hf.unsupported": "{source}: {field}={value!r} makes a model glassformer would compute differently; "
    "it is refused rather than approximated.",
    "error.hf.rope_type": "{source}: RoPE type {found!r} is not one of {known}.",
    "error.hf.cannot_build": "{source} describes no model glassformer can build: {problem}",
    "error.hf.field_out": "this model's {field} is {found!r}; Llama, Qwen3 and Mistral need {want!r}, so "
    "transformers could not compute it.",
    "error.hf.tensors_missing": "{source} lack {names}{more}: not the whole model config.json describes.",
    "error.hf.tensors_unused": "{source} hold tensors glassformer's model has no place for: {names}{more} (more "
    "layers than num_hidden_layers, or biases the config does not announce).",
    "error.hf.tokenizer": "the tokenizers library cannot read this tokenizer.json: {detail}",
    "error.hf.no_tokenizer": "{path} has no tokenizer.json; {fix}",
    "error.hf.vocab_differs": "{path}: vocab_size={vocab_size}, but the tokenizer has {tokens} tokens, more than "
    "the model has rows for.",
    "error.hf.weights_fit": "{path} does not fit {config}: {detail}. {fix}",
    "error.hf.weight": "{source}: {name} is not a finite floating-point tensor ({dtype}); {fix}",
    "error.hf.format_differs": "{path} holds a {found} model, not a {wanted} one: use `glassformer import {found}`.",
    "error.hf.export_tokenizer": "a {family} directory needs the model's tokenizer.json; this run's tokenizer is "
    "{kind!r} (only a run imported from such a directory has one).",
    "train.hf.about": "imported from {source} ({family})",
    "help.import.hf": "a Hugging Face {family} directory (config.json, safetensors, tokenizer.json) into a run",
    "help.export.hf": "a run's GPT as a Hugging Face {family} directory",
    "export.hf.done": "exported {run} -> {out}  (config.json, model.safetensors, tokenizer.json)",
    "export.hf.load_it": "load it:       AutoModelForCausalLM.from_pretrained({out})",
    "position.rope": "RoPE as Llama, Qwen3 and Mistral write it: q and k turned by position, features i and i + D/2 "
    "paired, with a base and a scaling (rope_base, rope_scaling)",
}

ZH = {
    # ---- 词汇表 --------------------------------------------------------------------------------------------
    "stage.rms_norm": "RMSNorm（均方根归一化）",
    "stage.qk_norm": "QK 归一化",
    "means.rms_norm.scale": "每个向量的 √(mean(x²) + ε)：乘增益之前先除以它",
    "means.glu.gate": "门：act(x·W_gate)，每个隐藏单元一个数",
    "means.glu.up": "数值通路：x·W_up，不经激活",
    "means.glu.hidden": "门 ⊙ 数值通路：下投影读入的就是它",
    "means.qk_norm.q": "查询：每个头的 D 个特征做 RMS 归一化，在旋转之前",
    "means.qk_norm.k": "键：同样归一化（所有键值头共用一个增益）",
    "letter.H_kv": "键值头数（n_kv_heads）：每个键值头服务 H / H_kv 个查询头",
    "formula.RMSNorm": "每个特征一个增益；没有偏移",
    "formula.ScaledRotary": "角度 p·θ'_i 由基数和缩放方式算出，不需要学习",
    # ---- 错误 ------------------------------------------------------------------------------------------------
    "error.glu.variant": "gate={variant!r} 不是 {names} 之一：门控前馈网络只有 SwiGLU 和 GeGLU 两种。",
    "error.rope.scaling": "RoPE 缩放方式 {kind!r} 不是 {names} 之一。",
    "error.rope.original_len": "RoPE 缩放方式 {kind!r} 需要 original_max_len（模型训练时的上下文长度），"
    "而且必须是正整数；得到的是 {got}。",
    "error.rope.factor": "RoPE 缩放方式 {kind!r} 需要 factor >= 1（要达到原上下文的几倍）；得到的是 {factor}。",
    "error.gqa.heads": "n_heads={n_heads} 不是 n_kv_heads={n_kv_heads} 的倍数：每个键值头必须服务同样多的查询头。"
    "请从 {divisors} 中选择 n_kv_heads。",
    "error.window.size": "滑动窗口至少要容纳一个键（查询自己）；得到的是 window={window}。",
    "error.config.heads_style": "mha_style='heads' 为每个头各建一个宽 d_model // n_heads 的 q、k、v 模块；"
    "它没有共享的键值头（n_kv_heads={n_kv_heads}），也没有单独的头宽（d_head={d_head}）。请用 mha_style='packed'。",
    "error.config.window_causal": "sliding_window={sliding_window} 限制查询能往回看多远，只有因果模型才有这一说："
    "请设 causal=True 或 sliding_window=0。",
    "error.config.rope_only": "{field}={value!r} 只有 position='rope' 才读取，而这个模型的 position 是 {position!r}："
    "请设 position='rope'，或者不要设置 {field}。",
    # ---- Llama、Qwen3、Mistral 的导入与导出 --------------------------------------------------------------------
    "error.hf.model_type": "{source}：model_type {found!r} 不是 {known} 之一；glassformer 能读取的是这几类 "
    "transformers 解码器（GPT-2 另有自己的导入）。",
    "error.hf.lacks_numbers": "{source} 缺少 {missing} 的整数值：这不是一个解码器的 config.json。",
    "error.hf.unsupported": "{source}：{field}={value!r} 描述的模型 glassformer 会算得不一样；宁可拒绝，也不近似。",
    "error.hf.rope_type": "{source}：RoPE 类型 {found!r} 不是 {known} 之一。",
    "error.hf.cannot_build": "{source} 描述的模型 glassformer 无法构建：{problem}",
    "error.hf.field_out": "这个模型的 {field} 是 {found!r}；Llama、Qwen3 和 Mistral 需要 {want!r}，"
    "所以 transformers 无法计算它。",
    "error.hf.tensors_missing": "{source} 缺少 {names}{more}：不是 config.json 所描述的完整模型。",
    "error.hf.tensors_unused": "{source} 含有 glassformer 的模型放不下的张量：{names}{more}"
    "（层数比 num_hidden_layers 多，或者配置里没写的偏置）。",
    "error.hf.tokenizer": "tokenizers 库读不了这个 tokenizer.json：{detail}",
    "error.hf.no_tokenizer": "{path} 里没有 tokenizer.json；{fix}",
    "error.hf.vocab_differs": "{path}：vocab_size={vocab_size}，但分词器有 {tokens} 个词元，比模型的行数还多。",
    "error.hf.weights_fit": "{path} 与 {config} 对不上：{detail}。{fix}",
    "error.hf.weight": "{source}：{name} 不是有限的浮点张量（{dtype}）；{fix}",
    "error.hf.format_differs": "{path} 里是 {found} 模型，不是 {wanted}：请用 `glassformer import {found}`。",
    "error.hf.export_tokenizer": "{family} 目录需要模型自己的 tokenizer.json；这个运行的分词器是 {kind!r}"
    "（只有从这种目录导入的运行才有）。",
    "train.hf.about": "导入自 {source}（{family}）",
    "help.import.hf": "把 Hugging Face 的 {family} 目录（config.json、safetensors、tokenizer.json）读成一个运行",
    "help.export.hf": "把一个运行的 GPT 写成 Hugging Face 的 {family} 目录",
    "export.hf.done": "已导出 {run} -> {out}（config.json、model.safetensors、tokenizer.json）",
    "export.hf.load_it": "加载它：       AutoModelForCausalLM.from_pretrained({out})",
    "position.rope": "Llama、Qwen3、Mistral 写法的 RoPE：按位置旋转 q 和 k，第 i 与第 i + D/2 个特征配对，"
    "带基数和缩放方式（rope_base、rope_scaling）",
}

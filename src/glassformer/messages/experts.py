"""The words of the sparse pieces (nn/moe.py, mixture of experts; nn/mla.py, multi-head latent
attention): their glossary entries (stages, what each tensor is, letters, parameter notes) and the
typed errors they raise. Kept in one file while the pieces stand alone, as messages/modern.py is;
when a model is built from them, the glossary entries join glossary.py and the errors model.py.

稀疏部件（混合专家 nn/moe.py、多头潜在注意力 nn/mla.py）的文字：词汇表条目和它们抛出的类型化错误；中文在 ZH。"""

EN = {
    # ---- glossary: stages ----------------------------------------------------------------------------------
    "stage.router": "router",
    "stage.moe": "experts",
    "stage.mla": "latent attention (MLA)",
    # ---- glossary: what each tensor is -----------------------------------------------------------------------
    "means.router.logits": "router logits x·W_rᵀ: one score per expert, before the rule",
    "means.router.softmax": "softmax of the logits over the experts: each token's scores sum to 1",
    "means.router.sigmoid": "sigmoid of each logit alone (DeepSeek-V3): a token's scores need not sum to 1",
    "means.router.experts": "the K experts each token goes to, best first",
    "means.router.weights": "each chosen expert's weight in the token's output",
    "means.moe.expert": "expert {e}'s weighted output: zero for the tokens not routed to it",
    "means.moe.routed": "the routed experts' outputs summed",
    "means.moe.out": "routed experts plus shared ones: what the layer adds to the stream",
    "means.mla.q_latent": "the query latent c_q = RMSNorm(x·W_DQ), one R_q-vector per token",
    "means.mla.kv_latent": "the key-value latent c_kv = RMSNorm(x·W_DKV): what the cache keeps of keys and values",
    "means.mla.q": "queries per head: [q_nope ; RoPE(q_rope)]",
    "means.mla.k": "keys per head: [c_kv·W_UK ; RoPE(k_rope)], the rotary part the same in every head",
    "means.mla.v": "values per head: c_kv·W_UV",
    "means.mla.scores": "q·kᵀ × softmax scale (1/√(D_n + D_r), × YaRN's mscale²), masked cells = -inf",
    # ---- letters of the shapes -----------------------------------------------------------------------------
    "letter.E": "routed experts (n_experts)",
    "letter.K": "experts chosen per token (top_k)",
    "letter.N_e": "tokens routed to one expert",
    "letter.R_q": "query latent width (q_lora_rank)",
    "letter.R_kv": "key-value latent width (kv_lora_rank): with D_r, what the cache holds per token",
    "letter.D_n": "query/key features per head without position (qk_nope_head_dim)",
    "letter.D_r": "rotary features per head (qk_rope_head_dim)",
    "letter.D_v": "value features per head (v_head_dim)",
    # ---- parameter notes -----------------------------------------------------------------------------------
    "formula.Router": "one row of W_r per expert",
    "formula.experts": "E experts, each its own gate, up and down",
    # ---- errors --------------------------------------------------------------------------------------------
    "error.moe.rule": "routing rule {rule!r} is not one of {names}: softmax (Mixtral, Qwen3-MoE) or sigmoid "
    "(DeepSeek-V3).",
    "error.moe.experts": "a mixture of experts needs at least one routed expert; got n_experts={n_experts}.",
    "error.moe.top_k": "top_k={top_k} experts per token, but there are {n_experts} experts: choose top_k from "
    "1 to {n_experts}.",
    "error.moe.groups": "n_experts={n_experts} does not split into n_group={n_group} equal groups: choose n_group "
    "among {divisors}.",
    "error.moe.topk_group": "topk_group={topk_group} groups kept, but there are {n_group} groups: choose topk_group "
    "from 1 to {n_group}.",
    "error.moe.too_few_in_groups": "top_k={top_k} experts per token, but the {topk_group} kept groups hold only "
    "{reachable} experts: raise topk_group or lower top_k.",
    "error.config.moe_only": "{field}={value!r} is read by ffn='moe' only, and this model's ffn is {ffn!r}: "
    "set ffn='moe' or leave {field} out.",
    "error.config.mla_only": "{field}={value!r} is read by multi-head latent attention only, which mla_kv_rank > 0 "
    "chooses: set mla_kv_rank or leave {field} out.",
    "error.config.mla_rope": "multi-head latent attention rotates its own rotary part (RoPE), so it needs "
    "position='rope'; this model's position is {position!r}.",
    "error.config.mla_excludes": "multi-head latent attention makes its keys from the latent and has no {field}: "
    "set {field}={want!r} (it is {value!r}), or mla_kv_rank=0.",
    "error.mla.rank": "{name}={rank} is wider than the model (d_model={d_model}): a latent compresses, so its "
    "rank must be from 1 to {d_model}.",
    "error.mla.size": "{name}={value} must be a positive whole number.",
    "error.cache_size.attention": "attention {kind!r} is not one of {names}.",
    "error.cache_size.missing": "the cache size of {kind!r} attention needs {names}; {missing} not given.",
}

ZH = {
    # ---- 词汇表：阶段 ----------------------------------------------------------------------------------------
    "stage.router": "路由器",
    "stage.moe": "专家",
    "stage.mla": "多头潜在注意力（MLA）",
    # ---- 词汇表：张量含义 ------------------------------------------------------------------------------------
    "means.router.logits": "路由 logits x·W_rᵀ：每个专家一个分数，尚未经过路由规则",
    "means.router.softmax": "对所有专家的 logits 做 softmax：每个词元的分数之和为 1",
    "means.router.sigmoid": "对每个 logit 单独取 sigmoid（DeepSeek-V3）：每个词元的分数之和不必为 1",
    "means.router.experts": "每个词元被送往的 K 个专家，分数高的在前",
    "means.router.weights": "每个被选中的专家在该词元输出中的权重",
    "means.moe.expert": "专家 {e} 加权后的输出：没有路由到它的词元为零",
    "means.moe.routed": "各路由专家输出之和",
    "means.moe.out": "路由专家加共享专家：这一层加到残差流上的量",
    "means.mla.q_latent": "查询潜向量 c_q = RMSNorm(x·W_DQ)，每个词元一个 R_q 维向量",
    "means.mla.kv_latent": "键值潜向量 c_kv = RMSNorm(x·W_DKV)：缓存里保存的键和值就是它",
    "means.mla.q": "每个头的查询：[q_nope ; RoPE(q_rope)]",
    "means.mla.k": "每个头的键：[c_kv·W_UK ; RoPE(k_rope)]，旋转部分各头相同",
    "means.mla.v": "每个头的值：c_kv·W_UV",
    "means.mla.scores": "q·kᵀ × softmax 缩放（1/√(D_n + D_r)，再乘 YaRN 的 mscale²），被遮住的格子 = -inf",
    # ---- 形状字母 --------------------------------------------------------------------------------------------
    "letter.E": "路由专家数（n_experts）",
    "letter.K": "每个词元选中的专家数（top_k）",
    "letter.N_e": "路由到某个专家的词元数",
    "letter.R_q": "查询潜向量宽度（q_lora_rank）",
    "letter.R_kv": "键值潜向量宽度（kv_lora_rank）：和 D_r 一起就是缓存为每个词元保存的量",
    "letter.D_n": "每个头不带位置的查询/键特征数（qk_nope_head_dim）",
    "letter.D_r": "每个头的旋转特征数（qk_rope_head_dim）",
    "letter.D_v": "每个头的值特征数（v_head_dim）",
    # ---- 参数注释 --------------------------------------------------------------------------------------------
    "formula.Router": "每个专家一行 W_r",
    "formula.experts": "E 个专家，各有自己的 gate、up 和 down",
    # ---- 错误 ------------------------------------------------------------------------------------------------
    "error.moe.rule": "路由规则 {rule!r} 不是 {names} 之一：softmax（Mixtral、Qwen3-MoE）或 sigmoid（DeepSeek-V3）。",
    "error.moe.experts": "混合专家至少需要一个路由专家；得到的是 n_experts={n_experts}。",
    "error.moe.top_k": "每个词元选 top_k={top_k} 个专家，但只有 {n_experts} 个专家："
    "top_k 请在 1 到 {n_experts} 之间选择。",
    "error.moe.groups": "n_experts={n_experts} 不能平均分成 n_group={n_group} 组：请从 {divisors} 中选择 n_group。",
    "error.moe.topk_group": "保留 topk_group={topk_group} 组，但只有 {n_group} 组："
    "topk_group 请在 1 到 {n_group} 之间选择。",
    "error.moe.too_few_in_groups": "每个词元选 top_k={top_k} 个专家，"
    "但保留的 {topk_group} 组里只有 {reachable} 个专家：请增大 topk_group 或减小 top_k。",
    "error.config.moe_only": "{field}={value!r} 只有 ffn='moe' 才读取，而这个模型的 ffn 是 {ffn!r}："
    "请设 ffn='moe'，或者不要给 {field}。",
    "error.config.mla_only": "{field}={value!r} 只有多头潜在注意力才读取（mla_kv_rank > 0 时选用）："
    "请设置 mla_kv_rank，或者不要给 {field}。",
    "error.config.mla_rope": "多头潜在注意力自己旋转它的旋转部分（RoPE），所以需要 position='rope'；"
    "这个模型的 position 是 {position!r}。",
    "error.config.mla_excludes": "多头潜在注意力的键由潜向量生成，没有 {field} 这一项："
    "请设 {field}={want!r}（现在是 {value!r}），或者设 mla_kv_rank=0。",
    "error.mla.rank": "{name}={rank} 比模型宽度（d_model={d_model}）还大："
    "潜向量是用来压缩的，秩必须在 1 到 {d_model} 之间。",
    "error.mla.size": "{name}={value} 必须是正整数。",
    "error.cache_size.attention": "注意力类型 {kind!r} 不是 {names} 之一。",
    "error.cache_size.missing": "计算 {kind!r} 注意力的缓存大小需要 {names}；缺少 {missing}。",
}

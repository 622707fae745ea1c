"""The words of the model code (glassformer/nn, glassformer/models): the typed errors its parts raise,
keyed by where they come from. The sentences are here, EN in English and ZH in Chinese (the same keys,
the same {fields}); the raise sites carry a key and fields.

模型代码（glassformer/nn、glassformer/models）的文字：各部件抛出的类型化错误，按来源分键；中文在 ZH。"""

EN = {
    "error.mask.dtype": "attention mask must be boolean (True = may attend), got dtype {dtype}. Convert a 0/1 "
    "mask with mask.bool(); an additive float mask with (mask == 0).",
    "error.mask.shape": "attention mask of shape {mask} cannot broadcast to the scores' shape {scores} (B, H, "
    "T_q, T_k). Give it one of the shapes (T_q, T_k), (B, T_q, T_k), (B, 1, T_q, T_k), (B, H, T_q, T_k) or (B, 1, 1, "
    "T_k), with T_q and T_k equal to the query and key lengths.",
    "error.mask.padding_ids": "padding_mask expects token ids of shape (B, T), got {shape}.",
    "error.mask.combine": "cannot combine masks of shapes {a} and {b}: they do not broadcast. Give each mask the "
    "layout (B or 1, H or 1, T_q or 1, T_k).",
    "error.init.scheme": "init={scheme!r} is not one of {names}.",
    "error.formula.syntax": "parameter formula {formula!r} is not algebra glassformer can read.",
    "error.formula.letter": "parameter formula {formula!r} uses {letter!r}, but its module gives only {letters}.",
    "error.formula.operator": "parameter formula {formula!r} may only use whole numbers, letters, +, -, · and "
    "parentheses.",
    "error.ffn.activation": "activation={activation!r} is not one of {names}.",
    "error.hook.shape": "hook on {name!r} returned shape {got}, expected {want}: a hook may change values, not shapes.",
    "hook.did_you_mean": " (did you mean {near!r}?)",
    "error.hook.unknown": "unknown hook point(s) {hints}; model.hook_names() lists them all.",
    "error.rotary.odd_head": "position='rotary' turns pairs of features, so d_head must be even; got "
    "d_head={d_head}. Choose d_model and n_heads so that d_model // n_heads is even.",
    "error.ids.type": "token ids must be a torch.Tensor of integers, got {type}; wrap them with "
    "torch.tensor(ids, dtype=torch.long).",
    "error.ids.dtype": "token ids must be integers (torch.long), got dtype {dtype}; convert with ids.long() — "
    "or, for numbers, use SequenceRegressor.",
    "error.ids.shape": "token ids must have shape (B, T), got {shape}; add a batch axis with ids.unsqueeze(0).",
    "model.ids_outside_on_device": "token ids outside the vocabulary [0, {vocab_size}): encode with the model's "
    "tokenizer",
    "error.ids.outside": "token ids {bad} are outside the vocabulary [0, {vocab_size}): encode with the model's "
    "own tokenizer, or build the model with a larger vocab_size.",
    "error.loss.shapes": "logits {logits} and targets {targets} disagree: targets must be (B, T) for logits (B, T, V).",
    "error.loss.smoothing": "label smoothing must be in [0, 1), got {smoothing}.",
    "error.loss.mse_shapes": "predictions {pred} and targets {target} disagree: a regressor's targets have the "
    "shape of its output (B, T, d_out).",
    "error.kv_cache.full": "KV cache is full: {cached} cached + {new} new > max_len {max_len}. Reset it and "
    "prefill the last max_len tokens.",
    "error.seq2seq.pad_id": "seq2seq needs pad_id: sentences of different lengths are padded, and both sides "
    "mask the padding. Set pad_id to the tokenizer's <PAD> id (--pad_id=0).",
    "error.seq2seq.cache_not_causal": "this decoder has no causal mask (causal=False): each new token changes "
    "the earlier positions too, so their cached keys would be stale. Decode with use_cache=False.",
    "error.seq2seq.inputs": "seq2seq reads (src (B, S), tgt_in (B, T)) id tensors with the same B; got {src} and "
    "{tgt}. Call model(src, tgt_in).",
    "error.model.regressor_input": "SequenceRegressor expects floats of shape (B, T, {d_in}), got {shape} "
    "{dtype}; use x.unsqueeze(-1).float() for (B, T) numbers.",
    "error.model.encoder_cache": "Encoder does not support a KV cache (its keys may see the future).",
    "error.model.gpt_not_causal": "GPT is decoder-only and needs causal=True; use Encoder (kind='encoder', "
    "--kind=encoder) for bidirectional attention.",
    "error.model.too_big": "this model needs about {need:.3g} GiB of memory ({params:,} parameters, "
    "{buffers:.3g} GiB of tables such as position encodings), more than this machine's {memory:.3g} GiB. "
    "Make it smaller (--d_model, --n_layers, --d_ff, --max_len, --vocab_size).",
    "error.model.too_big_train": "training this model needs about {need:.3g} GiB of memory ({params:,} parameters, "
    "their gradients and AdamW moments, one step's activations, {buffers:.3g} GiB of tables), more than this "
    "machine's {memory:.3g} GiB. Make it smaller (--d_model, --n_layers, --d_ff, --max_len, --vocab_size) or the "
    "batch (--batch_size, --seq_len).",
}


ZH = {
    "error.mask.dtype": "注意力掩码必须是布尔型（True = 可以关注），得到的 dtype 是 {dtype}。0/1 掩码用 mask.bool"
    "() 转换；加性浮点掩码用 (mask == 0)。",
    "error.mask.shape": "形状为 {mask} 的注意力掩码无法广播到分数的形状 {scores} (B, H, T_q, T_k)。请给它以下形状"
    "之一：(T_q, T_k)、(B, T_q, T_k)、(B, 1, T_q, T_k)、(B, H, T_q, T_k) 或 (B, 1, 1, T_k)，其中 T_q 和 T_k 等于查询"
    "和键的长度。",
    "error.mask.padding_ids": "padding_mask 需要形状为 (B, T) 的词元 id，得到的是 {shape}。",
    "error.mask.combine": "无法合并形状为 {a} 和 {b} 的掩码：它们不能互相广播。请让每个掩码的布局为 (B 或 1, H 或"
    " 1, T_q 或 1, T_k)。",
    "error.init.scheme": "init={scheme!r} 不是 {names} 之一。",
    "error.formula.syntax": "参数公式 {formula!r} 不是 glassformer 能读懂的代数式。",
    "error.formula.letter": "参数公式 {formula!r} 用到了 {letter!r}，但它的模块只给出 {letters}。",
    "error.formula.operator": "参数公式 {formula!r} 只能使用整数、字母、+、-、· 和括号。",
    "error.ffn.activation": "activation={activation!r} 不是 {names} 之一。",
    "error.hook.shape": "挂在 {name!r} 上的钩子返回了形状 {got}，应为 {want}：钩子可以改值，不能改形状。",
    "hook.did_you_mean": "（你是想写 {near!r} 吗？）",
    "error.hook.unknown": "未知的钩子点 {hints}；model.hook_names() 列出了全部。",
    "error.rotary.odd_head": "position='rotary' 成对旋转特征，所以 d_head 必须是偶数；得到的是 d_head={d_head}。"
    "请选择 d_model 和 n_heads，使 d_model // n_heads 为偶数。",
    "error.ids.type": "词元 id 必须是整数的 torch.Tensor，得到的是 {type}；请用 torch.tensor(ids, dtype=torch.lon"
    "g) 包起来。",
    "error.ids.dtype": "词元 id 必须是整数（torch.long），得到的 dtype 是 {dtype}；请用 ids.long() 转换——如果是数"
    "值，请用 SequenceRegressor。",
    "error.ids.shape": "词元 id 的形状必须是 (B, T)，得到的是 {shape}；请用 ids.unsqueeze(0) 加上批次轴。",
    "model.ids_outside_on_device": "词元 id 超出词表 [0, {vocab_size})：请用模型自己的分词器编码",
    "error.ids.outside": "词元 id {bad} 超出词表 [0, {vocab_size})：请用模型自己的分词器编码，或用更大的 vocab_si"
    "ze 构建模型。",
    "error.loss.shapes": "logits {logits} 与目标 {targets} 不一致：对 logits (B, T, V)，目标必须是 (B, T)。",
    "error.loss.smoothing": "标签平滑必须在 [0, 1) 内，得到的是 {smoothing}。",
    "error.loss.mse_shapes": "预测 {pred} 与目标 {target} 不一致：回归模型的目标与其输出同形 (B, T, d_out)。",
    "error.kv_cache.full": "KV 缓存已满：已缓存 {cached} + 新增 {new} > max_len {max_len}。请重置它，并预填最后 m"
    "ax_len 个词元。",
    "error.seq2seq.pad_id": "seq2seq 需要 pad_id：长短不同的句子会被填充，两侧都会遮住填充。请把 pad_id 设为分词"
    "器的 <PAD> id（--pad_id=0）。",
    "error.seq2seq.cache_not_causal": "这个解码器没有因果掩码（causal=False）：每个新词元也会改变前面的位置，缓存"
    "的键会过时。请用 use_cache=False 解码。",
    "error.seq2seq.inputs": "seq2seq 读取批大小 B 相同的 (src (B, S), tgt_in (B, T)) id 张量；得到的是 {src} 和 "
    "{tgt}。请调用 model(src, tgt_in)。",
    "error.model.regressor_input": "SequenceRegressor 需要形状为 (B, T, {d_in}) 的浮点数，得到的是 {shape} "
    "{dtype}；(B, T) 的数值请用 x.unsqueeze(-1).float()。",
    "error.model.encoder_cache": "Encoder 不支持 KV 缓存（它的键可能看到未来）。",
    "error.model.gpt_not_causal": "GPT 只有解码器，需要 causal=True；双向注意力请用 Encoder（kind='encoder'，--ki"
    "nd=encoder）。",
    "error.model.too_big": "这个模型大约需要 {need:.3g} GiB 内存（{params:,} 个参数，另有 {buffers:.3g} GiB 的表，"
    "如位置编码），超过了这台机器的 {memory:.3g} GiB。"
    "请把它改小（--d_model、--n_layers、--d_ff、--max_len、--vocab_size）。",
    "error.model.too_big_train": "训练这个模型大约需要 {need:.3g} GiB 内存（{params:,} 个参数、它们的梯度和 AdamW 矩、"
    "一步的激活值，以及 {buffers:.3g} GiB 的表），超过了这台机器的 {memory:.3g} GiB。请把模型改小（--d_model、"
    "--n_layers、--d_ff、--max_len、--vocab_size）或把批改小（--batch_size、--seq_len）。",
}

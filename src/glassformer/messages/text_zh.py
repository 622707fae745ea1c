"""text_en.py 的中文：文本阶段（text/）、查看工具（inspect/）和包入口的类型化错误。"""

TEXT = {
    # ---- 分词器（text/tokenizers.py）------------------------------------------------------------------------
    "error.tokenizer.id_range": "有 id 超出 vocab_size={vocab_size} 的范围：{ids}。",
    "error.tokenizer.no_chars": "字符词表至少需要一个字符。",
    "error.tokenizer.chars": "chars 必须是互不相同的单个字符。",
    "error.tokenizer.words_str": "请传入一个词的列表，或者用 WordTokenizer.from_text(text)。",
    "error.tokenizer.word": "词必须非空且不含空白字符，收到的是 {word!r}。",
    "error.tokenizer.pad": "序列有 {n} 个 id，比 length={length} 还长；请先截断。",
    "error.tokenizer.specials": "特殊词元 {found} 与 {want} 不同。",
    "error.tokenizer.word_twice": "词 {word!r} 出现了两次（或与特殊词元相同）；保存的词表每个词只列一次，"
    "否则之后的每个 id 都会错位。",
    "error.tokenizer.field": "它的字段 {field} 是 {found} {shown}，而不是{want}。",
    "error.tokenizer.field_missing": "它缺少字段 {field}（{want}）。",
    "tokenizer.want.object": "一个对象",
    "tokenizer.want.id": "一个整数 id",
    "tokenizer.want.merge": '一条合并（"a b" 或 ["a", "b"]）',
    "tokenizer.want.token": '一个词元（字符串，或带 "content" 字符串的对象）',
    "tokenizer.want.tokens": "一个词元列表（或对象）",
    "tokenizer.want.bool": " true 或 false",
    "tokenizer.want.str": "一个字符串",
    "tokenizer.want.strs": "一个字符串列表",
    "tokenizer.want.strs.item": "一个字符串",
    "tokenizer.want.id_pairs": "一个 [id, id] 对的列表",
    "tokenizer.want.id_pairs.item": "一对整数 id [左, 右]",
    # ---- 字节级 BPE（text/bpe.py）----------------------------------------------------------------------------
    "error.bpe.vocab_small": "vocab_size={vocab_size} 小于 {n_bytes}：字节级 BPE 从全部 {n_bytes} 个字节值起步；"
    "请设为 {n_bytes} 或更大（例如 {example}）。",
    "error.bpe.merge_order": "第 {i} 条合并 ({a}, {b}) 用到了一个还不存在的 id（目前的 id：0..{last}）；"
    "合并必须按学到的顺序排列。",
    "error.bpe.same_bytes": "有两条合并得到相同的字节；BPE 词表里每个词元只能有一个 id。",
    "error.bpe.too_big": "这些合并造出的词元共 {size:,} 字节，超过一个分词器可容纳的 {limit:,} 字节"
    "（没有文本会合并到这种程度）：合并表已损坏。",
    "error.bpe.pattern": "这个 BPE 分词器保存时用的是另一种预切分模式；请用这个版本的 glassformer 重新准备数据。",
    # ---- GPT-2 的词表（text/gpt2_bpe.py）---------------------------------------------------------------------
    "error.gpt2.pretokenizer": "预切分器 {found!r} 不是 GPT-2 的。",
    "error.gpt2.token_twice": "词元 {token!r} 有两个 id；每个词元只能有一个 id。",
    "error.gpt2.bytes_missing": "词表缺少 {n_bytes} 个字节词元中的 {n} 个（第一个：{first}），有些文本因此无法编码；"
    "字节级词表应当包含全部字节词元。",
    "error.gpt2.specials_absent": "特殊词元 {tokens} 不在词表里。",
    "error.gpt2.special_text": "特殊词元 {token!r} 不是 UTF-8 能表示的文本（含有孤立的代理码位）。",
    "error.gpt2.not_byte_alphabet": "词元 {token!r} 不是用 GPT-2 的字节字母表拼写的（也不是特殊词元）。",
    "error.gpt2.merge_twice": "第 {rank} 条合并 {merge!r} 出现了两次。",
    "error.gpt2.merge_bad": "第 {rank} 条合并 {merge!r} 不是两个词元、且二者拼接后也是词元的一对。",
    "gpt2.added_tokens": "注意：{path} 把 {tokens} 列为特殊词元，而词表里没有它们：transformers 把它们接在词表之后，"
    "用接下来的 id（{first}..{last}），这次导入也一样。",
    # ---- 中文数字（text/chinese.py）--------------------------------------------------------------------------
    "error.zh_number.range": "to_chinese 只接受 0 ≤ n < {limit:,} 的整数，收到的是 {n!r}。",
    "error.zh_number.char": "{text!r} 不是中文数字：{ch!r} 既不是数字（{digits}）也不是单位（{units}）。",
    "error.zh_number.form": "{text!r} 不是按标准写法写的数。",
    "error.zh_number.form_as": "{text!r} 不是按标准写法写的数（标准写法是 {standard!r}）。",
    # ---- 查看工具（inspect/）--------------------------------------------------------------------------------
    "error.inspect.maps_shape": "这个模型各层的注意力图形状不同（{shapes}）：无法叠在一起；"
    "请用 attention_map_list(model, x)。",
    "error.inspect.view_shape": "这个模型各层的注意力图形状不同（编码器–解码器）：请读 view.maps[i].weights，"
    "每个的形状是 (H, T_q, T_k)。",
    "error.inspect.labels_side": "labels 里没有轴 {axis!r} 对应的 {side!r} 项：请给出 "
    "{{'S': 源序列标签, 'T': 目标序列标签}}。",
    "error.inspect.labels_count": "{tokens} 个词元配了 {n} 个标签：每个词元一个标签（或用 labels=None 显示位置）。",
    "error.inspect.head_range": "layer={layer}、head={head} 超出了这个模型：层 0..{last_layer}，头 0..{last_head}。",
    "error.inspect.labels_batch": "token_labels 只接受一条序列，形状 (T,) 或 (1, T)；收到的是 {n} 条的一批："
    "请传入要标注的那一条 ids[i]。",
    # ---- 包入口（inspect/__init__.py）-----------------------------------------------------------------------
    "error.module.no_attribute": "模块 {module!r} 没有属性 {name!r}",
}

"""The typed errors of the text stage (text/), the views (inspect/) and the package faces: what a
library caller gets wrong — a tokenizer's tables, ids out of range, a layer or head the model does
not have — each a key with its fields, EN in English and ZH in Chinese. The rest of the text stage's
words (sources, the tokenizer choice, GPT-2 directories) are in core.py.

ZH 是 EN 的中文：文本阶段（text/）、查看工具（inspect/）和包入口的类型化错误。"""

EN = {
    # ---- tokenizers (text/tokenizers.py) ------------------------------------------------------------------------
    "error.tokenizer.id_range": "ids out of range for vocab_size={vocab_size}: {ids}.",
    "error.tokenizer.no_chars": "a character vocabulary needs at least one character.",
    "error.tokenizer.chars": "chars must be distinct single characters.",
    "error.tokenizer.words_str": "pass a list of words, or use WordTokenizer.from_text(text).",
    "error.tokenizer.word": "a word must be non-empty and contain no whitespace, got {word!r}.",
    "error.tokenizer.pad": "sequence has {n} ids, longer than length={length}; truncate it first.",
    "error.tokenizer.specials": "special tokens {found} differ from {want}.",
    "error.tokenizer.word_twice": "the word {word!r} is listed twice (or is a special token); a saved vocabulary "
    "lists each word once, so every later id would shift.",
    "error.tokenizer.field": "its field {field} holds {found} {shown}, not {want}.",
    "error.tokenizer.field_missing": "it lacks the field {field} ({want}).",
    "tokenizer.want.object": "an object",
    "tokenizer.want.id": "a whole-number id",
    "tokenizer.want.merge": 'a merge ("a b" or ["a", "b"])',
    "tokenizer.want.token": 'a token (a string, or an object with a "content" string)',
    "tokenizer.want.tokens": "a list (or an object) of tokens",
    "tokenizer.want.bool": "true or false",
    "tokenizer.want.str": "a string",
    "tokenizer.want.strs": "a list of strings",
    "tokenizer.want.strs.item": "a string",
    "tokenizer.want.id_pairs": "a list of [id, id] pairs",
    "tokenizer.want.id_pairs.item": "a pair of whole-number ids [left, right]",
    # ---- byte-level BPE (text/bpe.py) ---------------------------------------------------------------------------
    "error.bpe.vocab_small": "vocab_size={vocab_size} is below {n_bytes}: byte-level BPE starts from all {n_bytes} "
    "byte values; ask for {n_bytes} or more (e.g. {example}).",
    "error.bpe.merge_order": "merge {i} = ({a}, {b}) uses an id that does not exist yet (ids so far: 0..{last}); "
    "merges must be in learned order.",
    "error.bpe.same_bytes": "two merges make the same bytes; a BPE vocabulary needs one id per token.",
    "error.bpe.too_big": "the merges make tokens of {size:,} bytes in all, more than the {limit:,} a tokenizer may "
    "hold (no text merges that far): the merges are damaged.",
    "error.bpe.pattern": "this BPE tokenizer was saved with a different pre-tokenization pattern; re-prepare the "
    "data with this version of glassformer.",
    # ---- GPT-2's tables (text/gpt2_bpe.py) ----------------------------------------------------------------------
    "error.gpt2.pretokenizer": "pretokenizer {found!r} is not GPT-2's.",
    "error.gpt2.token_twice": "token {token!r} has two ids; every token needs exactly one.",
    "error.gpt2.bytes_missing": "the vocabulary lacks {n} of the {n_bytes} byte tokens (first: {first}), so some "
    "text could not be encoded; a byte-level vocabulary holds them all.",
    "error.gpt2.specials_absent": "special tokens {tokens} are not in the vocabulary.",
    "error.gpt2.special_text": "special token {token!r} is not text UTF-8 can hold (it has a lone surrogate).",
    "error.gpt2.not_byte_alphabet": "token {token!r} is not spelled in GPT-2's byte alphabet (nor a special token).",
    "error.gpt2.merge_twice": "merge {rank} {merge!r} is listed twice.",
    "error.gpt2.merge_bad": "merge {rank} {merge!r} is not a pair of tokens whose join is a token.",
    "gpt2.added_tokens": "note: {path} names {tokens} as special, and the vocabulary lacks them: transformers "
    "adds them after it with the next ids ({first}..{last}), and so does this import.",
    # ---- Chinese number words (text/chinese.py) ---------------------------------------------------------------
    "error.zh_number.range": "to_chinese takes a whole number 0 ≤ n < {limit:,}, got {n!r}.",
    "error.zh_number.char": "{text!r} is not Chinese number words: {ch!r} is neither a digit ({digits}) nor a unit "
    "({units}).",
    "error.zh_number.form": "{text!r} is not a number written the standard way.",
    "error.zh_number.form_as": "{text!r} is not a number written the standard way (that would be {standard!r}).",
    # ---- the views (inspect/) -----------------------------------------------------------------------------------
    "error.inspect.maps_shape": "this model's attention maps differ in shape ({shapes}): they cannot be stacked; "
    "use attention_map_list(model, x).",
    "error.inspect.view_shape": "this model's attention maps differ in shape (an encoder-decoder): read "
    "view.maps[i].weights, each (H, T_q, T_k).",
    "error.inspect.labels_side": "labels has no {side!r} entry for the axis {axis!r}: give "
    "{{'S': source labels, 'T': target labels}}.",
    "error.inspect.labels_count": "{n} labels for {tokens} tokens: give one label per token (or labels=None for "
    "positions).",
    "error.inspect.head_range": "layer={layer}, head={head} is outside this model: layers 0..{last_layer}, heads "
    "0..{last_head}.",
    "error.inspect.labels_batch": "token_labels takes one sequence, (T,) or (1, T); got a batch of {n}: pass ids[i] "
    "for the sequence you want labelled.",
    "error.inspect.tuple_for_one": "a tuple of {n} is an encoder-decoder's input, (src, tgt_in); this model reads "
    "{inputs}: give them as one tensor, not in a tuple.",
    "error.inspect.pair_size": "an encoder-decoder reads two id tensors, (src, tgt_in); got a tuple of {n}.",
    # ---- a package's face (inspect/__init__.py) --------------------------------------------------------------
    "error.module.no_attribute": "module {module!r} has no attribute {name!r}",
}


ZH = {
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
    "error.inspect.tuple_for_one": "{n} 个元素的元组是编码器–解码器的输入 (src, tgt_in)；这个模型读的是 {inputs}："
    "请直接给一个张量，不要放进元组。",
    "error.inspect.pair_size": "编码器–解码器读两个 id 张量 (src, tgt_in)；收到的元组有 {n} 个元素。",
    # ---- 包入口（inspect/__init__.py）-----------------------------------------------------------------------
    "error.module.no_attribute": "模块 {module!r} 没有属性 {name!r}",
}

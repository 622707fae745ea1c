"""sampling_en.py 的中文：同样的键，同样的 {fields}。"""

TEXT = {
    # ---- 采样（sample.py）--------------------------------------------------------------------------------------
    "error.sample.no_cache": "{model} 没有 KV 缓存；请用 use_cache=False 采样。",
    "error.sample.max_new_tokens": "max_new_tokens 必须是 >= 0 的整数，收到的是 {value!r}",
    "error.sample.num_samples": "num_samples 必须是 >= 1 的整数，收到的是 {value!r}",
    "error.sample.temperature": "temperature 必须是 >= 0 的有限数（0 表示贪心），收到的是 {value}",
    "error.sample.top_k": "top_k 必须是 >= 1 的整数，收到的是 {value!r}",
    "error.sample.top_p": "top_p 必须在 (0, 1] 之内，收到的是 {value}",
    "error.sample.empty_prompt": "提示词是空的：至少给模型一个词元让它续写",
    "error.sample.stop_unseen": "停止字符串 {stop!r} 永远不会出现在这个模型写出的文本里：{chars} 无法用它的词表写出，"
    "采样永远不会在那里停下。请用模型能写出的内容作停止字符串。",
    "sample.window_slides": "position={name}：一张 max_len={max_len} 个位置的表；超出之后模型只看最后 {max_len} 个词元"
    "（窗口滑动）。",
    "sample.cache_grows": "position={name}：没有位置表；超过 max_len={max_len} 之后模型仍读入每个词元，距离是它训练时"
    "没见过的（KV 缓存不断变大）。",
    # ---- 贪心搜索与束搜索（translate.py） -------------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens 必须在 {low} … {high} 之内（模型的 max_len），收到的是 {value}。",
    "error.translate.beam_width": "beam_width 必须在 {low} … {high} 之内（词表大小减去 <PAD> 和 <BOS>），"
    "收到的是 {value}。",
    "error.translate.length_penalty": "长度惩罚 α 必须 >= {low}，收到的是 {value}。",
}

"""sampling_en.py 的中文：同样的键，同样的 {fields}。"""

TEXT = {
    # ---- 贪心搜索与束搜索（translate.py） -------------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens 必须在 {low} … {high} 之内（模型的 max_len），收到的是 {value}。",
    "error.translate.beam_width": "beam_width 必须在 {low} … {high} 之内（词表大小减去 <PAD> 和 <BOS>），"
    "收到的是 {value}。",
    "error.translate.length_penalty": "长度惩罚 α 必须 >= {low}，收到的是 {value}。",
}

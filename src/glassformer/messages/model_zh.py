"""模型代码（glassformer/nn、glassformer/models）的文字：各部件抛出的类型化错误，按来源分键。"""

TEXT = {
    "error.model.regressor_input": "SequenceRegressor 需要形状为 (B, T, {d_in}) 的浮点数，得到的是 {shape} {dtype}；"
    "(B, T) 的数值请用 x.unsqueeze(-1).float()。",
    "error.model.encoder_cache": "Encoder 不支持 KV 缓存（它的键可能看到未来）。",
    "error.model.gpt_not_causal": "GPT 只有解码器，需要 causal=True；双向注意力请用 Encoder（kind='encoder'，"
    "--kind=encoder）。",
}

"""What the encoder-decoder says about itself, whole: the model-level hook points and parameter
formulas of two arrangements (separate tables with final norms; one shared, tied matrix without
norms) in English and Chinese, its kind's fields, example_input, each mask it builds, its cache
and its refusals by code and fields. test_seq2seq_model.py checks the numbers these describe."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import torch
from helpers import declarations
from helpers import formulas as derived

from glassformer.config import ModelConfig
from glassformer.models import EncoderDecoder

pytestmark = pytest.mark.usefixtures("one_thread")

BASE = ModelConfig(kind="seq2seq", vocab_size=17, d_model=12, n_heads=3, d_ff=20, n_layers=1, max_len=9, pad_id=0)
ONE_MATRIX = replace(BASE, norm="none", share_embeddings=True, tie_weights=True, position="sinusoidal")

SHARED_POINTS = [  # (name, stage, stage in Chinese, axes, meaning, meaning in Chinese)
    (
        "src_resid_pre",
        "+ position",
        "+ 位置",
        "B S C",
        "embedding + position: the source enters encoder block 0",
        "嵌入 + 位置：源序列进入编码器第 0 块",
    ),
    (
        "tgt_embed",
        "embedding",
        "嵌入",
        "B T C",
        "target token vectors from the (V, C) table, ×√C = 3.46",
        "目标词元在 (V, C) 表中的向量，×√C = 3.46",
    ),
    (
        "tgt_resid_pre",
        "+ position",
        "+ 位置",
        "B T C",
        "embedding + position: the target enters decoder block 0",
        "嵌入 + 位置：目标序列进入解码器第 0 块",
    ),
    (
        "logits",
        "logits",
        "logits",
        "B T V",
        "one score per vocabulary entry, for each next target token",
        "对每个下一个目标词元，词表中每个词一个分数",
    ),
    (
        "src_embed",
        "embedding",
        "嵌入",
        "B S C",
        "source token vectors from the (V, C) table, ×√C = 3.46",
        "源词元在 (V, C) 表中的向量，×√C = 3.46",
    ),
]
POINTS = {
    "separate": SHARED_POINTS
    + [
        (
            "src_pos",
            "+ position",
            "+ 位置",
            "S C",
            "position learned of each source token: a trained (max_len, C) table added to the stream (GPT-2)",
            "每个源词元的位置 learned：一张训练出来的 (max_len, C) 表，加到残差流上（GPT-2）",
        ),
        (
            "memory",
            "memory",
            "编码器输出",
            "B S C",
            "normalised: the encoder's output, read by every cross-attention",
            "归一化后：编码器的输出，每个交叉注意力都读它",
        ),
        (
            "tgt_pos",
            "+ position",
            "+ 位置",
            "T C",
            "position learned of each target token",
            "每个目标词元的位置 learned",
        ),
        (
            "dec_ln_final",
            "final LayerNorm",
            "最终层归一化",
            "B T C",
            "the decoder's last normalisation, fed to the head",
            "解码器最后一次归一化，送入输出头",
        ),
    ],
    "one matrix": SHARED_POINTS
    + [
        (
            "src_pos",
            "+ position",
            "+ 位置",
            "S C",
            "position sinusoidal of each source token: fixed sin/cos waves added to the stream (Vaswani et al. 2017)",
            "每个源词元的位置 sinusoidal：固定的正弦/余弦波，加到残差流上（Vaswani 等 2017）",
        ),
        (
            "memory",
            "memory",
            "编码器输出",
            "B S C",
            "the encoder's output, read by every cross-attention",
            "编码器的输出，每个交叉注意力都读它",
        ),
        (
            "tgt_pos",
            "+ position",
            "+ 位置",
            "T C",
            "position sinusoidal of each target token",
            "每个目标词元的位置 sinusoidal",
        ),
        (
            "dec_ln_final",
            "final LayerNorm (identity)",
            "最终层归一化（恒等）",
            "B T C",
            "no normalisation in this config: the hook sees its input unchanged",
            "此配置没有归一化：这里看到的就是输入本身",
        ),
    ],
}
FORMULAS = {  # (part, formula, symbols, note, note in Chinese), in module order (derived by inspect/params.py)
    "separate": [
        ("src_embed", "V·C", {"V": 17, "C": 12}, "one C-vector per token", "每个词元一个 C 维向量"),
        ("tgt_embed", "V·C", {"V": 17, "C": 12}, "one C-vector per target token", "每个目标词元一个 C 维向量"),
        ("enc_ln_final", "2C", {"C": 12}, "", ""),
        ("dec_ln_final", "2C", {"C": 12}, "", ""),
        ("head", "C·V + V", {"C": 12, "V": 17}, "C -> one score per token", "C -> 每个词元一个分数"),
    ],
    "one matrix": [
        ("src_embed", "V·C", {"V": 17, "C": 12}, "one C-vector per token", "每个词元一个 C 维向量"),
        ("tgt_embed", "0", {}, "shared: reuses src_embed's V·C table", "共享：复用 src_embed 的 V·C 表"),
        ("enc_ln_final", "0", {}, "no final norm", "没有最终归一化"),
        ("dec_ln_final", "0", {}, "no final norm", "没有最终归一化"),
        (
            "head",
            "0",
            {},
            "tied: reuses tgt_embed's V·C matrix, 0 new parameters",
            "绑定：复用 tgt_embed 的 V·C 矩阵，新增 0 个参数",
        ),
    ],
}
CONFIGS = {"separate": BASE, "one matrix": ONE_MATRIX}
TOP = lambda p: "." not in p and p != "pos_embed"  # noqa: E731 - the model's own parts


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_model_level_hook_points_declare_themselves_whole(name):
    model = EncoderDecoder(CONFIGS[name])
    assert set(declarations(model)) == set(POINTS[name])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_parameter_formulas_of_each_arrangement(name):
    assert sorted(derived(EncoderDecoder(CONFIGS[name]), TOP), key=str) == sorted(FORMULAS[name], key=str)


def test_without_biases_the_head_has_no_bias_term_and_a_final_norm_only_a_gain():
    formulas = {f[0]: f for f in derived(EncoderDecoder(replace(BASE, bias=False)), TOP)}
    assert formulas["head"][1] == "C·V" and formulas["enc_ln_final"][1] == "C"
    # a final norm switched off while blocks keep theirs: the final parts count nothing
    off = {f[0]: f for f in derived(EncoderDecoder(replace(BASE, final_norm=False)), TOP)}
    name, formula, fields, english, chinese = off["enc_ln_final"]
    assert (name, formula, fields) == ("enc_ln_final", "0", {})
    assert english != formulas["enc_ln_final"][3] and re.search("[\u4e00-\u9fff]", chinese)  # said why, in both


def test_the_kind_says_what_it_reads_its_loss_and_its_outputs():
    model = EncoderDecoder(BASE)
    # snapshot: the kind's declared inputs ("token pairs") are an id the trainer and views dispatch on
    assert (model.inputs, model.loss, model.samples, model.n_outputs) == ("token pairs", "label_smoothed", False, 17)
    assert EncoderDecoder(replace(BASE, vocab_size=30)).n_outputs == 30


def test_encoder_hook_points_name_the_source_axis_and_the_decoders_keep_theirs():
    points = EncoderDecoder(BASE).hook_points()
    assert points["encoder.0.attn.scores"].axes == "B H S S" and points["encoder.0.attn.q"].axes == "B H S D"
    assert points["encoder.0.ffn.hidden"].axes.split()[:2] == ["B", "S"]
    assert points["decoder.0.attn.scores"].axes == "B H T_q T_k"
    assert not any("T" in h.axes.split() for n, h in points.items() if n.startswith("encoder."))


def test_example_input_is_ids_without_pad_and_the_target_reversed():
    src, tgt = EncoderDecoder(BASE).example_input(2, 5)
    assert src.tolist() == [[1, 1, 2, 3, 4], [5, 6, 7, 8, 9]]  # id 0 is <PAD>: it becomes 1
    assert tgt.tolist() == [[4, 3, 2, 1, 1], [9, 8, 7, 6, 5]]
    src, _ = EncoderDecoder(replace(BASE, pad_id=16)).example_input(3, 6)  # ids wrap at V; <PAD> 16 -> 0
    assert src.tolist() == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11], [12, 13, 14, 15, 0, 0]]
    assert EncoderDecoder(BASE).example_input()[0].tolist() == [[1, 1, 2, 3]]  # B=1, T=4 by default


def test_each_mask_hides_exactly_what_it_promises():
    model = EncoderDecoder(BASE)
    src = torch.tensor([[3, 4, 0], [5, 0, 0]])
    assert model.source_mask(src).tolist() == [[[[True, True, False]]], [[[True, False, False]]]]  # (B, 1, 1, S)
    tgt = torch.tensor([[1, 2, 0]])
    assert model.target_mask(tgt).tolist() == [[[[True, False, False], [True, True, False], [True, True, False]]]]
    # with a cache: one new token sees everything; several see the cached ones and the earlier new ones
    assert model.target_mask(torch.tensor([[1]]), offset=3) is None
    assert model.target_mask(torch.tensor([[1, 2]]), offset=2).tolist() == [
        [True, True, True, False],
        [True, True, True, True],
    ]
    free = EncoderDecoder(replace(BASE, causal=False))
    assert free.target_mask(torch.tensor([[1, 2]]), offset=2) is None
    assert free.target_mask(tgt).tolist() == [[[[True, True, False]]]]  # padding only


def test_decoding_several_new_tokens_at_once_on_a_cache_matches_the_whole_pass():
    model = EncoderDecoder(BASE).double().eval()
    src, tgt = torch.tensor([[3, 4, 5, 6]]), torch.tensor([[1, 7, 8, 9, 10]])
    memory = model.encode(src)
    whole = model.decode(tgt, memory, src)  # (1, 5, V)
    cache = model.new_cache(1)
    first = model.decode(tgt[:, :2], memory, src, cache)
    assert cache.length == 2  # the blocks appended two keys a layer
    rest = model.decode(tgt[:, 2:], memory, src, cache)
    torch.testing.assert_close(torch.cat([first, rest], 1), whole, rtol=0, atol=1e-12)


def test_a_new_cache_has_the_models_sizes_and_dtype():
    cache = EncoderDecoder(replace(BASE, n_layers=2)).double().new_cache(3)
    assert len(cache.layers) == 2 and cache.length == 0
    k = cache.layers[1].self_attn.k
    assert k.shape == (3, 3, 9, 4) and k.dtype == torch.float64  # (B, H, max_len, D)


def test_the_refusals_by_code_and_fields():
    with pytest.raises(ValueError) as caught:
        EncoderDecoder(replace(BASE, causal=False)).new_cache(1)
    assert (caught.value.code, caught.value.fields) == ("seq2seq.cache_not_causal", {})
    with pytest.raises(ValueError) as caught:
        EncoderDecoder(replace(BASE, pad_id=None))
    assert (caught.value.code, caught.value.fields) == ("seq2seq.pad_id", {})
    model = EncoderDecoder(BASE)
    ids = torch.ones(2, 3, dtype=torch.long)
    for src, tgt in ((ids[0], ids), (ids, ids[0]), (ids, ids[:1])):
        with pytest.raises(ValueError) as caught:
            model(src, tgt)
        assert (caught.value.code, caught.value.fields) == ("seq2seq.inputs", {"src": src.shape, "tgt": tgt.shape})
    assert model(ids, ids[:, :2]).shape == (2, 2, 17)  # S and T may differ
    assert model(ids, torch.ones(2, 4, dtype=torch.long)).shape == (2, 4, 17)  # and B need not equal T
    with pytest.raises(ValueError) as caught:  # B differs, though B = T_tgt
        model(ids, ids[:1, :2])
    assert (caught.value.code, caught.value.fields) == ("seq2seq.inputs", {"src": (2, 3), "tgt": (1, 2)})


def test_embeddings_are_scaled_by_root_c_and_positions_start_at_the_offset():
    model = EncoderDecoder(replace(BASE, position="sinusoidal")).eval()
    ids = torch.tensor([[3, 4]])
    _, cache = model.run_with_cache(ids, ids)
    table = model.tgt_embed(ids)  # (1, 2, C)
    torch.testing.assert_close(cache["tgt_embed"], table * 12**0.5, rtol=0, atol=0)
    positions = model.pos_embed(4, 0)  # (4, C)
    torch.testing.assert_close(cache["tgt_resid_pre"], table * 12**0.5 + positions[:2], rtol=0, atol=1e-6)
    source = model.src_embed(ids) * 12**0.5 + positions[:2]  # the source starts at position 0 too
    torch.testing.assert_close(cache["src_resid_pre"], source, rtol=0, atol=1e-6)
    x = model.add_position(model.embed(ids), 2, model.hook_tgt_pos, model.hook_tgt_resid_pre)  # the base's step
    torch.testing.assert_close(x, table * 12**0.5 + positions[2:], rtol=0, atol=1e-6)
    none = EncoderDecoder(replace(BASE, position="none")).eval()
    torch.testing.assert_close(
        none.add_position(none.embed(ids, "src"), 0, none.hook_src_pos, none.hook_src_resid_pre),
        none.src_embed(ids) * 12**0.5,
    )


def test_set_attention_checks_the_name_and_reaches_every_attention():
    model = EncoderDecoder(BASE)
    model.set_attention("fused")
    assert model.cfg.attention == "fused"
    assert [m.attention for m in model.modules() if hasattr(m, "attend")] == ["fused"] * 3  # self, self, cross
    with pytest.raises(ValueError, match="attention"):
        model.set_attention("flash")


def test_gpt2_init_scales_every_residual_projection_by_the_depth():
    """init="gpt2": N(0, 0.02) everywhere, N(0, 0.02/√(2·n_layers)) on the projections that write into
    the residual stream (self- and cross-attention outputs, the FFN's second layer), biases 0."""
    torch.manual_seed(0)
    model = EncoderDecoder(replace(BASE, d_model=64, n_heads=4, d_ff=64, n_layers=2, init="gpt2"))
    scaled = 0.02 / 2.0
    for name, p in model.named_parameters():
        if name.endswith(("attn.proj.weight", "cross.proj.weight", "ffn.fc2.weight")):
            assert abs(p.std().item() - scaled) < 0.1 * scaled, name
        elif name.endswith(("qkv.weight", "fc1.weight", "q.weight", "kv.weight", "embed.table.weight")):
            assert abs(p.std().item() - 0.02) < 0.1 * 0.02, name
        elif name.endswith("bias") and ".ln" not in name and "ln_final" not in name:
            assert not p.any(), name

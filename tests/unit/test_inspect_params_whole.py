"""params.py checked whole on one tiny GPT (V=7, C=4, F=6, L=5, one block): the plain-text table a
terminal prints, word for word in English and Chinese; every row's six fields; the "?" row of a
parameter no formula knows; the FLOP terms and the activation counts, each worked out by hand
below from the sizes (not read back from the code)."""

import pytest
import torch

from glassformer import messages
from glassformer.config import ModelConfig
from glassformer.inspect.params import (
    ParamRow,
    ParamTable,
    _build,
    activation_memory,
    declared_parts,
    flops_per_token,
    param_table,
)
from glassformer.models import GPT, Encoder

CFG = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5)

EN = """\
module                  params  formula     = formula  note
---------------------------------------------------------------
tok_embed                   28  V·C                28  one C-vector per token
pos_embed                   20  L·C                20  one C-vector per position
blocks.0.ln1                 8  2C                  8  
blocks.0.attn.qkv           60  C·3C + 3C          60  Q, K, V for all heads at once
blocks.0.attn.proj          20  C·C + C            20  merged heads -> residual
blocks.0.ln2                 8  2C                  8  
blocks.0.ffn.fc1            30  C·F + F            30  C -> F
blocks.0.ffn.fc2            28  F·C + C            28  F -> C
ln_final                     8  2C                  8  
head                        35  C·V + V            35  C -> one score per token
---------------------------------------------------------------
total                      245                    245
symbols: C=4 (d_model), F=6 (d_ff), V=7 (vocab_size), L=5 (max_len)"""

ZH = """\
模块                    参数量  公式           = 公式  说明
---------------------------------------------------------------
tok_embed                   28  V·C                28  每个词元一个 C 维向量
pos_embed                   20  L·C                20  每个位置一个 C 维向量
blocks.0.ln1                 8  2C                  8  
blocks.0.attn.qkv           60  C·3C + 3C          60  一次算出所有头的 Q、K、V
blocks.0.attn.proj          20  C·C + C            20  合并各头 -> 残差流
blocks.0.ln2                 8  2C                  8  
blocks.0.ffn.fc1            30  C·F + F            30  C -> F
blocks.0.ffn.fc2            28  F·C + C            28  F -> C
ln_final                     8  2C                  8  
head                        35  C·V + V            35  C -> 每个词元一个分数
---------------------------------------------------------------
合计                       245                    245
符号：C=4 (模型宽度 d_model), F=6 (前馈隐藏宽度 d_ff), V=7 (词表大小), L=5 (最大长度 max_len)"""


def test_the_text_table_whole_in_english_and_chinese():
    table = param_table(CFG)
    assert table.to_text() == EN == str(table) == repr(table)
    assert table.to_text(lang="zh") == ZH
    with messages.speaking("zh"):
        assert table.to_text() == ZH and table.to_text(lang="en") == EN


def test_every_field_of_every_row_counted_by_hand():
    """V·C = 28, L·C = 20, 2C = 8, C·3C + 3C = 60, C·C + C = 20, C·F + F = 30, F·C + C = 28, C·V + V = 35."""
    rows = [(r.module, r.count, r.formula, r.expected, r.note, r.note_zh) for r in param_table(CFG).rows]
    assert rows == [
        ("tok_embed", 28, "V·C", 28, "one C-vector per token", "每个词元一个 C 维向量"),
        ("pos_embed", 20, "L·C", 20, "one C-vector per position", "每个位置一个 C 维向量"),
        ("blocks.0.ln1", 8, "2C", 8, "", ""),
        ("blocks.0.attn.qkv", 60, "C·3C + 3C", 60, "Q, K, V for all heads at once", "一次算出所有头的 Q、K、V"),
        ("blocks.0.attn.proj", 20, "C·C + C", 20, "merged heads -> residual", "合并各头 -> 残差流"),
        ("blocks.0.ln2", 8, "2C", 8, "", ""),
        ("blocks.0.ffn.fc1", 30, "C·F + F", 30, "C -> F", ""),
        ("blocks.0.ffn.fc2", 28, "F·C + C", 28, "F -> C", ""),
        ("ln_final", 8, "2C", 8, "", ""),
        ("head", 35, "C·V + V", 35, "C -> one score per token", "C -> 每个词元一个分数"),
    ]
    assert param_table(CFG).symbols == {"C": 4, "F": 6, "V": 7, "L": 5}  # in the notation's letter order


def test_a_tied_head_counts_zero_and_says_why():
    rows = {r.module: r for r in param_table(ModelConfig(**{**CFG.__dict__, "tie_weights": True})).rows}
    assert (rows["tok_embed"].count, rows["head"].count) == (28, 0)
    assert rows["head"].note == "tied: reuses tok_embed's V·C matrix, 0 new parameters"


def test_a_parameter_no_formula_knows_gets_a_question_mark_row_in_both_languages():
    model = GPT(CFG)
    model.blocks[0].extra = torch.nn.Linear(2, 1)  # 2 weights + 1 bias
    table = param_table(model)
    assert table.rows[-2:] == [
        ParamRow("blocks.0.extra", 2, "?", 0, "not in any formula", "不在任何公式里"),
        ParamRow("blocks.0.extra", 1, "?", 0, "not in any formula", "不在任何公式里"),
    ]
    assert (table.total, table.expected_total, table.matches) == (248, 245, False)  # one row per parameter
    lines = table.to_text().splitlines()
    assert lines[-4] == "blocks.0.extra               1  ?                   0  not in any formula  ≠ formula!"
    assert lines[-2] == "total                      248                    245"
    assert table.to_text(lang="zh").splitlines()[-4].endswith("0  不在任何公式里  ≠ 公式！")


def test_note_in_falls_back_to_english_where_there_is_no_chinese():
    row = ParamRow("m", 1, "C", 1, "en words", "中文")
    assert (row.note_in("en"), row.note_in("zh")) == ("en words", "中文")
    assert ParamRow("m", 1, "C", 1, "C -> F").note_in("zh") == "C -> F"


def test_an_empty_table_totals_zero_and_matches():
    assert (ParamTable().total, ParamTable().expected_total, ParamTable().matches) == (0, 0, True)


def test_declared_parts_walk_the_tree_once_and_name_full_paths():
    paths = [p for p, _ in declared_parts(GPT(CFG))]
    assert sorted(paths) == sorted(
        [
            "blocks.0.ln1",
            "blocks.0.attn.qkv",
            "blocks.0.attn.proj",
            "blocks.0.ln2",
            "blocks.0.ffn.fc1",
            "blocks.0.ffn.fc2",
            "ln_final",
            "head",
            "pos_embed",
            "tok_embed",
        ]
    )
    assert len(paths) == len(set(paths))  # a declared part's subtree is not walked again


def test_a_config_is_built_as_the_kind_asked_for():
    bidirectional = ModelConfig(**{**CFG.__dict__, "causal": False})
    assert type(_build(bidirectional, "encoder")) is Encoder and type(_build(CFG, None)) is GPT
    with pytest.raises(ValueError, match="GPT is decoder-only"):
        _build(bidirectional, None)  # the kind is not guessed
    model = GPT(CFG)
    assert _build(model, "encoder") is model  # a model is counted as it is


def test_flop_terms_worked_out_by_hand():
    """N = blocks (8+60+20+8+30+28 = 154) + ln_final 8 = 162; T = 3, C = 4, one layer:
    attention_full = 4·1·3·4 = 48, causal half = 24; head = 2·C·V = 56."""
    f = flops_per_token(CFG, 3)
    assert (f.T, f.non_embedding_params, f.params_term, f.attention_term, f.head_term, f.attention_full) == (
        3,
        162,
        324,
        24,
        56,
        48,
    )
    assert (f.forward, f.training) == (324 + 24 + 56, 3 * (324 + 24 + 56))
    enc = flops_per_token(ModelConfig(**{**CFG.__dict__, "causal": False}), 3, kind="encoder")
    assert (enc.attention_term, enc.attention_full) == (48, 48)  # bidirectional: the whole square
    reg = flops_per_token(
        ModelConfig(kind="regressor", d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5, d_in=2, d_out=3),
        3,
        kind="regressor",
    )
    assert reg.head_term == 2 * 4 * 3  # 2·C·d_out


def test_activation_memory_counts_every_hook_by_hand_and_scales_only_batched_axes():
    """B = 2, T = 3, C = 4, H = 2, F = 6, V = 7: B·T·C = 24, B·H·T·T = 36, B·T·F = 36, B·T·V = 42;
    the position table's T·C = 12 has no batch axis, so it is not scaled."""
    model = GPT(CFG).train()
    mem = activation_memory(model, 2, 3, bytes_per_value=2)
    btc = 24
    assert mem == {
        "embed": btc,
        "pos_embed": 12,
        "resid_pre": btc,
        "blocks.0.ln1": btc,
        "blocks.0.attn.q": btc,
        "blocks.0.attn.k": btc,
        "blocks.0.attn.v": btc,
        "blocks.0.attn.scores": 36,
        "blocks.0.attn.weights": 36,
        "blocks.0.attn.z": btc,
        "blocks.0.attn.merged": btc,
        "blocks.0.attn.out": btc,
        "blocks.0.resid_mid": btc,
        "blocks.0.ln2": btc,
        "blocks.0.ffn.hidden": 36,
        "blocks.0.resid_post": btc,
        "ln_final": btc,
        "logits": 42,
        "total_values": 474,
        "total_bytes": 948,
    }
    assert model.training  # measured in eval mode, given back as it was
    assert activation_memory(CFG, 2, 3)["total_bytes"] == 4 * 474  # float32 by default

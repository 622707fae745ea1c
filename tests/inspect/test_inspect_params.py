"""Parameter table, FLOPs and activation memory: counted from the model, checked against the
closed forms, and the FLOPs against torch's own FLOP counter.

params.py checked whole on one tiny GPT (V=7, C=4, F=6, L=5, one block): the plain-text table a
terminal prints, word for word in English and Chinese; every row's six fields; the "?" row of a
parameter no formula knows; the FLOP terms and the activation counts, each worked out by hand
below from the sizes (not read back from the code).
"""

import re

import pytest
import torch
from helpers import keyed
from torch.utils.flop_counter import FlopCounterMode

from glassformer import messages
from glassformer.config import ModelConfig, get_preset
from glassformer.errors import UsageError
from glassformer.inspect.params import (
    ParamRow,
    ParamTable,
    _build,
    activation_memory,
    derived_parts,
    first_use,
    flops_per_token,
    param_table,
)
from glassformer.models import GPT, Encoder, SequenceRegressor

BASE = dict(vocab_size=13, d_model=24, n_heads=3, d_ff=40, n_layers=2, max_len=11)
CONFIGS = {
    "bias, learned, untied": (GPT, ModelConfig(**BASE)),
    "no bias, tied, sinusoidal": (GPT, ModelConfig(**BASE, bias=False, tie_weights=True, position="sinusoidal")),
    "no norm, bidirectional": (Encoder, ModelConfig(**BASE, norm="none", final_norm=False, causal=False)),
    "per-head modules, no positions": (GPT, ModelConfig(**BASE, mha_style="heads", position="none")),
    "post-norm regressor": (
        SequenceRegressor,
        ModelConfig(
            **{**BASE, "n_layers": 3, "vocab_size": 0}, kind="regressor", norm="post", final_norm=False, d_in=2, d_out=3
        ),
    ),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_counts_equal_the_closed_form(name):
    cls, cfg = CONFIGS[name]
    model = cls(cfg)
    table = param_table(model)
    assert table.matches, "\n" + table.to_text()
    assert table.total == table.expected_total == sum(p.numel() for p in model.parameters())
    assert all(r.formula != "?" for r in table.rows)
    assert sum(r.module.endswith("ffn.fc1") for r in table.rows) == cfg.n_layers  # every block listed


def test_formulas_read_like_algebra_and_tying_is_explained():
    rows = {r.module: r for r in param_table(ModelConfig(**BASE, tie_weights=True)).rows}
    assert rows["blocks.0.attn.qkv"].formula == "C·3C + 3C"
    assert rows["blocks.0.attn.qkv"].count == 24 * 3 * 24 + 3 * 24
    assert rows["tok_embed"].formula == "V·C"
    assert rows["head"].count == 0 and "tied" in rows["head"].note
    off = {r.module: r for r in param_table(ModelConfig(**BASE, bias=False)).rows}
    assert off["blocks.1.ln2"].formula == "C" and off["head"].formula == "C·V"


def test_a_wrong_formula_would_show():
    """The check can fail: a model with a parameter the config's letters do not describe is flagged."""
    model = GPT(ModelConfig(**BASE))
    model.blocks[0].extra = torch.nn.Linear(2, 3)
    table = param_table(model)
    assert not table.matches and any(r.formula == "?" for r in table.rows)
    assert "≠ formula!" in table.to_text()


def test_seed002_count_is_computed():
    cfg = get_preset("seed002").model
    model = Encoder(cfg)
    table = param_table(cfg)  # causal=False: built as an Encoder
    assert table.total == sum(p.numel() for p in model.parameters())


def test_flops_match_torch_flop_counter():
    """With no biases and no norms every parameter sits in a matmul, so torch's counter must
    see exactly T·(2N + 2·C·V + 4·n_layers·T·C) for one sequence of T tokens."""
    cfg = ModelConfig(**BASE, bias=False, norm="none", final_norm=False)
    model, T = GPT(cfg).eval(), 9
    fl = flops_per_token(model, T)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(torch.randint(0, 13, (1, T)))
    assert counter.get_total_flops() == T * (fl.params_term + fl.head_term + fl.attention_full)
    assert fl.attention_term == fl.attention_full // 2  # causal: Kaplan's average over positions
    assert fl.training == 3 * fl.forward
    enc = flops_per_token(ModelConfig(**BASE, causal=False), T, kind="encoder")
    assert enc.attention_term == enc.attention_full  # bidirectional: every query sees all T keys


@pytest.mark.parametrize("name", ["bias, learned, untied", "no norm, bidirectional", "post-norm regressor"])
def test_activation_memory_equals_the_cache(name):
    cls, cfg = CONFIGS[name]
    model, B, T = cls(cfg), 3, 7
    x = torch.randn(B, T, cfg.d_in) if cls is SequenceRegressor else torch.randint(0, 13, (B, T))
    _, cache = model.run_with_cache(x)
    mem = activation_memory(model, B, T)
    assert mem["total_values"] == sum(t.numel() for t in cache.values())
    assert mem["total_bytes"] == 4 * mem["total_values"]
    assert mem["blocks.0.attn.weights"] == B * cfg.n_heads * T * T


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


def notes(part: str, **fields) -> tuple[str, str]:
    """A row's note in English and in Chinese: the glossary's sentence for that part (FORMULA_WORDS,
    by its id), both kept in the row."""
    from glassformer.inspect.params import FORMULA_WORDS

    return tuple(messages.translated(FORMULA_WORDS[part], lang).format(**fields) for lang in ("en", "zh"))


def test_every_field_of_every_row_counted_by_hand():
    """V·C = 28, L·C = 20, 2C = 8, C·3C + 3C = 60, C·C + C = 20, C·F + F = 30, F·C + C = 28, C·V + V = 35."""
    rows = [(r.module, r.count, r.formula, r.expected, r.note, r.note_zh) for r in param_table(CFG).rows]
    assert rows == [
        ("tok_embed", 28, "V·C", 28, *notes("tok_embed")),
        ("pos_embed", 20, "L·C", 20, *notes("pos_embed")),
        ("blocks.0.ln1", 8, "2C", 8, "", ""),
        ("blocks.0.attn.qkv", 60, "C·3C + 3C", 60, *notes("qkv")),
        ("blocks.0.attn.proj", 20, "C·C + C", 20, *notes("proj")),
        ("blocks.0.ln2", 8, "2C", 8, "", ""),
        ("blocks.0.ffn.fc1", 30, "C·F + F", 30, "C -> F", ""),  # letters only: the same in every language
        ("blocks.0.ffn.fc2", 28, "F·C + C", 28, "F -> C", ""),
        ("ln_final", 8, "2C", 8, "", ""),
        ("head", 35, "C·V + V", 35, *notes("head")),
    ]
    assert param_table(CFG).symbols == {"C": 4, "F": 6, "V": 7, "L": 5}  # in the notation's letter order


def test_a_tied_head_counts_zero_and_says_why():
    rows = {r.module: r for r in param_table(ModelConfig(**{**CFG.__dict__, "tie_weights": True})).rows}
    assert (rows["tok_embed"].count, rows["head"].count) == (28, 0)
    assert (rows["head"].note, rows["head"].note_zh) == notes("head.tied", table="tok_embed")  # names the table


def test_a_parameter_no_formula_knows_gets_a_question_mark_row_in_both_languages():
    model = GPT(CFG)
    model.blocks[0].extra = torch.nn.Linear(2, 1)  # 2 weights + 1 bias
    table = param_table(model)
    unknown, unknown_zh = table.rows[-1].note, table.rows[-1].note_zh  # one note for what no formula knows
    assert table.rows[-2:] == [
        ParamRow("blocks.0.extra", 2, "?", 0, unknown, unknown_zh),
        ParamRow("blocks.0.extra", 1, "?", 0, unknown, unknown_zh),
    ]
    assert unknown and re.search("[\u4e00-\u9fff]", unknown_zh) and unknown not in {r.note for r in table.rows[:-2]}
    assert (table.total, table.expected_total, table.matches) == (248, 245, False)  # one row per parameter
    lines = table.to_text(lang="en").splitlines()
    mismatch = messages.translated("≠ formula!", "en")
    assert re.split(r"\s{2,}", lines[-4]) == ["blocks.0.extra", "1", "?", "0", unknown, mismatch]  # its columns
    assert lines[-2].split() == [messages.translated("total", "en"), "248", "245"]
    assert (
        table.to_text(lang="zh")
        .splitlines()[-4]
        .endswith(f"0  {unknown_zh}  {messages.translated('≠ formula!', 'zh')}")
    )


def test_note_in_falls_back_to_english_where_there_is_no_chinese():
    english, chinese = "en words", "中文"
    row = ParamRow("m", 1, "C", 1, english, chinese)
    assert (row.note_in("en"), row.note_in("zh")) == (english, chinese)
    assert ParamRow("m", 1, "C", 1, "C -> F").note_in("zh") == "C -> F"


def test_an_empty_table_totals_zero_and_matches():
    assert (ParamTable().total, ParamTable().expected_total, ParamTable().matches) == (0, 0, True)


def test_derived_parts_walk_the_tree_once_and_name_full_paths():
    paths = [p for p, _ in derived_parts(GPT(CFG))]
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


def test_a_bare_piece_is_derived_in_the_letters_given():
    """A module with no config (the modern pieces, not yet in a model): the letters come as an argument,
    a module that is one part is the part "", sizes made of letters read as such, and the counts add up."""
    from glassformer.nn.mla import LatentAttention, MLAConfig
    from glassformer.nn.moe import MixtureOfExperts
    from glassformer.nn.rmsnorm import RMSNorm

    assert [(p, f.formula, f.value()) for p, f in derived_parts(RMSNorm(6), {"C": 6})] == [("", "C", 6)]
    moe = MixtureOfExperts(6, 4, 3, n_shared=2)
    parts = {p: f for p, f in derived_parts(moe, {"C": 6, "F": 4, "E": 3})}
    assert (parts["experts"].formula, parts["shared.up"].formula) == ("E·(C·F + C·F + F·C)", "C·2F")
    mla = LatentAttention(MLAConfig(64, 4, 16, 8, 6, 10))  # no query latent
    parts = {p: f for p, f in derived_parts(mla, {"C": 64, "H": 4, "R_kv": 16, "D_n": 8, "D_r": 6, "D_v": 10})}
    assert (parts["q_proj"].formula, parts["q_proj"].note) == ("C·(H·(D_n + D_r))", "C -> H·(D_n + D_r)")
    for piece, sizes in (
        (moe, {"C": 6, "F": 4, "E": 3}),
        (mla, {"C": 64, "H": 4, "R_kv": 16, "D_n": 8, "D_r": 6, "D_v": 10}),
    ):
        assert sum(f.value() for _, f in derived_parts(piece, sizes)) == sum(p.numel() for p in piece.parameters())


def test_a_config_is_built_as_the_kind_asked_for():
    bidirectional = ModelConfig(**{**CFG.__dict__, "causal": False})
    assert type(_build(bidirectional, "encoder")) is Encoder and type(_build(CFG, None)) is GPT
    assert keyed(UsageError, _build, bidirectional, None) == ("model.gpt_not_causal", {})  # kind not guessed
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
        "blocks.0.attn.result": 48,  # (B, T, H, C)
        "blocks.0.attn.out": btc,
        "blocks.0.resid_mid": btc,
        "blocks.0.ln2": btc,
        "blocks.0.ffn.hidden": 36,
        "blocks.0.ffn.out": btc,
        "blocks.0.resid_post": btc,
        "ln_final": btc,
        "logits": 42,
        "total_values": 546,
        "total_bytes": 1092,
    }
    assert model.training  # measured in eval mode, given back as it was
    assert activation_memory(CFG, 2, 3)["total_bytes"] == 4 * 546  # float32 by default


# ---- first_use: the data-flow order the table is in ------------------------------------------------------------

FLOW_CFG = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5)


def test_first_use_is_the_forward_order_and_leaves_no_hook_and_the_mode_as_it_was():
    model = GPT(FLOW_CFG).train()
    assert first_use(model) == {
        "tok_embed": 0,
        "tok_embed.table": 1,
        "pos_embed": 2,
        "pos_embed.table": 3,
        "drop": 4,
        "blocks.0": 5,
        "blocks.0.ln1": 6,
        "blocks.0.attn": 7,
        "blocks.0.attn.qkv": 8,
        "blocks.0.attn.proj": 9,
        "blocks.0.attn.resid_dropout": 10,
        "blocks.0.ln2": 11,
        "blocks.0.ffn": 12,
        "blocks.0.ffn.fc1": 13,
        "blocks.0.ffn.fc2": 14,
        "blocks.0.drop": 15,
        "ln_final": 16,
        "head": 17,
    }
    assert model.training and all(not m._forward_pre_hooks for m in model.modules())
    assert len(first_use(model.eval())) == 18 and not model.training


def test_first_use_runs_an_encoder_decoder_on_its_pair_of_inputs():
    from glassformer.models import build_model

    model = build_model(
        ModelConfig(kind="seq2seq", vocab_size=9, d_model=4, n_heads=2, d_ff=6, max_len=6, pad_id=0, n_layers=1)
    )
    order = first_use(model)
    assert list(order)[:6] == ["src_embed", "src_embed.table", "pos_embed", "pos_embed.table", "drop", "encoder.0"]
    assert sorted(order.values()) == list(range(len(order)))  # 0, 1, 2 ... with no gap
    assert all(not m._forward_pre_hooks for m in model.modules()) and "" not in order


# Every preset's count, worked out by hand from its config (C, F, V, L, H, n_layers, bias, tying):
#   seed000  V·C 4,160 + L·C 8,192 + 2 × (4C 256 + C·3C+3C 12,480 + C·C+C 4,160 + C·F+F 8,320 + F·C+C 8,256)
#            + 2C 128 + C·V+V 4,225                                                          = 83,649
#   baby     V·C 8,320 + L·C 8,192 + 4 × (2C 256 + 3C² 49,152 + C² 16,384 + 2·C·F 131,072) + C 128 + tied 0
#                                                                                            = 804,096
#   small    V·C 24,960 + L·C 98,304 + 6 × (2C 768 + 3C² 442,368 + C² 147,456 + 2·C·F 1,179,648) + C 384
#                                                                                            = 10,745,088
#   seed002  V·C 2,560 + L·C 640 + (3C²+3C 49,536 + C²+C 16,512 + C·F+F 66,048 + F·C+C 65,664)
#            + C·V+V 2,580 (no norms)                                                        = 203,540
#   sine     d_in·C+C 64 + 2 × (4C 128 + 3,168 + 1,056 + 4,224 + 4,128) + C·d_out+d_out 33  = 25,505
#   seq2seq  V·C 1,792 + 2 × encoder 33,472 + 2 × decoder (6C 384 + 12,480 + 4,160 + cross C²+C 4,160
#            + C·2C+2C 8,320 + 4,160 + 8,320 + 8,256 = 50,240); shared and tied tables 0      = 169,216
#   baby-llama  (RMSNorm, SwiGLU, RoPE: no position table; H 4, H_kv 2, D 32; untied)
#            V·C 8,320 + 4 × (2C 256 + C·(H+2·H_kv)·D 32,768 + H·D·C 16,384 + 3·C·F 135,168) + C 128
#            + C·V 8,320                                                                     = 755,072
#   baby-qwen3  (as baby-llama with D 64, QK-norm 2D, tied)
#            V·C 8,320 + 4 × (2C 256 + C·(H+2·H_kv)·D 65,536 + H·D·C 32,768 + 2D 128 + 3·C·F 135,168)
#            + C 128 + tied 0                                                                = 943,872
#   baby-moe  (as baby-llama, the FFN 8 experts of F_e 175 and a router: E 8)
#            V·C 8,320 + 4 × (2C 256 + C·(H+2·H_kv)·D 32,768 + H·D·C 16,384 + E·C 1,024 + E·3·C·F_e 537,600)
#            + C 128 + C·V 8,320                                                             = 2,368,896
#   baby-mla  (as baby-llama, latent attention: H 4, D_n 32, D_r 16, D_v 32, R_kv 32; F 336)
#            V·C 8,320 + 4 × (2C 256 + C·H·(D_n+D_r) 24,576 + C·(R_kv+D_r) 6,144 + R_kv 32
#            + R_kv·H·(D_n+D_v) 8,192 + H·D_v·C 16,384 + 3·C·F 129,024) + C 128 + C·V 8,320   = 755,200
BY_HAND = {"seed000": 83_649, "baby": 804_096, "small": 10_745_088, "seed002": 203_540, "sine": 25_505}
BY_HAND.update({"seq2seq": 169_216, "baby-llama": 755_072, "baby-qwen3": 943_872})
BY_HAND.update({"baby-moe": 2_368_896, "baby-mla": 755_200})


# inspect/params.py's derived formulas have no row for MLA's kv_down (W_DKV and W_KR, C·(R_kv + D_r)): its
# expected total misses it; strict, so this fails (and goes) once the formulas count it
@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_every_presets_count_by_hand(name):
    """The derived formulas agree with the parameters and with the count worked out by hand."""
    from glassformer.config import PRESETS

    table = param_table(PRESETS[name].model)
    assert (table.total, table.expected_total, table.matches) == (BY_HAND[name], BY_HAND[name], True)


def test_every_preset_is_counted_by_hand():
    from glassformer.config import PRESETS

    assert set(BY_HAND) == set(PRESETS)  # a new preset gets its count worked out here


# ---- heads that are not C's split: grouped, multi-query, a head width set apart ----------------------
MODERN_HEADS = {  # (config changes, the qkv row's formula, the proj row's formula)
    "gqa": ({"n_kv_heads": 2}, "C·(H + 2·H_kv)·D", "C·C"),  # 4 heads of 16 = C: only q, k, v change
    "mqa": ({"n_kv_heads": 1}, "C·(H + 2·H_kv)·D", "C·C"),
    "gqa-wide-heads": ({"n_kv_heads": 2, "head_dim": 32}, "C·(H + 2·H_kv)·D", "H·D·C"),  # Qwen3: H·D = 2C
    "mha-wide-heads": ({"head_dim": 32}, "C·3·H·D", "H·D·C"),
    "mha": ({}, "C·3C", "C·C"),  # GPT-2's heads: C split H ways, written as before
}


@pytest.mark.parametrize("name", list(MODERN_HEADS))
def test_attention_rows_read_in_heads_when_the_heads_are_not_c_split(name):
    """The packed projection of grouped-query attention holds H query heads and 2·H_kv key-value
    heads of D: its row says so, not "C·4C" (a multiple of C that hides what GQA shares)."""
    changes, qkv, proj = MODERN_HEADS[name]
    cfg = ModelConfig(d_model=64, n_heads=4, d_ff=96, bias=False, norm_type="rms", ffn="swiglu", **changes)
    table = param_table(cfg)
    rows = {row.module: row for row in table.rows}
    assert (rows["blocks.0.attn.qkv"].formula, rows["blocks.0.attn.proj"].formula) == (qkv, proj)
    assert rows["blocks.0.attn.qkv"].count == rows["blocks.0.attn.qkv"].expected
    assert table.matches and ("H_kv" in table.symbols) == ("n_kv_heads" in changes)
    if "n_kv_heads" in changes:
        assert table.symbols["H_kv"] == changes["n_kv_heads"]


@pytest.mark.parametrize(
    "changes, gqa_heads, mine",
    [({"n_kv_heads": 2}, 2, "gqa"), ({}, 2, "mha"), ({"n_kv_heads": 1}, 2, "mqa"), ({"n_heads": 2}, 0, "mha")],
)
def test_kv_cache_bytes_per_token_side_by_side_by_hand(changes, gqa_heads, mine):
    """2 layers × (keys + values) × heads × D × 4 bytes: MHA 4 heads of 16 = 1,024 B, GQA 2 = 512 B,
    MQA 1 = 256 B; the model's own is the column of its H_kv (H = 2 has no GQA between MHA and MQA)."""
    from glassformer.inspect.params import kv_cache_per_token

    cfg = ModelConfig(**{"d_model": 64, "n_heads": 4, "n_layers": 2, "head_dim": 16, **changes})
    kv = kv_cache_per_token(cfg)
    H = cfg.n_heads
    assert (kv.mha, kv.mqa, kv.gqa_heads) == (2 * 2 * H * 16 * 4, 2 * 2 * 16 * 4, gqa_heads)
    assert kv.gqa == (2 * 2 * gqa_heads * 16 * 4)
    assert kv.mine == {"mha": kv.mha, "gqa": kv.gqa, "mqa": kv.mqa}[mine]


def test_kv_cache_per_token_of_an_mla_model_is_what_its_latent_cache_holds():
    """An MLA model's cache keeps the latent c_kv and the shared rotary key (R_kv + D_r numbers a token
    a layer), not H keys and H values: `mine` equals a real LatentCache's bytes after a prefill, and the
    MHA column beside it stays the grouped formula at the same width."""
    from glassformer.inspect.params import kv_cache_per_token

    cfg = ModelConfig(
        d_model=64, n_heads=4, n_layers=2, max_len=16, position="rope",
        mla_kv_rank=12, mla_d_nope=8, mla_d_rope=4, mla_d_v=8,
    )  # fmt: skip
    model = GPT(cfg).eval()
    cache, T = model.new_cache(1), 6
    with torch.no_grad():
        model(model.example_input(1, T), cache=cache)  # (1, T, V): the prefill fills the cache
    kv = kv_cache_per_token(cfg)
    assert kv.mine == cache.nbytes() // T == 2 * (12 + 4) * 4  # L · (R_kv + D_r) · float32
    assert kv.mha == 2 * 2 * 4 * 16 * 4 and kv.mine < kv.mqa  # L · (k, v) · H · D · float32


# ---- dense first blocks and experts (DeepSeek-V3's first_k_dense_replace: moe_first_dense) ------------
#   V 50, C 32, H 4, F 40 (the dense FFN), E 4 (as many as heads: the rows must still say E), F_e 12, untied
#   V·C 1,600 + 3 × (2C 64 + 3C² 3,072 + C² 1,024) + block 0's FFN 3·C·F 3,840
#   + 2 × (router E·C 128 + experts E·3·C·F_e 4,608 + shared 3·C·F_e 1,152) + C 32 + C·V 1,600   = 31,328
def test_dense_blocks_and_expert_blocks_are_counted_by_hand():
    cfg = ModelConfig(
        **{"vocab_size": 50, "d_model": 32, "n_heads": 4, "n_layers": 3, "d_ff": 40, "max_len": 16},
        **{"ffn": "moe", "n_experts": 4, "moe_top_k": 2, "moe_d_ff": 12, "moe_shared": 1, "moe_first_dense": 1},
        **{"norm_type": "rms", "bias": False, "position": "rope", "tie_weights": False},
    )
    table = param_table(cfg)
    assert (table.total, table.expected_total, table.matches) == (31_328, 31_328, True)
    rows = {r.module: (r.formula, r.count) for r in table.rows}
    assert rows["blocks.0.ffn.up"] == ("C·F", 1_280) and "blocks.0.ffn.router" not in rows
    for i in (1, 2):
        assert rows[f"blocks.{i}.ffn.router"] == ("E·C", 128) and f"blocks.{i}.ffn.up" not in rows
        assert rows[f"blocks.{i}.ffn.experts"] == ("E·(C·F_e + C·F_e + F_e·C)", 4_608)
        assert rows[f"blocks.{i}.ffn.shared.up"] == ("C·F_e", 384)
    assert (table.symbols["F"], table.symbols["E"], table.symbols["F_e"]) == (40, 4, 12)


@pytest.mark.parametrize("q_rank", [0, 24])
def test_a_latent_attentions_projections_are_written_in_its_own_letters(q_rank):
    """nn/mla.py's projections read as DeepSeek-V2's equations write them, even where the sizes coincide
    (R_kv = D_n = D_v = 16 here): the values alone once gave kv_down no formula ("?") and kv_up "D·2C"."""
    cfg = ModelConfig(
        vocab_size=11, d_model=32, n_heads=2, d_ff=48, n_layers=1, max_len=8, bias=False, position="rope",
        mla_kv_rank=16, mla_q_rank=q_rank, mla_d_nope=16, mla_d_rope=8, mla_d_v=16,
    )  # fmt: skip
    table = param_table(cfg)
    rows = {r.module.removeprefix("blocks.0.attn."): (r.formula, r.count, r.expected) for r in table.rows}
    C, H, R_kv, R_q, D_n, D_r, D_v = 32, 2, 16, q_rank, 16, 8, 16
    want = {
        "kv_down": ("C·(R_kv + D_r)", C * (R_kv + D_r)),
        "kv_norm": ("R_kv", R_kv),
        "kv_up": ("R_kv·(H·(D_n + D_v))", R_kv * H * (D_n + D_v)),
        "proj": ("(H·D_v)·C", H * D_v * C),
    }
    if q_rank:
        want |= {
            "q_down": ("C·R_q", C * R_q),
            "q_norm": ("R_q", R_q),
            "q_up": ("R_q·(H·(D_n + D_r))", R_q * H * (D_n + D_r)),
        }
    else:
        want |= {"q_proj": ("C·(H·(D_n + D_r))", C * H * (D_n + D_r))}
    assert {k: rows[k] for k in want} == {k: (f, n, n) for k, (f, n) in want.items()}
    assert table.matches and table.total == table.expected_total

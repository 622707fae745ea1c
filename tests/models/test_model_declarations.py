"""What the token models and the regressor say about themselves, whole (base.py, gpt.py, encoder.py,
regressor.py, kinds.py): the model-level hook points and parameter formulas of four shapes in
English and Chinese (a learned-position GPT; a rotary, norm-free, tied GPT; an encoder without
biases; a regressor), each kind's fields and example input, every branch of the attention mask,
and the refusals by code and fields."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import torch
from helpers import declarations
from helpers import formulas as derived

from glassformer.config import ModelConfig
from glassformer.messages import speaking
from glassformer.models import build_model
from glassformer.models.gpt import GPT
from glassformer.models.kinds import MODEL_KINDS, model_class, register_model_kind

CJK = re.compile("[\u4e00-\u9fff]")

pytestmark = pytest.mark.usefixtures("one_thread")

G = ModelConfig(vocab_size=11, d_model=8, n_heads=2, d_ff=12, n_layers=1, max_len=6)
SHAPES = {
    "gpt": G,
    "rotary": replace(G, position="rotary", norm="none", tie_weights=True),
    "encoder": replace(G, kind="encoder", causal=False, bias=False),
    "regressor": replace(G, kind="regressor", vocab_size=0, d_in=3, d_out=2),
}
# the hook points of a learned-position token model (gpt and encoder alike; the regressor keeps the first three,
# the rotary GPT the last two)
LEARNED_TOKENS = [
    (
        "pos_embed",
        "+ position",
        "+ 位置",
        "T C",
        "position learned: a trained (max_len, C) table added to the stream (GPT-2); one vector per place, broadcast over B",  # noqa: E501
        "位置 learned：一张训练出来的 (max_len, C) 表，加到残差流上（GPT-2）；每个位置一个向量，对 B 广播",
    ),
    (
        "resid_pre",
        "+ position",
        "+ 位置",
        "B T C",
        "embedding + position: the residual stream enters block 0",
        "嵌入 + 位置：残差流进入第 0 块",
    ),
    (
        "ln_final",
        "final LayerNorm",
        "最终层归一化",
        "B T C",
        "last normalisation before the head",
        "输出头之前的最后一次归一化",
    ),
    (
        "embed",
        "embedding",
        "嵌入",
        "B T C",
        "token vectors looked up in the (V, C) table",
        "在 (V, C) 表中查到的词向量",
    ),
    ("logits", "logits", "logits", "B T V", "one score per vocabulary entry", "词表中每个词一个分数"),
]
DECLARATIONS = {  # hook points (name, stage, stage zh, axes, means, zh); formulas (part, formula, symbols, note, zh)
    "gpt": (
        LEARNED_TOKENS,
        [
            ("ln_final", "2C", {"C": 8}, "", ""),
            ("head", "C·V + V", {"C": 8, "V": 11}, "C -> one score per token", "C -> 每个词元一个分数"),
        ],
    ),
    "rotary": (
        [
            (
                "resid_pre",
                "+ position",
                "+ 位置",
                "B T C",
                "the embedding alone enters block 0 (position rotary: queries and keys turned by angles that grow with position: scores see distance only (RoPE, Su et al. 2021))",  # noqa: E501
                "只有嵌入进入第 0 块（位置 rotary：按位置把查询和键旋转相应角度：注意力分数只看相对距离（RoPE，Su 等 2021））",  # noqa: E501
            ),
            (
                "ln_final",
                "final LayerNorm (identity)",
                "最终层归一化（恒等）",
                "B T C",
                "no normalisation in this config: the hook sees its input unchanged",
                "此配置没有归一化：这里看到的就是输入本身",
            ),
            *LEARNED_TOKENS[3:],
        ],
        [
            ("ln_final", "0", {}, "no final norm", "没有最终归一化"),
            (
                "head",
                "0",
                {},
                "tied: reuses tok_embed's V·C matrix, 0 new parameters",
                "绑定：复用 tok_embed 的 V·C 矩阵，新增 0 个参数",
            ),
        ],
    ),
    "encoder": (
        LEARNED_TOKENS,
        [
            ("ln_final", "C", {"C": 8}, "", ""),
            ("head", "C·V", {"C": 8, "V": 11}, "C -> one score per token", "C -> 每个词元一个分数"),
        ],
    ),
    "regressor": (
        [
            *LEARNED_TOKENS[:3],
            (
                "embed",
                "embedding",
                "嵌入",
                "B T C",
                "each step's numbers projected to width C",
                "每一步的数值投影到宽度 C",
            ),
            ("pred", "prediction", "预测", "B T d_out", "the regressor's numbers out", "回归模型输出的数值"),
        ],
        [
            ("in_proj", "d_in·C + C", {"C": 8, "d_in": 3}, "numbers -> width C", "数字 -> 宽度 C"),
            ("ln_final", "2C", {"C": 8}, "", ""),
            ("out_proj", "C·d_out + d_out", {"C": 8, "d_out": 2}, "width C -> numbers", "宽度 C -> 数字"),
        ],
    ),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_model_level_declarations_whole_in_both_languages(name):
    model = build_model(SHAPES[name])
    points, formulas = DECLARATIONS[name]
    assert sorted(declarations(model)) == sorted(points)
    top = lambda p: "." not in p and p not in ("tok_embed", "pos_embed")  # noqa: E731 - the model's own parts
    assert sorted(derived(model, top), key=str) == sorted(formulas, key=str)


def test_a_final_norm_switched_off_counts_nothing_and_its_hook_says_identity():
    model = build_model(replace(G, final_norm=False))
    [(name, formula, fields, english, chinese)] = derived(model, lambda p: p == "ln_final")  # a formula keeps both
    assert (name, formula, fields) == ("ln_final", "0", {}) and english != chinese and CJK.search(chinese)
    stage = declarations(model, lambda n: n == "ln_final")[0][1]
    normed = declarations(build_model(G), lambda n: n == "ln_final")[0][1]
    assert normed in stage and stage != normed  # the same stage's name, marked as the identity
    assert model.hook_points()["ln_final"].stage == "identity"  # an id; the words above are the view's
    assert isinstance(model.ln_final, torch.nn.Identity)


def test_each_kind_says_what_it_reads_how_it_learns_and_what_it_outputs():
    said = {
        name: (m.kind, m.inputs, m.loss, m.samples, m.n_outputs)
        for name, m in ((n, build_model(c)) for n, c in SHAPES.items())
    }
    assert said == {
        "gpt": ("gpt", "tokens", "next_token", True, 11),
        "rotary": ("gpt", "tokens", "next_token", True, 11),
        "encoder": ("encoder", "tokens", "next_token", True, 11),
        "regressor": ("regressor", "numbers", "mse", False, 2),
    }
    assert (GPT.kind, GPT.inputs, GPT.loss, GPT.samples) == ("gpt", "tokens", "next_token", True)  # the base


def test_example_inputs_are_deterministic_and_shaped_for_the_kind():
    assert build_model(G).example_input(2, 7).tolist() == [[0, 1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 0, 1, 2]]
    assert build_model(G).example_input().tolist() == [[0, 1, 2, 3]]
    x = build_model(SHAPES["regressor"]).example_input(2, 3)  # sin(t/2), the same in every row and column
    want = torch.sin(torch.tensor([0.0, 0.5, 1.0]))
    assert x.shape == (2, 3, 3) and x.is_contiguous() and x.dtype == torch.float32
    assert torch.equal(x, want[None, :, None].expand(2, 3, 3))
    assert build_model(SHAPES["regressor"]).example_input().shape == (1, 4, 3)
    assert GPT(G).example_input().tolist() == [[0, 1, 2, 3]]  # the base's ends are the token ones


def test_the_attention_mask_in_each_case():
    gpt = build_model(G)
    ids = torch.zeros(1, 3, dtype=torch.long)
    assert gpt.attention_mask(ids).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    assert gpt.attention_mask(ids[:, :1], offset=4) is None  # one new token sees all cached keys
    assert gpt.attention_mask(ids[:, :2], offset=3).tolist() == [
        [True, True, True, True, False],
        [True, True, True, True, True],
    ]
    assert build_model(SHAPES["encoder"]).attention_mask(ids) is None  # bidirectional, no padding
    padded = build_model(replace(SHAPES["encoder"], pad_id=0))
    assert padded.attention_mask(torch.tensor([[3, 0]])).tolist() == [[[[True, False]]]]
    causal_padded = build_model(replace(SHAPES["encoder"], pad_id=0, causal=True))
    assert causal_padded.attention_mask(torch.tensor([[3, 4, 0]])).tolist() == [
        [[[True, False, False], [True, True, False], [True, True, False]]]
    ]


def test_the_refusals_by_code_and_fields():
    with pytest.raises(ValueError) as caught:
        build_model(SHAPES["encoder"]).attention_mask(torch.zeros(1, 1, dtype=torch.long), offset=1)
    assert (caught.value.code, caught.value.fields) == ("model.encoder_cache", {})
    with pytest.raises(ValueError) as caught:
        build_model(replace(G, causal=False))
    assert (caught.value.code, caught.value.fields) == ("model.gpt_not_causal", {})
    regressor = build_model(SHAPES["regressor"])
    for x in (torch.zeros(2, 4, 3, dtype=torch.long), torch.zeros(2, 4), torch.zeros(2, 4, 1)):
        with pytest.raises(ValueError) as caught:
            regressor(x)
        assert (caught.value.code, caught.value.fields) == (
            "model.regressor_input",
            {"d_in": 3, "shape": tuple(x.shape), "dtype": x.dtype},
        )
    assert regressor(torch.zeros(2, 4, 3, dtype=torch.float64).float()).shape == (2, 4, 2)


def test_the_regressor_keeps_the_names_its_saved_runs_and_hooks_have():
    """GPT.forward reads a kind's ends as tok_embed and head, tapped at embed and logits; a regressor's
    ends keep their own names (in_proj, out_proj, pred), so its saved weights load and a hook on "pred"
    still sees its numbers: the same arithmetic as in_proj then out_proj around the trunk."""
    model = build_model(SHAPES["regressor"]).eval()
    ends = {k for k in model.state_dict() if not k.startswith(("blocks.", "ln_final.", "pos_embed."))}
    assert ends == {"in_proj.weight", "in_proj.bias", "out_proj.weight", "out_proj.bias"}
    assert {"embed", "pred"} <= set(model._hooks) and "logits" not in model._hooks
    x = model.example_input(2, 5)  # (2, 5, 3)
    _, cache = model.run_with_cache(x, names=["embed", "pred"])
    h = model.run_from(0, model.hook_resid_pre(cache["embed"] + model.pos_embed(5)), model.attention_mask(x))
    assert torch.equal(cache["embed"], model.in_proj(x)) and torch.equal(cache["pred"], h)


@pytest.mark.parametrize(
    "lang, asked, said",
    [
        (
            "en",
            "gtp",
            "kind='gtp' is not a model kind; choose one of ['encoder', 'gpt', 'regressor', 'seq2seq']. "
            "Did you mean 'gpt'?",
        ),
        ("en", "zzzz", "kind='zzzz' is not a model kind; choose one of ['encoder', 'gpt', 'regressor', 'seq2seq']."),
        (
            "zh",
            "gtp",
            "kind='gtp' 不是模型种类；请从 ['encoder', 'gpt', 'regressor', 'seq2seq'] 中选一个。你是想写 'gpt' 吗？",
        ),
        ("zh", "zzzz", "kind='zzzz' 不是模型种类；请从 ['encoder', 'gpt', 'regressor', 'seq2seq'] 中选一个。"),
    ],
)
def test_an_unknown_kind_is_named_with_the_kinds_and_the_nearest(lang, asked, said):
    with speaking(lang), pytest.raises(ValueError) as caught:
        model_class(asked)
    assert str(caught.value) == said


def test_registering_a_kind_names_the_class_and_build_model_builds_it():
    @register_model_kind("test-kind")
    class Made(torch.nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.cfg = cfg

    try:
        assert Made.kind == "test-kind" and model_class("test-kind") is Made
        assert build_model(replace(G, kind="test-kind")).cfg.kind == "test-kind"
    finally:
        del MODEL_KINDS["test-kind"]


def test_num_params_leaves_out_only_a_learned_position_table():
    gpt = build_model(G)
    assert gpt.num_params() == sum(p.numel() for p in gpt.parameters())
    assert gpt.num_params(exclude_positions=True) == gpt.num_params() - 6 * 8
    sinusoidal = build_model(replace(G, position="sinusoidal"))
    assert sinusoidal.num_params(exclude_positions=True) == sinusoidal.num_params() == gpt.num_params() - 6 * 8


def test_set_attention_reaches_every_block_and_checks_the_name():
    model = build_model(replace(G, n_layers=2))
    model.set_attention("fused")
    assert model.cfg.attention == "fused" and [b.attn.attention for b in model.blocks] == ["fused", "fused"]
    with pytest.raises(ValueError, match="attention"):
        model.set_attention("flash")


def test_positions_continue_from_the_cache_and_dropout_is_applied_to_the_stream():
    """The trunk adds positions offset..offset+T-1 when tokens are cached, and drops out the sum."""
    model = build_model(G).eval()
    ids = torch.tensor([[1, 2, 3]])
    cache = model.new_cache(1)
    model(ids[:, :2], cache)
    _, seen = model.run_with_cache(ids[:, 2:], cache=cache)
    torch.testing.assert_close(seen["pos_embed"], model.pos_embed.table.weight[2:3], rtol=0, atol=0)
    dropping = build_model(replace(G, dropout=0.5)).train()
    _, seen = dropping.run_with_cache(ids)
    assert (seen["resid_pre"] == 0).any() and not (seen["embed"] == 0).any()


@pytest.mark.parametrize(
    "cfg",
    [
        *SHAPES.values(),
        replace(SHAPES["regressor"], bias=False),
        replace(G, bias=False, tie_weights=False),
        replace(G, tie_weights=True),
    ],
    ids=[*SHAPES, "regressor-no-bias", "gpt-no-bias", "gpt-tied"],
)
def test_the_formulas_count_what_the_modules_hold(cfg):
    """Each module holds what its formula says: a bias switched off, a tied head, a projection's
    sizes (d_in, d_out) show in both the module and the formula."""
    from glassformer.inspect.params import param_table

    model = build_model(cfg)
    table = param_table(model)
    assert table.matches and table.total == model.num_params() == sum(p.numel() for p in model.parameters())
    if cfg.kind == "regressor":
        assert (model.in_proj.in_features, model.out_proj.out_features) == (3, 2)
        assert (model.in_proj.bias is None) == (model.out_proj.bias is None) == (not cfg.bias)
    else:
        assert (model.head.bias is None) == (not cfg.bias or cfg.tie_weights)
        assert (model.head.weight is model.tok_embed.table.weight) == cfg.tie_weights

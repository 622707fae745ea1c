"""gpt2_port.py as a whole, without transformers: every field of a GPT-2 config read and written,
every refusal word for word in English and Chinese, every tensor placed (transposed where GPT-2's
Conv1D stores (in, out)), the head tied or not. tests/interop compares with the real library."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.errors import DamagedFile, UsageError
from glassformer.messages import speaking, t
from glassformer.models.gpt2_port import (
    config_from_gpt2,
    gpt2_config,
    gpt_from_gpt2,
    state_dict_from_gpt2,
    state_dict_to_gpt2,
)

CFG = ModelConfig(
    vocab_size=50,
    d_model=12,
    n_heads=3,
    d_ff=20,
    n_layers=2,
    max_len=9,
    activation="gelu",
    dropout=0.25,
    ln_eps=1e-6,
    tie_weights=False,
)
# a config.json where every number differs, so a field read from the wrong key shows
FULL = {
    "model_type": "gpt2",
    "architectures": ["GPT2LMHeadModel"],
    "vocab_size": 50,
    "n_embd": 12,
    "n_head": 3,
    "n_layer": 2,
    "n_inner": 20,
    "n_positions": 9,
    "activation_function": "gelu",
    "layer_norm_epsilon": 1e-6,
    "resid_pdrop": 0.25,
    "embd_pdrop": 0.25,
    "attn_pdrop": 0.25,
    "tie_word_embeddings": False,
    "scale_attn_weights": True,
    "scale_attn_by_inverse_layer_idx": False,
    "reorder_and_upcast_attn": False,
    "add_cross_attention": False,
    "initializer_range": 0.02,
    "use_cache": True,
}
MINIMAL = {"vocab_size": 50, "n_embd": 12, "n_head": 3, "n_layer": 2, "n_positions": 9}


def test_every_field_of_a_config_json_is_read():
    assert config_from_gpt2(FULL) == ModelConfig(
        kind="gpt",
        vocab_size=50,
        d_model=12,
        n_heads=3,
        d_ff=20,
        n_layers=2,
        max_len=9,
        dropout=0.25,
        bias=True,
        activation="gelu",
        norm="pre",
        final_norm=True,
        position="learned",
        causal=True,
        tie_weights=False,
        init="gpt2",
        ln_eps=1e-6,
    )


def test_a_config_with_only_the_required_numbers_gets_gpt2s_defaults():
    """n_inner absent (or null) is 4·n_embd; dropout 0.1 from resid_pdrop; GELU-tanh; a tied head; eps 1e-5."""
    want = ModelConfig(
        vocab_size=50,
        d_model=12,
        n_heads=3,
        d_ff=48,
        n_layers=2,
        max_len=9,
        dropout=0.1,
        activation="gelu_tanh",
        tie_weights=True,
        init="gpt2",
        ln_eps=1e-5,
    )
    assert config_from_gpt2(MINIMAL) == want
    assert config_from_gpt2({**MINIMAL, "n_inner": None}) == want
    assert config_from_gpt2(SimpleNamespace(**MINIMAL)) == want  # a GPT2Config object, read by attribute


@pytest.mark.parametrize(
    "theirs, ours", [("gelu_new", "gelu_tanh"), ("gelu_pytorch_tanh", "gelu_tanh"), ("gelu", "gelu"), ("relu", "relu")]
)
def test_each_gpt2_activation_maps_to_its_glassformer_name(theirs, ours):
    assert config_from_gpt2({**MINIMAL, "activation_function": theirs}).activation == ours


def test_the_flags_are_accepted_at_their_standard_values_and_the_trunk_alone_is_accepted():
    standard = {
        "scale_attn_weights": True,
        "scale_attn_by_inverse_layer_idx": False,
        "reorder_and_upcast_attn": False,
        "add_cross_attention": False,
    }
    assert config_from_gpt2({**MINIMAL, **standard, "architectures": ["GPT2Model"]}).n_layers == 2
    assert config_from_gpt2({**MINIMAL, "architectures": []}).n_layers == 2
    assert config_from_gpt2({**MINIMAL, "tie_word_embeddings": False}).tie_weights is False
    refusals = [  # 0, "yes" and true are read as they are, never coerced
        ("tie_word_embeddings", 0, "error.gpt2.cannot_build"),
        ("scale_attn_weights", "yes", "error.gpt2.flag_type"),
        ("n_head", True, "error.gpt2.lacks_numbers"),
        ("activation_function", [], "error.gpt2.activation_in"),
        ("architectures", 5, "error.gpt2.architectures"),
    ]
    for field, value, key in refusals:
        with pytest.raises((DamagedFile, UsageError)) as caught:
            config_from_gpt2({**MINIMAL, field: value})
        assert caught.value.key == key, (field, value)


REFUSALS = [
    (
        {"model_type": "bert"},
        UsageError,
        "S has model_type='bert': only GPT-2 (model_type \"gpt2\") can be imported.",
        "S 写的是 model_type='bert'：只能导入 GPT-2（model_type \"gpt2\"）。",
    ),
    (
        {"architectures": ["GPT2LMHeadModel", "BertModel"]},
        UsageError,
        "S has architectures=['GPT2LMHeadModel', 'BertModel']: glassformer's GPT holds GPT2LMHeadModel or GPT2Model, "
        "not another head.",
        "S 写的是 architectures=['GPT2LMHeadModel', 'BertModel']：glassformer 的 GPT 只能容纳 GPT2LMHeadModel 或 "
        "GPT2Model，不能是别的输出头。",
    ),
    (
        {"scale_attn_weights": False},
        UsageError,
        "S has scale_attn_weights=False, which changes the attention glassformer computes; port only standard GPT-2 "
        "configs.",
        "S 写的是 scale_attn_weights=False，这会改变 glassformer 计算的注意力；只能移植标准的 GPT-2 配置。",
    ),
    (
        {"scale_attn_by_inverse_layer_idx": True},
        UsageError,
        "S has scale_attn_by_inverse_layer_idx=True, which changes the attention glassformer computes; port only "
        "standard GPT-2 configs.",
        None,
    ),
    (
        {"reorder_and_upcast_attn": True},
        UsageError,
        "S has reorder_and_upcast_attn=True, which changes the attention glassformer computes; port only standard "
        "GPT-2 configs.",
        None,
    ),
    (
        {"add_cross_attention": True},
        UsageError,
        "S has add_cross_attention=True, which changes the attention glassformer computes; port only standard GPT-2 "
        "configs.",
        None,
    ),
    (
        {"activation_function": "swish"},
        UsageError,
        "S has activation_function='swish', which has no glassformer equivalent; supported: ['gelu', 'gelu_new', "
        "'gelu_pytorch_tanh', 'relu'].",
        "S 写的是 activation_function='swish'，glassformer 没有对应的激活函数；支持的有：['gelu', 'gelu_new', "
        "'gelu_pytorch_tanh', 'relu']。",
    ),
    (
        {"n_head": None, "n_positions": "9", "n_embd": 12.0},
        DamagedFile,
        "S lacks a whole number for n_embd, n_head, n_positions: it does not describe a GPT-2.",
        "S 缺少 n_embd, n_head, n_positions 的整数值：它描述的不是一个 GPT-2。",
    ),
    (
        {"n_embd": 13},
        DamagedFile,
        "S does not describe a GPT-2 glassformer can build: d_model=13 is not divisible by n_heads=3: each head gets "
        "d_model // n_heads features. Use n_heads=1 (nearest divisor) or change d_model to a multiple of 3.",
        "S 描述的不是 glassformer 能构建的 GPT-2：d_model=13 不能被 n_heads=3 整除：每个头分到 d_model // n_heads 个"
        "特征。请用 n_heads=1（最接近的约数），或把 d_model 改成 3 的倍数。",
    ),
    (
        {"resid_pdrop": 1.5},
        DamagedFile,
        "S does not describe a GPT-2 glassformer can build: dropout must be in [0, 1), got dropout=1.5.",
        None,
    ),
]


@pytest.mark.parametrize("change, error, en, zh", REFUSALS, ids=[str(list(r[0])[0]) for r in REFUSALS])
def test_each_config_refusal_word_for_word_in_both_languages(change, error, en, zh):
    for lang, want in (("en", en), ("zh", zh)):
        with speaking(lang), pytest.raises(error) as caught:
            config_from_gpt2({**MINIMAL, **change}, source="S")
        assert str(caught.value) == want if want is not None else str(caught.value).startswith("S ")


def test_a_refusal_names_gpt2config_when_no_source_is_given():
    with pytest.raises(UsageError) as caught:
        config_from_gpt2(SimpleNamespace(**MINIMAL, model_type="bert"))
    assert (caught.value.key, caught.value.fields) == (
        "error.gpt2.model_type",
        {"source": "GPT2Config", "found": "bert"},
    )


def test_gpt2_config_writes_every_field():
    assert gpt2_config(CFG) == FULL
    assert gpt2_config(
        replace(CFG, activation="gelu_tanh", tie_weights=True), {"bos_token_id": 7, "eos_token_id": 8}
    ) == {**FULL, "activation_function": "gelu_new", "tie_word_embeddings": True, "bos_token_id": 7, "eos_token_id": 8}
    assert gpt2_config(replace(CFG, activation="relu"))["activation_function"] == "relu"
    assert config_from_gpt2(gpt2_config(CFG)) == replace(CFG, init="gpt2")  # the round trip


def test_an_activation_gpt2_lacks_is_named_with_the_ones_it_has():
    """ModelConfig accepts only activations GPT-2 has today; a config object of a later activation is refused."""
    fields = {
        f: getattr(CFG, f) for f in ("kind", "norm", "final_norm", "position", "causal", "bias", "mha_style", "pad_id")
    }
    with pytest.raises(UsageError) as caught:
        gpt2_config(SimpleNamespace(**fields, activation="silu"))
    assert (caught.value.key, caught.value.fields) == (
        "error.gpt2.activation_out",
        {"found": "silu", "known": ["gelu", "gelu_tanh", "relu"]},
    )


def state(tie: bool = False, n_layers: int = 2) -> dict[str, torch.Tensor]:
    """glassformer GPT weights with every tensor distinct (so a swapped or untransposed tensor shows)."""
    from glassformer.models import build_model

    torch.manual_seed(0)
    model = build_model(replace(CFG, n_layers=n_layers, tie_weights=tie))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p))
        if not tie:
            model.head.bias.zero_()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_weights_go_out_under_gpt2_names_with_the_matrices_transposed():
    ours = state()
    theirs = state_dict_to_gpt2(ours, CFG)
    assert torch.equal(theirs["transformer.h.1.attn.c_attn.weight"], ours["blocks.1.attn.qkv.weight"].t())
    assert torch.equal(theirs["transformer.h.0.attn.c_attn.bias"], ours["blocks.0.attn.qkv.bias"])
    assert torch.equal(theirs["transformer.h.0.mlp.c_fc.weight"], ours["blocks.0.ffn.fc1.weight"].t())
    assert torch.equal(theirs["transformer.h.1.mlp.c_proj.weight"], ours["blocks.1.ffn.fc2.weight"].t())
    assert torch.equal(theirs["transformer.h.1.attn.c_proj.weight"], ours["blocks.1.attn.proj.weight"].t())
    assert torch.equal(theirs["transformer.h.1.ln_2.bias"], ours["blocks.1.ln2.bias"])
    assert torch.equal(theirs["transformer.wpe.weight"], ours["pos_embed.table.weight"])
    assert torch.equal(theirs["transformer.ln_f.weight"], ours["ln_final.weight"])
    assert torch.equal(theirs["lm_head.weight"], ours["head.weight"])
    assert all(v.is_contiguous() for v in theirs.values())
    assert len(theirs) == 4 + 2 * 12 + 1  # embeddings and final norm, 12 a block, the untied head
    back = state_dict_from_gpt2(theirs, 2, tied=False)
    assert back.keys() == ours.keys() and all(torch.equal(back[k], ours[k]) for k in ours)
    assert all(back[k].is_contiguous() for k in back)


def test_a_tied_model_goes_out_without_lm_head_and_comes_back_tied():
    ours = state(tie=True)
    theirs = state_dict_to_gpt2(ours, replace(CFG, tie_weights=True))
    assert "lm_head.weight" not in theirs and len(theirs) == 4 + 2 * 12
    back = state_dict_from_gpt2(theirs, 2)
    assert back["head.weight"] is back["tok_embed.table.weight"] and "head.bias" not in back
    # an lm_head equal to wte (as GPT2LMHeadModel saves it) is accepted
    again = state_dict_from_gpt2({**theirs, "lm_head.weight": theirs["transformer.wte.weight"].clone()}, 2)
    assert torch.equal(again["head.weight"], ours["tok_embed.table.weight"])


def test_an_untied_head_gets_a_zero_bias_of_its_own_dtype():
    theirs = {k: v.half() for k, v in state_dict_to_gpt2(state(), CFG).items()}
    back = state_dict_from_gpt2(theirs, 2, tied=False)
    assert back["head.bias"].dtype == torch.float16 and back["head.bias"].shape == (50,)
    assert not back["head.bias"].any()


def test_a_head_bias_gpt2_cannot_hold_is_refused_and_a_zero_one_is_not():
    ours = state()
    ours["head.bias"][3] = 0.5
    with pytest.raises(UsageError) as caught:
        state_dict_to_gpt2(ours, CFG)
    assert (caught.value.key, caught.value.fields) == ("error.gpt2.head_bias", {})
    ours["head.bias"][3] = -0.5  # the size counts, not the sign
    with pytest.raises(UsageError):
        state_dict_to_gpt2(ours, CFG)
    without = {k: v for k, v in state().items() if k != "head.bias"}
    assert "lm_head.weight" in state_dict_to_gpt2(without, CFG)


def test_missing_tensors_are_named_four_at_most_then_dots():
    theirs = state_dict_to_gpt2(state(), CFG)
    few = {k: v for k, v in theirs.items() if k != "transformer.h.1.ln_1.bias"}
    with pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(few, 2, tied=False, source="W")
    missing = "error.gpt2.tensors_missing"
    assert (caught.value.key, caught.value.fields) == (
        missing,
        {"source": "W", "names": "h.1.ln_1.bias", "more": "", "n_layers": 2},
    )
    trunk = {k: v for k, v in theirs.items() if ".h.1." not in k}  # one layer of two
    with pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(trunk, 2, tied=False)
    first_four = ["h.1.ln_1.weight", "h.1.ln_1.bias", "h.1.attn.c_attn.weight", "h.1.attn.c_attn.bias"]
    assert (caught.value.key, caught.value.fields) == (
        missing,
        {"source": t("gpt2.the_weights"), "names": ", ".join(first_four), "more": " ...", "n_layers": 2},
    )
    four = {
        k: v
        for k, v in theirs.items()
        if k
        not in {
            "transformer.h.1.ln_1.weight",
            "transformer.h.1.ln_1.bias",
            "transformer.h.1.ln_2.weight",
            "transformer.h.1.ln_2.bias",
        }
    }
    with speaking("zh"), pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(four, 2, tied=False)
    with speaking("zh"):
        the_weights = t("gpt2.the_weights")  # named in the language of the moment it was raised
    assert caught.value.fields["source"] == the_weights != t("gpt2.the_weights")
    assert caught.value.fields["names"].split(", ")[-1] == "h.1.ln_2.bias" and caught.value.fields["more"] == ""


def test_tensors_without_a_place_are_named_four_at_most_then_dots():
    theirs = state_dict_to_gpt2(state(), CFG)
    extra = {f"h.9.x{i}": torch.ones(1) for i in range(5)}
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, **extra}, 2, tied=False)
    unused = {"source": t("gpt2.the_weights"), "names": "h.9.x0, h.9.x1, h.9.x2, h.9.x3", "more": " ..."}
    assert (caught.value.key, caught.value.fields) == ("error.gpt2.tensors_unused", unused)
    # a saved causal mask is ignored only at the end of a name
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, "h.0.attn.bias.x": torch.ones(1)}, 2, tied=False)
    assert caught.value.fields == {**unused, "names": "h.0.attn.bias.x", "more": ""}


def test_the_head_refusals_name_the_weights():
    theirs = state_dict_to_gpt2(state(), CFG)
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2(theirs, 2, tied=True, source="W")
    assert (caught.value.key, caught.value.fields) == ("error.gpt2.head_untied", {"source": "W"})
    no_head = {k: v for k, v in theirs.items() if k != "lm_head.weight"}
    with pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(no_head, 2, tied=False)
    assert (caught.value.key, caught.value.fields) == ("error.gpt2.no_head", {"source": t("gpt2.the_weights")})


def test_gpt_from_gpt2_builds_the_model_in_the_weights_dtype():
    """A stand-in for a transformers GPT2LMHeadModel: its config, its parameters' dtype, its state_dict."""
    cfg = replace(CFG, tie_weights=True)
    theirs = {k: v.double() for k, v in state_dict_to_gpt2(state(tie=True), cfg).items()}
    hf = SimpleNamespace(
        config=SimpleNamespace(**gpt2_config(cfg)), parameters=lambda: iter(theirs.values()), state_dict=lambda: theirs
    )
    model = gpt_from_gpt2(hf)
    assert model.cfg == replace(cfg, init="gpt2")
    assert next(model.parameters()).dtype == torch.float64
    assert torch.equal(model.blocks[0].attn.qkv.weight, theirs["transformer.h.0.attn.c_attn.weight"].t())
    assert model.head.weight is model.tok_embed.table.weight

"""models/gpt2.py as a whole, without transformers (test_gpt2_import.py compares with the real
library, from a GPT-2 tests/kits/gpt2_kit.py saves with it).

The port: every field of a GPT-2 config read and written, every refusal word for word in English and
Chinese, every tensor placed (transposed where GPT-2's Conv1D stores (in, out)), the head tied or not.
The files: a tiny GPT and a hand-made byte-level tokenizer written as a GPT-2 folder and read back,
and the refusals, by code and fields."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.errors import Clause, DamagedFile, UsageError
from glassformer.messages import speaking, t
from glassformer.models import build_model
from glassformer.models.gpt2 import (
    config_from_gpt2,
    folder_fix,
    gpt2_config,
    gpt_from_gpt2,
    read_generation,
    read_gpt2_dir,
    state_dict_from_gpt2,
    state_dict_to_gpt2,
    write_gpt2_dir,
)
from glassformer.text.bpe import BYTE_TO_CHAR
from glassformer.text.gpt2_bpe import GPT2BPETokenizer

# ---- the port: a config and a state_dict, both ways -------------------------------------------------
CJK = re.compile("[\u4e00-\u9fff]")


def the_gpt2_weights(source) -> bool:
    """How a refusal names weights given no name: a clause of no fields that says GPT-2."""
    return isinstance(source, Clause) and source.fields == {} and "GPT-2" in str(source)


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
        ("tie_word_embeddings", 0, "gpt2.cannot_build"),
        ("scale_attn_weights", "yes", "gpt2.flag_type"),
        ("n_head", True, "gpt2.lacks_numbers"),
        ("activation_function", [], "gpt2.activation_in"),
        ("architectures", 5, "gpt2.architectures"),
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
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.model_type",
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
        f: getattr(CFG, f)
        for f in ("kind", "norm", "final_norm", "position", "causal", "bias", "mha_style", "pad_id", "ffn")
    }
    with pytest.raises(UsageError) as caught:
        gpt2_config(SimpleNamespace(**fields, activation="silu"))
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.activation_out",
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
    assert (caught.value.code, caught.value.fields) == ("gpt2.head_bias", {})
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
    missing = "gpt2.tensors_missing"
    assert (caught.value.key, caught.value.fields) == (
        missing,
        {"source": "W", "names": "h.1.ln_1.bias", "more": "", "n_layers": 2},
    )
    trunk = {k: v for k, v in theirs.items() if ".h.1." not in k}  # one layer of two
    with pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(trunk, 2, tied=False)
    first_four = ["h.1.ln_1.weight", "h.1.ln_1.bias", "h.1.attn.c_attn.weight", "h.1.attn.c_attn.bias"]
    fields = dict(caught.value.fields)
    assert the_gpt2_weights(fields.pop("source"))
    assert (caught.value.key, fields) == (missing, {"names": ", ".join(first_four), "more": " ...", "n_layers": 2})
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
    source = caught.value.fields["source"]  # shown now, in English: named in the language it was raised in
    assert the_gpt2_weights(source) and CJK.search(str(source))
    assert caught.value.fields["names"].split(", ")[-1] == "h.1.ln_2.bias" and caught.value.fields["more"] == ""


def test_tensors_without_a_place_are_named_four_at_most_then_dots():
    theirs = state_dict_to_gpt2(state(), CFG)
    extra = {f"h.9.x{i}": torch.ones(1) for i in range(5)}
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, **extra}, 2, tied=False)
    assert the_gpt2_weights(caught.value.fields["source"])
    unused = {"source": caught.value.fields["source"], "names": "h.9.x0, h.9.x1, h.9.x2, h.9.x3", "more": " ..."}
    assert (caught.value.code, caught.value.fields) == ("gpt2.tensors_unused", unused)
    del extra["h.9.x4"]  # exactly four: all named, no dots (sample O's survivor: `>= 4`)
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, **extra}, 2, tied=False)
    assert caught.value.fields == {**unused, "more": ""}
    # a saved causal mask is ignored only at the end of a name
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, "h.0.attn.bias.x": torch.ones(1)}, 2, tied=False)
    assert caught.value.fields == {**unused, "names": "h.0.attn.bias.x", "more": ""}


def test_the_head_refusals_name_the_weights():
    theirs = state_dict_to_gpt2(state(), CFG)
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2(theirs, 2, tied=True, source="W")
    assert (caught.value.code, caught.value.fields) == ("gpt2.head_untied", {"source": "W"})
    no_head = {k: v for k, v in theirs.items() if k != "lm_head.weight"}
    with pytest.raises(DamagedFile) as caught:
        state_dict_from_gpt2(no_head, 2, tied=False)
    assert caught.value.code == "gpt2.no_head" and list(caught.value.fields) == ["source"]
    assert the_gpt2_weights(caught.value.fields["source"])


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


# ---- the files: GPT-2 folders written and read back -------------------------------------------------
EOT = "<|endoftext|>"
FOLDER_CFG = ModelConfig(vocab_size=258, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, activation="gelu_tanh")


def tokenizer() -> GPT2BPETokenizer:
    """The 256 byte tokens, one merge ("h", "e") and GPT-2's special token: ids 0..257."""
    return GPT2BPETokenizer([BYTE_TO_CHAR[b] for b in range(256)] + ["he", EOT], [("h", "e")], [EOT])


def gpt() -> torch.nn.Module:
    torch.manual_seed(0)
    model = build_model(FOLDER_CFG)
    with torch.no_grad():
        model.head.bias.zero_()  # GPT-2's lm_head has no bias
    return model


def test_the_special_token_is_one_id_matched_literally():
    tok = tokenizer()
    assert tok.encode("he<|endoftext|>h") == [256, 257, 104]
    assert tok.encode("<|endoftext|><|endoftext|>") == [257, 257]
    assert tok.decode([256, 257, 104]) == "he<|endoftext|>h"


def test_a_gpt2_folder_round_trips_weights_and_tokenizer(tmp_path):
    model, tok = gpt(), tokenizer()
    write_gpt2_dir(model, tok, tmp_path)
    back, tok_back, weights = read_gpt2_dir(tmp_path)
    assert weights == "model.safetensors" and not back.training
    mine, theirs = model.state_dict(), back.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert tok_back.encode("he<|endoftext|>h") == [256, 257, 104]
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert config["bos_token_id"] == config["eos_token_id"] == 257  # <|endoftext|> bounds documents
    plain = GPT2BPETokenizer([BYTE_TO_CHAR[b] for b in range(256)] + ["he"], [("h", "e")])
    no_special = replace(FOLDER_CFG, vocab_size=257)
    torch.manual_seed(0)
    small = build_model(no_special)
    with torch.no_grad():
        small.head.bias.zero_()
    write_gpt2_dir(small, plain, tmp_path / "plain")
    config = json.loads((tmp_path / "plain" / "config.json").read_text(encoding="utf-8"))
    assert "bos_token_id" not in config and "eos_token_id" not in config  # no such token: no such id


def test_an_old_pytorch_model_bin_that_is_damaged_is_named(tmp_path):
    """pytorch_model.bin is the old layout; bytes torch cannot read are refused with torch's own
    first line, never unpickled."""
    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    (tmp_path / "model.safetensors").unlink()
    whole = io.BytesIO()
    torch.save(state_dict_to_gpt2(gpt().state_dict(), FOLDER_CFG), whole)
    (tmp_path / "pytorch_model.bin").write_bytes(whole.getvalue()[:1000])  # cut short, as by a failed copy
    with pytest.raises(Exception) as torch_said:
        torch.load(tmp_path / "pytorch_model.bin", weights_only=True)
    first = str(torch_said.value).splitlines()[0][:200]  # torch's first line, as torch said it
    key, fields = keyed(tmp_path)
    why = fields.pop("why")
    assert (key, fields) == ("gpt2.bin_refused", {"path": tmp_path / "pytorch_model.bin", "fix": t(FIX)})
    assert isinstance(why, Clause) and why.fields == {"detail": first} and first in str(why)


def test_a_config_of_another_model_type_is_refused(tmp_path):
    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    (tmp_path / "config.json").write_text(json.dumps({**config, "model_type": "llama"}), encoding="utf-8")
    assert keyed(tmp_path, UsageError) == (
        "gpt2.model_type",
        {"source": str(tmp_path / "config.json"), "found": "llama"},
    )


def test_import_then_export_gives_back_the_same_folder_contents(tmp_path):
    """`glassformer import gpt2` then `export gpt2`: a run in between, and the same weights, config
    and tokenizer come out (the tokenizer also through the run's tokenizer.json and back)."""
    from glassformer.text.tokenizers import load_tokenizer
    from glassformer.train.run import export_gpt2, import_gpt2

    write_gpt2_dir(gpt(), tokenizer(), tmp_path / "hf")
    run = import_gpt2(tmp_path / "hf", tmp_path / "run")
    saved = load_tokenizer(run / "tokenizer.json")  # GPT2BPETokenizer.from_dict(to_dict())
    assert saved.specials == [EOT] and saved.encode("he<|endoftext|>h") == [256, 257, 104]
    out = export_gpt2(run, tmp_path / "out")
    before, after = read_gpt2_dir(tmp_path / "hf"), read_gpt2_dir(out)
    assert all(
        torch.equal(a, b) for a, b in zip(before[0].state_dict().values(), after[0].state_dict().values(), strict=False)
    )
    for name in ("config.json", "vocab.json", "merges.txt"):
        assert (out / name).read_bytes() == (tmp_path / "hf" / name).read_bytes(), name


def test_weights_of_another_shape_name_the_last_mismatch(tmp_path):
    """torch lists every mismatched tensor, one per line after a heading; the message keeps its last
    line (a real mismatch, never the heading)."""
    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    _wider_mlp_out(tmp_path)
    with pytest.raises(DamagedFile) as caught:
        read_gpt2_dir(tmp_path)
    assert str(caught.value).startswith(
        f"the weights in {tmp_path / 'model.safetensors'} do not fit "
        f"{tmp_path / 'config.json'} (size mismatch for blocks.1.ffn."
    )


def _wider_mlp_out(folder) -> None:
    """Layer 1's MLP output matrix (d_ff, C) saved 48 rows tall: a shape no config.json field sizes
    (a config's own sizes are checked against the weights before the model is built: check_sizes)."""
    from safetensors.torch import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    tensors["transformer.h.1.mlp.c_proj.weight"] = torch.zeros(
        48, FOLDER_CFG.d_model
    )  # (48, C) where (d_ff, C) belongs
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def test_sharded_weights_and_a_lone_tokenizer_json_are_read(tmp_path):
    """A large model comes as shards named by model.safetensors.index.json, and a tokenizer may come
    as tokenizer.json alone (no vocab.json / merges.txt): both read into the same model and ids."""
    from safetensors.torch import load_file, save_file

    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    tensors = load_file(tmp_path / "model.safetensors")
    names = sorted(tensors)
    shards = {"model-1-of-2.safetensors": names[::2], "model-2-of-2.safetensors": names[1::2]}
    for shard, part in shards.items():
        save_file({k: tensors[k] for k in part}, tmp_path / shard)
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {k: shard for shard, part in shards.items() for k in part}}), encoding="utf-8"
    )
    (tmp_path / "model.safetensors").unlink()
    tokenizer().hf.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "vocab.json").unlink()
    (tmp_path / "merges.txt").unlink()
    model, tok, weights = read_gpt2_dir(tmp_path)
    assert weights == "model.safetensors.index.json"
    mine = gpt().state_dict()
    assert all(torch.equal(model.state_dict()[k], mine[k]) for k in mine)
    assert tok.encode("he<|endoftext|>h") == [256, 257, 104]


@pytest.mark.parametrize(
    "path, value",
    [(("normalizer",), {"type": "NFC"}), (("model", "dropout"), 0.1), (("pre_tokenizer", "add_prefix_space"), True)],
)
def test_a_tokenizer_json_that_would_give_other_ids_is_refused_naming_the_field(tmp_path, path, value):
    """tokenizer.json settings under which transformers' ids would differ from GPT-2's (a normalizer,
    BPE dropout, a prefix space) are refused, naming the field and the value found."""
    from glassformer.text.gpt2_bpe import read_tokenizer_dir

    tokenizer().hf.save(str(tmp_path / "tokenizer.json"))
    d = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    read_tokenizer_dir(tmp_path)  # as saved: accepted
    (d[path[0]] if len(path) == 2 else d)[path[-1]] = value
    (tmp_path / "tokenizer.json").write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        read_tokenizer_dir(tmp_path)
    assert str(caught.value).startswith(
        f"{tmp_path / 'tokenizer.json'} has {'.'.join(path)}={json.dumps(value)}, not GPT-2's "
    )


def test_a_file_given_for_the_folder_is_named_as_a_file(tmp_path):
    from glassformer.errors import NotFound

    (tmp_path / "model.safetensors").write_bytes(b"")
    for given, said in ((tmp_path / "model.safetensors", " (it is a file)"), (tmp_path / "nowhere", "")):
        with pytest.raises(NotFound) as caught:
            read_gpt2_dir(given)
        assert str(caught.value).startswith(f"{given} is not a directory{said}: give the folder that holds")


def test_a_gpt2config_object_missing_optional_fields_gets_their_defaults():
    """transformers' GPT2Config is read by attribute: a field the object lacks takes its default, as
    in a config.json dict (model_type "gpt2", no architectures list)."""
    fields = {k: v for k, v in gpt2_config(FOLDER_CFG).items() if k not in ("model_type", "architectures")}
    assert config_from_gpt2(SimpleNamespace(**fields)) == config_from_gpt2(fields)
    assert config_from_gpt2(fields).n_layers == 2 and config_from_gpt2(fields).d_ff == 32


def test_a_damaged_weights_file_is_named(tmp_path):
    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"\x00garbage, not safetensors")
    with pytest.raises(DamagedFile) as caught:
        read_gpt2_dir(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'model.safetensors'} is not a readable safetensors file (")


def test_every_tensor_is_placed_or_refused_by_name():
    """Old checkpoints' saved causal masks (attn.bias, attn.masked_bias) are ignored; a tensor with no
    place (another layer, another head) is refused by name, never dropped silently."""
    theirs = state_dict_to_gpt2(gpt().state_dict(), FOLDER_CFG)
    ours = state_dict_from_gpt2(
        {**theirs, "h.0.attn.bias": torch.ones(1), "h.1.attn.masked_bias": torch.ones(1)}, 2, tied=False
    )
    mine = gpt().state_dict()
    assert ours.keys() == mine.keys() and all(torch.equal(ours[k], mine[k]) for k in mine)
    with pytest.raises(UsageError) as caught:
        state_dict_from_gpt2({**theirs, "h.2.mlp.c_fc.weight": torch.ones(1)}, 2, tied=False, source="the weights")
    # snapshot: the source field is the test's own value ("the weights"), passed in and given back
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.tensors_unused",
        {"source": "the weights", "names": "h.2.mlp.c_fc.weight", "more": ""},
    )


@pytest.mark.parametrize(
    "field, value",
    [
        ("kind", "encoder"),
        ("norm", "post"),
        ("final_norm", False),
        ("position", "rotary"),
        ("bias", False),
        ("mha_style", "heads"),
    ],
)
def test_gpt2_config_names_the_first_field_gpt2_lacks(field, value):
    assert gpt2_config(FOLDER_CFG)["n_layer"] == 2  # the shape GPT-2 has is accepted
    with pytest.raises(UsageError) as caught:
        gpt2_config(replace(FOLDER_CFG, **{field: value}))
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.field_out",
        {"field": field, "found": value, "want": getattr(FOLDER_CFG, field)},
    )


FIX = folder_fix().message  # the sentence every refusal of a GPT-2 folder ends with


def folder(tmp_path):
    write_gpt2_dir(gpt(), tokenizer(), tmp_path)
    return tmp_path


def refusal(path, error=DamagedFile) -> str:
    with pytest.raises(error) as caught:
        read_gpt2_dir(path)
    return str(caught.value)


def keyed(path, error=DamagedFile) -> tuple[str, dict]:
    """The key and fields of read_gpt2_dir's refusal: what a test pins (the words are the catalogue's)."""
    with pytest.raises(error) as caught:
        read_gpt2_dir(path)
    return caught.value.key, caught.value.fields


def test_a_config_json_that_is_not_an_object_is_named(tmp_path):
    (folder(tmp_path) / "config.json").write_text("[1, 2]", encoding="utf-8")
    assert keyed(tmp_path) == ("gpt2.not_object", {"path": tmp_path / "config.json", "fix": t(FIX)})
    english = refusal(tmp_path)  # the path first, the fix last
    assert english.startswith(f"{tmp_path / 'config.json'} ") and english.endswith(t(FIX))
    with speaking("zh"):
        chinese = refusal(tmp_path)
        assert chinese.startswith(f"{tmp_path / 'config.json'} ") and chinese.endswith(t(FIX))
    assert chinese != english and CJK.search(chinese)


@pytest.mark.parametrize("index", [{}, {"weight_map": {}}, {"weight_map": None}, ["model-1.safetensors"]])
def test_an_index_that_names_no_shards_is_named(tmp_path, index):
    (folder(tmp_path) / "model.safetensors").unlink()
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index), encoding="utf-8")
    assert keyed(tmp_path) == (
        "gpt2.no_shards",
        {"path": tmp_path / "model.safetensors.index.json", "fix": t(FIX)},
    )


def test_a_shard_the_index_names_but_that_is_not_there_is_named(tmp_path):
    from glassformer.errors import NotFound

    (folder(tmp_path) / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"wte.weight": "gone.safetensors"}}), encoding="utf-8"
    )
    (tmp_path / "model.safetensors").unlink()
    assert keyed(tmp_path, NotFound) == (
        "gpt2.shard_missing",
        {"path": tmp_path / "gone.safetensors", "fix": t(FIX)},
    )


def test_a_folder_without_weights_names_the_three_files_it_looks_for(tmp_path):
    from glassformer.errors import NotFound

    (folder(tmp_path) / "model.safetensors").unlink()
    (tmp_path / "pytorch_model.bin").mkdir()  # a folder of that name is no weights file
    assert keyed(tmp_path, NotFound) == (
        "gpt2.no_weights",
        {
            "path": tmp_path,
            "files": "model.safetensors, model.safetensors.index.json, pytorch_model.bin",
            "fix": t(FIX),
        },
    )


def test_model_safetensors_is_read_first_and_a_whole_pytorch_model_bin_is_read(tmp_path):
    folder(tmp_path)
    bin_state = state_dict_to_gpt2(gpt().state_dict(), FOLDER_CFG)
    torch.save({k: v.half() for k, v in bin_state.items()}, tmp_path / "pytorch_model.bin")
    assert read_gpt2_dir(tmp_path)[2] == "model.safetensors"
    (tmp_path / "model.safetensors").unlink()
    model, _, weights = read_gpt2_dir(tmp_path)
    assert weights == "pytorch_model.bin"
    mine = gpt().state_dict()
    assert all(v.dtype == torch.float32 for v in model.state_dict().values())  # half weights read as float
    assert all(torch.equal(model.state_dict()[k], mine[k].half().float()) for k in mine)


@pytest.mark.parametrize("content", [[1, 2], {"wte.weight": 3}])
def test_a_pytorch_model_bin_that_is_no_state_dict_is_named(tmp_path, content):
    (folder(tmp_path) / "model.safetensors").unlink()
    torch.save(content, tmp_path / "pytorch_model.bin")
    assert keyed(tmp_path) == ("gpt2.bin_not_state", {"path": tmp_path / "pytorch_model.bin", "fix": t(FIX)})


def test_a_pickle_that_holds_objects_is_refused_never_unpickled(tmp_path):
    (folder(tmp_path) / "model.safetensors").unlink()
    torch.save({"wte.weight": torch.zeros(1), "x": io.BytesIO(b"")}, tmp_path / "pytorch_model.bin")
    key, fields = keyed(tmp_path)
    why = fields.pop("why")
    assert (key, fields) == ("gpt2.bin_refused", {"path": tmp_path / "pytorch_model.bin", "fix": t(FIX)})
    assert isinstance(why, Clause) and why.fields == {}  # not the damaged file's clause, which quotes torch


def test_a_config_and_tokenizer_of_different_sizes_are_named(tmp_path):
    config = json.loads((folder(tmp_path) / "config.json").read_text(encoding="utf-8"))
    (tmp_path / "config.json").write_text(json.dumps({**config, "vocab_size": 259}), encoding="utf-8")
    assert keyed(tmp_path, UsageError) == (  # said before the weights are found not to fit
        "gpt2.vocab_differs",
        {"path": tmp_path / "config.json", "vocab_size": 259, "tokens": 258},
    )


def test_the_written_folder_holds_an_indented_config_and_float_weights_marked_pt(tmp_path):
    from safetensors import safe_open

    model = gpt().double()
    write_gpt2_dir(model, tokenizer(), tmp_path / "a" / "b")  # folders made
    text = (tmp_path / "a" / "b" / "config.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2) + "\n"
    assert json.loads(text) == gpt2_config(FOLDER_CFG, {"bos_token_id": 257, "eos_token_id": 257})
    with safe_open(str(tmp_path / "a" / "b" / "model.safetensors"), "pt") as f:
        assert f.metadata() == {"format": "pt"}
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float32}
        assert set(f.keys()) == set(state_dict_to_gpt2(model.state_dict(), FOLDER_CFG))
    assert {p.name for p in (tmp_path / "a" / "b").iterdir()} >= {
        "config.json",
        "model.safetensors",
        "vocab.json",
        "merges.txt",
    }
    tokenizer_config = json.loads((tmp_path / "a" / "b" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert tokenizer_config["model_max_length"] == FOLDER_CFG.max_len == 16


def test_a_tokenizer_gpt2_cannot_hold_is_named_before_any_file_is_written(tmp_path):
    from glassformer.text.tokenizers import CharTokenizer

    with pytest.raises(UsageError) as caught:
        write_gpt2_dir(gpt(), CharTokenizer("ab"), tmp_path / "out")
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.export_tokenizer",
        {"kind": "char", "gpt2": "gpt2-bpe"},
    )
    assert not (tmp_path / "out").exists()
    with pytest.raises(UsageError) as caught:  # an object that is no tokenizer at all
        write_gpt2_dir(gpt(), object(), tmp_path / "out")
    assert str(caught.value).startswith("this run's tokenizer is None; transformers' GPT2Tokenizer holds only")


def test_a_missing_or_broken_config_json_is_named_with_the_fix(tmp_path):
    from glassformer.errors import NotFound

    (folder(tmp_path) / "config.json").write_text("{bad", encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as parser:
        json.loads("{bad")
    assert keyed(tmp_path) == (
        "files.json",
        {"path": tmp_path / "config.json", "reason": parser.value.msg, "line": 1, "column": 2, "fix": t(FIX)},
    )
    (tmp_path / "config.json").unlink()
    assert keyed(tmp_path, NotFound) == ("files.missing", {"path": tmp_path / "config.json", "fix": t(FIX)})


def test_weights_that_do_not_fit_name_the_last_mismatch_whole(tmp_path):
    _wider_mlp_out(folder(tmp_path))
    key, fields = keyed(tmp_path)
    assert (key, fields["path"], fields["config"]) == (
        "gpt2.weights_fit",
        tmp_path / "model.safetensors",
        tmp_path / "config.json",
    )
    detail = fields["detail"]  # torch's whole line, the last mismatch: its name, both shapes, to the end
    shapes = ("torch.Size([16, 48])", "torch.Size([16, 32])")  # in the file, in the model
    assert all(detail.count(part) == 1 for part in ("blocks.1.ffn.fc2.weight", *shapes))
    assert "\n" not in detail and detail.index(shapes[0]) < detail.index(shapes[1])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("n_inner", 48),
        ("n_inner", 10**9),
        ("n_embd", 10**9),  # a (258, 10**9) table was allocated before the weights were looked at
        ("n_positions", 10**12),
    ],
)
def test_a_config_size_the_weights_lack_is_named_before_the_model_is_built(tmp_path, field, value):
    config = json.loads((folder(tmp_path) / "config.json").read_text(encoding="utf-8"))
    (tmp_path / "config.json").write_text(json.dumps({**config, field: value}), encoding="utf-8")
    key, fields = keyed(tmp_path)
    sized_by = {"n_inner": ("h.0.mlp.c_fc.weight", [16, 32]), "n_embd": ("wte.weight", [258, 16])}
    name, shape = sized_by.get(field, ("wpe.weight", [16, 16]))
    assert (key, fields["field"], fields["value"], fields["name"], fields["shape"]) == (
        "gpt2.weight_size",
        field,
        value,
        name,
        shape,
    )
    assert fields["config"] == str(tmp_path / "config.json")


def test_a_tensor_missing_from_the_file_is_named_with_the_file(tmp_path):
    from safetensors.torch import load_file, save_file

    tensors = load_file(folder(tmp_path) / "model.safetensors")
    del tensors["transformer.h.1.ln_2.bias"]
    save_file(tensors, tmp_path / "model.safetensors")
    key, fields = keyed(tmp_path)
    source = fields.pop("source")  # the weights named by their file
    assert (key, fields) == ("gpt2.tensors_missing", {"names": "h.1.ln_2.bias", "more": "", "n_layers": 2})
    assert isinstance(source, Clause) and source.fields == {"path": tmp_path / "model.safetensors"}
    assert str(tmp_path / "model.safetensors") in str(source)


def test_a_tied_gpt2_folder_round_trips_with_its_head_tied(tmp_path):
    torch.manual_seed(0)
    tied = build_model(replace(FOLDER_CFG, tie_weights=True))
    write_gpt2_dir(tied, tokenizer(), tmp_path)
    assert json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))["tie_word_embeddings"] is True
    back = read_gpt2_dir(tmp_path)[0]
    assert back.cfg.tie_weights and back.head.weight is back.tok_embed.table.weight
    assert torch.equal(back.head.weight, tied.head.weight)


def test_an_imported_runs_config_and_every_refusal_of_import_and_export(tmp_path):
    """import_gpt2's config.json field by field (no source, its origin, train settings cut to the
    model's positions, step 0 weights, no lock left), and each --out it refuses, by code and fields."""
    from glassformer.config import TrainConfig
    from glassformer.errors import UsageError
    from glassformer.train.checkpoint import read_weights
    from glassformer.train.run import export_gpt2, import_gpt2

    write_gpt2_dir(gpt(), tokenizer(), tmp_path / "hf")
    run = import_gpt2(str(tmp_path / "hf"), str(tmp_path / "run"))
    assert run == tmp_path / "run"
    text = (run / "config.json").read_text()
    config = json.loads(text)
    hf = (tmp_path / "hf").resolve()
    assert text.endswith("}\n") and '\n  "about"' in text
    assert list(config) == ["about", "imported", "model", "train"]
    assert str(hf) in config["about"] and "GPT-2" in config["about"] and not CJK.search(config["about"])
    with speaking("zh"):  # the line a user reads is in their language (it was typed in English once)
        zh = json.loads((import_gpt2(tmp_path / "hf", tmp_path / "run_zh") / "config.json").read_text())
    assert str(hf) in zh["about"] and "GPT-2" in zh["about"] and CJK.search(zh["about"])
    assert config["imported"]["format"] == "gpt2" and config["imported"]["from"] == str(hf)
    assert config["imported"]["weights"] == read_gpt2_dir(tmp_path / "hf")[2]
    assert config["model"]["d_model"] == 16 and config["train"]["seq_len"] == min(TrainConfig().seq_len, 16)
    assert config["train"]["lr"] == TrainConfig().lr
    assert read_weights(run / "model.safetensors")[2] == 0 and not (run / "train.lock").exists()
    with pytest.raises(UsageError) as e:
        import_gpt2(tmp_path / "hf", run)
    assert (e.value.code, e.value.fields) == (
        "gpt2.has_checkpoint",
        {"out": run, "weights": run / "model.safetensors"},
    )
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError) as e:
        import_gpt2(tmp_path / "hf", tmp_path / "file")
    assert (e.value.code, e.value.fields) == ("run.out_is_file", {"dir": tmp_path / "file"})
    with pytest.raises(UsageError) as e:
        export_gpt2(run, tmp_path / "file")
    assert (e.value.code, e.value.fields) == ("gpt2.export_out_file", {"out": tmp_path / "file"})
    with pytest.raises(UsageError) as e:
        export_gpt2(run, tmp_path / "hf")
    assert (e.value.code, e.value.fields) == ("gpt2.export_out_full", {"out": tmp_path / "hf"})
    (tmp_path / "empty").mkdir()
    assert export_gpt2(str(run), str(tmp_path / "empty")) == tmp_path / "empty"  # an empty folder is fine
    with pytest.raises(Exception, match="best.safetensors"):
        export_gpt2(run, tmp_path / "new", best=True)


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool])
def test_weights_that_are_not_floating_point_are_named_with_their_dtype(dtype):
    """The error's fields name the tensor and its dtype (sample P's survivor: the dtype field "None")."""
    from glassformer.models.gpt2 import check_weights

    weights = {"transformer.h.0.ln_1.weight": torch.ones(4), "transformer.wte.weight": torch.zeros(3, 4, dtype=dtype)}
    with pytest.raises(DamagedFile) as caught:
        check_weights(weights, "model.safetensors")
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.weight_dtype",
        {"source": "model.safetensors", "name": "transformer.wte.weight", "dtype": str(dtype)},
    )


def test_gpt_from_gpt2_keeps_an_untied_head_its_own():
    """A GPT-2 whose config unties the head (tie_word_embeddings false) has an lm_head.weight of its
    own: the port is told so, and the head keeps those weights (sample S's survivor dropped the flag,
    so the untied checkpoint was read as a tied one and refused)."""
    cfg = replace(CFG, tie_weights=False)
    theirs = state_dict_to_gpt2(state(tie=False), cfg)
    hf = SimpleNamespace(
        config=SimpleNamespace(**gpt2_config(cfg)), parameters=lambda: iter(theirs.values()), state_dict=lambda: theirs
    )
    model = gpt_from_gpt2(hf)
    assert model.cfg.tie_weights is False and model.head.weight is not model.tok_embed.table.weight
    assert torch.equal(model.head.weight, theirs["lm_head.weight"])
    assert not torch.equal(model.head.weight, model.tok_embed.table.weight)


def test_a_size_is_checked_against_the_weights_that_are_there_when_another_tensor_is_missing():
    """check_sizes skips a size whose tensor is missing (state_dict_from_gpt2 names every missing one
    later) and still checks the rest (sample T's survivor stopped at the first missing one)."""
    from glassformer.models.gpt2 import check_sizes

    cfg = replace(CFG, max_len=64)
    held = {"transformer.wpe.weight": torch.zeros(CFG.max_len, CFG.d_model)}  # no wte, no c_fc
    with pytest.raises(DamagedFile) as caught:
        check_sizes(held, cfg, "W", "C")
    assert caught.value.code == "gpt2.weight_size"
    assert (caught.value.fields["field"], caught.value.fields["name"]) == ("n_positions", "wpe.weight")
    check_sizes(held, replace(cfg, max_len=CFG.max_len), "W", "C")  # the one held fits: nothing to say


@pytest.mark.parametrize("held", [[50256], "eos", 3])
def test_a_generation_config_that_holds_no_object_is_refused_naming_the_file_and_the_fix(tmp_path, held):
    file = tmp_path / "generation_config.json"
    file.write_text(json.dumps(held))
    with pytest.raises(DamagedFile) as e:
        read_generation(tmp_path, 50257)
    assert (e.value.code, e.value.fields) == ("gpt2.not_object", {"path": file, "fix": folder_fix()})

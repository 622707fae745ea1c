"""The views read an encoder-decoder through its hook points: trace, attention maps, parameters."""

from __future__ import annotations

import pytest
import torch
from lesson_checks import assert_valid_png

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect import attention_grid_png, attention_head_png, attention_map_list, attention_maps, trace
from glassformer.inspect.params import activation_memory
from glassformer.messages import translated
from glassformer.models import EncoderDecoder
from glassformer.train.data import pair_source

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

DATA = pair_source("numbers:zh2num")


def model(**changes) -> EncoderDecoder:
    torch.manual_seed(0)
    cfg = ModelConfig(
        kind="seq2seq",
        vocab_size=DATA.tokenizer.vocab_size,
        d_model=16,
        n_heads=2,
        d_ff=24,
        max_len=12,
        pad_id=0,
        **{"n_layers": 2, **changes},
    )
    return EncoderDecoder(cfg).eval()


def example(pad: int = 0):
    src = torch.tensor([DATA.ids("一千二百零五") + [0] * pad])  # (1, S)
    tgt = torch.tensor([[DATA.tokenizer.bos_id] + DATA.ids("1205")])  # (1, T): <BOS> 1 2 0 5
    return src, tgt


def test_trace_has_source_and_target_rows_in_data_flow_order():
    src, tgt = example()
    y = torch.tensor([DATA.ids("1205") + [DATA.tokenizer.eos_id]])
    t = trace(model(), (src, tgt), DATA.tokenizer, targets=y, lang="zh")
    rows = {r.name: r for r in t.rows}
    names = [r.name for r in t.rows]
    order = [
        "src ids",
        "tgt ids",
        "src_embed",
        "encoder.0.attn.weights",
        "memory",
        "tgt_embed",
        "decoder.0.attn.weights",
        "decoder.0.cross.k",
        "decoder.0.cross.weights",
        "decoder.1.cross.out",
        "logits",
        "softmax(logits)",
        "loss",
    ]
    assert [n for n in names if n in order] == order
    assert rows["src ids"].dims == "(B=1, S=6)" and rows["tgt pieces"].example == "<BOS> 1 2 0 5"
    assert rows["decoder.0.cross.weights"].dims == "(B=1, H=2, T_q=5, S=6)"
    assert rows["encoder.1.attn.q"].dims == "(B=1, H=2, S=6, D=8)"
    from glassformer.inspect.trace import LOSS_WORDS

    assert "S" in t.letters and rows["loss"].about == translated(LOSS_WORDS["label_smoothed"], "zh")


@pytest.mark.parametrize(
    "lang, about",
    [("en", "label-smoothed cross-entropy of the next target tokens"), ("zh", "下一个目标词元的标签平滑交叉熵")],
)
def test_the_loss_row_says_which_loss_in_each_language(lang, about):
    src, tgt = example()
    y = torch.tensor([DATA.ids("1205") + [DATA.tokenizer.eos_id]])
    loss_row = trace(model(), (src, tgt), DATA.tokenizer, targets=y, lang=lang).rows[-1]
    assert loss_row.name == "loss" and loss_row.about == about


def test_debug_shapes_prints_the_first_pair_of_a_batch_once(capsys):
    """--debug-shapes on a seq2seq batch shows its first (source, target) pair: both tensors cut to
    one row (the bug: the pair lost on the way, so the table never printed)."""
    from glassformer.inspect.trace import print_shapes_once

    src, tgt = example()
    m = model()
    assert print_shapes_once(m, (src.repeat(3, 1), tgt.repeat(3, 1)), DATA.tokenizer) is True
    out = capsys.readouterr().out
    assert "(B=1, S=6)" in out and "(B=1, T=5)" in out and "B=3" not in out
    assert print_shapes_once(m, (src, tgt), DATA.tokenizer) is False and capsys.readouterr().out == ""


def test_attention_maps_keep_each_shape_and_hide_source_padding():
    src, tgt = example(pad=2)  # two padding tokens after the source: S = 8
    maps = attention_map_list(model(), (src, tgt))
    shapes = {m.name: tuple(m.weights.shape) for m in maps}
    assert shapes == {
        "encoder.0.attn.weights": (2, 8, 8),
        "encoder.1.attn.weights": (2, 8, 8),
        "decoder.0.attn.weights": (2, 5, 5),
        "decoder.0.cross.weights": (2, 5, 8),
        "decoder.1.attn.weights": (2, 5, 5),
        "decoder.1.cross.weights": (2, 5, 8),
    }
    cross = next(m for m in maps if m.name == "decoder.1.cross.weights")
    assert cross.hidden[:, :, 6:].all() and not cross.hidden[:, :, :6].any()  # padding keys only
    assert torch.allclose(cross.weights.sum(-1), torch.ones(2, 5))
    with pytest.raises(UsageError) as caught:  # the maps of three shapes do not stack: the list does
        attention_maps(model(), (src, tgt))
    assert caught.value.code == "inspect.maps_shape"
    assert caught.value.fields["shapes"].startswith("encoder.0.attn.weights B H S S, ")


def test_fused_model_maps_are_recomputed_on_the_glass_path():
    src, tgt = example()
    glass, fused = model(), model(attention="fused")
    for a, b in zip(attention_map_list(glass, (src, tgt)), attention_map_list(fused, (src, tgt)), strict=False):
        assert a.name == b.name and torch.allclose(a.weights, b.weights, atol=1e-6)
    assert fused.cfg.attention == "fused"  # put back afterwards


def test_pngs_label_source_and_target_tokens(tmp_path):
    src, tgt = example()
    labels = {"S": list("一千二百零五"), "T": ["<BOS>", "1", "2", "0", "5"]}
    m = model(n_layers=1)  # three maps: encoder.0.attn, decoder.0.attn, decoder.0.cross
    assert_valid_png(attention_grid_png(m, (src, tgt), labels, tmp_path / "grid.png"))
    assert_valid_png(attention_head_png(m, (src, tgt), labels, 2, 1, tmp_path / "cross.png"))  # decoder.0.cross
    with pytest.raises(UsageError) as caught:
        attention_grid_png(m, (src, tgt), {"T": labels["T"]}, tmp_path / "bad.png")
    assert (caught.value.code, caught.value.fields) == ("inspect.labels_side", {"side": "S", "axis": "S"})


def test_activation_memory_counts_both_sides():
    mem = activation_memory(model(), B=4, T=6)
    assert mem["decoder.0.cross.weights"] == 4 * 2 * 6 * 6  # (B, H, T, S) with S = T here
    assert mem["memory"] == 4 * 6 * 16

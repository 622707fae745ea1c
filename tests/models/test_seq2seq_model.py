"""The encoder-decoder kind: parameter counts, hook points, what each mask promises, sharing."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from glassformer.config import ModelConfig, get_preset
from glassformer.inspect.params import param_table
from glassformer.inspect.words import MEANS_WORDS
from glassformer.models import EncoderDecoder, build_model
from glassformer.models.seq2seq import CrossAttention
from glassformer.train.checkpoint import load_weights, save_weights

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

V, PAD = 17, 0
BASE = ModelConfig(kind="seq2seq", vocab_size=V, d_model=12, n_heads=3, d_ff=20, n_layers=2, max_len=9, pad_id=PAD)


def expected_params(cfg: ModelConfig) -> int:
    """Counted by hand. b = 1 with biases; a LayerNorm has a gain (and a shift)."""
    C, F, b = cfg.d_model, cfg.d_ff, int(cfg.bias)
    norm = (C + b * C) if cfg.norm != "none" else 0
    attn = 4 * C * C + b * 4 * C  # q, k, v, output projection: self- and cross-attention alike
    ffn = C * F + b * F + F * C + b * C
    encoder = cfg.n_layers * (attn + ffn + 2 * norm)
    decoder = cfg.n_layers * (2 * attn + ffn + 3 * norm)
    finals = 2 * norm if cfg.final_norm else 0
    positions = cfg.max_len * C if cfg.position == "learned" else 0
    tables = V * C * (1 if cfg.share_embeddings else 2)
    head = 0 if cfg.tie_weights else V * C + b * V
    return encoder + decoder + finals + positions + tables + head


CONFIGS = {
    "separate": BASE,
    "shared": replace(BASE, share_embeddings=True),
    "tied": replace(BASE, tie_weights=True),
    "paper: one matrix": replace(BASE, share_embeddings=True, tie_weights=True, norm="post", position="sinusoidal"),
    "no-bias-no-norm": replace(BASE, bias=False, norm="none"),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parameter_count_formula_and_table(name):
    cfg = CONFIGS[name]
    model = EncoderDecoder(cfg)
    assert model.num_params() == expected_params(cfg)
    table = param_table(model)
    assert table.matches and table.total == model.num_params()
    assert not [r for r in table.rows if r.formula == "?"]  # every parameter is under a formula


def test_the_preset_is_the_papers_arrangement():
    cfg = get_preset("seq2seq").model
    assert (cfg.kind, cfg.norm, cfg.position, cfg.share_embeddings, cfg.tie_weights) == (
        "seq2seq",
        "post",
        "sinusoidal",
        True,
        True,
    )
    model = build_model(cfg)
    assert model.head.weight is model.tgt_embed.weight is model.src_embed.weight


def test_hook_points_fire_and_say_which_side_they_read():
    model = EncoderDecoder(BASE).eval()
    src, tgt = model.example_input(2, 5)
    _, cache = model.run_with_cache(src, tgt[:, :4])
    points = model.hook_points()
    assert set(cache) == set(points)  # every declared point fires in one forward pass
    assert points["encoder.1.attn.weights"].axes == "B H S S"
    assert points["decoder.1.attn.weights"].axes == "B H T_q T_k"
    assert points["decoder.1.cross.weights"].axes == "B H T_q S"
    assert cache["decoder.1.cross.weights"].shape == (2, 3, 4, 5)  # (B, H, T, S)
    assert points["decoder.0.cross.k"].axes == "B H S D" and cache["decoder.0.cross.k"].shape == (2, 3, 5, 4)
    for name, hook in points.items():  # complete declarations: letters match the tensor's rank
        assert hook.stage and hook.means in MEANS_WORDS and len(hook.axes.split()) == cache[name].dim(), name


def test_decoder_never_sees_later_target_tokens_and_the_encoder_sees_all():
    model = EncoderDecoder(BASE).eval()
    src, tgt = torch.randint(1, V, (2, 6)), torch.randint(1, V, (2, 7))
    changed_tgt, changed_src = tgt.clone(), src.clone()
    changed_tgt[:, 4] = (tgt[:, 4] % (V - 1)) + 1
    changed_src[:, -1] = (src[:, -1] % (V - 1)) + 1
    assert torch.equal(model(src, tgt)[:, :4], model(src, changed_tgt)[:, :4])  # positions 0..3 cannot tell
    assert not torch.equal(model(src, tgt)[:, 4:], model(src, changed_tgt)[:, 4:])
    assert not torch.equal(model.encode(src)[:, 0], model.encode(changed_src)[:, 0])  # bidirectional
    unmasked = EncoderDecoder(replace(BASE, causal=False)).eval()
    assert not torch.equal(unmasked(src, tgt)[:, :4], unmasked(src, changed_tgt)[:, :4])  # reads the answer


def test_padding_is_invisible_on_both_sides():
    model = EncoderDecoder(BASE).eval()
    src, tgt = torch.tensor([[5, 6, 7]]), torch.tensor([[2, 8, 9]])
    padded_src = torch.tensor([[5, 6, 7, PAD, PAD, PAD]])
    padded_tgt = torch.tensor([[2, 8, 9, PAD, PAD]])
    out = model(src, tgt)
    torch.testing.assert_close(model(padded_src, tgt), out, atol=1e-6, rtol=0)
    torch.testing.assert_close(model(padded_src, padded_tgt)[:, :3], out, atol=1e-6, rtol=0)


def test_fused_attention_gives_the_same_logits():
    model = EncoderDecoder(replace(BASE, share_embeddings=True)).double().eval()
    src, tgt = torch.tensor([[5, 6, 7, PAD], [4, 4, 3, 2]]), torch.tensor([[2, 8, 9, PAD, PAD], [2, 1, 1, 5, 6]])
    glass = model(src, tgt)
    model.set_attention("fused")
    assert all(m.attention == "fused" for m in model.modules() if hasattr(m, "attend"))
    assert (model(src, tgt) - glass).abs().max() <= 1e-12


def test_clear_errors():
    with pytest.raises(ValueError) as caught:
        EncoderDecoder(replace(BASE, pad_id=None))
    assert caught.value.code == "seq2seq.pad_id"
    model = EncoderDecoder(BASE)
    with pytest.raises(ValueError) as caught:
        model(torch.ones(2, 3, dtype=torch.long), torch.ones(3, 3, dtype=torch.long))
    assert (caught.value.code, caught.value.fields) == ("seq2seq.inputs", {"src": (2, 3), "tgt": (3, 3)})


def test_shared_and_tied_weights_survive_a_checkpoint(tmp_path):
    cfg = CONFIGS["paper: one matrix"]
    model = EncoderDecoder(cfg)
    save_weights(tmp_path / "w.safetensors", model, step=3)
    torch.manual_seed(1)
    again = EncoderDecoder(cfg)
    assert load_weights(tmp_path / "w.safetensors", again) == 3
    assert again.head.weight is again.tgt_embed.weight is again.src_embed.weight
    src, tgt = model.example_input(2, 4)
    assert torch.equal(model.eval()(src, tgt), again.eval()(src, tgt))


def test_cross_attention_has_biases_unless_told_otherwise():
    plain, bare = CrossAttention(16, 2), CrossAttention(16, 2, bias=False)
    with_bias = {n for n, _ in plain.named_parameters() if n.endswith("bias")}
    assert with_bias and {n.removesuffix(".weight") for n, _ in plain.named_parameters() if n.endswith("weight")} == {
        n.removesuffix(".bias") for n in with_bias
    }
    assert not [n for n, _ in bare.named_parameters() if n.endswith("bias")]

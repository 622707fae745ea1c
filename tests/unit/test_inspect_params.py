"""Parameter table, FLOPs and activation memory: counted from the model, checked against the
closed forms, and the FLOPs against torch's own FLOP counter."""

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from glassformer.config import ModelConfig, get_preset
from glassformer.inspect import activation_memory, flops_per_token, param_table
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
    """The check can fail: a model with a parameter the formulas do not know is flagged."""
    model = GPT(ModelConfig(**BASE))
    model.blocks[0].extra = torch.nn.Linear(2, 2)
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

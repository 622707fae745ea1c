"""ffn="none": a block with no feed-forward network and no second norm, an attention-only model
(issue 49's control, a model that cannot hold an induction circuit in one layer)."""

from __future__ import annotations

import json

import pytest
import torch
from helpers import keyed, train_argv

from glassformer.cli import main
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect.params import param_table
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.models.gpt2 import gpt2_config
from glassformer.train.checkpoint import load_model

CFG = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=2, max_len=5, ffn="none")


def test_a_block_has_no_ffn_and_no_second_norm_and_adds_only_attention():
    model = GPT(CFG).eval()
    names = model.hook_names()
    assert not [n for n in names if ".ffn" in n or ".ln2" in n]
    assert {"blocks.0.attn.z", "blocks.0.attn.weights", "blocks.0.resid_mid", "blocks.1.resid_post"} <= set(names)
    assert all(b.ffn is None and not hasattr(b, "ln2") for b in model.blocks)
    ids = torch.tensor([[1, 2, 3, 1, 2]])  # (1, T)
    _, cache = model.run_with_cache(ids)
    for i in range(CFG.n_layers):  # the block's output is its attention's sum, nothing added after
        assert torch.equal(cache[f"blocks.{i}.resid_post"], cache[f"blocks.{i}.resid_mid"])


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
def test_the_block_is_x_plus_attention_by_hand(norm):
    cfg = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5, ffn="none", norm=norm)
    block = GPT(cfg).eval().blocks[0]
    x = torch.randn(2, 5, 4)  # (B, T, C)
    mask = torch.ones(5, 5, dtype=torch.bool).tril()  # (T, T)
    with torch.no_grad():
        if norm == "post":
            want = block.ln1(x + block.attn(x, mask))  # (B, T, C)
        else:
            want = x + block.attn(block.ln1(x), mask)  # (B, T, C)
        assert torch.allclose(block(x, mask), want)


def test_params_counted_by_hand():
    """C=4, V=7, L=5, two blocks of 2C (ln1) + C·3C + 3C (qkv) + C·C + C (proj) = 8 + 60 + 20 = 88 each,
    tok 28 + pos 20 + 2·88 + ln_final 8 + head 35 = 267: no FFN, no ln2."""
    table = param_table(CFG)
    assert table.matches and table.total == 267 == sum(p.numel() for p in GPT(CFG).parameters())
    assert not [r.module for r in table.rows if "ffn" in r.module or "ln2" in r.module]
    assert "F" not in table.symbols  # d_ff is not read


@pytest.mark.parametrize("cls", [Encoder, SequenceRegressor])
def test_the_other_kinds_with_a_gpt_block_build_it(cls):
    kind = {Encoder: "encoder", SequenceRegressor: "regressor"}[cls]
    extra = {"vocab_size": 0, "d_in": 2, "d_out": 1} if kind == "regressor" else {}
    cfg = ModelConfig(**{**CFG.__dict__, **extra, "kind": kind})
    model = cls(cfg)
    assert all(b.ffn is None for b in model.blocks)


def test_refused_where_it_cannot_apply():
    code, fields = keyed(UsageError, lambda: ModelConfig(kind="seq2seq", ffn="none", pad_id=0))
    assert code == "config.ffn_none_kind" and fields["kind"] == "seq2seq"
    code, fields = keyed(UsageError, gpt2_config, ModelConfig(ffn="none"))  # GPT-2 has an MLP in every block
    assert code == "gpt2.field_out" and (fields["field"], fields["found"]) == ("ffn", "none")
    code, fields = keyed(UsageError, ModelConfig, ffn="none", n_experts=4)  # the experts are an FFN's
    assert fields["field"] == "n_experts"


def test_trains_a_few_steps_and_loads_back(tmp_path):
    assert main(train_argv(tmp_path, "run", "--n_layers", "1", "--ffn", "none", "--max-steps", "3")) == 0
    run = tmp_path / "run"
    assert json.loads((run / "config.json").read_text())["model"]["ffn"] == "none"
    model, _, _ = load_model(run)
    assert model.cfg.ffn == "none" and model.blocks[0].ffn is None
    losses = [json.loads(line)["loss"] for line in (run / "metrics.jsonl").read_text().splitlines() if '"loss"' in line]
    assert losses and all(loss == loss for loss in losses)  # finite figures were logged

"""bench/modern.py races one computation: its three Qwen3s (glassformer's GPT of `baby-qwen3`,
transformers' Qwen3ForCausalLM with our weights, the from-scratch one written in the bench) give equal
logits and the same greedy tokens, and a wrong weight would show. No speed is asserted here."""

from __future__ import annotations

import json
import sys

import pytest
import torch
from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import modern  # noqa: E402  (bench/ is not a package)

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def models():
    return modern.contenders(max_len=32)


def ids(B: int, T: int) -> torch.Tensor:
    return torch.randint(0, modern.VOCAB, (B, T), generator=torch.Generator().manual_seed(3))  # (B, T)


def test_the_goals_are_the_issues_bars():
    assert dict(modern.TARGETS) == {
        "training vs Qwen3ForCausalLM": 1.3,
        "cached decoding vs generate, batch 1": 2.5,
        "training vs from-scratch": 1.0,
        "cached decoding vs from-scratch": 1.0,
    }


def test_every_contender_gives_our_logits(models):
    assert set(models) == {
        "glassformer (glass)",
        "glassformer (fused)",
        "hf-qwen3 (eager)",
        "hf-qwen3 (sdpa)",
        "from-scratch",
    }
    assert type(models["hf-qwen3 (eager)"]).__name__ == "Qwen3ForCausalLM"
    assert models["hf-qwen3 (eager)"].config._attn_implementation == "eager"
    assert models["hf-qwen3 (sdpa)"].config._attn_implementation == "sdpa"
    diffs = modern.largest_differences(models, ids(2, 24))
    assert diffs["glassformer (glass)"] == 0.0
    assert all(d <= modern.ATOL for d in diffs.values()), diffs


def test_a_wrong_weight_in_the_from_scratch_model_shows(models):
    scratch = models["from-scratch"]
    gain = scratch.trf_blocks[1].att.k_norm.scale
    with torch.no_grad():
        gain.mul_(1.5)
    try:
        assert modern.largest_differences(models, ids(2, 24))["from-scratch"] > 1e-3
    finally:
        with torch.no_grad():
            gain.div_(1.5)


def test_every_cached_decoder_writes_the_same_greedy_tokens(models):
    prompt = ids(1, 5)
    outs = {n: modern.decoder(n, m.eval(), prompt, 12)() for n, m in models.items()}
    assert all(o.shape == (1, 17) for o in outs.values())
    assert all(torch.equal(o, outs["glassformer (glass)"]) for o in outs.values())
    with torch.no_grad():  # the from-scratch cache against its whole forward, token by token
        again = prompt
        for _ in range(12):
            nxt = models["from-scratch"](again)[:, -1].argmax(dim=-1, keepdim=True)  # (1, 1)
            again = torch.cat([again, nxt], dim=1)  # (1, T+1)
    assert torch.equal(again, outs["from-scratch"])


def test_one_small_round_writes_the_record(tmp_path, capsys):
    out = tmp_path / "modern.json"
    argv = ["--rounds", "1", "--batch", "2", "--seq-len", "8", "--new-tokens", "4", "--cpu-time", "--json", str(out)]
    assert modern.main(argv) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["clock"] == "cpu" and record["training"]["batch"] == 2 and record["decoding"]["new_tokens"] == 4
    assert set(record["training"]["ms_per_step"]) == set(record["decoding"]["ms_per_token"])
    assert all(v > 0 for v in record["training"]["ms_per_step"].values())
    assert max(record["logits_max_difference"].values()) <= modern.ATOL
    assert set(record["ratios"]) == {what for what, _ in modern.TARGETS}


@pytest.mark.parametrize("argv", [["--rounds", "0"], ["--new-tokens", "600"]])
def test_bad_options_are_refused(capsys, argv):
    assert modern.main(argv) == 2
    assert "--" in capsys.readouterr().err

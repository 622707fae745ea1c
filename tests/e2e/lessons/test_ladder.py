"""Lesson 5: the ladder from GPT-2 to Qwen3. Each rung is the one before it with exactly its named
fields replaced, ends at baby-qwen3, and every figure in its table comes from the trained models:
parameters counted by hand, the cache's bytes from its own tensors, the losses from the runs."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
import torch
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.config import BABY, LADDER_FAST, get_preset
from glassformer.errors import NotFound, UsageError
from glassformer.lessons import ladder
from glassformer.lessons.ladder import RUNGS, cache_bytes_per_token, differences, glu_width
from glassformer.messages import speaking, t
from glassformer.models import build_model

pytestmark = pytest.mark.usefixtures("one_thread")  # small models: one thread is fastest
CJK = "[\u4e00-\u9fff]"
QWEN3 = get_preset("baby-qwen3").model


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    lines = []
    with said() as heard:
        result = ladder.run(out=tmp_path_factory.mktemp("ladder"), fast=True, echo=lines.append)
    return result, "\n".join(lines), heard


def by_key(result) -> dict:
    return {m.key: m for m in result["measured"]}


def test_each_rung_changes_exactly_its_named_fields_and_the_ladder_ends_at_baby_qwen3():
    configs = ladder.ladder()
    assert [r.key for r in RUNGS] == ["gpt2", "rmsnorm", "swiglu", "rope", "gqa", "qk-norm", "head-dim", "no-bias"]
    assert configs[0] == replace(BABY, bias=True)  # GPT-2 at baby's size, with GPT-2's biases
    for before, after, rung in zip(configs, configs[1:], RUNGS[1:], strict=False):
        assert differences(before, after) == {k: (getattr(before, k), v) for k, v in rung.changes.items()}
        assert rung.changes and all(getattr(before, k) != v for k, v in rung.changes.items())
    assert differences(configs[-1], QWEN3) == {"activation": ("gelu", "relu")}
    torch.manual_seed(3)  # ... a field the gated FFN does not read: the same weights give the same logits
    ours = build_model(configs[-1]).eval()
    torch.manual_seed(3)
    theirs = build_model(QWEN3).eval()
    ids = torch.randint(0, QWEN3.vocab_size, (2, 9))  # (B, T)
    with torch.no_grad():
        assert torch.equal(ours(ids), theirs(ids))


def test_swiglu_width_keeps_the_ffn_about_as_large(lesson):
    C, F = BABY.d_model, BABY.d_ff
    assert glu_width(F) == QWEN3.d_ff == 352  # ⅔·512 = 341.3, up to a multiple of 32
    assert glu_width(3072, multiple=1) == 2048  # the paper's T5 base: 3072 → 2048
    ffn = lesson[0]["ffn"]  # counted from the built models, biases on as in GPT-2
    assert ffn == {"before": 2 * C * F + F + C, "after": 3 * C * 352 + 2 * 352 + C}
    assert abs(ffn["after"] / ffn["before"] - 1) < 0.05


def hand_count(cfg) -> int:
    """Parameters counted by hand from the configuration (a tied head adds none)."""
    V, C, L, F, T = cfg.vocab_size, cfg.d_model, cfg.n_layers, cfg.d_ff, cfg.max_len
    H, Hkv, D, b = cfg.n_heads, cfg.kv_heads, cfg.d_head, int(cfg.bias)
    norm = C if cfg.norm_type == "rms" else C + C * b
    attn = C * (H + 2 * Hkv) * D + b * (H + 2 * Hkv) * D + H * D * C + b * C + (2 * D if cfg.qk_norm else 0)
    ffn = (3 * C * F + b * (2 * F + C)) if cfg.ffn == "swiglu" else (2 * C * F + b * (F + C))
    positions = T * C if cfg.position == "learned" else 0
    head = 0 if cfg.tie_weights else V * C
    return V * C + positions + L * (2 * norm + attn + ffn) + norm + head


def test_parameter_counts_are_the_models(lesson):
    for m in lesson[0]["measured"]:
        assert m.params == hand_count(m.config) == sum(p.numel() for p in build_model(m.config).parameters())
    counts = by_key(lesson[0])
    assert counts["rope"].params == counts["swiglu"].params - BABY.max_len * BABY.d_model  # no position table
    V, C = counts["no-bias"].config.vocab_size, counts["no-bias"].config.d_model
    assert lesson[0]["untied_extra"] == V * C  # what untying the head would add


def test_kv_bytes_are_read_from_the_cache(lesson):
    m = by_key(lesson[0])
    for r in m.values():
        cfg = r.config
        assert r.kv_bytes == r.kv_formula == 2 * cfg.n_layers * cfg.kv_heads * cfg.d_head * 4
    assert m["gqa"].kv_bytes * 2 == m["rope"].kv_bytes  # H_kv = H/2 at the same head width: half the cache
    assert m["head-dim"].kv_bytes == 2 * m["qk-norm"].kv_bytes  # heads twice as wide
    assert len({r.kv_bytes for r in m.values()}) == 2
    torch.manual_seed(0)  # the tensors', not a formula: float64 keeps twice the bytes
    model = build_model(replace(QWEN3, max_len=16))
    ids = torch.randint(0, QWEN3.vocab_size, (1, 5))  # (1, P)
    assert cache_bytes_per_token(model.double(), ids) == 2 * cache_bytes_per_token(model.float(), ids)


def test_every_rung_trained_the_same_way(lesson):
    result = lesson[0]
    steps, B, T = LADDER_FAST["steps"], LADDER_FAST["batch_size"], LADDER_FAST["seq_len"]
    assert result["steps"] == steps and result["data"] == "toy"
    curves = [[s for s, _ in m.curve] for m in result["measured"]]
    assert all(c == curves[0] for c in curves) and curves[0][-1] == steps
    for m in result["measured"]:
        assert m.tokens_per_s == pytest.approx(steps * B * T / m.seconds)
        assert m.val_loss < math.log(m.config.vocab_size)  # better than a uniform guess after training
    assert all(m.config.vocab_size == result["measured"][0].config.vocab_size for m in result["measured"])


def test_table_cells_come_from_the_runs(lesson):
    result, text, heard = lesson
    rows = [line.split() for line in result["table"][1:]]
    assert len(rows) == len(RUNGS) and all(line in text for line in result["table"])
    for i, (row, m) in enumerate(zip(rows, result["measured"], strict=True)):
        assert row[0] == str(i)
        params, cached, formula, speed, loss = row[-5:]
        assert params == f"{m.params:,}" and cached == f"{m.kv_bytes:,}" and formula == f"{m.kv_formula:,}"
        assert speed == f"{m.tokens_per_s:,.0f}" and loss == f"{m.val_loss:.4f}"
    assert heard.carrying(cpu=result["cpu"], threads=1)  # the CPU named beside the speeds
    gqa = by_key(result)["gqa"]
    assert heard.carrying(after=f"{gqa.kv_bytes:,}", ratio="50%", kv_heads=2)
    assert heard.carrying(same=True)


def test_each_claim_has_its_citation_and_a_figure_only_where_found(lesson):
    result, text, heard = lesson
    claims = {c["key"]: c for c in result["claims"]}
    assert list(claims) == [r.key for r in RUNGS]
    assert [k for k, c in claims.items() if c["figure"]] == ["rmsnorm", "swiglu", "head-dim"]
    assert "arXiv 1910.07467" in claims["rmsnorm"]["cite"] and "arXiv 2305.13245" in claims["gqa"]["cite"]
    assert heard.carrying(figure="7%–64%") and heard.carrying(plain=3072, gated=2048)
    assert len(heard.carrying(figure=t(ladder.NOT_FOUND))) == len(RUNGS) - 3


def test_the_chart_is_a_png(lesson):
    files = lesson[0]["files"]
    assert [f.name for f in files] == ["ladder.png"]
    assert_valid_png(files[0])


def test_cli_in_chinese(tmp_path, capsys):
    with said() as heard:
        assert main(["lesson", "ladder", "--fast", "--steps", "3", "--lang", "zh", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    titles = [line for line in out.splitlines() if line.startswith("== ") and line.endswith(" ==")]
    assert len(titles) == 5 and all(re.search(CJK, title) for title in titles)
    assert heard.carrying(steps=3)
    sentences = [(m, f) for m, f in heard.sentences() if m.strip()]
    with speaking("zh"):
        chinese = [t(m, **f) for m, f in sentences]
    with speaking("en"):
        english = [t(m, **f) for m, f in sentences]
    shown = [zh for zh in chinese if zh.strip() in out]
    assert len(shown) >= 15 and all(re.search(CJK, line) for line in shown)  # what it said, in Chinese
    assert not [en for en in english if en.strip() in out and not re.search(CJK, en)]  # and no English left
    assert [p.name for p in tmp_path.iterdir()] == ["ladder.png"]


def test_bad_input_gets_a_coded_error_and_writes_nothing(tmp_path, capsys):
    with pytest.raises(UsageError) as e:
        ladder.run(steps=0, out=tmp_path / "a")
    assert e.value.code == "lesson.at_least" and e.value.fields == {"option": "steps", "least": 1, "value": 0}
    with pytest.raises(NotFound) as e:
        ladder.run(fast=True, data=f"file:{tmp_path / 'none.txt'}", out=tmp_path / "b")
    assert e.value.code == "corpus.missing"
    with said() as heard, pytest.raises(SystemExit) as exit_:  # the option's range type refuses it first
        main(["lesson", "ladder", "--steps", "0", "--out", str(tmp_path / "c")])
    assert exit_.value.code == 2 and heard.carrying(value="0") and "--steps" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written for a run that could not start

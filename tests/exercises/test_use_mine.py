"""`glassformer train --use-mine DIR`: the learner's passing block and LayerNorm train the char
model, and learn as ours do; anything not ready is refused with a message that says what to do."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from helpers import ROOT, said

from glassformer.cli import main
from glassformer.config import PRESETS, ModelConfig
from glassformer.errors import NotFound, UsageError
from glassformer.exercises import catalog, plug
from glassformer.exercises.plug import REQUIRED
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.sample import next_logits, open_cache

TRAIN = [
    "train",
    "--preset",
    "baby",
    "--data",
    "builtin:seed",
    "--seq_len=16",
    "--max_steps=20",
    "--eval_interval=20",
    "--eval_iters=2",
    "--no-progress",
    "--sample-chars",
    "0",
    "--threads=1",
]


def mine(tmp_path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in REQUIRED:
        (folder / f"{name}.py").write_text(catalog.get(name).solution, encoding="utf-8")
    return folder


def val_loss(run: Path) -> float:
    evals = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in evals if r["kind"] == "eval"][-1]["val_loss"]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["baby", "baby-qwen3"])  # the block plug; the modern pieces one by one
def test_the_reference_solutions_train_the_char_model_like_ours(tmp_path, capsys, preset):
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in plug.required(PRESETS[preset].model):  # only the files this preset needs
        (folder / f"{name}.py").write_text(catalog.get(name).solution, encoding="utf-8")
    run = [*TRAIN[:2], preset, *TRAIN[3:], "--cache-dir", str(tmp_path / "cache")]
    assert main([*run, "--out", str(tmp_path / "ours")]) == 0
    with said() as heard:
        assert main([*run, "--out", str(tmp_path / "theirs"), "--use-mine", str(folder)]) == 0
    (plugged,) = [f for _, f in heard if set(f) == {"dir", "parts"}]  # it says whose code computes which parts
    assert str(plugged["dir"]) == str(folder) and plugged["parts"] and str(folder) in capsys.readouterr().out
    ours, theirs = val_loss(tmp_path / "ours"), val_loss(tmp_path / "theirs")
    assert abs(theirs - ours) <= 0.03 * ours  # within a few percent at the same step (here: equal to ~1e-4)


def test_a_failing_or_missing_file_is_refused_with_the_fix(tmp_path, capsys):
    folder = mine(tmp_path)
    (folder / "feed_forward.py").unlink()
    assert main([*TRAIN, "--out", str(tmp_path / "a"), "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "a").exists()
    with pytest.raises(NotFound) as missing:
        plug.check_ready(folder)
    assert missing.value.code == "exercise.use_mine.missing" and missing.value.fields["files"] == "feed_forward.py"
    (folder / "feed_forward.py").write_text(catalog.get("feed_forward").solution, encoding="utf-8")
    text = (folder / "layer_norm.py").read_text()  # plant a bug: the mean is off by half
    (folder / "layer_norm.py").write_text(
        text.replace("mean = x.mean(dim=-1, keepdim=True)", "mean = 1.5 * x.mean(dim=-1, keepdim=True)")
    )
    with pytest.raises(UsageError) as failing:
        plug.check_ready(folder)
    assert failing.value.code == "exercise.use_mine.failing"
    assert failing.value.fields == {"folder": folder, "failing": "layer_norm", "first": "layer_norm"}


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*")) if f.is_file()}


def test_a_refused_use_mine_makes_and_touches_nothing(tmp_path, capsys):
    folder = mine(tmp_path)
    (folder / "block.py").write_text("def block(*args):\n    return args[0]\n", encoding="utf-8")  # fails its check
    capsys.readouterr()
    out = tmp_path / "new"
    assert main([*TRAIN, "--out", str(out), "--use-mine", str(folder)]) == 2
    assert not out.exists()  # no empty run directory left behind
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "block" in err  # one line, naming the failing file
    existing = tmp_path / "existing"  # a run already there: neither --out nor --resume may touch it
    # (a real one, two steps long: the files a run needs come from its config, read before the refusal)
    assert main([*TRAIN, "--max_steps=2", "--eval_interval=2", "--out", str(existing)]) == 0
    before = files_in(existing)
    assert main([*TRAIN, "--out", str(existing), "--use-mine", str(folder)]) == 2
    assert main(["train", "--resume", str(existing), "--no-progress", "--use-mine", str(folder)]) == 2
    assert files_in(existing) == before


def test_configurations_the_learner_cannot_compute_are_refused(tmp_path, capsys):
    folder = mine(tmp_path)
    assert main([*TRAIN, "--out", str(tmp_path / "c"), "--dropout=0.1", "--norm=post", "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "c").exists()  # refused before the run directory is made
    cfg = ModelConfig(dropout=0.1, norm="post", mha_style="heads")
    with said() as heard, pytest.raises(UsageError) as refused:
        plug.check_config(cfg)
    assert refused.value.code == "exercise.use_mine.model"
    problems = [(k, f) for k, f in heard if set(f) & {"dropout", "style", "norm"}]
    assert [f for _, f in problems] == [{"dropout": 0.1}, {"style": "heads"}, {"norm": "post"}]  # each, in order
    assert refused.value.fields["problems"] == "; ".join(t(k, **f) for k, f in problems)


def test_an_attention_only_model_is_refused_naming_ffn():
    with said() as heard, pytest.raises(UsageError) as refused:
        plug.check_config(ModelConfig(ffn="none"))
    assert refused.value.code == "exercise.use_mine.model"
    assert [f for _, f in heard if "ffn" in f] == [{"ffn": "none"}]


def test_a_block_importing_its_sibling_inside_the_function_trains(tmp_path, capsys):
    """The grader accepts a block.py that imports layer_norm inside block(); --use-mine imports the
    learner's files the same way (one loader), so it trains too, and none of their modules stays behind."""
    folder = mine(tmp_path)
    source = (folder / "block.py").read_text()
    inside = "    from layer_norm import layer_norm as _layer_norm  # imported when block() runs\n    p = params\n"
    (folder / "block.py").write_text(source.replace("    p = params\n", inside))
    assert plug.check_ready(folder) is None  # the grader accepts it
    out = tmp_path / "run"
    assert main([*TRAIN, "--out", str(out), "--use-mine", str(folder)]) == 0
    assert val_loss(out) > 0
    assert "layer_norm" not in sys.modules and str(folder) not in sys.path


def test_functions_that_fail_together_are_refused_before_a_run_is_made(tmp_path, capsys):
    folder = mine(tmp_path)
    cfg = ModelConfig(vocab_size=8, d_model=8, n_heads=2, d_ff=16, n_layers=2, max_len=8, dropout=0.0)
    plug.check_config(cfg, folder)  # the right files: the trial step passes
    source = (folder / "block.py").read_text()
    broken = "    from layer_norm import no_such_function  # fails only when block() runs\n    p = params\n"
    (folder / "block.py").write_text(source.replace("    p = params\n", broken))
    with pytest.raises(UsageError) as refused:
        plug.check_config(cfg, folder)
    assert refused.value.code == "exercise.use_mine.trial" and refused.value.fields["folder"] == folder
    assert refused.value.fields["error"].startswith("ImportError")
    earlier = tmp_path / "earlier"  # an earlier run: untouched; the new one: never made
    earlier.mkdir()
    (earlier / "config.json").write_text('{"preset": "baby"}\n', encoding="utf-8")
    capsys.readouterr()
    assert main([*TRAIN, "--out", str(tmp_path / "new"), "--use-mine", str(folder)]) == 2
    assert not (tmp_path / "new").exists() and files_in(earlier) == {"config.json": b'{"preset": "baby"}\n'}
    assert capsys.readouterr().err.count("\n") == 1  # one line


def test_both_readmes_say_which_exercises_must_pass_for_use_mine():
    root = ROOT
    for readme in ("README.md", "README.zh.md"):
        lines = [line for line in (root / readme).read_text(encoding="utf-8").splitlines() if "--use-mine" in line]
        assert any(all(f"`{name}`" in line for name in REQUIRED) for line in lines), readme


# ── the modern decoder: rms_norm, swiglu, rope and grouped_query_attention, each where the model has it

LLAMA = replace(PRESETS["baby-llama"].model, vocab_size=11, d_model=16, d_ff=24, n_layers=2, max_len=8)  # H=4, H_kv=2
QWEN3 = replace(PRESETS["baby-qwen3"].model, vocab_size=11, d_model=16, d_ff=24, n_layers=2, max_len=8, head_dim=8)
MODERN_CFGS = {"baby-llama": LLAMA, "baby-qwen3": QWEN3}
# one known-wrong variant of each exercise, planted as a learner would write it (solution text -> mistake)
PLANTED = {
    "rms_norm": ("torch.sqrt(mean_square + eps)", "(torch.sqrt(mean_square) + eps)"),  # eps_outside
    "swiglu": ("hidden = _silu(gate) * up", "hidden = torch.sigmoid(gate) * up"),  # sigmoid_gate
    "rope": ("a * cos - b * sin, b * cos + a * sin", "a * cos + b * sin, b * cos - a * sin"),  # turned_backwards
    "gqa": ("k = k.repeat_interleave(g, dim=1)", "k = k.repeat(1, g, 1, 1)"),  # tiled (k only)
}


def mine_modern(tmp_path, names=tuple(plug.MODERN)) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / f"{name}.py").write_text(catalog.get(name).solution, encoding="utf-8")
    return folder


def logits(cfg, folder: Path | None) -> torch.Tensor:
    torch.manual_seed(0)
    model = build_model(cfg).double()
    if folder is not None:
        plug.swap_in(model, folder)
    x = torch.tensor([[1, 5, 2, 9, 3, 3, 7, 0], [4, 4, 10, 6, 1, 2, 8, 5]])  # (B, T)
    return model(x).detach()  # (B, T, V)


def test_a_modern_config_requires_only_the_pieces_it_uses():
    assert plug.required(LLAMA) == ("rms_norm", "swiglu", "rope", "gqa")
    assert plug.required(QWEN3) == ("rms_norm", "swiglu", "rope", "gqa")
    assert plug.required(replace(ModelConfig(), norm_type="rms")) == ("rms_norm",)
    assert plug.required(replace(LLAMA, n_kv_heads=0, position="learned", rope_base=10000.0)) == ("rms_norm", "swiglu")
    assert plug.required(ModelConfig()) == REQUIRED  # the classic model: the block plug, as before


@pytest.mark.parametrize("preset", MODERN_CFGS)
def test_the_reference_modern_pieces_compute_the_model_exactly(tmp_path, preset):
    cfg = MODERN_CFGS[preset]
    folder = mine_modern(tmp_path)
    torch.manual_seed(0)
    model = build_model(cfg)
    plugged = plug.swap_in(model, folder)
    expected = {"blocks.0.ln1", "blocks.0.ln2", "blocks.1.ffn", "blocks.1.attn", "blocks.0.attn.positions", "ln_final"}
    assert expected <= set(plugged)
    assert ("blocks.0.attn.qk_norm.q_norm" in plugged) == (preset == "baby-qwen3")
    theirs, ours = logits(cfg, folder), logits(cfg, None)
    assert torch.allclose(theirs, ours, atol=1e-10, rtol=0)  # float64: the same numbers but rounding


@pytest.mark.parametrize("name", PLANTED)
def test_a_planted_mistake_in_any_modern_piece_changes_the_logits(tmp_path, name):
    folder = mine_modern(tmp_path)
    before, after = PLANTED[name]
    source = (folder / f"{name}.py").read_text()
    assert before in source
    (folder / f"{name}.py").write_text(source.replace(before, after))
    theirs, ours = logits(QWEN3, folder), logits(QWEN3, None)
    assert (theirs - ours).abs().max() > 1e-4


def test_a_modern_config_checks_its_files_and_trains_them_together(tmp_path, capsys):
    folder = mine_modern(tmp_path, ("rms_norm", "swiglu", "rope"))  # gqa.py not written yet
    with pytest.raises(NotFound) as missing:
        plug.check_all(QWEN3, folder)
    assert missing.value.code == "exercise.use_mine.missing" and missing.value.fields["files"] == "gqa.py"
    mine_modern(tmp_path, ("gqa",))
    plug.check_all(QWEN3, folder)  # every piece passes the grader, and a trial step with all of them
    assert not any((folder / f"{name}.py").exists() for name in REQUIRED)  # the classic files: not needed
    source = (folder / "gqa.py").read_text()
    (folder / "gqa.py").write_text(source.replace("def grouped_query_attention(", "def gqa_todo("))  # unfinished
    with pytest.raises(UsageError) as failing:
        plug.check_all(QWEN3, folder)
    assert failing.value.code == "exercise.use_mine.failing" and failing.value.fields["failing"] == "gqa"


def test_modern_configurations_the_learner_cannot_compute_are_refused():
    cfg = replace(LLAMA, bias=True, rope_scaling="linear", rope_factor=2.0)
    with said() as heard, pytest.raises(UsageError) as refused:
        plug.check_config(cfg)
    assert refused.value.code == "exercise.use_mine.model"
    assert [f for _, f in heard if set(f) & {"scaling", "bias"}] == [{"bias": True}, {"scaling": "linear"}]
    with said() as heard, pytest.raises(UsageError) as alibi:
        plug.check_config(replace(LLAMA, position="alibi", rope_base=10000.0))
    assert alibi.value.code == "exercise.use_mine.model"
    assert [f for _, f in heard if set(f) == {"position"}] == [{"position": "alibi"}]


def test_a_plugged_modern_model_decodes_with_the_kv_cache_as_ours(tmp_path):
    """A cached decoding step goes through the plugged norms, SwiGLU and rope (told the cache's
    offset) and glassformer's attention: the next token's logits, step by step, are ours; a rope
    that ignores the offset is caught there."""
    folder = mine_modern(tmp_path)

    def decoded(plugged: Path | None) -> torch.Tensor:
        torch.manual_seed(0)
        model = build_model(QWEN3).double()
        if plugged is not None:
            plug.swap_in(model, plugged)
        ids, cache = torch.tensor([[1, 2, 3, 9, 4, 7]]), open_cache(model, 1)  # (1, T)
        return torch.stack([next_logits(model, ids[:, : t + 1], cache) for t in range(ids.size(1))])  # (T, 1, V)

    ours = decoded(None)
    assert torch.allclose(decoded(folder), ours, atol=1e-10, rtol=0)
    source = (folder / "rope.py").read_text()
    (folder / "rope.py").write_text(source.replace("torch.arange(offset, offset + T", "torch.arange(0, T"))
    assert (decoded(folder) - ours).abs().max() > 1e-6  # offset_ignored: wrong from the second step on

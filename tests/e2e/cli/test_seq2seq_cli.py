"""The encoder-decoder through the command line: train a preset on a generated task, resume it,
look inside it, and clear errors when data and model do not fit."""

from __future__ import annotations

import json

import pytest
from helpers import said

from glassformer.cli import main

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest

TINY = [
    "--max_steps=6",
    "--eval_interval=3",
    "--eval_iters=1",
    "--threads=1",
    "--d_model=16",
    "--d_ff=32",
    "--n_heads=2",
    "--n_layers=1",
]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("s2s") / "run"
    assert (
        main(["train", "--preset", "seq2seq", "--data", "digits:reverse", "--out", str(out), "--no-progress", *TINY])
        == 0
    )
    return out


def test_train_writes_a_run_with_translations(run_dir):
    config = json.loads((run_dir / "config.json").read_text())
    assert config["model"]["kind"] == "seq2seq" and config["source"] == "digits:reverse"
    assert config["model"]["vocab_size"] == 28 and config["model"]["pad_id"] == 0  # the tokenizer's
    assert (run_dir / "samples.txt").read_text().count("=== step ") == 3  # steps 0, 3, 6
    for name in ("tokenizer.json", "model.safetensors", "train_state.pt", "loss.png"):
        assert (run_dir / name).exists(), name


def test_resume_continues_the_run(run_dir, capsys):
    with said() as heard:
        assert main(["train", "--resume", str(run_dir), "--max_steps=9", "--no-progress"]) == 0
    done = [fields for _, fields in heard if set(fields) == {"steps", "train", "val", "best"}]
    assert [fields["steps"] for fields in done] == [9]


def test_inspect_verbs_read_the_run(run_dir, tmp_path, capsys):
    assert main(["trace", "--run", str(run_dir), "--prompt", "3141", "--out", str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    assert "decoder.0.cross.weights" in out and "(B=1, S=4)" in out
    assert (
        main(["attention", "--run", str(run_dir), "--prompt", "3141", "--layer", "2", "--out", str(tmp_path / "a")])
        == 0
    )
    assert (tmp_path / "a" / "attention_L2_H0.png").exists()  # decoder.0.cross: T × S
    assert main(["params", "--preset", "seq2seq", "--out", str(tmp_path / "p")]) == 0
    assert "decoder.1.cross.kv" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, code, fields",
    [  # a corpus of text for a model of pairs; pairs for a model of tokens; pairs longer than max_len
        (["--preset", "seq2seq", "--data", "shakespeare"], "run.wrong_source", {"source": "shakespeare"}),
        (["--preset", "seed000", "--data", "numbers:zh2num"], "run.source_for_other", {"inputs": "tokens"}),
        (["--preset", "seq2seq", "--max_len=4"], "run.pairs_too_long", {"S": 7, "T": 4, "max_len": 4, "need": 7}),
    ],
)
def test_data_and_model_must_fit(tmp_path, capsys, argv, code, fields):
    with said() as heard:
        assert main(["train", *argv, "--out", str(tmp_path / "run"), "--max_steps=1"]) == 2
    [said_fields] = heard.of(code)
    assert {k: said_fields[k] for k in fields} == fields and len(capsys.readouterr().err.splitlines()) == 1

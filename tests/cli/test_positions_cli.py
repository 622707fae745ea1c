"""Position schemes from the command line: a baby run with rotary positions trains, and
`glassformer sample` says on stderr what the scheme does past max_len, then writes past it."""

from __future__ import annotations

import json

import pytest
from helpers import said, train_argv

from glassformer.cli import main
from glassformer.messages import t
from glassformer.sample import past_max_len
from glassformer.train.run import load_model


@pytest.mark.slow
def test_baby_with_rotary_trains_and_samples_past_max_len(tmp_path, capsys):
    run = tmp_path / "run"
    argv = ["--position=rotary", "--max_steps=4", "--seq_len=8", "--eval_interval=4", "--eval_iters=1"]
    with said() as heard:
        code = main(train_argv(tmp_path, "run", *argv, preset="baby"))
    capsys.readouterr()
    done = [fields for _, fields in heard if set(fields) == {"steps", "train", "val", "best"}]
    assert code == 0 and [fields["steps"] for fields in done] == [4]
    assert json.loads((run / "config.json").read_text())["model"]["position"] == "rotary"
    max_len = json.loads((run / "config.json").read_text())["model"]["max_len"]

    sample = ["sample", str(run), "--prompt", "the ", "--max-new-tokens", str(max_len + 20), "--seed", "3"]
    with said() as heard:
        code = main([*sample, "--threads", "1"])
    captured = capsys.readouterr()
    assert code == 0
    [(key, fields)] = [(key, fields) for key, fields in heard if set(fields) == {"name", "max_len"}]
    assert fields == {"name": "rotary", "max_len": max_len} and captured.err == t(key, **fields) + "\n"
    assert captured.err == past_max_len(load_model(run)[0]) + "\n"  # the line for a model with no position table
    assert len(captured.out) == len("the ") + max_len + 20 + 1  # char tokens, + the final newline
    code = main([*sample, "--threads", "1", "--no-cache"])
    assert code == 0 and capsys.readouterr().out == captured.out  # the cache grew; same text

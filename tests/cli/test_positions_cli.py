"""Position schemes from the command line: a baby run with rotary positions trains, and
`glassformer sample` says on stderr what the scheme does past max_len, then writes past it."""

from __future__ import annotations

import json

import pytest
from helpers import train_argv

from glassformer.cli import main


@pytest.mark.slow
def test_baby_with_rotary_trains_and_samples_past_max_len(tmp_path, capsys):
    run = tmp_path / "run"
    argv = ["--position=rotary", "--max_steps=4", "--seq_len=8", "--eval_interval=4", "--eval_iters=1"]
    code = main(train_argv(tmp_path, "run", *argv, preset="baby"))
    out = capsys.readouterr().out
    assert code == 0 and "done: 4 steps" in out
    assert json.loads((run / "config.json").read_text())["model"]["position"] == "rotary"
    max_len = json.loads((run / "config.json").read_text())["model"]["max_len"]

    code = main(
        ["sample", str(run), "--prompt", "the ", "--max-new-tokens", str(max_len + 20), "--seed", "3", "--threads", "1"]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert f"position=rotary: no position table; past max_len={max_len}" in captured.err
    assert len(captured.out) == len("the ") + max_len + 20 + 1  # char tokens, + the final newline
    code = main(
        [
            "sample",
            str(run),
            "--prompt",
            "the ",
            "--max-new-tokens",
            str(max_len + 20),
            "--seed",
            "3",
            "--threads",
            "1",
            "--no-cache",
        ]
    )
    assert code == 0 and capsys.readouterr().out == captured.out  # the cache grew; same text

"""Shared pieces of the reliability tests: a tiny run's command line, running the CLI in-process with
its output captured, and what a clean failure looks like."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

import glassformer
from glassformer.cli import main

# a run of seconds: 1 layer, d_model 16, on the builtin one-line corpus; checkpoints every 4 steps
TINY_MODEL = ["--d_model=16", "--n_heads=2", "--d_ff=32", "--n_layers=1"]
TINY_TRAIN = [
    "--batch_size=4",
    "--seq_len=8",
    "--eval_interval=4",
    "--eval_iters=1",
    "--log_interval=2",
    "--threads=1",
]
FILE_ERRORS = (  # every error of reading a user's file (glassformer.files)
    "files.missing",
    "files.directory",
    "files.permission",
    "files.unreadable",
    "files.not_regular",
    "a named pipe (FIFO)",
    "a character device (such as /dev/zero)",
    "a block device (a disk)",
    "a socket",
    "not a file",
    "files.too_large",
    "files.empty",
    "files.blank",
    "files.json",
    "files.json_nested",
    "files.json_number",
    "byte 0x{byte:02x} at offset {offset} is not valid UTF-8",
    "files.binary",
    "files.encoding",
    "files.no_encoding",
)
SRC = str(Path(glassformer.__file__).resolve().parents[1])  # the src/ directory these tests import


def train_argv(out, cache, max_steps: int, *extra: str) -> list[str]:
    return [
        "train",
        "--preset",
        "seed000",
        "--data",
        "builtin:seed",
        "--out",
        str(out),
        "--cache-dir",
        str(cache),
        "--no-progress",
        "--sample-chars",
        "0",
        f"--max_steps={max_steps}",
        *TINY_MODEL,
        *TINY_TRAIN,
        *extra,
    ]


def resume_argv(run, cache, *extra: str) -> list[str]:
    return ["train", "--resume", str(run), "--cache-dir", str(cache), "--no-progress", "--sample-chars", "0", *extra]


def cli(argv: list[str]) -> tuple[int, str, str]:
    """main(argv) with stdout and stderr captured (usable inside hypothesis tests, unlike capsys)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's usage errors exit, as they do from the shell
            code = e.code
    return code, out.getvalue(), err.getvalue()


def cli_error(argv: list[str]) -> tuple[int, str, str, BaseException | None]:
    """cli(argv) and the exception the command line reported (None if it reported none), so a test
    asserts the error's key and fields, not its words."""
    import glassformer.cli as command_line

    seen: list[BaseException] = []
    report = command_line.report

    def recording(error, *rest):
        seen.append(error)
        return report(error, *rest)

    command_line.report = recording
    try:
        code, out, err = cli(argv)
    finally:
        command_line.report = report
    return code, out, err, seen[0] if seen else None


def cli_said(argv: list[str]) -> tuple[int, str, str, list]:
    """cli(argv) and what it said, as catalogue keys and fields (helpers.said): a test pins those,
    not the English; `t(key, **fields) in err` checks that the sentence reached the user."""
    from helpers import said

    with said() as heard:
        code, out, err = cli(argv)
    return code, out, err, heard


def snapshot(folder) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes): equal before and after means nothing changed."""
    folder = Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_clean_failure(code: int, err: str, codes=(1, 2)) -> None:
    """An expected failure: the right exit code, one or two lines on stderr, no Python traceback."""
    lines = err.strip().splitlines()
    assert code in codes, f"exit code {code}, expected one of {codes}; stderr:\n{err}"
    assert "Traceback" not in err, err
    assert 1 <= len(lines) <= 2, f"stderr should be one or two lines, got {len(lines)}:\n{err}"
    assert lines[0].startswith("glassformer"), err


def subprocess_env() -> dict[str, str]:
    """The environment of a child python that imports this tree's glassformer."""
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def python() -> str:
    return sys.executable


def weights(path) -> dict[str, torch.Tensor]:
    return load_file(str(path))


def same_weights(a, b) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def losses(run) -> list[tuple]:
    """Every metrics record's step and losses (not its timings), in order."""
    keep = ("kind", "step", "loss", "grad_norm", "train_loss", "val_loss", "best_val", "lr")
    records = [json.loads(line) for line in (Path(run) / "metrics.jsonl").read_text().splitlines()]
    return [tuple(r.get(k) for k in keep) for r in records]

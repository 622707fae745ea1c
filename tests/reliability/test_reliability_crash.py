"""Crash safety, by fault injection: a training process killed at any moment — between steps, in the
middle of writing a checkpoint, between the checkpoint's two renames — leaves a run directory that
holds a loadable checkpoint, and `--resume` then ends with exactly the losses and weights (bitwise,
on the CPU) of a run that was never interrupted. A write that fails (a full disk) keeps the previous
checkpoint and says so; a second trainer in the same directory is refused and writes nothing."""

from __future__ import annotations

import errno
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
import torch
from reliability_kit import (
    assert_clean_failure,
    cli,
    losses,
    python,
    resume_argv,
    same_weights,
    subprocess_env,
    train_argv,
)

import glassformer.train.checkpoint as checkpoint
from glassformer.models import build_model
from glassformer.train import lock
from glassformer.train.record import MetricsLog
from glassformer.train.run import model_config, read_config

DRIVER = str(Path(__file__).with_name("crash_driver.py"))
MAX_STEPS = 12  # checkpoints at steps 0, 4, 8 and 12: the 3rd save is step 8's
STEPS = [1, *random.Random(15).sample(range(2, MAX_STEPS), 1)]  # step 1 (resumes from step 0) and a drawn one


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run every interrupted one must end up equal to."""
    root = tmp_path_factory.mktemp("reference")
    code, _, err = cli(train_argv(root / "run", root / "cache", MAX_STEPS))
    assert code == 0, err
    return root / "run", root / "cache"


def run_driver(mode: str, n: int, run: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python(), DRIVER, mode, str(n), "--", *train_argv(run, cache, MAX_STEPS)],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=300,
    )


def loadable_step(run: Path) -> int:
    """The step of the checkpoint in `run`, loaded in full (weights and training state) without
    changing a file: what a resume would start from."""
    model = build_model(model_config(read_config(run), run))
    return checkpoint.load_checkpoint(run, model, repair=False)["step"]


def assert_resumes_exactly(run: Path, cache: Path, reference) -> None:
    code, out, err = cli(resume_argv(run, cache))
    assert code == 0, err
    ref = reference[0]
    assert same_weights(run / "model.safetensors", ref / "model.safetensors")
    assert same_weights(run / "best.safetensors", ref / "best.safetensors")
    assert losses(run) == losses(ref)
    assert not list(run.glob(".*.tmp")) and not (run / lock.LOCK_FILE).exists()


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
def test_sigkill_after_a_random_step(step, reference, tmp_path):
    run = tmp_path / "run"
    assert run_driver("step", step, run, reference[1]).returncode == -signal.SIGKILL
    assert loadable_step(run) == step // 4 * 4  # the last evaluation's checkpoint
    assert_resumes_exactly(run, reference[1], reference)


@pytest.mark.slow
def test_sigkill_between_the_two_renames_rolls_forward(reference, tmp_path):
    run = tmp_path / "run"
    assert run_driver("between-renames", 3, run, reference[1]).returncode == -signal.SIGKILL
    weights_step = checkpoint.read_weights(run / checkpoint.MODEL_FILE)[2]
    assert (weights_step, checkpoint.read_state(run / checkpoint.STATE_FILE)["step"]) == (8, 4)  # disagree
    assert loadable_step(run) == 8  # the weights name the complete new state, left in its temp file
    assert_resumes_exactly(run, reference[1], reference)


@pytest.mark.slow
def test_sigkill_while_writing_a_checkpoint_keeps_the_previous_one(reference, tmp_path):
    run = tmp_path / "run"
    assert run_driver("temp-write", 3, run, reference[1]).returncode == -signal.SIGKILL
    assert list(run.glob(".train_state.pt.*.tmp"))  # the half-written state ...
    assert loadable_step(run) == 4  # ... is never loaded: step 4's pair is whole
    assert_resumes_exactly(run, reference[1], reference)


@pytest.mark.slow
def test_sigkill_at_a_random_moment(reference, tmp_path):
    """Killed from outside, at a moment nobody chose; the run may even have finished."""
    run = tmp_path / "run"
    process = subprocess.Popen(
        [python(), DRIVER, "none", "0", "--", *train_argv(run, reference[1], MAX_STEPS)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=subprocess_env(),
    )
    deadline = time.monotonic() + 120
    while not (run / checkpoint.MODEL_FILE).exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(random.Random(7).uniform(0.0, 0.4))
    process.kill()
    process.wait()
    assert 0 <= loadable_step(run) <= MAX_STEPS
    assert_resumes_exactly(run, reference[1], reference)


def _failing(monkeypatch, what: str, nth: int) -> None:
    """Make the nth write of `what` fail as a full disk does, after writing part of its file."""
    calls = [0]

    def fail_on_nth(real):
        def write(*args, **kwargs):
            calls[0] += 1
            if calls[0] == nth:
                target = args[1] if what != "metrics" else args[0].path
                with open(target, "ab") as f:
                    f.write(b"\x00" * 64)  # the disk filled up mid-write
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(*args, **kwargs)

        return write

    if what == "state":
        monkeypatch.setattr(checkpoint.torch, "save", fail_on_nth(torch.save))
    elif what == "weights":  # save_file writes best.safetensors too: count the checkpoint's only
        real = checkpoint.save_file

        def save_file(tensors, path, metadata=None):
            if "state_sha256" in (metadata or {}):
                return fail_on_nth(real)(tensors, path, metadata=metadata)
            return real(tensors, path, metadata=metadata)

        monkeypatch.setattr(checkpoint, "save_file", save_file)
    else:
        monkeypatch.setattr(MetricsLog, "append", fail_on_nth(MetricsLog.append))


@pytest.mark.parametrize("what, nth, saved", [("state", 3, 4), ("weights", 3, 4), ("metrics", 7, 4)])
def test_a_full_disk_keeps_the_last_checkpoint_and_says_so(what, nth, saved, reference, tmp_path, monkeypatch):
    run, cache = tmp_path / "run", reference[1]
    _failing(monkeypatch, what, nth)
    code, _, err = cli(train_argv(run, cache, MAX_STEPS))
    monkeypatch.undo()
    assert_clean_failure(code, err, codes=(1,))
    assert (
        "(No space left on device). The last good checkpoint, step 4, is kept; free some disk space, "
        f"then continue with: glassformer train --resume {run}" in err
    )
    assert not list(run.glob(".*.tmp"))  # the failed temp file is gone, the old pair untouched
    assert loadable_step(run) == saved
    assert_resumes_exactly(run, cache, reference)


@pytest.mark.slow
def test_a_second_trainer_is_refused_and_writes_nothing(reference, tmp_path):
    run, cache = tmp_path / "run", reference[1]
    first = subprocess.Popen(
        [python(), DRIVER, "hang", "6", "--", *train_argv(run, cache, MAX_STEPS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=subprocess_env(),
    )
    try:
        while (line := first.stdout.readline()) and line.strip() != "HANGING":
            pass
        assert line.strip() == "HANGING", "the first trainer died before holding the directory"
        before = {p.name: p.read_bytes() for p in run.iterdir()}
        for argv in (train_argv(run, cache, MAX_STEPS), resume_argv(run, cache)):
            code, _, err = cli(argv)
            assert_clean_failure(code, err, codes=(1,))
            assert f"is being trained by another process (pid {first.pid} on " in err and "kill" in err
        assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # never interleaved
    finally:
        first.kill()
        first.wait()
    assert (run / lock.LOCK_FILE).exists()  # SIGKILL left it behind: stale, since the kernel dropped the lock
    assert_resumes_exactly(run, cache, reference)


def test_a_stale_lock_file_is_taken_over(tmp_path):
    (tmp_path / lock.LOCK_FILE).write_text('{"pid": 999999999, "host": "gone", "started": "long ago"}\n')
    held = lock.acquire(tmp_path)
    assert f'"pid": {__import__("os").getpid()}' in (tmp_path / lock.LOCK_FILE).read_text()
    assert lock.acquire(tmp_path) == held  # re-entrant within a process
    lock.release(held)
    assert (tmp_path / lock.LOCK_FILE).exists()
    lock.release(held)
    assert not (tmp_path / lock.LOCK_FILE).exists()

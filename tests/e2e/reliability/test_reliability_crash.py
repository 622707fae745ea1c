"""Crash safety, by fault injection: a training process killed at any moment — between steps, in the
middle of writing a checkpoint, between the checkpoint's two renames — leaves a run directory that
holds a loadable checkpoint, and `--resume` then ends with exactly the losses and weights (bitwise,
on the CPU) of a run that was never interrupted. A write that fails (a full disk) keeps the previous
checkpoint and says so; a second trainer in the same directory is refused and writes nothing."""

from __future__ import annotations

import errno
import os
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import torch
from reliability_kit import (
    assert_clean_failure,
    cli,
    cli_said,
    losses,
    python,
    resume_argv,
    same_weights,
    subprocess_env,
    train_argv,
)

import glassformer.train.checkpoint as checkpoint
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.train import run as run_module
from glassformer.train.loop import STOP_SIGNALS
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
    assert not list(run.glob(".*.tmp")) and not (run / run_module.LOCK_FILE).exists()


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
                if what == "state-torch":  # what torch.save itself raises on a full disk: a short write
                    raise RuntimeError("[enforce fail at inline_container.cc:626] . unexpected pos 4544 vs 4441")
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(*args, **kwargs)

        return write

    if what in ("state", "state-torch"):
        monkeypatch.setattr(checkpoint.torch, "save", fail_on_nth(torch.save))
        if what == "state-torch":
            full = shutil.disk_usage(".")._replace(free=0)  # the disk torch.save filled: nothing left
            monkeypatch.setattr(checkpoint.shutil, "disk_usage", lambda path: full)
    elif what == "weights":  # save_file writes best.safetensors too: count the checkpoint's only
        real = checkpoint.save_file

        def save_file(tensors, path, metadata=None):
            if "state_sha256" in (metadata or {}):
                return fail_on_nth(real)(tensors, path, metadata=metadata)
            return real(tensors, path, metadata=metadata)

        monkeypatch.setattr(checkpoint, "save_file", save_file)
    else:
        monkeypatch.setattr(MetricsLog, "append", fail_on_nth(MetricsLog.append))


def disk_full_line(err: str, run: Path, kept: int) -> tuple[float, float]:
    """(MB free, MB a checkpoint needs) read from the one line a full disk gets, its last on stderr: it
    names the run's disk, the step whose checkpoint is kept, and ends with the command that continues."""
    line = err.strip().splitlines()[-1]
    assert str(run) in line and re.search(rf"\b{kept}\b", line), err
    assert line.split()[-4:] == ["glassformer", "train", "--resume", str(run)], err
    free, need = (float(mb) for mb in re.findall(r"([0-9.]+) MB\b", line))  # the two sizes, in MB
    return free, need


def pair_mb(run: Path) -> float:
    return sum((run / f).stat().st_size for f in (checkpoint.MODEL_FILE, checkpoint.STATE_FILE)) / 1e6


@pytest.mark.parametrize(
    "what, nth, saved", [("state", 3, 4), ("state-torch", 3, 4), ("weights", 3, 4), ("metrics", 7, 4)]
)
def test_a_full_disk_keeps_the_last_checkpoint_and_says_so(what, nth, saved, reference, tmp_path, monkeypatch):
    run, cache = tmp_path / "run", reference[1]
    _failing(monkeypatch, what, nth)
    code, _, err = cli(train_argv(run, cache, MAX_STEPS))
    monkeypatch.undo()
    assert_clean_failure(code, err, codes=(2,))
    _, need = disk_full_line(err, run, kept=4)
    assert 0.5 * pair_mb(run) <= need <= 2 * pair_mb(run) + 0.1  # about one checkpoint pair
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
            code, _, err, heard = cli_said(argv)
            assert_clean_failure(code, err, codes=(1,))
            [held] = heard.of("lock.held")
            assert (held["pid"], held["kill"]) == (first.pid, first.pid)  # who holds it, and how to stop it
        assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # never interleaved
    finally:
        first.kill()
        first.wait()
    assert (run / run_module.LOCK_FILE).exists()  # SIGKILL left it behind: stale, since the kernel dropped the lock
    assert_resumes_exactly(run, cache, reference)


def test_a_stale_lock_file_is_taken_over(tmp_path):
    (tmp_path / run_module.LOCK_FILE).write_text('{"pid": 999999999, "host": "gone", "started": "long ago"}\n')
    held = run_module.acquire(tmp_path)
    assert f'"pid": {__import__("os").getpid()}' in (tmp_path / run_module.LOCK_FILE).read_text()
    assert run_module.acquire(tmp_path) == held  # re-entrant within a process
    run_module.release(held)
    assert (tmp_path / run_module.LOCK_FILE).exists()
    run_module.release(held)
    assert not (tmp_path / run_module.LOCK_FILE).exists()


# ---- SIGTERM (kill, a scheduler, a container stop): saves and says how to resume, as Ctrl-C does ----
def slow_driver(run: Path, cache: Path) -> subprocess.Popen:
    """A trainer that prints STEP n after each step and waits half a second (time to send a signal)."""
    return subprocess.Popen(
        [python(), DRIVER, "slow", "0", "--", *train_argv(run, cache, MAX_STEPS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )


def signal_at_step(process: subprocess.Popen, step: int, times: int) -> tuple[str, str]:
    while (line := process.stdout.readline()) and line.strip() != f"STEP {step}":
        pass
    assert line.strip() == f"STEP {step}", "the trainer ended before the step"
    for _ in range(times):
        process.send_signal(signal.SIGTERM)
        time.sleep(0.05)
    out, err = process.communicate(timeout=120)
    return out, err


def test_sigterm_saves_and_says_how_to_resume(reference, tmp_path):
    run, cache = tmp_path / "run", reference[1]
    process = slow_driver(run, cache)
    out, err = signal_at_step(process, 6, times=1)
    assert process.returncode == 128 + signal.SIGTERM  # 143: what a shell shows for a terminated job
    assert t(STOP_SIGNALS[signal.SIGTERM]) in err and "Traceback" not in err  # in this process's language
    lines = out.splitlines()
    assert any(str(run) in line and re.search(r"\b6\b", line) for line in lines)  # interrupted at step 6, saved
    assert any(line.split()[-3:] == ["train", "--resume", str(run)] for line in lines)  # the command to resume
    assert loadable_step(run) == 6
    assert_resumes_exactly(run, cache, reference)


def test_a_second_sigterm_stops_at_once_and_keeps_the_last_checkpoint(reference, tmp_path):
    run, cache = tmp_path / "run", reference[1]
    process = slow_driver(run, cache)
    out, _ = signal_at_step(process, 6, times=2)
    assert process.returncode == -signal.SIGTERM  # the default action: ended at once, nothing saved
    assert "Interrupted" not in out
    assert loadable_step(run) == 4  # the last evaluation's checkpoint, untouched
    assert_resumes_exactly(run, cache, reference)


# ---- a real full disk: a small tmpfs mounted for the test ------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs at tmp_path/disk (root only: CI runs as root; skipped with the reason elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if shutil.which("mount") is None or os.name != "posix":
        pytest.skip("no mount command: a tmpfs cannot be mounted here")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here (root is needed): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_is_one_line_exit_2_and_the_previous_checkpoint_is_intact(reference, small_disk):
    run, cache = small_disk / "run", reference[1]
    done = run_driver("fill", 6, run, cache)  # after step 6 the disk has only its last few KB
    assert_clean_failure(done.returncode, done.stderr, codes=(2,))
    assert len(done.stderr.strip().splitlines()) == 1
    free, need = disk_full_line(done.stderr, run, kept=4)
    assert free < need and free <= 0.1  # what the disk had left, in MB
    assert 0.5 * pair_mb(run) <= need <= 2 * pair_mb(run) + 0.1
    assert not list(run.glob(".*.tmp"))
    assert loadable_step(run) == 4  # the previous checkpoint, whole
    (run / "filler").unlink()  # space made: the run continues exactly as if it had never stopped
    assert_resumes_exactly(run, cache, reference)

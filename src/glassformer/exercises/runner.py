"""Run learners' code in a separate process with a time limit, and never hang or die with it.

`run_jobs` starts one child (worker.py) for a list of jobs: torch is imported once, then each
job imports one learner file and makes its calls. The parent watches the child's protocol lines:

    a job that does not finish within `timeout` seconds  -> "timeout": the child is killed
    a child that exits in the middle of a job            -> "died", with its exit code
    a job that finishes                                  -> "done", with the worker's result

After a timeout or a death the remaining jobs go to a fresh child, so one student's infinite
loop costs that student one job and nobody else anything.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import torch

WORKER = Path(__file__).with_name("worker.py")
STARTUP_TIMEOUT = 120.0  # seconds for the child to import torch and load the jobs (a busy machine)


@dataclass
class Job:
    id: str
    file: Path
    calls: list[dict]  # {"fn": name, "args": tuple, "grad": [index | (index, key)], "cot": [tensor | None]}
    timeout: float | None = None  # seconds for this job; None: run_jobs' timeout


@dataclass
class JobResult:
    status: str  # "done" | "timeout" | "died" | "no_start"
    payload: dict | None = None  # the worker's result when done
    exit_code: int | None = None
    stderr: str = ""  # the end of what the child wrote to stderr


def run_jobs(jobs: list[Job], timeout: float, startup_timeout: float = STARTUP_TIMEOUT) -> dict[str, JobResult]:
    """Every job's result, by id. `timeout` is per job, counted from the job's START."""
    results: dict[str, JobResult] = {}
    pending = list(jobs)
    with tempfile.TemporaryDirectory(prefix="glassformer-ex-") as tmp:
        round_ = 0
        while pending:
            round_ += 1
            ran = _one_child(pending, timeout, startup_timeout, Path(tmp), round_, results)
            pending = pending[ran:]
    return results


def _one_child(
    jobs: list[Job], timeout: float, startup_timeout: float, tmp: Path, round_: int, results: dict[str, JobResult]
) -> int:
    """Run jobs in one child until all are done or one fails; return how many got a result."""
    jobs_file, out_dir = tmp / f"jobs{round_}.pt", tmp / f"out{round_}"
    out_dir.mkdir()
    torch.save([{"id": j.id, "file": str(Path(j.file).resolve()), "calls": j.calls} for j in jobs], jobs_file)
    err_path = tmp / f"stderr{round_}.txt"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER), str(jobs_file), str(out_dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            cwd=tmp,
            env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
            start_new_session=True,
        )  # its own process group: killing it kills what it started
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    try:
        if _expect(lines, "READY", startup_timeout) is not True:
            _kill(proc)
            for job in jobs:
                results[job.id] = JobResult("no_start", exit_code=proc.poll(), stderr=_tail(err_path))
            return len(jobs)
        for n, job in enumerate(jobs):
            started = _expect(lines, f"START {job.id}", startup_timeout)
            finished = _expect(lines, f"DONE {job.id}", job.timeout or timeout) if started is True else started
            if finished is True:
                results[job.id] = JobResult("done", torch.load(out_dir / f"{job.id}.pt", weights_only=True))
                continue
            if finished == "timeout":
                _kill(proc)
                results[job.id] = JobResult("timeout", stderr=_tail(err_path))
            else:  # the child ended in the middle of this job
                results[job.id] = JobResult("died", exit_code=_wait(proc), stderr=_tail(err_path))
            return n + 1
        return len(jobs)
    finally:
        _kill(proc)
        proc.stdout.close()


def _pump(stream, lines: queue.Queue) -> None:
    for raw in stream:
        lines.put(raw.decode("utf-8", "replace").strip())
    lines.put(None)  # end of stream: the child is gone


def _expect(lines: queue.Queue, wanted: str, within: float) -> bool | str:
    """True when `wanted` arrives in time; "timeout" or "eof" otherwise."""
    deadline = time.monotonic() + within
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout"
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            return "timeout"
        if line is None:
            lines.put(None)  # keep the end-of-stream marker for the next reader
            return "eof"
        if line == wanted:
            return True


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):
            proc.kill()
    _wait(proc)


def _wait(proc: subprocess.Popen) -> int | None:
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        return None


def _tail(path: Path, limit: int = 1500) -> str:
    try:
        return path.read_bytes()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""

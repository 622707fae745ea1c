"""Run learners' code in a separate process with a time limit, and never hang or die with it.

The parent (`run_jobs`) starts one child, this very file run as a script,

    python -I sandbox.py JOBS_FILE OUT_DIR

with nothing of glassformer importable (-I: no PYTHONPATH, no current directory on sys.path):
the child half of this file imports only the standard library and torch. torch is imported
once, then each job imports one learner file and makes its calls. The parent watches the
child's protocol lines (on a private copy of stdout; the learner's own prints are captured):

    READY            torch is imported and the jobs are loaded
    START <id>       job <id> begins: import the learner's file, then make each call
    DONE <id>        <OUT_DIR>/<id>.pt holds the job's result (see run_job)

    a job that does not finish within `timeout` seconds  -> "timeout": the child is killed
    a child that exits in the middle of a job            -> "died", with its exit code
    a job that finishes                                  -> "done", with the child's result

After a timeout or a death the remaining jobs go to a fresh child, so one student's infinite
loop costs that student one job and nobody else anything. Whatever the learner's code does
(loop for ever, crash, call sys.exit, print), the parent stays in charge.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

# -------------------------------------------------------------------------------- the parent

CHILD = Path(__file__)  # this file, run as a script
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
    import torch  # only when grading: the parent's import of this module stays light

    jobs_file, out_dir = tmp / f"jobs{round_}.pt", tmp / f"out{round_}"
    out_dir.mkdir()
    torch.save([{"id": j.id, "file": str(Path(j.file).resolve()), "calls": j.calls} for j in jobs], jobs_file)
    err_path = tmp / f"stderr{round_}.txt"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(CHILD), str(jobs_file), str(out_dir)],
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


# --------------------------------------------------------------------------------------- the child

TEXT_LIMIT = 2000  # characters of captured output or error text kept per job
MEMORY_HEADROOM = 2 << 30  # bytes of address space the learner's code may add to torch's own


def main(jobs_path: str, out_dir: str) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what anything writes to fd 1 from now on lands in stderr, not in the protocol
    sys.dont_write_bytecode = True  # no __pycache__ in the learner's folder
    import torch

    jobs = torch.load(jobs_path, weights_only=True)
    _limit_memory()
    print("READY", file=protocol)
    for job in jobs:
        print(f"START {job['id']}", file=protocol)
        _reset(torch)
        result = run_job(job, torch)
        torch.save(result, os.path.join(out_dir, f"{job['id']}.pt"))
        print(f"DONE {job['id']}", file=protocol)
    print("BYE", file=protocol)


def _limit_memory() -> None:
    """A huge allocation fails inside the learner's code (a MemoryError or torch's allocator
    error, reported like any exception) instead of pressing on the whole machine. Linux only."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")  # address space in use
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = now + MEMORY_HEADROOM
        if hard == resource.RLIM_INFINITY or limit < hard:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass


def _reset(torch) -> None:
    """The process-wide modes a previous file may have changed (they matter to the next one)."""
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_num_threads(1)
    torch.manual_seed(0)


def run_job(job: dict, torch) -> dict:
    """{"import_error": error | None, "missing": [fn names], "calls": [call results], "stdout": str}"""
    folder = os.path.dirname(os.path.abspath(job["file"]))
    sys.path.insert(0, folder)  # so the learner's file can import the learner's other files
    captured = io.StringIO()
    result = {"import_error": None, "missing": [], "calls": [], "stdout": ""}
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            try:
                module = _import(job["file"], f"_learner_{job['id']}")
            except BaseException as e:  # noqa: BLE001 - SyntaxError, SystemExit, anything
                if isinstance(e, KeyboardInterrupt):
                    raise
                result["import_error"] = _error(e, job["file"])
                return result
            for call in job["calls"]:
                fn = getattr(module, call["fn"], None)
                if not callable(fn):
                    result["missing"].append(call["fn"])
                    result["calls"].append({"missing": True})
                    continue
                result["calls"].append(_call(fn, call, job["file"], torch))
    finally:
        sys.path.remove(folder)
        _forget_modules_from(folder)  # the next job may be another student's, with its own attention.py
        result["stdout"] = captured.getvalue()[-TEXT_LIMIT:]
    return result


def _import(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _forget_modules_from(folder: str) -> None:
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if name.startswith("_learner_") or os.path.dirname(os.path.abspath(file)) == folder:
            del sys.modules[name]


def _call(fn, call: dict, file: str, torch) -> dict:
    """{"outputs": exported value, "grads": [tensor | None] | None, "grad_note": str | None}
    or {"error": error} (with "todo": True when the skeleton's NotImplementedError is still there)."""
    args = list(call["args"])
    leaves = []
    for path in call["grad"]:  # give the graded inputs requires_grad, keeping their strides
        if isinstance(path, int):
            args[path] = args[path].detach().requires_grad_(True)
            leaves.append(args[path])
        else:
            i, key = path
            args[i] = dict(args[i])
            args[i][key] = args[i][key].detach().requires_grad_(True)
            leaves.append(args[i][key])
    try:
        out = fn(*args)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"error": _error(e, file), "todo": isinstance(e, NotImplementedError)}
    result = {"outputs": _export(out, torch), "grads": None, "grad_note": None}
    if leaves:
        result["grads"], result["grad_note"] = _grads(out, leaves, call["cot"], torch)
    return result


def _grads(out, leaves, cotangents, torch):
    """Pull the learner's outputs back through the parent's cotangents (the same ones the
    reference used), so every output entry takes part in the gradient comparison."""
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != len(cotangents):
        return None, "count"
    pairs = []
    for o, c in zip(outs, cotangents, strict=False):
        if c is None:
            continue
        if not isinstance(o, torch.Tensor) or o.shape != c.shape:
            return None, "shape"
        if o.requires_grad:
            pairs.append((o, c.to(o.dtype)))
    if not pairs:
        return None, "no_graph"
    try:
        grads = torch.autograd.grad([o for o, _ in pairs], leaves, [c for _, c in pairs], allow_unused=True)
    except Exception as e:  # noqa: BLE001 - e.g. an in-place change of a saved tensor
        return None, f"error: {type(e).__name__}: {str(e)[:TEXT_LIMIT]}"
    return [None if g is None else g.detach().clone() for g in grads], None


def _export(value, torch):
    """The learner's return value in a form torch.load(weights_only=True) accepts."""
    if isinstance(value, torch.Tensor):
        return {"kind": "tensor", "value": value.detach().clone()}
    if isinstance(value, (tuple, list)):
        return {"kind": "seq", "items": [_export(v, torch) for v in value]}
    if value is None or isinstance(value, (bool, int, float)):
        return {"kind": "scalar", "value": value}
    return {"kind": "other", "type": f"{type(value).__module__}.{type(value).__qualname__}", "repr": repr(value)[:200]}


def _error(e: BaseException, file: str) -> dict:
    """Type, message, and the last line of the learner's own file the error passed through."""
    where = None
    for frame in traceback.extract_tb(e.__traceback__):
        if os.path.dirname(os.path.abspath(frame.filename)) == os.path.dirname(os.path.abspath(file)):
            where = {"file": os.path.basename(frame.filename), "line": frame.lineno, "code": (frame.line or "").strip()}
    if isinstance(e, SyntaxError) and where is None:
        where = {"file": os.path.basename(e.filename or file), "line": e.lineno or 0, "code": (e.text or "").strip()}
    return {"type": type(e).__name__, "message": str(e)[:TEXT_LIMIT], "where": where}


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""The child process that runs a learner's code. Started by runner.py as

    python -I worker.py JOBS_FILE OUT_DIR

with nothing of glassformer importable (-I: no PYTHONPATH, no current directory on sys.path).
It imports only the standard library and torch. Whatever the learner's code does (loop for
ever, crash, call sys.exit, print), the parent process stays in charge: it reads the lines
this process writes on its protocol channel and kills it when a job runs past its time.

Protocol (one line each, on a private copy of stdout; the learner's own prints are captured):
    READY            torch is imported and the jobs are loaded
    START <id>       job <id> begins: import the learner's file, then make each call
    DONE <id>        <OUT_DIR>/<id>.pt holds the job's result
A job is {"id", "file", "calls": [{"fn", "args", "grad", "cot"}]}; see run_job for the result.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
import traceback

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

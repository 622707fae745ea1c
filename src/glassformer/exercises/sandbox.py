"""Run learners' code in a separate, confined process with a time limit, and never hang or die with it.

Graded code is untrusted code: a student's file may delete files, start processes that outlive
the grading, kill the grader, open the network, read the reference solution, or answer for the
grader. So the parent (`run_jobs`, the process that reports) starts a SUPERVISOR, this very file
run as a script,

    python -I sandbox.py on|off

in its own session, and the supervisor forks the WORKER, which imports torch, reads the jobs from
its stdin, and forks one JOB PROCESS per job: only there is the learner's file imported.

    reporter (run_jobs) ── supervisor (own session) ── worker (own session) ── job process (learner code)

The worker is started before its jobs are known (`prestart`, from `python -m glassformer
exercise check|grade`): its `import torch` overlaps the parent's own import and the preparation
of the references, and the jobs follow on its stdin once the parent has them.

On Linux, before the fork, the supervisor enters a new user, network and PID namespace (no
privileges needed: unshare(2)), so the worker is process 1 of its own PID namespace, sees no
network interface but a loopback that is down, and nothing in there can name a process outside
(a kill of the supervisor's pid reaches nothing: it is pid 0 in there). When the worker ends, or
is killed, the kernel kills every process left in its namespace: a child started in a new session
cannot outlive the grading; after each job the worker kills whatever the job started. The worker
dies with the supervisor (PR_SET_PDEATHSIG), and the supervisor is a subreaper that kills
whatever is left of its tree at the end (the same guarantee where namespaces are unavailable).
Each job process confines itself with Landlock (the kernel's unprivileged file-system sandbox,
ABI >= 1, Linux >= 5.13) before the learner's file is imported: it can read only the Python
installation, the system's libraries and the job's folder, write only the scratch folder, not
connect or bind TCP (ABI >= 4), and not signal any process outside itself (ABI >= 6).
glassformer's own package and the reference solutions are outside what it may read; an import
gate and an audit hook refuse them by every import route as well, and a torch function mode and
a dispatch-level trace refuse the exercise's forbidden operations however they are reached (an
alias, getattr(torch, "soft" + "max"), torch.ops.aten._softmax, a C method). docs/exercises.md
says what each layer guarantees and where (which OS, kernel) it does not hold.

Who may say what. The worker never runs learner code, and only it holds the protocol (a private
copy of its stdout) and the jobs' pipe (its stdin): each job process closes both before anything
of the learner's runs, so no submission can say START or END, speak for another job, or end its
own job early with a made-up result. A job process sends back, on a pipe of its own, first the
confinement it got (before the learner's code runs: the worker says it as SANDBOX), then one
torch.save of its result (the learner's raw outputs and gradients, never a verdict), read up to
RESULT_LIMIT. The parent accepts only what run_job writes (check_payload: the fields, one result
per call asked, tensors and scalars, refusals by the exercise's own rules) and computes the
verdict itself, against references the worker never sees; anything else is status "protocol"
with the reason. There is no result folder: the job's process can write its scratch folder only.

The protocol, the worker's stdout:

    READY                    torch is imported: send the jobs (8-byte length, torch.save)
    START <id>               job <id> begins in a process of its own
    SANDBOX {json}           the confinement that process got (on or off, the layers, what is missing)
    END <id> <exit> <n>      it ended with exit code <exit> (minus its signal; "big": too much
                             sent back); the n bytes that follow are what it sent back

    a job that does not finish within `timeout` seconds  -> "timeout": the process tree is killed
    a job process that exits without a result            -> "died", with its exit code
    a result that is not what run_job writes             -> "protocol", with what is wrong
    a job that finishes                                  -> "done", with its result

After a timeout or a worker's death the remaining jobs go to a fresh supervisor and worker, so one
student's infinite loop costs that student one job and nobody else anything. Whatever the
learner's code does (loop for ever, crash, call sys.exit, kill its parent, print), the reporting
process stays in charge. The report says the confinement on every run, and when it is off, says
so (never silently); GLASSFORMER_SANDBOX=off turns it off on purpose.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.abc
import importlib.util
import io
import json
import os
import queue
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from glassformer.messages import N_

# -------------------------------------------------------------------------------- the parent

CHILD = Path(__file__)  # this file, run as a script
PACKAGE = CHILD.resolve().parents[1]  # glassformer's own package: never readable by the worker
FILE_LIMIT = 16 << 20  # bytes: the largest file the learner's code may write (RLIMIT_FSIZE)
QUOTA = 64 << 20  # bytes: all it may write together (its scratch folder), watched from here
RESULT_LIMIT = 32 << 20  # bytes: the largest result one job's process may send back (no more is read)
WATCH = 0.1  # seconds between two looks at what it wrote
# the environment the worker gets: what Python and torch need, nothing of the grader's (credentials, tokens)
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "SYSTEMROOT", "WINDIR")
TIMEOUT = 10.0  # seconds per learner file, all its cases together (torch's import not counted)
STARTUP_TIMEOUT = 120.0  # seconds for the child to import torch and load the jobs (a busy machine)
GRACE = 5.0  # seconds the supervisor has to kill its tree when asked, before it is killed itself
ENV_OFF = "GLASSFORMER_SANDBOX"  # =off: no confinement (reported as off)
TOKEN = "GLASSFORMER_SANDBOX_TOKEN"  # marks every process of one grading round, for the final sweep
# the verbs that grade: `prestart_for` starts their worker before this process imports torch
GRADING_VERBS = (("exercise", "check"), ("exercise", "grade"))


@dataclass
class Job:
    id: str
    file: Path
    calls: list[dict]  # {"fn": name, "args": tuple, "grad": [index | (index, key)], "cot": [tensor | None]}
    timeout: float | None = None  # seconds for this job; None: run_jobs' timeout
    forbidden: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # (names, why key) per rule


@dataclass
class JobResult:
    status: str  # "done" | "timeout" | "died" | "no_start" | "quota" | "protocol"
    payload: dict | None = None  # the job's result when done (checked by check_payload)
    exit_code: int | None = None
    stderr: str = ""  # the end of what the child wrote to stderr
    sandbox: dict | None = None  # the confinement the job had: {"on", "layers", "missing"}
    reason: str = ""  # status "protocol": what was wrong with what came back


def run_jobs(
    jobs: list[Job], timeout: float, startup_timeout: float = STARTUP_TIMEOUT, deny: tuple = ()
) -> dict[str, JobResult]:
    """Every job's result, by id. `timeout` is per job, counted from the job's START. `deny`: more
    folders the worker may not read (the reference solutions), besides glassformer's package.
    The first round takes the worker `prestart` started, if any (its torch is imported already)."""
    global _warm
    results: dict[str, JobResult] = {}
    pending = list(jobs)
    worker, _warm = _warm, None
    try:
        while pending:
            if worker is None or worker.proc.poll() is not None:
                if worker is not None:
                    worker.close()
                worker = Worker()
            ran = _one_child(worker, pending, timeout, startup_timeout, results, deny)
            worker.close()
            worker = None
            pending = pending[ran:]
    finally:
        if worker is not None:
            worker.close()
    return results


_warm: Worker | None = None  # a worker started ahead of the jobs (prestart), for the next run_jobs


def prestart() -> None:
    """Start a worker now, so its `import torch` overlaps this process's own import and the
    references' preparation; the next run_jobs sends it the jobs. Unused, it ends with us."""
    global _warm
    if _warm is None:
        _warm = Worker()
        atexit.register(_warm.close)


def prestart_for(argv: list[str]) -> None:
    """prestart() when the command line holds a grading verb (`exercise check`, `exercise grade`:
    two words in a row, options and their values aside): called by `python -m glassformer` before
    it imports torch. A wrong guess costs one idle worker, ended with this process."""
    words = [a for a in argv if not a.startswith("-")]
    if any(tuple(words[i : i + 2]) in GRADING_VERBS for i in range(len(words))):
        with contextlib.suppress(OSError):
            prestart()


class Worker:
    """One supervisor and its worker: started (importing torch) before its jobs are known, given
    the jobs over its stdin once ready. Everything it says comes back on its stdout (_pump)."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="glassformer-ex-")
        self.scratch = Path(self.tmp.name) / "scratch"  # the learner's cwd, home and temporary files
        self.scratch.mkdir()
        self.err_path = Path(self.tmp.name) / "stderr.txt"
        self.token = secrets.token_hex(8)
        self.off = os.environ.get(ENV_OFF, "").lower() in ("0", "off", "no", "false")
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(CHILD), "off" if self.off else "on"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=self.scratch,
                env=worker_env(self.scratch, self.token),
                start_new_session=True,
            )  # its own session: nothing the learner's code signals by group reaches this process
        self.lines: queue.Queue[tuple[str, bytes] | None] = queue.Queue()
        self.told: dict = {}
        self.over, self.done = threading.Event(), threading.Event()
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines, self.told), daemon=True).start()
        watched = (self.proc, self.token, (self.scratch,), self.over, self.done)
        threading.Thread(target=_watch, args=watched, daemon=True).start()

    def send(self, jobs: list[Job], deny: tuple) -> bool:
        """The jobs and the confinement, as one length-prefixed torch.save; False if it is gone."""
        import torch

        folders = sorted({str(Path(j.file).resolve().parent) for j in jobs})
        denied = [str(PACKAGE)] + [str(Path(d).resolve()) for d in deny if str(Path(d).resolve()) not in folders]
        confine = {"off": self.off, "deny": denied}
        listed = [
            {"id": j.id, "file": str(Path(j.file).resolve()), "calls": j.calls, "forbidden": list(j.forbidden)}
            for j in jobs
        ]
        buffer = io.BytesIO()
        torch.save({"jobs": listed, "confine": confine}, buffer)
        data = buffer.getvalue()
        try:
            self.proc.stdin.write(len(data).to_bytes(8, "big") + data)
            self.proc.stdin.close()
        except OSError:  # BrokenPipeError: it died while starting
            return False
        return True

    def close(self) -> None:
        self.done.set()
        _kill(self.proc, self.token)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self.tmp.cleanup()


def _one_child(
    worker: Worker, jobs: list[Job], timeout: float, startup_timeout: float, results: dict[str, JobResult], deny: tuple
) -> int:
    """Run jobs in one supervised worker until all are done or one fails; return how many got a result."""
    lines, told = worker.lines, worker.told
    if _expect(lines, "READY", startup_timeout) is not True or not worker.send(jobs, deny):
        _kill(worker.proc, worker.token)
        for job in jobs:
            results[job.id] = JobResult(
                "no_start", exit_code=worker.proc.poll(), stderr=_tail(worker.err_path), sandbox=told.get("sandbox")
            )
        return len(jobs)
    for n, job in enumerate(jobs):
        started = _expect(lines, f"START {job.id}", startup_timeout)
        ended = _expect(lines, f"END {job.id} ", job.timeout or timeout) if started is True else started
        sandbox = told.get("sandbox")
        if isinstance(ended, tuple):
            results[job.id] = _ended(job, ended, sandbox, worker.err_path)
            continue
        if ended == "timeout":
            _kill(worker.proc, worker.token)
            results[job.id] = JobResult("timeout", stderr=_tail(worker.err_path), sandbox=sandbox)
        elif worker.over.is_set():  # killed by _watch: it wrote more than QUOTA
            results[job.id] = JobResult(
                "quota", exit_code=_wait(worker.proc), stderr=_tail(worker.err_path), sandbox=sandbox
            )
        else:  # the worker itself ended in the middle of this job
            results[job.id] = JobResult(
                "died", exit_code=_wait(worker.proc), stderr=_tail(worker.err_path), sandbox=sandbox
            )
        return n + 1
    return len(jobs)


def _ended(job: Job, ended: tuple[str, bytes], sandbox: dict | None, err_path: Path) -> JobResult:
    """The worker's `END <id> <exit> <n>` and the n bytes the job's process sent back -> its result.
    Only the worker (which never runs learner code) writes END; what the bytes say is checked."""
    line, data = ended
    said = line.split()[2]
    if said == "big":
        return JobResult("protocol", reason=f"a result over {RESULT_LIMIT >> 20} MiB", sandbox=sandbox)
    code = int(said)
    if code != 0:  # the job's process died: its own exit code, or minus the signal that killed it
        return JobResult("died", exit_code=code, stderr=_tail(err_path), sandbox=sandbox)
    import torch

    try:
        payload = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as e:  # noqa: BLE001 - bytes the learner's code wrote: anything at all
        return JobResult("protocol", reason=f"unreadable result ({type(e).__name__})", sandbox=sandbox)
    problem = check_payload(payload, job, torch)
    if problem:
        return JobResult("protocol", reason=problem, sandbox=sandbox)
    return JobResult("done", payload, sandbox=sandbox)


def check_payload(payload, job: Job, torch) -> str:
    """What is wrong with a job's result, as the parent reads it ("" when it is well formed): the
    fields run_job writes and no other, one call result per call asked, each an export of tensors,
    scalars or a description, gradients as many as asked, refusals by the job's own rules. The
    verdict is the parent's: it compares these values with references the worker never sees."""
    keys = {"import_error", "missing", "calls", "stdout", "forbidden"}
    if not isinstance(payload, dict) or set(payload) != keys:
        return "not the fields of a result"
    if not isinstance(payload["stdout"], str) or not isinstance(payload["forbidden"], list):
        return "not the fields of a result"
    whys = {why for _, why in job.forbidden} | {GLASSFORMER, GUARD}
    for hit in payload["forbidden"]:
        if not (
            isinstance(hit, dict)
            and set(hit) == {"name", "why", "file", "line"}
            and hit["why"] in whys
            and isinstance(hit["name"], str)
            and isinstance(hit["file"], str)
            and type(hit["line"]) is int
        ):
            return "a refusal by no rule of this exercise"
    if payload["import_error"] is not None:
        return "" if _is_error(payload["import_error"]) else "not an error"
    calls = payload["calls"]
    if not isinstance(calls, list) or len(calls) != len(job.calls):
        n = len(calls) if isinstance(calls, list) else 0
        return f"{n} results for {len(job.calls)} calls"
    missing = [asked["fn"] for asked, got in zip(job.calls, calls, strict=True) if got == {"missing": True}]
    if payload["missing"] != missing:
        return "the missing functions differ from the calls"
    for asked, got in zip(job.calls, calls, strict=True):
        problem = _check_call(got, len(asked["grad"]), torch)
        if problem:
            return problem
    return ""


def _check_call(got, n_grads: int, torch) -> str:
    if got == {"missing": True}:
        return ""
    if isinstance(got, dict) and set(got) == {"error", "todo"}:
        return "" if _is_error(got["error"]) and isinstance(got["todo"], bool) else "not an error"
    if not isinstance(got, dict) or set(got) != {"outputs", "grads", "grad_note"}:
        return "not a call's result"
    if not _is_export(got["outputs"], torch, depth=0):
        return "an output that is not a value"
    grads, note = got["grads"], got["grad_note"]
    if grads is not None and not (
        isinstance(grads, list)
        and len(grads) == n_grads
        and all(g is None or type(g) is torch.Tensor for g in grads)
        and note is None
    ):
        return "gradients other than those asked"
    if grads is None and not (note is None or isinstance(note, str)):
        return "gradients other than those asked"
    return ""


def _is_error(error) -> bool:
    if not isinstance(error, dict) or set(error) != {"type", "message", "where"}:
        return False
    where = error["where"]
    return (
        isinstance(error["type"], str)
        and isinstance(error["message"], str)
        and (
            where is None
            or isinstance(where, dict)
            and set(where) == {"file", "line", "code"}
            and isinstance(where["file"], str)
            and type(where["line"]) is int
            and isinstance(where["code"], str)
        )
    )


def _is_export(value, torch, depth: int) -> bool:
    """One exported return value (see _export): a plain tensor, a scalar, a sequence of those
    (not nested past what an exercise returns), or another object's type and repr."""
    if not isinstance(value, dict) or depth > 4:
        return False
    kind = value.get("kind")
    if kind == "tensor":
        return set(value) == {"kind", "value"} and type(value["value"]) is torch.Tensor
    if kind == "scalar":
        return set(value) == {"kind", "value"} and (
            value["value"] is None or type(value["value"]) in (bool, int, float)
        )
    if kind == "seq":
        items = value.get("items")
        return (
            set(value) == {"kind", "items"}
            and isinstance(items, list)
            and all(_is_export(v, torch, depth + 1) for v in items)
        )
    if kind == "other":
        return set(value) == {"kind", "type", "repr"} and all(isinstance(value[k], str) for k in ("type", "repr"))
    return False


def worker_env(scratch: Path, token: str) -> dict[str, str]:
    """The worker's environment: KEPT_ENV from ours, one thread each, home and temporary files in
    its scratch folder, and the round's token. Nothing else of the grader's reaches the learner."""
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", HOME=str(scratch), TMPDIR=str(scratch), **{TOKEN: token})
    return env


def _watch(proc: subprocess.Popen, token: str, folders: tuple, over: threading.Event, done: threading.Event) -> None:
    """Kill the worker once what it wrote passes QUOTA (one file is capped at FILE_LIMIT by the
    kernel; many files are capped here, within what a disk writes in WATCH seconds)."""
    while not done.wait(WATCH):
        if _written(folders) > QUOTA:
            over.set()
            _kill(proc, token)
            return


def _written(folders: tuple) -> int:
    total = 0
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512  # what is on the disk
    return total


def _pump(stream, lines: queue.Queue, told: dict) -> None:
    """The worker's lines, each with the bytes that follow it (an END line's result), in order."""
    while True:
        raw = stream.readline(1 << 16)
        if not raw:
            break
        line = raw.decode("utf-8", "replace").strip()
        if line.startswith("SANDBOX "):
            with contextlib.suppress(ValueError):
                told["sandbox"] = json.loads(line[len("SANDBOX ") :])
            continue
        data = b""
        if line.startswith("END "):
            try:
                size = int(line.split()[3])
            except (IndexError, ValueError):
                break
            data = stream.read(size) if 0 <= size <= RESULT_LIMIT else b""
            if len(data) != size:
                break  # cut short: the worker is gone (or not one we started)
        lines.put((line, data))
    lines.put(None)  # end of stream: the child is gone


def _expect(lines: queue.Queue, wanted: str, within: float) -> bool | str | tuple[str, bytes]:
    """True when the line `wanted` arrives in time (or the line starting with it and its bytes,
    when `wanted` ends with a space); "timeout" or "eof" otherwise."""
    deadline = time.monotonic() + within
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout"
        try:
            item = lines.get(timeout=left)
        except queue.Empty:
            return "timeout"
        if item is None:
            lines.put(None)  # keep the end-of-stream marker for the next reader
            return "eof"
        line, data = item
        if line == wanted:
            return True
        if wanted.endswith(" ") and line.startswith(wanted):
            return line, data


def _kill(proc: subprocess.Popen, token: str) -> None:
    """Ask the supervisor to kill its tree (SIGTERM), then kill its group; then sweep whatever still
    carries this round's token (a process the learner's code started, where no namespace holds it)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            proc.terminate()
        try:
            proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, AttributeError):
                proc.kill()
    _wait(proc)
    _sweep(token)


def _sweep(token: str) -> None:
    if not os.path.isdir("/proc"):
        return
    marker = f"{TOKEN}={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    os.kill(int(entry), signal.SIGKILL)
        except OSError:
            continue


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


# ----------------------------------------------------------------------- the supervisor (Linux)
# Everything below runs in the child processes and imports only the standard library (and torch,
# in the worker). The supervisor must not start a thread before unshare(2): it imports nothing heavy.

CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 4, 38, 36


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def enter_namespaces() -> list[str]:
    """A new user + network + PID namespace for this process's children (as root without a user
    namespace when that is refused); returns the layers entered. Each way is tried first in a
    forked probe, so a system that lets unshare(2) succeed but then refuses the uid map (Ubuntu's
    AppArmor restriction of user namespaces) never leaves the supervisor in a half-made namespace."""
    libc = _libc()
    for flags, layers in (
        (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID, ["user namespace", "network namespace", "pid namespace"]),
        (CLONE_NEWNET | CLONE_NEWPID, ["network namespace", "pid namespace"]),
        (CLONE_NEWUSER | CLONE_NEWNET, ["user namespace", "network namespace"]),
    ):
        probe = os.fork()
        if probe == 0:
            os._exit(0 if _unshare(libc, flags) else 1)
        if os.waitpid(probe, 0)[1] == 0 and _unshare(libc, flags):
            return layers
    return []


def _unshare(libc, flags: int) -> bool:
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(flags) != 0:
        return False
    if flags & CLONE_NEWUSER:
        try:  # the same uid and gid inside: files keep their owners
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as f:
                    f.write(text)
        except OSError:
            return False
    return True


def supervise(off: bool) -> None:
    """Fork the worker into the namespaces, wait for it, kill what is left, exit as it exited."""
    layers = [] if off else enter_namespaces()
    libc = _libc()
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of the learner's code come back to us
    me = os.getpid()
    worker = os.fork()
    if worker == 0:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the worker never outlives its supervisor
        if "pid namespace" not in layers and os.getppid() != me:
            os._exit(1)  # the supervisor died before the line above
        os.setsid()  # its own session: a signal to "my group" stays inside
        code = 0
        try:
            work(off, layers)
        except BaseException:  # noqa: BLE001 - the worker's own failure: say it on stderr, exit 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the jobs' pipe and the protocol are the worker's alone
        os.dup2(null, fd)
    os.close(null)

    def on_term(signum, frame):
        kill_tree(me)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    while True:
        pid, status = os.waitpid(-1, 0)  # reaps the orphans handed to us, too
        if pid == worker:
            break
    kill_tree(me)
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(me, os.WTERMSIG(status))  # die as the worker died: the reporter reads the same code
    os._exit(os.WEXITSTATUS(status))


def kill_tree(root: int) -> None:
    """SIGKILL every descendant of `root` (read from /proc; orphans were reparented to it), until none."""
    for _ in range(50):
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
        found, todo = [], list(children.get(root, []))
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo += children.get(pid, [])
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass


# ------------------------------------------------------------------------------ Landlock (Linux)
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ABI1 = (1 << 13) - 1  # execute ... make_sym: every right of ABI 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_ALL, SCOPE_ALL = 3, 3  # bind + connect TCP (ABI 4); abstract unix sockets + signals (ABI 6)
READ_ROOTS = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin")  # the system's programs and libraries
# of /etc, only what the dynamic loader and the clock read (never /etc wholesale: /etc/shadow, keys, tokens)
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none (not Linux, too old, disabled)."""
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(abi), 0)


def landlock(read: list[str], write: list[str], deny: list[str]) -> tuple[int, list[str]]:
    """Confine this thread (and everything it starts) to reading `read` (minus `deny`), writing
    `write`; no TCP, no signals out (where the ABI has them). Returns (ABI, layers)."""
    import ctypes

    abi = landlock_abi()
    if abi < 1:
        return 0, []
    fs = FS_ABI1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0) | (FS_IOCTL_DEV if abi >= 5 else 0)

    class Ruleset(ctypes.Structure):
        _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed", ctypes.c_uint64), ("fd", ctypes.c_int32)]

    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    attr = Ruleset(fs, NET_ALL if abi >= 4 else 0, SCOPE_ALL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return 0, []
    file_rights = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (FS_TRUNCATE if abi >= 3 else 0)

    def allow(path: str, rights: int) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if not os.path.isdir(path):
                rights &= file_rights
            rule = PathBeneath(rights, fd)
            libc.syscall(ctypes.c_long(SYS_ADD_RULE), ruleset, 1, ctypes.byref(rule), 0)
        finally:
            os.close(fd)

    denied = [os.path.realpath(d) for d in deny]
    for root in _readable(read, denied):
        allow(root, FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
    for path in write:
        allow(path, fs)
    for path in ETC_FILES:
        allow(path, FS_READ_FILE)
    for device in DEVICES:
        allow(device, FS_READ_FILE | (FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0) if device == "/dev/null" else 0))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(ctypes.c_long(SYS_RESTRICT_SELF), ruleset, 0):
        os.close(ruleset)
        return 0, []
    os.close(ruleset)
    layers = [f"landlock abi {abi}: files"]
    layers += ["landlock: no tcp"] if abi >= 4 else []
    layers += ["landlock: no signals out"] if abi >= 6 else []
    return abi, layers


def _readable(read: list[str], denied: list[str]) -> list[str]:
    """The folders the worker may read, each a whole tree; a tree that holds a denied folder is
    split into its entries, so the denied one (glassformer inside site-packages) stays out."""
    roots = [*READ_ROOTS, sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    roots += [p for p in sys.path if p and os.path.isdir(p)] + list(read)
    out: list[str] = []

    def add(path: str) -> None:
        path = os.path.realpath(path)
        if any(path == d or path.startswith(d + os.sep) for d in denied):
            return
        if any(d.startswith(path + os.sep) for d in denied):
            with contextlib.suppress(OSError):
                for entry in os.listdir(path):
                    add(os.path.join(path, entry))
            return
        out.append(path)

    for root in roots:
        if os.path.exists(root):
            add(root)
    return sorted(set(out))


# --------------------------------------------------------------------------------------- the worker

TEXT_LIMIT = 2000  # characters of captured output or error text kept per job
MEMORY_HEADROOM = 2 << 30  # bytes of address space the learner's code may add to torch's own
GLASSFORMER = N_(
    "glassformer itself: it is what your code is graded against; write your own."
)  # the rule's text key: glassformer is what the answer is graded against


def main(mode: str = "off") -> None:
    off = mode != "on"
    if sys.platform.startswith("linux"):
        supervise(off)
    else:  # elsewhere: the worker is this process, in its own session (the parent started it so)
        work(off, [])


def work(off: bool, layers: list[str]) -> None:
    """The worker: import torch, say READY, read the jobs from stdin, then run each job in a
    process of its own (`_run_job_process`) and relay its result. The worker never runs learner
    code itself: only it holds the protocol (a private copy of stdout) and the jobs' pipe (stdin),
    and it closes both in each job's process before the learner's file is imported, so nothing a
    submission does can say START, SANDBOX or END, or speak for another job."""
    protocol = os.fdopen(os.dup(1), "wb")  # each message is written whole, then flushed (_say)
    os.dup2(2, 1)  # what anything writes to fd 1 from now on lands in stderr, not in the protocol
    sys.dont_write_bytecode = True  # no __pycache__ in the learner's folder
    import torch

    if sys.platform.startswith("linux"):
        libc = _libc()
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # what a job's process starts comes back here
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no /proc/<this>/fd or mem for an unprivileged job
    _warm_up(torch)
    _say(protocol, b"READY\n")
    stdin = sys.stdin.buffer
    head = stdin.read(8)
    if len(head) < 8:
        return  # no jobs came: the parent ended without grading (a started worker it did not need)
    sent = torch.load(io.BytesIO(stdin.read(int.from_bytes(head, "big"))), weights_only=True)
    confine = sent["confine"]
    gate = Gate(confine["deny"])
    gate.install()
    for job in sent["jobs"]:
        _say(protocol, f"START {job['id']}\n".encode())
        code, data = _run_job_process(job, confine, torch, gate, protocol, layers)
        _say(protocol, f"END {job['id']} {code} {len(data)}\n".encode() + data)  # code "big": over RESULT_LIMIT
    _say(protocol, b"BYE\n")


def _warm_up(torch) -> None:
    """What torch does the first time only (the guard's modes entered, autograd, torch.save: about
    2 s of lazy imports and set-up inside torch), done once here, so every job's process, a fork of
    this one, starts with it done. No learner code is involved: the guard refuses a made-up name."""
    guard = Guard(torch, [(("_warm_up_only_",), GUARD)], Gate([]))
    with guard:
        x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)  # (2, 3)
        e = torch.exp(x - x.amax(-1, keepdim=True))  # (2, 3)
        y = e / e.sum(-1, keepdim=True)  # (2, 3)
        torch.autograd.grad([y], [x], [torch.ones_like(y)])
    guard.breaches()
    torch.save({"y": y.detach()}, io.BytesIO())


def _say(protocol, message: bytes) -> None:
    protocol.write(message)
    protocol.flush()  # before a fork, too: a job's process inherits no half-sent message


def _run_job_process(job: dict, confine: dict, torch, gate: Gate, protocol, layers: list) -> tuple[int | str, bytes]:
    """Run one job in a forked process: its exit code (minus the signal that killed it; "big" when
    its result passed RESULT_LIMIT) and the bytes it sent back on its own pipe. The first line it
    sends, before the learner's code runs, is the confinement it got (said as SANDBOX); the rest is
    its result, read up to RESULT_LIMIT."""
    _empty(os.getcwd())  # the scratch folder: the previous job's files are not this one's
    if not hasattr(os, "fork"):  # Windows: in this process (no confinement there anyway)
        _say(protocol, ("SANDBOX " + json.dumps(describe(confine, layers)) + "\n").encode())
        buffer = io.BytesIO()
        torch.save(run_job(job, torch, gate), buffer)
        return 0, buffer.getvalue()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the job's process: learner code runs here, and only here
        code = 1
        try:
            os.close(read_end)
            os.close(protocol.fileno())  # the protocol: no handle on it is left in this process
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)  # the jobs' pipe, likewise
            os.close(null)
            if sys.platform.startswith("linux"):
                _libc().prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own /proc/self, as any process has
            _job_process(job, confine, torch, gate, write_end)
            code = 0
        except BaseException:  # noqa: BLE001 - the grader's own failure here: on stderr, exit 1
            traceback.print_exc()
        sys.stderr.flush()
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        first = _read_line(pipe)
        fenced = json.loads(first) if first else []
        _say(protocol, ("SANDBOX " + json.dumps(describe(confine, layers + fenced)) + "\n").encode())
        data, status = _read_capped(pipe, pid)
    if status is None:
        _, status = os.waitpid(pid, 0)
    _end_leftovers(layers)
    if data is None:
        return "big", b""
    return (-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)), data


def _job_process(job: dict, confine: dict, torch, gate: Gate, out: int) -> None:
    """In the job's process: the limits, Landlock (reading the job's folder, writing the scratch
    folder only), the confinement said first, then the job, its result sent as one torch.save."""
    _limit_memory()
    _limit_file_size()
    fenced: list[str] = []
    if not confine["off"]:
        folder = os.path.dirname(os.path.abspath(job["file"]))
        _, fenced = landlock([folder], [os.getcwd()], gate.deny)
    os.write(out, (json.dumps(fenced) + "\n").encode())
    _reset(torch)
    result = run_job(job, torch, gate)
    buffer = io.BytesIO()
    torch.save(result, buffer)
    view = memoryview(buffer.getvalue())
    while view:
        view = view[os.write(out, view) :]
    os.close(out)


def _read_line(pipe, limit: int = 4096) -> bytes:
    line = b""
    while len(line) < limit:
        byte = pipe.read(1)
        if not byte or byte == b"\n":
            break
        line += byte
    return line


def _read_capped(pipe, pid: int) -> tuple[bytes | None, int | None]:
    """What the job's process sends until it closes its pipe or ends (None, and the process killed,
    past RESULT_LIMIT), and its wait status if it was reaped here. A process it started that holds
    the pipe open does not hold us."""
    fd, chunks, size, status = pipe.fileno(), [], 0, None
    while True:
        ready, _, _ = select.select([fd], [], [], WATCH)
        if ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > RESULT_LIMIT:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                return None, None
            chunks.append(chunk)
            continue
        reaped, wait_status = os.waitpid(pid, os.WNOHANG)
        if reaped:  # it ended: take what is left, stop
            status = wait_status
            os.set_blocking(fd, False)
            with contextlib.suppress(BlockingIOError):
                while chunk := os.read(fd, 1 << 16):
                    chunks.append(chunk)
            break
    return b"".join(chunks), status


def _end_leftovers(layers: list[str]) -> None:
    """Kill whatever a job's process started: in the PID namespace, every process but this one
    (the worker is its pid 1); elsewhere, this process's tree (it is a subreaper: orphans come here)."""
    if "pid namespace" in layers and os.getpid() == 1:
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while True:
                os.waitpid(-1, 0)
    elif sys.platform.startswith("linux"):
        kill_tree(os.getpid())


def _empty(folder: str) -> None:
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.remove(path)


def describe(confine: dict, layers: list[str]) -> dict:
    """On when the files are fenced and the network is cut; the layers in force and those missing."""
    files = any(layer.startswith("landlock abi") for layer in layers)
    network = "network namespace" in layers or "landlock: no tcp" in layers
    wanted = {
        "files": files,
        "network": network,
        "processes": "pid namespace" in layers or "landlock: no signals out" in layers,
    }
    if confine["off"]:
        reason = f"{ENV_OFF}=off"
    elif not sys.platform.startswith("linux"):
        reason = sys.platform
    elif not files:
        reason = "no landlock"
    else:
        reason = ""
    return {
        "on": files and network,
        "layers": layers,
        "missing": [k for k, v in wanted.items() if not v],
        "reason": reason,
    }


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


def _limit_file_size() -> None:
    """No file the worker writes grows past FILE_LIMIT: a larger write fails with OSError (EFBIG)
    inside the learner's code (Python ignores SIGXFSZ). Where there is no RLIMIT_FSIZE, _watch alone."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        if hard == resource.RLIM_INFINITY or FILE_LIMIT < hard:
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    except (ImportError, OSError, ValueError):
        pass


# ---- what the learner's code may not reach, at run time -------------------------------------------
class Forbidden(PermissionError):
    """Raised in the learner's code where it reaches what a rule refuses (the report names the rule)."""


class Gate(importlib.abc.MetaPathFinder):
    """glassformer's modules and the reference solutions, refused by every route: the first finder
    on sys.meta_path (import, importlib, pkgutil.resolve_name, runpy.run_module) refuses the names,
    and an audit hook (which cannot be removed) refuses opening any file in a denied folder
    (runpy.run_path, open, io.open_code). sys.path loses the entries glassformer came from.
    Each refusal is recorded for the job running (`hits`), even if the learner's code catches it."""

    def __init__(self, deny: list[str]) -> None:
        self.deny = [os.path.realpath(d) for d in deny]
        self.hits: list[dict] | None = None  # the running job's, while a learner's code runs
        self.folder = ""

    def install(self) -> None:
        spec = importlib.util.find_spec("glassformer")  # any other copy this Python would import (a .pth, a checkout)
        for location in (spec.submodule_search_locations or []) if spec is not None else []:
            self.deny.append(os.path.realpath(location))
        for name in [n for n in sys.modules if n == "glassformer" or n.startswith("glassformer.")]:
            del sys.modules[name]
        sys.path[:] = [p for p in sys.path if not self._holds_denied(p)]
        sys.meta_path.insert(0, self)
        sys.addaudithook(self._audit)

    def _holds_denied(self, entry: str) -> bool:
        """A sys.path entry that serves glassformer only (a source checkout's src/): dropped. An
        installation's site-packages stays (torch is there): the finder and the audit hook refuse
        glassformer inside it, and Landlock splits its tree around it."""
        real = os.path.realpath(entry or ".")
        if os.path.basename(real) in ("site-packages", "dist-packages"):
            return False
        return any(os.path.dirname(d) == real or d == real for d in self.deny)

    def denied(self, path) -> bool:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False
        real = os.path.realpath(os.fsdecode(path))
        if real == os.path.realpath(__file__):
            return False  # this file: what a traceback through the worker's own frames reads
        return any(real == d or real.startswith(d + os.sep) for d in self.deny)

    def refuse(self, name: str, why: str = GLASSFORMER) -> Forbidden:
        self.record(name, why, _learner_line(self.folder))
        return Forbidden(f"{name}: refused by the grader ({why})")

    def record(self, name: str, why: str, where: dict) -> None:
        hit = {"name": name, "why": why, **where}
        if self.hits is not None and hit not in self.hits:  # once per place, however many calls reach it
            self.hits.append(hit)

    def find_spec(self, name, path=None, target=None):
        if name == "glassformer" or name.startswith("glassformer."):
            raise self.refuse(f"import {name}")
        return None  # everything else: the next finder's business

    def _audit(self, event: str, args: tuple) -> None:
        if event in ("open", "os.listdir", "os.scandir", "exec") and args and self.denied(args[0]):
            raise self.refuse(f"open {os.path.basename(os.fsdecode(args[0]))}")


def _learner_line(folder: str) -> dict:
    """The last line of the learner's own files on the stack: where the refused call was made."""
    where = {"file": "", "line": 0}
    for frame in traceback.extract_stack():
        if folder and os.path.dirname(os.path.abspath(frame.filename)) == folder:
            where = {"file": os.path.basename(frame.filename), "line": frame.lineno or 0}
    return where


GRAPH_LIMIT = 100_000  # nodes of an output's autograd graph looked at (an exercise's are a few dozen)
GUARD = N_(
    "the grader's check of forbidden operations was switched off or changed while your code ran: it must stay on."
)  # the rule's text key: the grader's guard was switched off or changed


class Guard:
    """The exercise's forbidden operations, refused by two traces the learner's code runs inside,
    each checked by the grader after the import and after every call:

    - a torch FUNCTION mode refuses them by their Python name however they are reached (torch.softmax,
      F.softmax, x.softmax, an alias, getattr(torch, "soft" + "max"), torch.ops.aten._softmax, a module);
    - a torch DISPATCH mode, one level down, refuses the aten operations they run (aten._softmax,
      aten.native_layer_norm, aten.addmm, ...): it still sees them where the function mode is
      switched off (torch._C.DisableTorchFunction, the function-mode stack popped);
    - after the import and after every call the grader checks both modes are still on their
      stacks, unchanged (their class, handler, code and closure), with their rules (frozensets)
      unchanged and torch functions enabled: a learner's code that popped, disabled or changed a
      mode is refused with the rule GUARD ("the grader's guard was switched off").

    The scan of the syntax tree refuses torch._C and a function's closure before anything runs
    (grading/scanning.py, INTERNALS); this guard holds where those are reached by a name built at run time.
    Where both modes are taken off and put back around a call (through the frames, or popped and
    pushed back), the autograd graph of what the call returned still names the operation (graph)."""

    def __init__(self, torch, rules: list, gate: Gate) -> None:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        pairs = tuple((name, key) for names, key in rules for name in names)
        names = frozenset(name for name, _ in pairs)
        self.torch, self.gate, self.names, self.pairs = torch, gate, names, pairs

        def refuse(reached: str, candidates: tuple[str, ...]) -> None:
            for name in candidates:
                if name in names:
                    raise gate.refuse(reached, next(key for n, key in pairs if n == name))

        class Refuse(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                name = getattr(func, "__name__", "").split(".")[0]
                refuse(name, (name,))
                return func(*args, **(kwargs or {}))

        class Trace(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func.__name__.split(".")[0]  # _softmax.default -> _softmax
                refuse(name, aten_names(name))
                return func(*args, **(kwargs or {}))

        self.modes = (Refuse(), Trace()) if names else ()
        # what must still be there after the learner's code ran: each mode's class, handler, code, closure
        self.sealed = [self._seal(m) for m in self.modes]

    @staticmethod
    def _seal(mode) -> tuple:
        """A mode's class, its handler, the handler's code and closure, and the code and closure of
        each function in that closure (refuse(), whose closure holds the rules)."""
        cls = type(mode)
        fn = cls.__dict__.get("__torch_function__") or cls.__dict__.get("__torch_dispatch__")

        def parts(f) -> tuple:
            cells = tuple(c.cell_contents for c in getattr(f, "__closure__", None) or ())
            return (f, getattr(f, "__code__", None), cells)

        inner = tuple(parts(c) for c in parts(fn)[2] if callable(c))
        return (mode.__class__, parts(fn), inner)

    def __enter__(self):
        import torch.utils._python_dispatch as dispatch

        torch = self.torch
        self.depth = (torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack())
        self.flags = {k: v for k, v in vars(dispatch).items() if k.startswith("_is_in_")}
        for mode in self.modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        """Both stacks back as they were before the job, whatever the learner's code did to them
        (the next job may be another student's)."""
        import torch.utils._python_dispatch as dispatch

        torch = self.torch
        while torch._C._len_torch_dispatch_stack() > self.depth[1]:
            torch._C._pop_torch_dispatch_stack(None)
        while torch._C._len_torch_function_stack() > self.depth[0]:
            torch._C._pop_torch_function_stack()
        vars(dispatch).update(self.flags)
        reset = getattr(dispatch, "set_is_in_mode_without_ignore_compile_internals", None)  # newer torch only
        if reset is not None:
            reset(self.flags.get("_is_in_any_mode_without_ignore_compile_internals", False))

    def breaches(self) -> list[str]:
        """What the learner's code did to the guard (empty when it is whole)."""
        if not self.modes:
            return []
        torch, found = self.torch, []
        refuse, trace = self.modes
        n_fn, n_disp = torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack()
        if n_fn != self.depth[0] + 1 or torch._C._get_function_stack_at(n_fn - 1) is not refuse:
            found.append("the torch-function mode taken off its stack")
        if n_disp != self.depth[1] + 1 or torch._C._get_dispatch_stack_at(n_disp - 1) is not trace:
            found.append("the torch-dispatch mode taken off its stack")
        if not torch._C._is_torch_function_enabled():
            found.append("torch functions disabled")
        for kind, mode, seal in zip(("function", "dispatch"), self.modes, self.sealed, strict=True):
            if self._seal(mode) != seal:
                found.append(f"the torch-{kind} mode or its rules changed")
        return found

    def graph(self, out, file: str) -> None:
        """Refuse an exercise's forbidden operation found in the autograd graph of what a call
        returned (softmax leaves a SoftmaxBackward0 node, fused attention a
        ScaledDotProductFlashAttentionForCpuBackward0, F.linear an AddmmBackward0): that record is
        made by torch itself as the operation runs, whether or not the modes above saw it (taken
        off and put back around the call, by a frame walk or torch._C). A node's name answers to
        the rules as the dispatch-level trace's aten names do (aten_names)."""
        if not self.modes:
            return
        outs = out if isinstance(out, (tuple, list)) else (out,)
        todo = [o.grad_fn for o in outs if isinstance(o, self.torch.Tensor) and o.grad_fn is not None]
        seen: set = set()
        while todo and len(seen) < GRAPH_LIMIT:
            node = todo.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            name = node.name()
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", re.sub(r"Backward\d*$", "", name)).lower()
            for candidate in (*aten_names(snake), *aten_names("_" + snake)):
                if candidate in self.names:
                    why = next(key for n, key in self.pairs if n == candidate)
                    self.gate.record(name, why, {"file": os.path.basename(file), "line": 0})
                    break
            todo += [child for child, _ in node.next_functions]

    def check(self, file: str) -> None:
        """Record each breach as a refusal of the job (the report names GUARD), then mend the guard."""
        breaches = self.breaches()
        for breach in breaches:
            self.gate.record(breach, GUARD, {"file": os.path.basename(file), "line": 0})
        if breaches:
            self.__exit__()
            self.__enter__()


FUSED_ATTENTION = ("_scaled_dot_product_", "_flash_attention", "_efficient_attention", "_fused_sdp")


def aten_names(base: str) -> tuple[str, ...]:
    """The names an aten operation may be refused by: itself, and `_softmax` -> softmax,
    `native_layer_norm` -> layer_norm, `nll_loss_forward` -> nll_loss, and each kernel of the
    fused attention (`_scaled_dot_product_flash_attention_for_cpu`, its backward, the math path's
    `_scaled_dot_product_attention_math`, ...) -> scaled_dot_product_attention."""
    names = (base, base.lstrip("_"), base.removeprefix("native_"), base.removesuffix("_forward"))
    return names + (("scaled_dot_product_attention",) if base.startswith(FUSED_ATTENTION) else ())


def _reset(torch) -> None:
    """The process-wide modes a previous file may have changed (they matter to the next one)."""
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_num_threads(1)
    torch.manual_seed(0)


def run_job(job: dict, torch, gate: Gate | None = None) -> dict:
    """{"import_error": error | None, "missing": [fn names], "calls": [call results], "stdout": str,
    "forbidden": [{"name", "why", "file", "line"}: what a rule refused at run time]}"""
    folder = os.path.dirname(os.path.abspath(job["file"]))
    files = LearnerFiles(folder).__enter__()  # so the learner's file can import the learner's other files
    captured = io.StringIO()
    result = {"import_error": None, "missing": [], "calls": [], "stdout": "", "forbidden": []}
    if gate is not None:
        gate.hits, gate.folder = result["forbidden"], folder
    guard = Guard(torch, job.get("forbidden", []), gate) if gate is not None else None
    try:
        with (
            contextlib.redirect_stdout(captured),
            contextlib.redirect_stderr(captured),
            guard or contextlib.nullcontext(),
        ):
            try:
                module = files.load(job["file"], f"{LEARNER}{job['id']}")
            except BaseException as e:  # noqa: BLE001 - SyntaxError, SystemExit, anything
                if isinstance(e, KeyboardInterrupt):
                    raise
                result["import_error"] = _error(e, job["file"])
                return result
            finally:
                if guard is not None:
                    guard.check(job["file"])
            for call in job["calls"]:
                fn = getattr(module, call["fn"], None)
                if not callable(fn):
                    result["missing"].append(call["fn"])
                    result["calls"].append({"missing": True})
                    continue
                result["calls"].append(_call(fn, call, job["file"], torch, guard))
                if guard is not None:
                    guard.check(job["file"])
    finally:
        if gate is not None:
            gate.hits = None
        files.__exit__()  # the next job may be another student's, with its own attention.py
        result["stdout"] = captured.getvalue()[-TEXT_LIMIT:]
    return result


LEARNER = "_learner_"  # the module name a learner's graded file is imported under (+ the job's id)


class LearnerFiles:
    """A learner's folder as their code sees it while it runs, in the grader's worker and under
    `train --use-mine` alike (one loader for both): the folder first on sys.path, so their files
    import each other at import time or inside a function (`from layer_norm import layer_norm`
    in block()), and their modules kept apart, out of sys.modules between two uses, so another
    folder's attention.py is never served from this one's. Enter it around every use."""

    def __init__(self, folder) -> None:
        self.folder = os.path.abspath(folder)
        self.modules: dict = {}  # the learner's modules, while they are out of sys.modules

    def __enter__(self) -> LearnerFiles:
        sys.path.insert(0, self.folder)
        sys.modules.update(self.modules)
        self.before = set(sys.modules)
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(ValueError):
            sys.path.remove(self.folder)
        for name in (set(sys.modules) - self.before) | set(self.modules):
            file = getattr(sys.modules.get(name), "__file__", None) or ""
            if (
                name.startswith(LEARNER)
                or name in self.modules
                or os.path.dirname(os.path.abspath(file)) == self.folder
            ):
                self.modules[name] = sys.modules.pop(name)

    def load(self, path, name: str):
        """Import the file `path` as module `name` (inside `with self`)."""
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # out again at __exit__, with the siblings it imported
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module


def _call(fn, call: dict, file: str, torch, guard: Guard | None = None) -> dict:
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
    if guard is not None:
        guard.graph(out, file)
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
    main(*sys.argv[1:2])

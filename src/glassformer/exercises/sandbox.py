"""Run learners' code in a separate, confined process with a time limit, and never hang or die with it.

Graded code is untrusted code: a student's file may delete files, start processes that outlive
the grading, kill the grader, open the network or read the reference solution. So the parent
(`run_jobs`, the process that reports) starts a SUPERVISOR, this very file run as a script,

    python -I sandbox.py JOBS_FILE OUT_DIR CONFINE_JSON

in its own session, and the supervisor forks the WORKER that imports the learner's files:

    reporter (run_jobs) ── supervisor (own session) ── worker (own session; learner code runs here)

On Linux, before the fork, the supervisor enters a new user, network and PID namespace (no
privileges needed: unshare(2)), so the worker is process 1 of its own PID namespace, sees no
network interface but a loopback that is down, and cannot name any process outside (a kill of
its parent's pid reaches nothing: its parent is pid 0 in there). When the worker ends, or is
killed, the kernel kills every process left in its namespace: a child started in a new session
cannot outlive the grading. The worker dies with the supervisor (PR_SET_PDEATHSIG), and the
supervisor is a subreaper that kills whatever is left of its tree at the end (the same guarantee
where namespaces are unavailable). After importing torch the worker confines itself with Landlock
(the kernel's unprivileged file-system sandbox, ABI >= 1, Linux >= 5.13): it can read only the
Python installation, the system's libraries and the learner's folders, write only its scratch
and output folders, not connect or bind TCP (ABI >= 4), and not signal any process outside
itself (ABI >= 6). glassformer's own package and the reference solutions are outside what it may
read; an import gate and an audit hook refuse them by every import route as well, and a torch
function mode refuses the exercise's forbidden operations however they are reached (an alias,
getattr(torch, "soft" + "max"), torch.ops.aten._softmax, a C method). docs/exercises.md says what
each layer guarantees and where (which OS, kernel) it does not hold.

The worker says what confinement it got (`SANDBOX {...}`: on or off, the layers, what is
missing); the report says it on every run, and when it is off, says so (never silently).
GLASSFORMER_SANDBOX=off turns the confinement off on purpose (it is then reported as off).

The protocol, on a private copy of stdout (the learner's own prints are captured):

    SANDBOX {json}   the confinement in force
    READY            torch is imported and the jobs are loaded
    START <id>       job <id> begins: import the learner's file, then make each call
    DONE <id>        <OUT_DIR>/<id>.pt holds the job's result (see run_job)

    a job that does not finish within `timeout` seconds  -> "timeout": the process tree is killed
    a worker that exits in the middle of a job           -> "died", with its exit code
    a job that finishes                                  -> "done", with the worker's result

After a timeout or a death the remaining jobs go to a fresh supervisor and worker, so one
student's infinite loop costs that student one job and nobody else anything. Whatever the
learner's code does (loop for ever, crash, call sys.exit, kill its parent, print), the reporting
process stays in charge.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import io
import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

# -------------------------------------------------------------------------------- the parent

CHILD = Path(__file__)  # this file, run as a script
PACKAGE = CHILD.resolve().parents[1]  # glassformer's own package: never readable by the worker
FILE_LIMIT = 16 << 20  # bytes: the largest file the learner's code may write (RLIMIT_FSIZE)
QUOTA = 64 << 20  # bytes: all it may write together (its scratch and output folders), watched from here
WATCH = 0.1  # seconds between two looks at what it wrote
# the environment the worker gets: what Python and torch need, nothing of the grader's (credentials, tokens)
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "SYSTEMROOT", "WINDIR")
STARTUP_TIMEOUT = 120.0  # seconds for the child to import torch and load the jobs (a busy machine)
GRACE = 5.0  # seconds the supervisor has to kill its tree when asked, before it is killed itself
ENV_OFF = "GLASSFORMER_SANDBOX"  # =off: no confinement (reported as off)
TOKEN = "GLASSFORMER_SANDBOX_TOKEN"  # marks every process of one grading round, for the final sweep


@dataclass
class Job:
    id: str
    file: Path
    calls: list[dict]  # {"fn": name, "args": tuple, "grad": [index | (index, key)], "cot": [tensor | None]}
    timeout: float | None = None  # seconds for this job; None: run_jobs' timeout
    forbidden: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # (names, why key) per rule


@dataclass
class JobResult:
    status: str  # "done" | "timeout" | "died" | "no_start"
    payload: dict | None = None  # the worker's result when done
    exit_code: int | None = None
    stderr: str = ""  # the end of what the child wrote to stderr
    sandbox: dict | None = None  # the confinement the worker had: {"on", "layers", "missing"}


def run_jobs(
    jobs: list[Job], timeout: float, startup_timeout: float = STARTUP_TIMEOUT, deny: tuple = ()
) -> dict[str, JobResult]:
    """Every job's result, by id. `timeout` is per job, counted from the job's START. `deny`: more
    folders the worker may not read (the reference solutions), besides glassformer's package."""
    results: dict[str, JobResult] = {}
    pending = list(jobs)
    with tempfile.TemporaryDirectory(prefix="glassformer-ex-") as tmp:
        round_ = 0
        while pending:
            round_ += 1
            ran = _one_child(pending, timeout, startup_timeout, Path(tmp), round_, results, deny)
            pending = pending[ran:]
    return results


def _one_child(
    jobs: list[Job],
    timeout: float,
    startup_timeout: float,
    tmp: Path,
    round_: int,
    results: dict[str, JobResult],
    deny: tuple,
) -> int:
    """Run jobs in one supervised worker until all are done or one fails; return how many got a result."""
    import torch  # only when grading: the parent's import of this module stays light

    jobs_file, out_dir, scratch = tmp / f"jobs{round_}.pt", tmp / f"out{round_}", tmp / f"scratch{round_}"
    out_dir.mkdir()
    scratch.mkdir()
    torch.save(
        [
            {"id": j.id, "file": str(Path(j.file).resolve()), "calls": j.calls, "forbidden": list(j.forbidden)}
            for j in jobs
        ],
        jobs_file,
    )
    folders = sorted({str(Path(j.file).resolve().parent) for j in jobs})
    denied = [str(PACKAGE)] + [str(Path(d).resolve()) for d in deny if str(Path(d).resolve()) not in folders]
    confine = {
        "off": os.environ.get(ENV_OFF, "").lower() in ("0", "off", "no", "false"),
        "read": folders,
        "write": [str(out_dir), str(scratch)],
        "deny": denied,
    }
    token = secrets.token_hex(8)
    err_path = tmp / f"stderr{round_}.txt"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(CHILD), str(jobs_file), str(out_dir), json.dumps(confine)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            cwd=scratch,
            env=worker_env(scratch, token),
            start_new_session=True,
        )  # its own session: nothing the learner's code signals by group reaches this process
    lines: queue.Queue[str | None] = queue.Queue()
    told: dict = {}
    threading.Thread(target=_pump, args=(proc.stdout, lines, told), daemon=True).start()
    over, done = threading.Event(), threading.Event()
    threading.Thread(target=_watch, args=(proc, token, (out_dir, scratch), over, done), daemon=True).start()
    try:
        if _expect(lines, "READY", startup_timeout) is not True:
            _kill(proc, token)
            for job in jobs:
                results[job.id] = JobResult(
                    "no_start", exit_code=proc.poll(), stderr=_tail(err_path), sandbox=told.get("sandbox")
                )
            return len(jobs)
        for n, job in enumerate(jobs):
            started = _expect(lines, f"START {job.id}", startup_timeout)
            finished = _expect(lines, f"DONE {job.id}", job.timeout or timeout) if started is True else started
            sandbox = told.get("sandbox")
            if finished is True:
                payload = torch.load(out_dir / f"{job.id}.pt", weights_only=True)
                results[job.id] = JobResult("done", payload, sandbox=sandbox)
                continue
            if finished == "timeout":
                _kill(proc, token)
                results[job.id] = JobResult("timeout", stderr=_tail(err_path), sandbox=sandbox)
            elif over.is_set():  # killed by _watch: it wrote more than QUOTA
                results[job.id] = JobResult("quota", exit_code=_wait(proc), stderr=_tail(err_path), sandbox=sandbox)
            else:  # the worker ended in the middle of this job
                results[job.id] = JobResult("died", exit_code=_wait(proc), stderr=_tail(err_path), sandbox=sandbox)
            return n + 1
        return len(jobs)
    finally:
        done.set()
        _kill(proc, token)
        proc.stdout.close()


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
    for raw in stream:
        line = raw.decode("utf-8", "replace").strip()
        if line.startswith("SANDBOX "):
            with contextlib.suppress(ValueError):
                told["sandbox"] = json.loads(line[len("SANDBOX ") :])
            continue
        lines.put(line)
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
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 38, 36


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


def supervise(jobs_path: str, out_dir: str, confine: dict) -> None:
    """Fork the worker into the namespaces, wait for it, kill what is left, exit as it exited."""
    layers = [] if confine["off"] else enter_namespaces()
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
            work(jobs_path, out_dir, confine, layers)
        except BaseException:  # noqa: BLE001 - the worker's own failure: say it on stderr, exit 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

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
GLASSFORMER = "exercise.forbid.glassformer"  # the rule's text key: glassformer is what the answer is graded against


def main(jobs_path: str, out_dir: str, confine_json: str = "") -> None:
    confine = json.loads(confine_json) if confine_json else {"off": True, "read": [], "write": [], "deny": []}
    if sys.platform.startswith("linux"):
        supervise(jobs_path, out_dir, confine)
    else:  # elsewhere: the worker is this process, in its own session (the parent started it so)
        work(jobs_path, out_dir, confine, [])


def work(jobs_path: str, out_dir: str, confine: dict, layers: list[str]) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what anything writes to fd 1 from now on lands in stderr, not in the protocol
    sys.dont_write_bytecode = True  # no __pycache__ in the learner's folder
    import torch

    jobs = torch.load(jobs_path, weights_only=True)
    _limit_memory()
    _limit_file_size()
    gate = Gate(confine["deny"])
    gate.install()
    if not confine["off"]:
        abi, fenced = landlock(confine["read"], confine["write"], gate.deny)
        layers = layers + fenced
    print("SANDBOX " + json.dumps(describe(confine, layers)), file=protocol)
    print("READY", file=protocol)
    for job in jobs:
        print(f"START {job['id']}", file=protocol)
        _reset(torch)
        result = run_job(job, torch, gate)
        torch.save(result, os.path.join(out_dir, f"{job['id']}.pt"))
        print(f"DONE {job['id']}", file=protocol)
    print("BYE", file=protocol)


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


GUARD = "exercise.forbid.guard"  # the rule's text key: the grader's guard was switched off or changed


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
    (grading.INTERNALS); this guard holds where those are reached by a name built at run time."""

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

    def check(self, file: str) -> None:
        """Record each breach as a refusal of the job (the report names GUARD), then mend the guard."""
        breaches = self.breaches()
        for breach in breaches:
            self.gate.record(breach, GUARD, {"file": os.path.basename(file), "line": 0})
        if breaches:
            self.__exit__()
            self.__enter__()


def aten_names(base: str) -> tuple[str, ...]:
    """The names an aten operation may be refused by: itself, and `_softmax` -> softmax,
    `native_layer_norm` -> layer_norm, `nll_loss_forward` -> nll_loss."""
    return (base, base.lstrip("_"), base.removeprefix("native_"), base.removesuffix("_forward"))


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
                result["calls"].append(_call(fn, call, job["file"], torch))
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
    main(*sys.argv[1:4])

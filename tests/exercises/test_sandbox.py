"""Graded code is untrusted: each hostile submission a student could hand in is planted here and
shown to be contained or refused (sandbox.py, docs/exercises.md). One `check_many` grades them all
(one worker, restarted after a death), so the whole module costs a few worker starts.

On Linux with Landlock (kernel >= 5.13) the sandbox must be on; elsewhere the containment tests
are skipped with the reason, and the report's warning is what is tested."""

from __future__ import annotations

import errno
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import in_catalogue, said

from glassformer.exercises import catalog, educator, grading, sandbox
from glassformer.exercises.grading.reading import read_source
from glassformer.exercises.grading.report import SANDBOX_PARTS, sandbox_line
from glassformer.exercises.grading.scanning import scan
from glassformer.messages import t

SOLUTION = catalog.get("softmax").solution
SRC = str(Path(catalog.__file__).resolve().parents[2])  # the src/ folder glassformer is imported from
DEFS = str(Path(catalog.__file__).resolve().parent / "defs" / "softmax.py")  # the reference solution, in the package
SECRET = "GLASSFORMER_TEST_FAKE_CREDENTIAL"  # set in the grader's environment while the hostile files run
MARK = "glassformer-survivor-%d" % os.getpid()  # in the surviving child's command line: found if it survived

HOSTILE = {
    # name: source of a softmax.py (formatted with the paths below)
    "delete_outside": "import os\nos.remove({target!r})\n" + SOLUTION,
    "write_outside": "open({outside!r}, 'w').write('planted')\n" + SOLUTION,
    "survivor": (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', {mark!r}], start_new_session=True)\n"
        + SOLUTION
    ),
    "kill_parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + SOLUTION,
    "kill_bystander": "import os, signal\nos.kill({bystander}, signal.SIGKILL)\n" + SOLUTION,
    "network": "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n" + SOLUTION,
    "getattr_torch": "import torch\ndef softmax(x, dim=-1):\n    return getattr(torch, 'soft' + 'max')(x, dim)\n",
    "getattr_tensor": "def softmax(x, dim=-1):\n    return getattr(x, 'soft' + 'max')(dim)\n",
    "aten": (
        "import torch\ndef softmax(x, dim=-1):\n"
        "    return getattr(torch.ops.aten, '_soft' + 'max').default(x, dim, False)\n"
    ),
    # PyTorch's fused attention with v the identity is a softmax; its math path runs _safe_softmax
    "sdpa": (
        "import torch\ndef softmax(x, dim=-1):\n    n = x.shape[dim]\n    eye = torch.eye(n, dtype=x.dtype)\n"
        "    q = x.movedim(dim, -1).unsqueeze(-2)\n"
        "    fused = getattr(torch.nn.functional, 'scaled_dot_product' + '_attention')\n"
        "    return fused(q, eye, eye, scale=1.0).squeeze(-2).movedim(-1, dim)\n"
    ),
    "sdpa_disabled": (  # the function mode switched off: the dispatch-level trace sees the fused kernel
        "import torch\ndef softmax(x, dim=-1):\n    n = x.shape[dim]\n    eye = torch.eye(n, dtype=x.dtype)\n"
        "    q = x.movedim(dim, -1).unsqueeze(-2)\n"
        "    with getattr(getattr(torch, '_' + 'C'), 'Disable' + 'TorchFunction')():\n"
        "        out = getattr(torch.nn.functional, 'scaled_dot_product' + '_attention')(q, eye, eye, scale=1.0)\n"
        "    return out.squeeze(-2).movedim(-1, dim)\n"
    ),
    "safe_softmax": (
        "import torch\ndef softmax(x, dim=-1):\n"
        "    return getattr(torch.ops.aten, '_safe_' + 'softmax').default(x, dim)\n"
    ),
    "resolve_name": (
        "import pkgutil, sys\nsys.path.insert(0, {src!r})\n"
        "softmax = pkgutil.resolve_name('glassformer.nn.functional:softmax')\n"
    ),
    "run_path_defs": "import runpy\nsoftmax = runpy.run_path({defs!r})['soft' + 'max']\n",
    "run_path_solutions": "import runpy\nsoftmax = runpy.run_path({solution!r})['soft' + 'max']\n",
    "read_solution": "SOURCE = open({solution!r}).read()\n" + SOLUTION,
    "run_path_installed": "import runpy\nsoftmax = runpy.run_path({installed!r})['soft' + 'max']\n",
    # what the sandbox does not show: /etc (the grader runs as root in containers), the home folder,
    # the grader's environment; and what it does not let grow: one large file, many middling ones
    "shadow": "SECRET = open('/etc/shadow').read()\n" + SOLUTION,
    "etc": "import os\nLISTED = os.listdir('/etc')\n" + SOLUTION,
    "home": "import os\nLISTED = os.listdir({home!r})\n" + SOLUTION,
    "environment": "import os\nraise RuntimeError(repr(os.environ.get({secret!r})))\n" + SOLUTION,
    "big_file": "open('big.bin', 'wb').write(bytes({big}))\n" + SOLUTION,
    "many_files": "for i in range(64):\n    open(f'part{{i}}.bin', 'wb').write(bytes({part}))\n" + SOLUTION,
    # a second copy of glassformer in the learner's own folder (on sys.path while it runs, readable):
    # the import gate, first among the finders, refuses it before Python's own finders find it
    "second_copy": "import pkgutil\nsoftmax = pkgutil.resolve_name('glassformer:soft' + 'max')\n",
    "after": SOLUTION,  # last: a plain correct file, graded after all of the above
}
EXTRA = {"second_copy": {"glassformer/__init__.py": SOLUTION}}  # more files beside a hostile softmax.py


def installed_defs() -> str:
    """The reference solution in the glassformer that `python -I` imports by itself (an editable
    install's .pth: maybe another checkout than the one under test), else the one under test."""
    found = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import importlib.util as u; s = u.find_spec('glassformer'); print(s and s.origin)",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if found in ("", "None"):
        return DEFS
    return str(Path(found).parent / "exercises" / "defs" / "softmax.py")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """{name: Report} for every hostile file, with the things they aimed at."""
    root = tmp_path_factory.mktemp("hostile")
    target = root / "teacher" / "grades.csv"  # a file of the teacher's, outside every student's folder
    target.parent.mkdir()
    target.write_text("alice,10\n")
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])  # e.g. the teacher's editor
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    fields = {
        "target": str(target),
        "outside": str(root / "teacher" / "planted.txt"),
        "mark": MARK,
        "bystander": bystander.pid,
        "port": listener.getsockname()[1],
        "src": SRC,
        "defs": DEFS,
        "solution": str(catalog.get("softmax").solution_path),  # the solutions' folder, not the graded one
        "installed": installed_defs(),
        "home": str(Path.home()),
        "secret": SECRET,
        "big": sandbox.FILE_LIMIT + (1 << 20),
        "part": sandbox.FILE_LIMIT - (1 << 20),
    }
    os.environ[SECRET] = "AKIA-not-a-real-key"  # as a cloud credential in the grader's environment
    items = []
    for name, source in HOSTILE.items():
        folder = root / name
        folder.mkdir()
        (folder / "softmax.py").write_text(source.format(**fields), encoding="utf-8")
        for extra, text in EXTRA.get(name, {}).items():
            (folder / extra).parent.mkdir(parents=True, exist_ok=True)
            (folder / extra).write_text(text, encoding="utf-8")
        items.append(("softmax", folder / "softmax.py"))
    started = time.monotonic()
    try:
        reports = dict(zip(HOSTILE, grading.check_many(items), strict=True))
    finally:
        del os.environ[SECRET]
    seconds = time.monotonic() - started
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    alive = bystander.poll() is None
    bystander.kill()
    bystander.wait()
    listener.close()
    yield {
        "reports": reports,
        "target": target,
        "root": root,
        "connected": connected,
        "bystander_alive": alive,
        "seconds": seconds,
    }


@pytest.fixture
def confined(planted):
    if sandbox.landlock_abi() < 1:
        pytest.skip(f"no Landlock on this system ({sys.platform}, {os.uname().release}): the sandbox is off here")
    return planted


def test_the_sandbox_is_on_for_every_file_that_ran(confined):
    for name, report in confined["reports"].items():
        assert report.sandbox is not None and report.sandbox["on"], (name, report.sandbox)
        assert report.sandbox["missing"] == []
        # snapshot: the sandbox's layer names are its report's ids (the learner's report lists them as they are)
        assert {"network namespace", "pid namespace"} <= set(report.sandbox["layers"])


def test_a_file_outside_the_folder_cannot_be_deleted_or_written(confined):
    assert confined["target"].read_text() == "alice,10\n"
    assert not (confined["target"].parent / "planted.txt").exists()
    for name in ("delete_outside", "write_outside"):
        report = confined["reports"][name]
        assert report.status == "crashed" and report.import_error["type"] == "PermissionError", name


def test_a_child_in_a_new_session_does_not_outlive_the_grading(confined):
    assert confined["reports"]["survivor"].status == "passed"  # its own grading went on
    assert survivors(MARK) == []


def test_killing_the_parent_or_another_process_reaches_nothing_outside(confined):
    reports = confined["reports"]
    # the worker's parent is outside its PID namespace: there it is pid 0, a kill reaches nobody
    assert reports["kill_parent"].status in ("passed", "crashed")
    assert reports["kill_bystander"].status in ("passed", "crashed")
    assert confined["bystander_alive"]
    assert reports["after"].status == "passed"  # and the grader went on to the next file


def test_no_network(confined):
    report = confined["reports"]["network"]
    assert report.status == "crashed" and report.import_error["type"] in ("OSError", "PermissionError")
    assert not confined["connected"]


@pytest.mark.parametrize(
    "name, reached, why",
    [
        ("getattr_torch", "softmax", "PyTorch's softmax: this exercise is to write it."),
        ("getattr_tensor", "softmax", "PyTorch's softmax: this exercise is to write it."),
        ("aten", "_softmax", "PyTorch's softmax: this exercise is to write it."),
        ("sdpa", "scaled_dot_product_attention", "PyTorch's softmax: this exercise is to write it."),
        (
            "sdpa_disabled",
            "_safe_softmax",
            "PyTorch's softmax: this exercise is to write it.",
        ),  # its math path, under the trace
        ("safe_softmax", "_safe_softmax", "PyTorch's softmax: this exercise is to write it."),
        (
            "resolve_name",
            "import glassformer",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
        (
            "second_copy",
            "import glassformer",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
        (
            "run_path_defs",
            "open softmax.py",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
        (
            "run_path_solutions",
            "open softmax.py",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
        (
            "read_solution",
            "open softmax.py",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
        (
            "run_path_installed",
            "open softmax.py",
            "glassformer itself: it is what your code is graded against; write your own.",
        ),
    ],
)
def test_the_dynamic_cheats_are_refused_with_the_rules_message(planted, name, reached, why):
    report = planted["reports"][name]
    assert report.status == "forbidden", (report.status, report.import_error, report.stdout)
    first = report.offences[0]
    assert (first.file, first.name, first.why) == ("softmax.py", reached, why)
    assert first.line > 0
    text = grading.render(report, "en")
    assert t(why) in text  # the rule's own sentence, as for a literal call


def test_the_static_rules_do_not_see_these_cheats(planted, tmp_path):
    """What the run-time guard adds: none of the files above is refused by reading its syntax tree."""
    for name in ("getattr_torch", "getattr_tensor", "aten", "sdpa", "sdpa_disabled", "safe_softmax", "resolve_name"):
        assert scan(planted["root"] / name / "softmax.py", catalog.get("softmax").forbidden) == [], name


def test_a_latin1_file_is_refused_naming_the_byte(tmp_path):
    path = tmp_path / "softmax.py"
    path.write_bytes("# written by Zoë in a Latin-1 editor\n".encode("latin-1") + SOLUTION.encode())
    report = grading.check("softmax", path)
    assert report.status == "encoding" and report.sandbox is None  # never run
    assert report.refusal.code == "exercise.encoding"
    assert report.refusal.fields == {
        "path": path,
        "line": 1,
        "col": 16,
        "byte": "0xeb",
        "guess": "Latin-1 / Windows-1252",
    }
    with said() as heard:
        text = grading.render(report, "en")
    assert heard.carrying(**report.refusal.fields) and "0xeb" in text  # the refusal is shown, naming the byte
    assert read_source(catalog.get("softmax").solution_path) == SOLUTION  # UTF-8 reads as before


def test_a_latin1_sibling_is_refused_too(tmp_path):
    (tmp_path / "attention.py").write_bytes("# déjà\n".encode("latin-1"))
    (tmp_path / "multi_head_attention.py").write_text("from attention import scaled_dot_product_attention\n")
    report = grading.check("multi_head_attention", tmp_path / "multi_head_attention.py")
    assert report.status == "encoding" and report.refusal.fields["path"] == tmp_path / "attention.py"


def survivors(mark: str) -> list[str]:
    """The processes whose command line holds `mark`."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if mark.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(entry)
        except OSError:
            continue
    return found


def test_with_the_sandbox_off_every_report_says_so_and_children_are_still_killed(tmp_path, monkeypatch):
    monkeypatch.setenv(sandbox.ENV_OFF, "off")
    mark = MARK + "-off"
    (tmp_path / "softmax.py").write_text(HOSTILE["survivor"].format(mark=mark), encoding="utf-8")
    report, child = grading.check_many(
        [("causal_mask", catalog.get("causal_mask").solution_path), ("softmax", tmp_path / "softmax.py")]
    )
    assert report.passed and report.sandbox["on"] is False and report.sandbox["reason"] == "GLASSFORMER_SANDBOX=off"
    assert report.sandbox["missing"] == ["files", "network", "processes"]
    assert sandbox_line(report.sandbox) in grading.render(report)
    missing = ", ".join(t(SANDBOX_PARTS[m]) for m in report.sandbox["missing"])
    with said() as heard:
        line = sandbox_line(report.sandbox)
    assert heard.carrying(reason=sandbox.ENV_OFF + "=off", missing=missing) and missing in line
    # without namespaces the supervisor still kills its tree: orphans are handed to it (a subreaper)
    assert child.passed and survivors(mark) == []


def test_the_teachers_report_states_whether_the_sandbox_was_on(tmp_path):
    student = tmp_path / "submissions" / "ada"
    student.mkdir(parents=True)
    (student / "causal_mask.py").write_text(catalog.get("causal_mask").solution, encoding="utf-8")
    with said() as heard:
        rows, md = educator.grade(tmp_path / "submissions", tmp_path / "out.csv", lang="en", names=["causal_mask"])
    text = md.read_text(encoding="utf-8")
    on = sandbox.landlock_abi() >= 1
    said_on = [f for _, f in heard if set(f) == {"layers"}]  # sandbox_line's two cases, by their fields
    said_off = [f for _, f in heard if set(f) == {"reason", "missing"}]
    assert bool(said_on) == on and bool(said_off) == (not on)
    assert all(f["layers"] in text for f in said_on) and all(f["missing"] in text for f in said_off)
    assert rows[0]["status"] == "passed"


def test_landlock_splits_a_readable_tree_around_a_denied_folder(tmp_path):
    """A glassformer installed inside site-packages stays unreadable: its tree is split around it."""
    site = tmp_path / "site-packages"
    for name in ("torch", "numpy", "glassformer"):
        (site / name).mkdir(parents=True)
    readable = sandbox._readable([str(site)], [str(site / "glassformer")])
    assert str(site / "torch") in readable and str(site / "numpy") in readable
    assert str(site) not in readable and str(site / "glassformer") not in readable


def test_sys_path_loses_a_source_checkout_but_keeps_site_packages(tmp_path):
    site, src = tmp_path / "lib" / "site-packages", tmp_path / "src"
    assert sandbox.Gate([str(src / "glassformer")])._holds_denied(str(src))
    assert not sandbox.Gate([str(site / "glassformer")])._holds_denied(str(site))  # torch lives there too
    assert not sandbox.Gate([str(src / "glassformer")])._holds_denied(str(site))


def test_the_hostile_round_stays_quick(planted):
    assert planted["seconds"] < 60  # a few worker starts (each imports torch), not a minute of waiting


def test_a_jobs_own_time_limit_wins_over_the_batchs(tmp_path):
    """The batch's limit is for the jobs without their own: a job given more time gets it, and one
    without is stopped at the batch's."""
    for name in ("own", "batch"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "softmax.py").write_text("import time\ntime.sleep(2)\n" + SOLUTION, encoding="utf-8")
    own, batch = grading.check_many(
        [("softmax", tmp_path / "own" / "softmax.py", 120.0), ("softmax", tmp_path / "batch" / "softmax.py")],
        timeout=0.5,
    )
    assert (own.status, own.timeout) == ("passed", 120.0)
    assert (batch.status, batch.timeout) == ("timeout", 0.5)


@pytest.mark.parametrize("name", ["shadow", "etc", "home"])
def test_etc_and_the_home_folder_are_unreadable(confined, name):
    if name == "shadow" and not Path("/etc/shadow").exists():
        pytest.skip("no /etc/shadow on this system")
    report = confined["reports"][name]
    assert report.status == "crashed" and report.import_error["type"] == "PermissionError", report.status


def test_the_graders_environment_does_not_reach_the_learner(planted):
    report = planted["reports"]["environment"]
    assert report.import_error["type"] == "RuntimeError" and report.import_error["message"] == "None"
    env = sandbox.worker_env(Path("/tmp/scratch"), "t")
    assert set(env) <= {*sandbox.KEPT_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "HOME", "TMPDIR", sandbox.TOKEN}
    assert env["HOME"] == env["TMPDIR"] == "/tmp/scratch"


def test_what_the_learner_writes_is_capped(planted):
    big = planted["reports"]["big_file"]  # one file past FILE_LIMIT: the kernel refuses the write
    assert big.status == "crashed" and big.import_error["type"] == "OSError"
    assert f"[Errno {errno.EFBIG}]" in big.import_error["message"]  # the kernel's "file too large"
    many = planted["reports"]["many_files"]  # many files under the limit each: stopped at QUOTA
    assert many.status == "crashed" and many.diagnosis[1] == {"mib": sandbox.QUOTA >> 20}
    assert in_catalogue(many.diagnosis[0])  # a sentence of its own, with the quota as its field
    assert planted["reports"]["after"].passed  # graded by the next worker


def test_the_fused_attentions_kernels_are_refused_by_the_softmax_rules_name():
    """Each aten kernel PyTorch's fused attention may run (CPU, CUDA, the math path) answers to
    scaled_dot_product_attention, which the softmax exercise refuses; a plain matmul does not."""
    softmax = catalog.get("softmax").forbidden[0].names
    for kernel in (
        "_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_flash_attention_for_cpu_backward",
        "_scaled_dot_product_attention_math",
        "_scaled_dot_product_efficient_attention",
        "_flash_attention_forward",
        "_efficient_attention_backward",
    ):
        assert set(sandbox.aten_names(kernel)) & set(softmax) == {"scaled_dot_product_attention"}, kernel
    assert not set(sandbox.aten_names("bmm")) & set(softmax)
    assert "_safe_softmax" in sandbox.aten_names("_safe_softmax") and "_safe_softmax" in softmax


def test_the_workers_environment_asks_for_one_thread_each():
    env = sandbox.worker_env(Path("/tmp/scratch"), "round")
    assert (env["OMP_NUM_THREADS"], env["MKL_NUM_THREADS"], env[sandbox.TOKEN]) == ("1", "1", "round")


def test_a_worker_never_holds_the_graders_exit():
    """The threads that read a worker and watch what it writes are daemons: a worker started
    ahead (prestart) and never used ends with the grader's process (atexit), which a thread that
    Python waits for at exit, before atexit runs, would keep waiting for ever."""
    before = set(threading.enumerate())
    worker = sandbox.Worker()
    try:
        started = set(threading.enumerate()) - before
        assert len(started) == 2 and all(thread.daemon for thread in started)
    finally:
        worker.close()


@pytest.mark.parametrize("error", [ProcessLookupError, PermissionError])
def test_a_supervisor_gone_or_not_ours_to_signal_is_still_waited_for_and_swept(monkeypatch, error):
    """terminate() on a supervisor that has just ended, or that this process may not signal, is
    no failure: the grader still waits for it and sweeps the round's processes."""
    calls = []

    class Supervisor:
        pid = 0

        def poll(self):
            return None

        def terminate(self):
            calls.append("terminate")
            raise error()

        def wait(self, timeout=None):
            calls.append(("wait", timeout))
            return 0

    monkeypatch.setattr(sandbox, "_sweep", lambda token: calls.append(("sweep", token)))
    sandbox._kill(Supervisor(), "round")
    assert calls == ["terminate", ("wait", sandbox.GRACE), ("wait", 10), ("sweep", "round")]


def test_without_fork_the_worker_runs_the_job_itself_and_says_its_confinement_first(tmp_path, monkeypatch):
    """Where Python has no fork (Windows), the worker runs the job in its own process: the
    SANDBOX line goes out first, the scratch folder is emptied, the result comes back whole."""
    import torch

    folder, scratch = tmp_path / "learner", tmp_path / "scratch"
    folder.mkdir()
    scratch.mkdir()
    (folder / "twice.py").write_text("def twice(x):\n    return 2 * x\n", encoding="utf-8")
    (scratch / "left_by_the_last_job.txt").write_text("x", encoding="utf-8")
    monkeypatch.chdir(scratch)
    monkeypatch.delattr(os, "fork")
    confine = {"off": True, "deny": []}
    call = {"fn": "twice", "args": (torch.ones(2),), "grad": [], "cot": []}
    job = {"id": "w", "file": str(folder / "twice.py"), "calls": [call], "forbidden": []}
    protocol = io.BytesIO()
    code, data = sandbox._run_job_process(job, confine, torch, sandbox.Gate([]), protocol, ["pid namespace"])
    said = json.dumps(sandbox.describe(confine, ["pid namespace"]))
    assert protocol.getvalue() == f"SANDBOX {said}\n".encode()
    assert code == 0 and list(scratch.iterdir()) == []
    result = torch.load(io.BytesIO(data), weights_only=True)
    assert (result["import_error"], result["missing"], result["forbidden"]) == (None, [], [])
    assert torch.equal(result["calls"][0]["outputs"]["value"], torch.full((2,), 2.0))


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or sandbox.landlock_abi() < 6, reason="needs Landlock ABI >= 6"
)
def test_the_layers_reported_are_those_the_abi_in_use_enforces(tmp_path):
    """Each layer the report names is one the kernel enforces at the ABI used: files from ABI 1,
    "no tcp" from 4 (network rules), "no signals out" from 6. Landlock is asked at ABIs 3, 4 and
    6 in a forked child (it confines the process that asks, for good)."""
    got = {}
    for abi in (3, 4, 6):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: confine itself at that ABI, say what it got, end
            code = 1
            try:
                os.close(read)
                sandbox.landlock_abi = lambda abi=abi: abi
                os.write(write, json.dumps(sandbox.landlock([str(tmp_path)], [str(tmp_path)], [])).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            got[abi] = json.loads(pipe.read() or b"null")
        os.waitpid(pid, 0)
    # snapshot: Landlock's layer names per ABI are the report's ids, what each ABI enforces
    assert got == {
        3: [3, ["landlock abi 3: files"]],
        4: [4, ["landlock abi 4: files", "landlock: no tcp"]],
        6: [6, ["landlock abi 6: files", "landlock: no tcp", "landlock: no signals out"]],
    }

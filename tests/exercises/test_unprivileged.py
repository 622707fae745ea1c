"""The sandbox as an ordinary user grades it: the whole grader (not only the learner's code) runs as
uid and gid 65534 (`nobody`), and must still turn the confinement on (unprivileged user
namespaces, Landlock), keep /etc and the grader's environment from the learner, cap what it
writes, and grade a correct file as passed.

Run as root, the grader is started with `setpriv --reuid=65534 --regid=65534 --clear-groups`. When
the interpreter sits under a folder others may not enter (pyenv under /root, mode 0700), it is
run in a private mount namespace in which that folder is a world-readable view holding only the
interpreter's tree (`unshare --mount`: nothing outside the test sees it). Run as an ordinary user,
the test runs the grader as it is. The other sandbox tests (test_sandbox.py) run as whoever runs
pytest: with both, the confinement is tested as root and as an ordinary user."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from glassformer.exercises import catalog, sandbox

SRC = str(Path(catalog.__file__).resolve().parents[2])
NOBODY = 65534
SECRET = "GLASSFORMER_TEST_FAKE_CREDENTIAL"
SOLUTION = catalog.get("softmax").solution
FILES = {  # name: a softmax.py; each tries one thing at import time, then is a correct softmax
    "shadow": "SECRET = open('/etc/shadow').read()\n",
    "passwd": "WORLD_READABLE = open('/etc/passwd').read()\n",  # readable by anyone, yet not by the learner
    "environment": f"import os\nraise RuntimeError(repr(os.environ.get({SECRET!r})))\n",
    "big_file": f"open('big.bin', 'wb').write(bytes({sandbox.FILE_LIMIT + (1 << 20)}))\n",
    "after": "",
}
# graded by the grader running as nobody; prints one JSON line: per file, what the report says
DRIVER = textwrap.dedent(
    """
    import json, os, sys
    from glassformer.exercises import grading
    names = sys.argv[2:]
    reports = grading.check_many([("softmax", os.path.join(sys.argv[1], n, "softmax.py")) for n in names])
    print(json.dumps({"uid": os.getuid(), "reports": {
        n: {"status": r.status, "error": r.import_error, "sandbox": r.sandbox} for n, r in zip(names, reports)
    }}))
    """
)


def blocked_folder(path: str) -> Path | None:
    """The outermost folder on `path`'s way that others may not enter, if any."""
    for parent in reversed(Path(path).parents):
        if parent != Path("/") and not os.stat(parent).st_mode & 0o001:
            return parent
    return None


def command(root: Path, hold: Path) -> list[str]:
    python = str(Path(sys.executable).resolve())
    run = [sys.executable, "-c", DRIVER, str(root), *FILES]
    if os.getuid() != 0:
        return run
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *run]
    blocked = [f for f in {blocked_folder(python), blocked_folder(sys.base_prefix)} if f is not None]
    if not blocked:
        return drop
    if len(blocked) > 1 or shutil.which("unshare") is None:
        pytest.skip(f"the interpreter is under folders uid {NOBODY} may not enter: {blocked}")
    folder = blocked[0]
    inner = Path(python).relative_to(folder).parts[0]  # the one entry of that folder the interpreter needs
    script = (
        f"mount --bind {folder / inner} {hold} && mount -t tmpfs -o mode=0755 none {folder} && "
        f'mkdir {folder / inner} && mount --bind {hold} {folder / inner} && exec "$@"'
    )
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *drop]


@pytest.fixture(scope="module")
def as_nobody():
    if not sys.platform.startswith("linux") or shutil.which("setpriv") is None:
        pytest.skip("needs Linux and setpriv (util-linux)")
    top = Path(tempfile.mkdtemp(prefix="glassformer-nobody-"))  # not pytest's tmp_path: that one is 0700
    try:
        top.chmod(0o755)
        root, hold, home = top / "learners", top / "hold", top / "home"
        for folder in (root, hold, home):
            folder.mkdir()
        for name, head in FILES.items():
            (root / name).mkdir()
            (root / name / "softmax.py").write_text(head + SOLUTION, encoding="utf-8")
        home.chmod(0o777)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(home),
            "PYTHONPATH": SRC,
            SECRET: "AKIA-not-a-real-key",
        }
        done = subprocess.run(command(root, hold), env=env, capture_output=True, text=True, timeout=600, cwd=home)
        assert done.returncode == 0, done.stderr[-3000:]
        yield json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_the_grader_ran_as_an_ordinary_user(as_nobody):
    assert as_nobody["uid"] == (NOBODY if os.getuid() == 0 else os.getuid())


def test_the_sandbox_is_on_for_an_ordinary_user(as_nobody):
    if sandbox.landlock_abi() < 1:
        pytest.skip("no Landlock on this system: the sandbox is off here")
    for name, report in as_nobody["reports"].items():
        assert report["sandbox"]["on"] and report["sandbox"]["missing"] == [], (name, report["sandbox"])
        # snapshot: the sandbox's layer names are its report's ids
        assert {"user namespace", "network namespace", "pid namespace"} <= set(report["sandbox"]["layers"]), name


@pytest.mark.parametrize("name", ["shadow", "passwd"])
def test_etc_is_unreadable_to_the_learner(as_nobody, name):
    if sandbox.landlock_abi() < 1 and name == "passwd":
        pytest.skip("no Landlock on this system: /etc/passwd is readable by anyone")
    report = as_nobody["reports"][name]
    assert (report["status"], report["error"]["type"]) == ("crashed", "PermissionError"), report


def test_the_graders_environment_is_stripped(as_nobody):
    report = as_nobody["reports"]["environment"]
    assert (report["error"]["type"], report["error"]["message"]) == ("RuntimeError", "None")


def test_one_large_file_is_refused(as_nobody):
    report = as_nobody["reports"]["big_file"]
    assert (report["status"], report["error"]["type"]) == ("crashed", "OSError")
    assert f"[Errno {errno.EFBIG}]" in report["error"]["message"]  # the kernel's "file too large"


def test_a_correct_file_passes(as_nobody):
    assert as_nobody["reports"]["after"]["status"] == "passed"

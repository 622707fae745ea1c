"""The Makefile's set-up (issue 44.11): `make demo` installs torch and the package only (no test tool)
and says what it installs before each slow step; `make setup` / `make test` install the [dev] extra,
even after a demo-only set-up. Read with `make -n` (what make would run) in a copy: nothing installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


@pytest.fixture
def checkout(tmp_path):
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def planned(folder: Path, target: str) -> list[str]:
    """The commands `make TARGET` would run there, in order."""
    # a make of its own, not a sub-make of `make test` (whose MAKELEVEL/MAKEFLAGS would add "Entering directory")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target], cwd=folder, capture_output=True, text=True, check=True, env=env
    )
    return [line for line in done.stdout.splitlines() if line.strip()]


def pip_install(command: str) -> list[str] | None:
    """What `PYTHON -m pip install ...` is given (read as its argv), or None for another command."""
    argv = command.split()
    return argv[4:] if argv[1:4] == ["-m", "pip", "install"] else None


def installs(commands: list[str]) -> list[str]:
    return [c for c in commands if pip_install(c) is not None]


def test_demo_installs_torch_and_the_package_and_no_test_tool(checkout):
    commands = planned(checkout, "demo")
    assert [pip_install(c)[-1] for c in installs(commands)] == ["pip", "torch==2.13.0", "."]
    assert not [c for c in commands if "[dev]" in c]
    assert commands[-1].split() == [".venv/bin/glassformer", "demo"]


def test_demo_says_what_it_installs_before_it_starts_and_torch_is_not_quiet(checkout):
    commands = planned(checkout, "demo")
    assert commands[0].startswith("echo ")  # the first thing printed, before the venv and pip
    for i, command in enumerate(commands):
        if "torch==2.13.0" in (pip_install(command) or []):
            assert "-q" not in pip_install(command)  # pip's own lines while the largest download runs
            assert commands[i - 1].startswith("echo ")


def test_setup_and_test_install_the_dev_extra(checkout):
    for target in ("setup", "test"):
        assert any('".[dev]"' in c for c in installs(planned(checkout, target))), target


def test_a_demo_only_setup_does_not_make_setup_skip_the_dev_extra(checkout):
    venv = checkout / ".venv"
    venv.mkdir()
    later = time.time() + 5
    (venv / ".base-done").touch()
    os.utime(venv / ".base-done", (later, later))  # newer than pyproject.toml: the demo's set-up is done
    assert installs(planned(checkout, "demo")) == []  # the demo starts at once
    setup = installs(planned(checkout, "setup"))
    assert setup and all("[dev]" in c for c in setup)  # ... but setup still installs the [dev] extra, only it
    (venv / ".setup-done").touch()
    os.utime(venv / ".setup-done", (later + 1, later + 1))
    assert installs(planned(checkout, "setup")) == []  # and once that is done, nothing more

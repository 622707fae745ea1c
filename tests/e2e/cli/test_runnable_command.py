"""The commands glassformer prints (after `make demo`, `train`, `import`) run as printed in a new shell
(issue 44.1): `make demo` installs into .venv, which a new shell has not activated, so `glassformer`
alone is "command not found" there; options.runnable() spells the command that works."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from glassformer.cli import options
from glassformer.cli.options import runnable


@pytest.fixture
def venv(tmp_path, monkeypatch):
    """A checkout with .venv/bin/{python, glassformer}, this process running its python, cwd the checkout."""
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "glassformer"):
        (bin_dir / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setattr(options.sys, "executable", str(bin_dir / "python"))
    monkeypatch.chdir(tmp_path)
    return bin_dir


def _executable(command: str) -> Path | None:
    """The file a shell would run for the first word of `command` (with this process's PATH)."""
    first = shlex.split(command)[0]
    found = shutil.which(first) if os.sep not in first else (first if os.access(first, os.X_OK) else None)
    return Path(found).resolve() if found else None


def test_a_venv_a_new_shell_has_not_activated_is_called_by_its_path(venv, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    command = runnable()
    assert command == os.path.join(".venv", "bin", "glassformer")
    assert _executable(command) == (venv / "glassformer").resolve()


def test_an_activated_venv_is_called_by_name(venv, monkeypatch):
    monkeypatch.setenv("PATH", f"{venv}:/usr/bin:/bin")
    assert runnable() == "glassformer"
    assert _executable("glassformer") == (venv / "glassformer").resolve()


def test_another_glassformer_first_on_path_is_not_taken_for_this_one(venv, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    (other / "glassformer").write_text("#!/bin/sh\n", encoding="utf-8")
    (other / "glassformer").chmod(0o755)
    monkeypatch.setenv("PATH", f"{other}:{venv}")
    assert _executable(runnable()) == (venv / "glassformer").resolve()


def test_an_installation_outside_the_working_folder_is_called_by_its_absolute_path(venv, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert runnable() == str(venv / "glassformer")


def test_without_the_script_the_interpreter_runs_the_module(venv, monkeypatch):
    (venv / "glassformer").unlink()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    command = runnable()
    assert shlex.split(command)[1:] == ["-m", "glassformer"]
    assert _executable(command) == (venv / "python").resolve()


def test_in_this_environment_the_printed_command_names_an_executable_that_exists():
    command = runnable()
    assert _executable(command) is not None, command
    assert command == "glassformer" or Path(shlex.split(command)[0]).parent.resolve() == (
        Path(sys.executable).parent.resolve()
    )

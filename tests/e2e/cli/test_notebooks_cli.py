"""`glassformer notebooks`: the shipped notebooks copied out (never over a user's edits) and
opened in JupyterLab, or the one line that installs it. JupyterLab itself is never needed here."""

from __future__ import annotations

import sys

import pytest
from helpers import ROOT, said

import glassformer.cli.explore as notebooks_cli
from glassformer.cli import main

REPO_NOTEBOOKS = ROOT / "notebooks"


def make_notebooks() -> list[str]:
    """What the Makefile's `notebooks` recipe gives `glassformer` (its argv after the program)."""
    makefile = (REPO_NOTEBOOKS.parent / "Makefile").read_text()
    commands = [w[1:] for w in map(str.split, makefile.splitlines()) if w and w[0].endswith("/glassformer")]
    [argv] = [argv for argv in commands if argv[0] == "notebooks"]
    return argv


def test_the_package_ships_every_notebook_of_the_repository():
    """Issue 27, item 6: a pip user had no notebooks. They are package data (glassformer/notebooks)."""
    names = [f.name for f in notebooks_cli.shipped()]
    assert names == sorted(p.name for p in REPO_NOTEBOOKS.iterdir() if p.suffix == ".ipynb" or p.name == "README.md")
    english = [n for n in names if n.endswith(".ipynb") and not n.endswith(".zh.ipynb")]
    assert len(english) >= 7 and sorted(n.replace(".ipynb", ".zh.ipynb") for n in english) == [
        n for n in names if n.endswith(".zh.ipynb")
    ]  # every notebook in both languages (07, the causal one, included)


def test_copies_keeps_what_is_there_and_opens_jupyterlab(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(notebooks_cli, "has_jupyterlab", lambda: True)
    monkeypatch.setattr(notebooks_cli.os, "geteuid", lambda: 1000)  # not root (root: the tests below)
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: calls.append(argv) or 0)
    dest = tmp_path / "nb"
    dest.mkdir()
    edited = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'  # the user's own notebook
    (dest / "01_attention_by_hand.ipynb").write_text(edited, encoding="utf-8")
    with said() as heard:
        assert main(["notebooks", "--dir", str(dest)]) == 0
    assert (dest / "01_attention_by_hand.ipynb").read_text(encoding="utf-8") == edited  # never overwritten
    assert (dest / "02_char_gpt.zh.ipynb").read_bytes() == (REPO_NOTEBOOKS / "02_char_gpt.zh.ipynb").read_bytes()
    assert calls == [[sys.executable, "-m", "jupyterlab", str(dest)]]
    out = capsys.readouterr().out
    total = len(notebooks_cli.shipped())  # the notebooks and their README
    [(told, fields)] = [(key, f) for key, f in heard if set(f) == {"dir", "copied", "kept"}]
    assert fields == {"dir": dest, "copied": total - 1, "kept": 1} and notebooks_cli.t(told, **fields) in out


def test_without_jupyterlab_it_says_the_one_line_that_installs_it(tmp_path, monkeypatch, capsys):
    said = []
    monkeypatch.setattr(notebooks_cli, "has_jupyterlab", lambda: False)
    monkeypatch.setattr(notebooks_cli, "say", lambda key, file=None, **fields: said.append((key, fields)))
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: (_ for _ in ()).throw(AssertionError(argv)))
    assert main(["notebooks", "--dir", str(tmp_path / "nb")]) == 1
    assert said[-1][1] == {"install": notebooks_cli.INSTALL, "dir": tmp_path / "nb"}  # the line that installs it
    assert notebooks_cli.INSTALL.split()[-1] == '"glassformer[notebooks]"'  # the extra of pyproject.toml
    assert main(["notebooks", "--dir", str(tmp_path / "nb2"), "--no-open"]) == 0  # copy only: no JupyterLab needed


def test_the_extra_and_the_make_target_exist():
    import tomllib

    root = REPO_NOTEBOOKS.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["optional-dependencies"]["notebooks"] == ["jupyterlab>=4"]
    assert "notebooks/*.ipynb" in project["tool"]["setuptools"]["package-data"]["glassformer"]
    assert make_notebooks()[:3] == ["notebooks", "--dir", "notebooks"]


def _launch(tmp_path, monkeypatch, euid: int, *extra: str) -> tuple[list, list]:
    """(JupyterLab's command line, the keys said) for `glassformer notebooks` run as user `euid`."""
    calls, said = [], []
    monkeypatch.setattr(notebooks_cli, "has_jupyterlab", lambda: True)
    monkeypatch.setattr(notebooks_cli.os, "geteuid", lambda: euid)
    monkeypatch.setattr(notebooks_cli, "say", lambda key, file=None, **fields: said.append((key, fields)))
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: calls.append(argv) or 0)
    assert main(["notebooks", "--dir", str(tmp_path / "nb"), *extra]) == 0
    return calls, said


def test_as_root_jupyterlab_gets_allow_root_and_it_is_said(tmp_path, monkeypatch):
    """Issue 44, item 8: JupyterLab refuses root ("Use --allow-root"), the usual user in a container."""
    calls, said = _launch(tmp_path, monkeypatch, 0)
    assert calls == [[sys.executable, "-m", "jupyterlab", str(tmp_path / "nb"), "--allow-root"]]
    assert {"flag": "--allow-root"} in [fields for _, fields in said]  # said why the flag is there


def test_not_root_nothing_is_added(tmp_path, monkeypatch):
    calls, said = _launch(tmp_path, monkeypatch, 1000)
    assert calls == [[sys.executable, "-m", "jupyterlab", str(tmp_path / "nb")]]
    assert {"flag": "--allow-root"} not in [fields for _, fields in said]


def test_options_it_does_not_know_go_on_to_jupyterlab_once(tmp_path, monkeypatch):
    calls, said = _launch(tmp_path, monkeypatch, 0, "--", "--port", "8899", "--no-browser", "--allow-root")
    assert calls == [
        [sys.executable, "-m", "jupyterlab", str(tmp_path / "nb"), "--port", "8899", "--no-browser", "--allow-root"]
    ]
    assert {"flag": "--allow-root"} not in [fields for _, fields in said]  # the user gave it: nothing to add or say


def test_an_option_of_ours_mistyped_is_refused_before_anything_is_copied(tmp_path, monkeypatch):
    """JupyterLab's options come after `--`: a mistyped one of ours is a usage error, not a copy into
    the folder followed by JupyterLab's own complaint."""
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: (_ for _ in ()).throw(AssertionError(argv)))
    with pytest.raises(SystemExit) as e:
        main(["notebooks", "--dir", str(tmp_path / "nb"), "--no-such-option=1"])
    assert e.value.code == 2 and not (tmp_path / "nb").exists()


def test_make_notebooks_passes_its_arguments_on():
    assert make_notebooks()[3:] == ["--", "$(NOTEBOOKS_ARGS)"]

"""`glassformer notebooks`: the shipped notebooks copied out (never over a user's edits) and
opened in JupyterLab, or the one line that installs it. JupyterLab itself is never needed here."""

from __future__ import annotations

import sys

import pytest
from helpers import ROOT

import glassformer.cli.explore as notebooks_cli
from glassformer.cli import main

REPO_NOTEBOOKS = ROOT / "notebooks"


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
    (dest / "01_attention_by_hand.ipynb").write_text("my edits", encoding="utf-8")
    assert main(["notebooks", "--dir", str(dest)]) == 0
    assert (dest / "01_attention_by_hand.ipynb").read_text(encoding="utf-8") == "my edits"  # never overwritten
    assert (dest / "02_char_gpt.zh.ipynb").read_bytes() == (REPO_NOTEBOOKS / "02_char_gpt.zh.ipynb").read_bytes()
    assert calls == [[sys.executable, "-m", "jupyterlab", str(dest)]]
    out = capsys.readouterr().out
    total = len(notebooks_cli.shipped())  # the notebooks and their README
    assert (
        notebooks_cli.t(
            "notebooks in {dir}: {copied} copied, {kept} already there (kept as they are)",
            copied=total - 1,
            kept=1,
            dir=dest,
        )
        in out
    )


def test_without_jupyterlab_it_says_the_one_line_that_installs_it(tmp_path, monkeypatch, capsys):
    said = []
    monkeypatch.setattr(notebooks_cli, "has_jupyterlab", lambda: False)
    monkeypatch.setattr(notebooks_cli, "say", lambda key, file=None, **fields: said.append((key, fields)))
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: (_ for _ in ()).throw(AssertionError(argv)))
    assert main(["notebooks", "--dir", str(tmp_path / "nb")]) == 1
    assert said[-1] == (
        "JupyterLab is not installed: {install} (or `make notebooks` "
        "in a checkout), then run this again; the notebooks are in "
        "{dir}",
        {"install": 'pip install "glassformer[notebooks]"', "dir": tmp_path / "nb"},
    )
    assert main(["notebooks", "--dir", str(tmp_path / "nb2"), "--no-open"]) == 0  # copy only: no JupyterLab needed


def test_the_extra_and_the_make_target_exist():
    import tomllib

    root = REPO_NOTEBOOKS.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["optional-dependencies"]["notebooks"] == ["jupyterlab>=4"]
    assert "notebooks/*.ipynb" in project["tool"]["setuptools"]["package-data"]["glassformer"]
    assert "glassformer notebooks --dir notebooks" in (root / "Makefile").read_text()


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
    assert (
        "running as root: JupyterLab is started with {flag} (it refuses root without it)",
        {"flag": "--allow-root"},
    ) in said


def test_not_root_nothing_is_added(tmp_path, monkeypatch):
    calls, said = _launch(tmp_path, monkeypatch, 1000)
    assert calls == [[sys.executable, "-m", "jupyterlab", str(tmp_path / "nb")]]
    assert "running as root: JupyterLab is started with {flag} (it refuses root without it)" not in [
        key for key, _ in said
    ]


def test_options_it_does_not_know_go_on_to_jupyterlab_once(tmp_path, monkeypatch):
    calls, said = _launch(tmp_path, monkeypatch, 0, "--", "--port", "8899", "--no-browser", "--allow-root")
    assert calls == [
        [sys.executable, "-m", "jupyterlab", str(tmp_path / "nb"), "--port", "8899", "--no-browser", "--allow-root"]
    ]
    assert "running as root: JupyterLab is started with {flag} (it refuses root without it)" not in [
        key for key, _ in said
    ]  # the user gave it: nothing to add or say


def test_an_option_of_ours_mistyped_is_refused_before_anything_is_copied(tmp_path, monkeypatch):
    """JupyterLab's options come after `--`: a mistyped one of ours is a usage error, not a copy into
    the folder followed by JupyterLab's own complaint."""
    monkeypatch.setattr(notebooks_cli.subprocess, "call", lambda argv: (_ for _ in ()).throw(AssertionError(argv)))
    with pytest.raises(SystemExit) as e:
        main(["notebooks", "--dir", str(tmp_path / "nb"), "--no-such-option=1"])
    assert e.value.code == 2 and not (tmp_path / "nb").exists()


def test_make_notebooks_passes_its_arguments_on():
    makefile = (REPO_NOTEBOOKS.parent / "Makefile").read_text()
    assert "glassformer notebooks --dir notebooks -- $(NOTEBOOKS_ARGS)" in makefile

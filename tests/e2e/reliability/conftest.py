"""Fixtures of the reliability tests: one tiny trained run, shared, copied before it is damaged."""

from __future__ import annotations

import shutil

import pytest
from reliability_kit import cli, train_argv


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """(run directory, data cache) of an 8-step run with checkpoints at steps 0, 4 and 8. Read only:
    copy it (`run_copy`) before changing anything."""
    root = tmp_path_factory.mktemp("tiny")
    code, _, err = cli(train_argv(root / "run", root / "cache", 8))
    assert code == 0, err
    return root / "run", root / "cache"


@pytest.fixture
def run_copy(tiny_run, tmp_path):
    """A private copy of the tiny run (and the cache it was prepared in)."""
    run, cache = tiny_run
    shutil.copytree(run, tmp_path / "run")
    return tmp_path / "run", cache


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Crash reports and downloads go to a temp directory, never the user's ~/.cache."""
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "glassformer-cache"))
    monkeypatch.delenv("GLASSFORMER_DEBUG", raising=False)

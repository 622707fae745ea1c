"""Shared fixtures for the whole suite. Keep this file small and generic."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest
import torch


@pytest.fixture(autouse=True)
def _seed():
    """Every test starts from the same random state, whatever ran before it."""
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    yield


@pytest.fixture
def float64():
    """Make float64 the default dtype for the test, then restore the previous default."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch.float64
    torch.set_default_dtype(previous)


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one thread (and do not fight other processes for the cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def saved_figures(monkeypatch):
    """Every matplotlib Figure saved while the test runs, with the dpi it was saved at, so a test can
    read back what a function drew (those that write a PNG return only its path)."""
    from matplotlib.figure import Figure

    kept = []
    real = Figure.savefig

    def keep(fig, *args, **kw):
        kept.append((fig, kw.get("dpi")))
        return real(fig, *args, **kw)

    monkeypatch.setattr(Figure, "savefig", keep)
    return kept


# `make test` runs the files in parallel (pytest-xdist, `-n auto --dist loadgroup`). Each file stays on
# one worker, so a module fixture is made once; so does each folder below, whose conftest.py makes a
# session fixture that costs seconds (the grader's graded submissions; a trained tiny run). Nothing else
# needs a worker of its own: runs, caches and ports are per test (tmp_path, GLASSFORMER_CACHE, port 0),
# and the corpus cache in ~/.cache/glassformer is written by rename, safe for two processes at once.
ONE_WORKER = ("tests/exercises/", "tests/e2e/reliability/")
INSTALL_CHROMIUM = "apt-get install -y chromium"  # what the summary tells a machine without it to run
TESTS = Path(__file__).resolve().parent


def pytest_configure(config):
    """An xdist worker takes its share of the cores for torch's threads: two workers of two threads
    each on two cores spend their time waiting for each other."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // workers))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    if config.getoption("dist", default="no") != "loadgroup":
        return
    for item in items:
        path = "tests/" + Path(item.path).resolve().relative_to(TESTS).as_posix()
        item.add_marker(pytest.mark.xdist_group(next((f for f in ONE_WORKER if path.startswith(f)), path)))


def pytest_unconfigure(config):
    """A browser test skipped for want of Chromium is said last, after pytest's own summary, with how to
    install it: `make test` installs it where it can (as root with apt-get), and a skip among thousands
    of dots is easy to miss."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    skipped = [r for r in reporter.stats.get("skipped", []) if "no Chromium found" in str(r.longrepr)]
    if skipped:
        reporter.section("browser tests skipped", sep="!", yellow=True, bold=True)
        reporter.line(
            f"{len(skipped)} browser tests (tests/e2e/browser) did not run: no Chromium on this machine.\n"
            f"Install it (Debian/Ubuntu, as root): {INSTALL_CHROMIUM}\n"
            "or point GLASSFORMER_CHROMIUM at one; then: pytest tests/e2e/browser",
            yellow=True,
            bold=True,
        )

"""Shared fixtures for the whole suite. Keep this file small and generic."""

from __future__ import annotations

import random

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

"""Fixtures of the explorer's tests; the helpers live in explore_kit.py."""

from __future__ import annotations

import pytest
import torch
from explore_kit import client_for, make_explorer


@pytest.fixture(scope="module")
def gpt():
    return make_explorer("gpt")


@pytest.fixture(scope="module")
def client(gpt):
    return client_for(gpt)


@pytest.fixture(autouse=True)
def _no_grad():
    """The tests' own reference computations need no gradients (the server makes none either)."""
    with torch.no_grad():
        yield

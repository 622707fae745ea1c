"""docs/architecture.md's recipe "Add a position scheme", followed in a temporary copy of the project.

The recipe names four files (the scheme, an import line in nn/__init__.py, its NumPy twin with an
import line in numpy_ref/__init__.py) and says that no list of schemes is edited anywhere else: the
reference tests read the registry. This test writes exactly those files for a toy scheme in a copy
of src/ and tests/, then runs the registry-driven reference tests there, selected to the toy scheme,
and checks that they ran it and passed. A test that keeps a hand-written list of schemes, or a part
of the model that does not go through the registry, makes this fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

RECIPE = ROOT / "docs" / "architecture.md"
NAME = "third-sin"  # the toy scheme: the sinusoidal table at a third of its strength

SCHEME = '''"""Sinusoidal positions at a third of their strength: the recipe test's toy scheme."""

import torch

from glassformer.nn.position import SinusoidalPositions
from glassformer.nn.position import PositionScheme, register_position_scheme


class ThirdSinusoidal(SinusoidalPositions):
    def forward(self, T: int, offset: int = 0) -> torch.Tensor:
        return super().forward(T, offset) / 3  # (T, C)


register_position_scheme(
    PositionScheme(
        "third-sin",
        about="sinusoidal positions at a third of their strength",
        zh="三分之一强度的正弦位置",
        stream=lambda cfg: ThirdSinusoidal(cfg.max_len, cfg.d_model),
        table=True,
    )
)
'''

TWIN = '''"""The toy scheme's twin: the sinusoidal table, divided by three."""

from glassformer.numpy_ref.forward import NUMPY_POSITIONS, NumpyScheme, sinusoidal_table

NUMPY_POSITIONS["third-sin"] = NumpyScheme(stream=lambda params, cfg, T: sinusoidal_table(T, cfg.d_model) / 3)
'''

# the registry-driven reference tests the recipe says pick a new scheme up with no edit
TESTS = [
    "tests/reference/test_numpy_twin.py",
    "tests/reference/test_kv_cache.py",
    "tests/reference/test_fused_path.py",
    "tests/reference/test_cached_decoding.py",
]


def test_the_recipe_names_the_files_this_test_writes():
    """The recipe and this test agree on which files a scheme takes (so neither drifts alone)."""
    text = RECIPE.read_text(encoding="utf-8")
    section = text[text.index("### Add a position scheme") : text.index("### Add a tokenizer")]
    for named in ("nn/<scheme>.py", "nn/__init__.py", "numpy_ref/<scheme>.py", "numpy_ref/__init__.py"):
        assert f"`{named}`" in section or f"**`{named}`**" in section, named
    assert "test_recipes.py" in section


@pytest.mark.slow
def test_a_toy_scheme_added_as_the_recipe_says_runs_through_the_reference_tests(tmp_path):
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")
    for part in ("src", "tests"):
        shutil.copytree(ROOT / part, copy / part, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    nn, twin = copy / "src" / "glassformer" / "nn", copy / "src" / "glassformer" / "numpy_ref"
    # the recipe's four files, and nothing else
    (nn / "third_sin.py").write_text(SCHEME, encoding="utf-8")
    with open(nn / "__init__.py", "a", encoding="utf-8") as f:
        f.write("from glassformer.nn import third_sin  # noqa: E402,F401  registers position 'third-sin'\n")
    (twin / "third_sin.py").write_text(TWIN, encoding="utf-8")
    with open(twin / "__init__.py", "a", encoding="utf-8") as f:
        f.write("from glassformer.numpy_ref import third_sin  # noqa: E402,F401  registers its twin\n")

    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "third", *TESTS],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed and int(passed.group(1)) >= 8, tail  # the toy scheme ran through the reference tests
    # and the copy really used the copy's source (not the installed project): the scheme is registered there
    probe = subprocess.run(
        [sys.executable, "-c", "import glassformer.nn.position as p; print('third-sin' in p.POSITION_SCHEMES)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.stdout.strip() == "True", probe.stderr

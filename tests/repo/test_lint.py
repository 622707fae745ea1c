"""Pyflakes' checks over the whole tree: an unused import, an undefined name, a loop variable that
shadows an import (`for name, t in ...` inside a module whose `t` is the message function: the next
`t("key")` in that function would call a tensor), an f-string with nothing to fill in.

This test keeps the `F` rules (bugs or dead code) inside `make test`'s pytest run; `make lint`
checks the rest (the formatter, E, W, B, I, mypy), configured in pyproject.toml.
"""

import subprocess
import sys

from helpers import ROOT


def test_no_pyflakes_findings_in_src_tests_bench_and_tools():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--select",
            "F",
            "--output-format",
            "concise",
            "src",
            "tests",
            "bench",
            "tools",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr

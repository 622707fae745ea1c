"""docs/causal.md's library example runs as written, in a fresh interpreter (issue 44: it used
clean, corrupt, answer and wrong without saying what they were), and says what it promises."""

from __future__ import annotations

import re
import subprocess
import sys

import torch
from helpers import ROOT

DOC = ROOT / "docs" / "causal.md"


def test_the_library_example_defines_its_inputs_and_runs():
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    for name in ("clean", "corrupt", "answer", "wrong", "model", "tokenizer"):
        assert re.search(rf"^{name}\b.*=|^{name}, \w+ =|, {name} =", code, flags=re.M), name
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "['t', 'h', 'e', ' ', 'c', 'a', 't']"
    assert lines[1] == f"{torch.Size([2, 4, 7])} {('layer', 'H', 'T')}"  # the grid's shape and its axes
    assert "blocks.0.attn.z" in lines[-1] and lines[-2] == str(torch.Size([1, 4, 7, 8]))  # (B, H, T, D)

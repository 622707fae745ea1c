"""docs/architecture.md's worked examples run, in order, in one fresh interpreter: an extension
point whose documented recipe stops working fails here. (A fresh process, because the examples
register a position scheme, a tokenizer and a model kind that no other test should see.)"""

from __future__ import annotations

import re
import subprocess
import sys

from helpers import ROOT

DOC = ROOT / "docs" / "architecture.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_document_has_an_example_per_extension_point():
    text = DOC.read_text(encoding="utf-8")
    for heading in ("Add a position scheme", "Add a tokenizer", "Add a model kind", "Add a view", "Add a lesson"):
        assert f"### {heading}" in text
    assert len(examples()) == 5


def test_the_worked_examples_run():
    script = "\n\n".join(f"# --- example {i}\n{code}" for i, code in enumerate(examples()))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]

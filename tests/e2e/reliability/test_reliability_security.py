"""Checkpoints never unpickle arbitrary objects: weights are safetensors (no pickle at all), the training
state is read with torch.load(weights_only=True). A planted pickle whose loading would create a file
is refused, and the file is never created."""

from __future__ import annotations

import ast
import functools
import os
import pickle
import shutil
from pathlib import Path

import pytest
import torch
from reliability_kit import assert_clean_failure, cli, resume_argv

import glassformer
from glassformer.errors import DamagedFile
from glassformer.train.checkpoint import STATE_FORMAT, read_state

PACKAGE = Path(glassformer.__file__).parent


class Planted:
    """Unpickling this calls os.system: it would create the file `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def planted_files(tmp_path):
    """A raw pickle and a torch.save zip, each holding the planted object among plain values."""
    marker = tmp_path / "pwned"
    raw, zipped = tmp_path / "raw.pt", tmp_path / "zipped.pt"
    raw.write_bytes(pickle.dumps({"format": STATE_FORMAT, "step": 8, "x": Planted(marker)}))
    torch.save({"format": STATE_FORMAT, "step": 8, "x": Planted(marker)}, zipped)
    assert not marker.exists()
    return marker, (raw, zipped)


def test_the_planted_pickle_would_run_if_unpickled(tmp_path):
    """The trap is real: a plain pickle.load does create the file (so the next tests mean something)."""
    marker, (raw, _) = planted_files(tmp_path)
    pickle.loads(raw.read_bytes())
    assert marker.exists()


def test_a_planted_pickle_is_refused_without_running(tmp_path):
    marker, files = planted_files(tmp_path)
    for path in files:
        with pytest.raises(DamagedFile) as refused:
            read_state(path)
        assert (refused.value.code, Path(refused.value.fields["path"])) == ("checkpoint.pickle", path)
    assert not marker.exists()


def test_a_planted_train_state_in_a_run_is_refused_by_the_cli(run_copy, tmp_path):
    run, cache = run_copy
    marker, (raw, zipped) = planted_files(tmp_path)
    for planted in (raw, zipped):
        shutil.copy(planted, run / "train_state.pt")
        code, _, err = cli(resume_argv(run, cache, "--max_steps=12"))
        assert_clean_failure(code, err, codes=(1,))
        assert "train_state.pt" in err
    assert not marker.exists()


@functools.cache
def _all_calls() -> list[tuple[Path, int, str, ast.Call]]:
    """Every call in glassformer's source: (file, line, callee as written, ast.Call)."""
    return [
        (path.relative_to(PACKAGE), node.lineno, ast.unparse(node.func), node)
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
    ]


def _calls(name: str):
    """Every call of `name` (e.g. "torch.load"): (file, line, ast.Call)."""
    return [(path, line, call) for path, line, callee, call in _all_calls() if callee == name]


def test_every_torch_load_is_weights_only():
    found = list(_calls("torch.load"))
    assert found, "the check must see the training-state loader"
    for path, line, call in found:
        kwargs = {k.arg: ast.unparse(k.value) for k in call.keywords}
        assert kwargs.get("weights_only") == "True", f"{path}:{line} calls torch.load without weights_only=True"


def test_nothing_else_unpickles():
    for name in ("pickle.load", "pickle.loads", "pickle.Unpickler", "dill.load", "joblib.load"):
        assert not list(_calls(name)), f"{name} in glassformer: checkpoints must never unpickle objects"
    for path, line, call in _calls("np.load"):
        kwargs = {k.arg: ast.unparse(k.value) for k in call.keywords}
        assert kwargs.get("allow_pickle", "False") == "False", f"{path}:{line}: np.load(allow_pickle=True)"

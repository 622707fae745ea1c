"""Atomic writes (glassformer/files.py): a reader, or a crash, sees the old file or the new one.

Bug guarded throughout: the generic atomic write replaced by a plain write to the file's own name.
A plain write passes every test that only reads the file afterwards; these tests look while the
write is under way and after it dies.
"""

from __future__ import annotations

import ast
import json
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import strict_json

import glassformer
from glassformer.files import (
    atomic_write,
    finite,
    json_text,
    write_bytes_atomic,
    write_json_atomic,
    write_temp,
    write_text_atomic,
)


def test_while_writing_the_old_file_is_intact_and_the_new_one_is_elsewhere(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("old")
    seen, first, second = {}, "new, first half", ", second half"

    def write(tmp):
        with open(tmp, "w") as f:
            f.write(first)
            f.flush()
            seen["target"] = path.read_text()  # what a reader sees mid-write
            seen["tmp"] = tmp
            f.write(second)

    atomic_write(path, write)
    assert seen["target"] == "old"
    assert os.path.dirname(seen["tmp"]) == str(tmp_path)  # same directory: os.replace cannot cross filesystems
    assert os.path.basename(seen["tmp"]).startswith(".config.json.") and seen["tmp"].endswith(".tmp")
    assert path.read_text() == first + second  # both halves, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]  # no temp file left behind


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_a_write_that_dies_keeps_the_old_file_and_leaves_no_temp(tmp_path, error):
    path = tmp_path / "tokenizer.json"
    old = "the last good one"
    path.write_text(old)

    def dies(tmp):
        with open(tmp, "w") as f:
            f.write("half")
        raise error

    with pytest.raises(type(error)):
        atomic_write(path, dies)
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["tokenizer.json"]


def test_a_new_file_is_not_created_when_the_write_dies(tmp_path):
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "sub" / "x.txt", "never")  # the directory does not exist
    with pytest.raises(ValueError):
        atomic_write(tmp_path / "y.bin", lambda tmp: (_ for _ in ()).throw(ValueError("bad")))
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rename_removes_the_temp(tmp_path):
    (tmp_path / "d").mkdir()  # os.replace(file, non-empty-or-dir) fails: the target is a directory
    (tmp_path / "d" / "keep").write_text("x")
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "d", "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_write_temp_returns_a_complete_readable_file_and_leaves_the_target_alone(tmp_path):
    target = tmp_path / "model.safetensors"
    tmp = write_temp(target, lambda t: open(t, "wb").write(b"\x01\x02"))
    assert not target.exists() and open(tmp, "rb").read() == b"\x01\x02"
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o644  # readable like any kept file, not mkstemp's 0o600


def test_text_keeps_newlines_and_utf8_and_bytes_are_exact(tmp_path):
    write_text_atomic(tmp_path / "t.txt", "一\r\n二\n")
    assert (tmp_path / "t.txt").read_bytes() == "一\r\n二\n".encode("utf-8")
    write_bytes_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    write_bytes_atomic(tmp_path / "b.bin", b"second")  # replacing an existing file
    assert (tmp_path / "b.bin").read_bytes() == b"second"


# ---- the one JSON writer: json_text, write_json_atomic (every JSON file and reply goes through it) ----
def test_json_text_writes_a_number_that_is_not_finite_as_null_wherever_it_sits():
    value = {"a": math.nan, "b": [1.5, math.inf, (-math.inf, 2)], "c": {"d": math.nan}, 3: "x"}
    out = strict_json(json_text(value))
    assert out == {"a": None, "b": [1.5, None, [None, 2]], "c": {"d": None}, "3": "x"}


def test_numpy_and_torch_numbers_and_arrays_are_written_as_plain_json():
    value = {
        "f32": np.float32(0.5),
        "f32_nan": np.float32("nan"),
        "f64_inf": np.float64("inf"),  # a float subclass: json.dumps alone would write Infinity
        "i64": np.int64(7),
        "flag": np.bool_(True),
        "array": np.array([[1.0, np.nan], [np.inf, 2.0]]),
        "tensor": torch.tensor([0.25, float("nan")]),
        "scalar": torch.tensor(float("-inf")),
    }
    out = strict_json(json_text(value))
    assert out == {
        "f32": 0.5,
        "f32_nan": None,
        "f64_inf": None,
        "i64": 7,
        "flag": True,
        "array": [[1.0, None], [None, 2.0]],
        "tensor": [0.25, None],
        "scalar": None,
    }


def test_json_text_passes_the_options_and_finite_data_is_written_as_json_writes_it():
    value = {"z": [1, 2.5, "中"], "a": None}
    for options in ({}, {"indent": 1, "ensure_ascii": False, "sort_keys": True}, {"separators": (",", ":")}):
        assert json_text(value, **options) == json.dumps(value, **options)
    assert json_text({"z": math.nan, "a": "中"}, ensure_ascii=False, sort_keys=True) == '{"a": "中", "z": null}'


def test_a_file_may_name_its_own_form_for_a_number_that_is_not_finite(tmp_path):
    """The lab's results.json keeps "nan", "inf" and "-inf" as strings (its rules read them back)."""
    path = tmp_path / "results.json"
    write_json_atomic(path, {"x": [math.nan, math.inf, -math.inf, 1.0]}, str, indent=1)
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert strict_json(path.read_text(encoding="utf-8")) == {"x": ["nan", "inf", "-inf", 1.0]}
    assert finite({"x": (math.nan, np.float32(2))}, str) == {"x": ["nan", 2.0]}


def test_what_json_cannot_write_is_still_refused():
    with pytest.raises(TypeError):
        json_text({"x": object()})
    with pytest.raises(TypeError):
        json_text({"x": math.nan, "y": object()})  # after the non-finite float is replaced, too


def test_write_json_atomic_is_atomic_and_keeps_the_old_file_on_failure(tmp_path):
    path = tmp_path / "config.json"
    write_json_atomic(path, {"lr": math.inf}, indent=2)
    written = json.dumps({"lr": None}, indent=2) + "\n"  # inf as null, indented, one final newline
    assert path.read_text(encoding="utf-8") == written
    with pytest.raises(TypeError):
        write_json_atomic(path, {"lr": object()})
    assert path.read_text(encoding="utf-8") == written
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]  # no temp file left


# Where src/ may still call json.dump(s) itself: none of these writes JSON anyone reads.
OWN_JSON_DUMPS = {
    "files.py",  # the writer
    "exercises/sandbox.py",  # the worker's pipe messages (paths), in a process that imports nothing of the package
    "post/chat.py",  # a copy of the messages through JSON (the template's own tojson uses the writer)
    "train/data.py",  # a fingerprint of the pairs: hashed, never written
}


def test_every_other_module_writes_json_through_the_one_writer():
    """A new json.dumps elsewhere would write NaN again: it must call files.json_text instead."""
    root = Path(glassformer.__file__).parent
    calling = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in ("dump", "dumps"):
                if isinstance(func.value, ast.Name) and func.value.id == "json":
                    calling.add(path.relative_to(root).as_posix())
    assert calling == OWN_JSON_DUMPS

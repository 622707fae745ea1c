"""The learner's progress, kept in a small JSON file in their exercises folder.

    exercises/.glassformer-progress.json
    {"version": 1, "exercises": {"softmax": {"status": "passed", "digest": "…", "checked": "…",
                                             "ever_passed": true, "hints": 2, "gave_up": false}}}

`status` is the last check's result and `digest` the sha256 of the file it graded, so `list`
can say when a file changed after its check. `ever_passed` unlocks the solution. Writes are
atomic (a temporary file, then a rename), so an interrupted command never leaves half a file.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
from pathlib import Path

FILE = ".glassformer-progress.json"


def load(folder: Path) -> dict:
    path = Path(folder) / FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": 1, "exercises": {}}
    if not isinstance(state, dict) or not isinstance(state.get("exercises"), dict):
        return {"version": 1, "exercises": {}}
    return state


def entry(folder: Path, name: str) -> dict:
    return load(folder)["exercises"].get(name, {})


def update(folder: Path, name: str, **changes) -> dict:
    """Merge `changes` into the exercise's entry and save; returns the new entry."""
    folder = Path(folder)
    state = load(folder)
    record = {**state["exercises"].get(name, {}), **changes}
    state["exercises"][name] = record
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".json", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, ensure_ascii=False, sort_keys=True)
    os.replace(tmp, folder / FILE)
    return record


def record_check(folder: Path, name: str, status: str, digest: str) -> dict:
    now = datetime.datetime.now().isoformat(timespec="seconds")
    previous = entry(folder, name)
    return update(
        folder,
        name,
        status=status,
        digest=digest,
        checked=now,
        ever_passed=previous.get("ever_passed", False) or status == "passed",
    )


def digest_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_text(encoding="utf-8", errors="replace").encode()).hexdigest()
    except OSError:
        return None

"""What the learner's verbs do, as functions returning (text, exit code); cli/learn.py only
parses arguments and prints. The learner's folder holds their files and the progress JSON.

    overview    the progress table, in data-flow order
    start       write a skeleton (never over an existing file)
    check       grade a file and remember the result
    hint        the next of three hints (or all of them)
    solution    the reference solution, once a check passed (or when the learner gives up)

Each takes `lang` (None: the process's language, which `glassformer --lang` sets).

The skeleton holds, per function: the signature, a docstring with the math and the shape contract
(in the learner's language), the operations to use and the ones refused here, a TODO, and `raise
NotImplementedError` (the grader reports that as "not finished", not as a crash).

The progress file, exercises/.glassformer-progress.json:

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
from pathlib import Path

import glassformer.exercises.catalog as catalog
import glassformer.exercises.grading as grading
import glassformer.exercises.plug as plug
from glassformer.exercises.catalog import Exercise, Function, speaks
from glassformer.exercises.grading.report import STATUS
from glassformer.files import write_json_atomic
from glassformer.messages import t


def status_of(folder: Path, name: str) -> str:
    """passed | failed | crashed | timeout | syntax | forbidden | todo (last check), started (a
    file never checked), not_started (no file); "+changed" when the file changed since its check."""
    path = Path(folder) / f"{name}.py"
    record = entry(folder, name)
    if not path.exists():
        return "not_started"
    if "status" not in record:
        return "started"
    changed = record.get("digest") != digest_of(path)
    return record["status"] + ("+changed" if changed else "")


@speaks
def overview(folder: Path, lang: str | None = None) -> tuple[str, int]:
    folder = Path(folder)
    rows = []
    for i, name in enumerate(catalog.ORDER, 1):
        status = status_of(folder, name)
        base, _, changed = status.partition("+")
        label = t(STATUS[base]) + (" · " + t("edited since") if changed else "")
        rows.append((str(i), name, label, t(catalog.get(name).title), base))
    head = (
        t("#"),
        t("exercise"),
        t("status"),
        t("what you write"),
    )
    widths = [max(_width(r[k]) for r in rows + [head]) for k in range(3)]
    lines = [t("Exercises, in data-flow order (your folder: {folder})", folder=folder), ""]
    for r in [head] + rows:
        lines.append("  ".join(_pad(r[k], widths[k]) for k in range(3)) + "  " + r[3])
    passed = sum(r[4] == "passed" for r in rows)
    todo = next((r[1] for r in rows if r[4] != "passed"), None)
    lines.append("")
    if todo is None:
        lines.append(t("All {total} passing: every component of the model written by hand.", total=len(rows)))
    else:
        verb = "start" if status_of(folder, todo) == "not_started" else "check"
        lines.append(
            t(
                "{passed} of {total} passing. Next: {command}",
                passed=passed,
                total=len(rows),
                command=f"glassformer exercise {verb} {todo}",
            )
        )
    return "\n".join(lines), 0


def _width(s: str) -> int:
    """Columns a string takes in a terminal: CJK characters are two wide."""
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1 for ch in s)


def _pad(s: str, width: int) -> str:
    return s + " " * (width - _width(s))


@speaks
def start(name: str, folder: Path, lang: str | None = None) -> tuple[str, int]:
    path, written = write_skeleton(name, Path(folder), lang)
    if written:
        return t(
            "Wrote {path}. Fill in the TODO, then run:  glassformer exercise check {name}",
            path=path,
            name=catalog.get(name).name,
        ), 0
    backup = path.with_name(path.stem + ".old.py")
    return t(
        "{path} already exists: nothing was written (your work is "
        "never overwritten). To start over, move it away first, "
        "e.g.  mv {path} {backup}  and run start again.",
        path=path,
        backup=backup,
    ), 1


@speaks
def check(
    name: str, folder: Path, file: Path | None, lang: str | None = None, timeout: float = grading.TIMEOUT
) -> tuple[str, int]:
    ex = catalog.get(name)
    path = Path(file) if file is not None else Path(folder) / f"{ex.name}.py"
    result = grading.check(ex.name, path, timeout)
    if result.status != "missing":
        record_check(path.parent if file is not None else Path(folder), ex.name, result.status, result.digest)
    return grading.render(result, lang), 0 if result.passed else 1


@speaks
def hint(name: str, folder: Path, lang: str | None = None, show_all: bool = False) -> tuple[str, int]:
    ex = catalog.get(name)
    shown = entry(folder, ex.name).get("hints", 0)
    if show_all:
        upto = len(ex.hints)
    elif shown >= len(ex.hints):
        return t(
            "No more hints for {name}: all three are shown (--all "
            "repeats them). The solution comes after a passing check, or "
            "with  glassformer exercise solution {name} --give-up.",
            name=ex.name,
        ), 0
    else:
        upto = shown + 1
    update(folder, ex.name, hints=max(shown, upto))
    first = 1 if show_all else upto
    lines = []
    for k in range(first, upto + 1):
        lines += [t("Hint {k} of {n} for {name}:", k=k, n=len(ex.hints), name=ex.name), "  " + t(ex.hints[k - 1]), ""]
    if upto < len(ex.hints):
        lines.append(
            t("(run  glassformer exercise hint {name}  again for the next one; --all shows all)", name=ex.name)
        )
    return "\n".join(lines).rstrip(), 0


@speaks
def solution(name: str, folder: Path, lang: str | None = None, give_up: bool = False) -> tuple[str, int]:
    ex = catalog.get(name)
    record = entry(folder, ex.name)
    if not record.get("ever_passed") and not give_up:
        return t(
            "The solution of {name} is shown once your check passes "
            "(glassformer exercise check {name}). To see it now anyway: "
            "glassformer exercise solution {name} --give-up",
            name=ex.name,
        ), 1
    text = ex.solution
    if give_up and not record.get("ever_passed") and Path(folder).is_dir():
        update(folder, ex.name, gave_up=True)
    return t(
        "# Reference solution of {name} (SOLUTION in glassformer/exercises/{path})",
        name=ex.name,
        path=f"defs/{ex.name}.py",
    ) + "\n\n" + text, 0


# --------------------------------------------------------------------------------------- skeletons


@speaks
def skeleton_text(ex: Exercise, lang: str | None = None) -> str:
    fns = ", ".join(f.name for f in ex.functions)
    head = t(
        "Exercise {n}/{total} · {name} — {title}\n\nWrite {fns} below, "
        "by hand. Check your work with\n    glassformer exercise "
        "check {name}\nand ask for hints, one at a time, with\n    "
        "glassformer exercise hint {name}",
        n=catalog.number(ex.name),
        total=len(catalog.ORDER),
        name=ex.name,
        title=t(ex.title),
        fns=fns,
    )
    parts = ['"""' + head + '\n"""\n', ex.header]
    for f in ex.functions:
        parts.append("\n" + _function(ex, f))
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def _function(ex: Exercise, f: Function) -> str:
    doc = t(f.doc).strip("\n").splitlines()
    doc += ["", t("Use:") + " " + "; ".join(ex.allowed)] if ex.allowed else []
    refused = [n for rule in ex.forbidden for n in rule.names[:4]]
    if refused:
        doc += [t("Not allowed here:") + " " + ", ".join(refused) + " …"]
    doc += [t("Never: importing glassformer (it is what you are graded against), exec/eval.")]
    if ex.plugs_into and ex.name in plug.REQUIRED:  # what `glassformer train --use-mine DIR` swaps in
        doc += [
            "",
            t(
                "Once it passes (with {required}), `glassformer train "
                "--use-mine DIR` trains a model with your code in place of "
                "{target} (docs/exercises.md).",
                target=ex.plugs_into,
                required=", ".join(plug.REQUIRED),
            ),
        ]
    elif ex.plugs_into and ex.name in plug.MODERN:  # a modern decoder's piece, plugged where a model has it
        doc += [
            "",
            t(
                "Once it passes, `glassformer train --use-mine DIR` trains a "
                "modern decoder (baby-llama, baby-qwen3) with your code in "
                "place of {target} wherever the model has it "
                "(docs/exercises.md).",
                target=ex.plugs_into,
            ),
        ]
    elif ex.plugs_into:
        doc += ["", t("It computes what {target} computes in glassformer (docs/exercises.md).", target=ex.plugs_into)]
    body = "\n".join(("    " + line).rstrip() for line in doc)
    todo = "\n".join("    # " + line for line in t(ex.todo).splitlines())
    return (
        f'def {f.name}{f.signature}:\n    r"""{body.lstrip()}\n    """\n'
        f'{todo}\n    raise NotImplementedError("TODO: {f.name}")\n'
    )


@speaks
def write_skeleton(name: str, folder: Path, lang: str | None = None) -> tuple[Path, bool]:
    """Write the skeleton to folder/NAME.py unless a file is already there; (path, written)."""
    ex = catalog.get(name)
    path = Path(folder) / f"{ex.name}.py"
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as f:  # "x": fails rather than overwrite, even in a race
            f.write(skeleton_text(ex, lang))
    except FileExistsError:
        return path, False
    return path, True


# ---------------------------------------------------------------------------------------- progress

FILE = ".glassformer-progress.json"


def load(folder: Path) -> dict:
    path = Path(folder) / FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
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
    write_json_atomic(folder / FILE, state, indent=1, ensure_ascii=False, sort_keys=True)
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

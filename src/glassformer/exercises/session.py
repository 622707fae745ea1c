"""What the learner's verbs do, as functions returning (text, exit code); cli/exercise.py only
parses arguments and prints. The learner's folder holds their files and the progress JSON.

    overview    the progress table, in data-flow order
    start       write a skeleton (never over an existing file)
    check       grade a file and remember the result
    hint        the next of three hints (or all of them)
    solution    the reference solution, once a check passed (or when the learner gives up)
"""

from __future__ import annotations

from pathlib import Path

from glassformer.exercises import catalog, grader, progress, report, skeleton
from glassformer.exercises.text import t

N_HINTS = 3


def status_of(folder: Path, name: str) -> str:
    """passed | failed | crashed | timeout | syntax | forbidden | todo (last check), started (a
    file never checked), not_started (no file); "+changed" when the file changed since its check."""
    path = Path(folder) / f"{name}.py"
    record = progress.entry(folder, name)
    if not path.exists():
        return "not_started"
    if "status" not in record:
        return "started"
    changed = record.get("digest") != progress.digest_of(path)
    return record["status"] + ("+changed" if changed else "")


def overview(folder: Path, lang: str) -> tuple[str, int]:
    folder = Path(folder)
    rows = []
    for i, name in enumerate(catalog.ORDER, 1):
        status = status_of(folder, name)
        base, _, changed = status.partition("+")
        label = t(lang, f"msg.status.{base}") + (" · " + t(lang, "msg.status.changed") if changed else "")
        rows.append((str(i), name, label, t(lang, f"{name}.title"), base))
    head = (
        t(lang, "msg.list.col.n"),
        t(lang, "msg.list.col.name"),
        t(lang, "msg.list.col.status"),
        t(lang, "msg.list.col.title"),
    )
    widths = [max(_width(r[k]) for r in rows + [head]) for k in range(3)]
    lines = [t(lang, "msg.list.folder", folder=folder), ""]
    for r in [head] + rows:
        lines.append("  ".join(_pad(r[k], widths[k]) for k in range(3)) + "  " + r[3])
    passed = sum(r[4] == "passed" for r in rows)
    todo = next((r[1] for r in rows if r[4] != "passed"), None)
    lines.append("")
    if todo is None:
        lines.append(t(lang, "msg.list.all_done", total=len(rows)))
    else:
        verb = "start" if status_of(folder, todo) == "not_started" else "check"
        lines.append(
            t(lang, "msg.list.summary", passed=passed, total=len(rows), command=f"glassformer exercise {verb} {todo}")
        )
    return "\n".join(lines), 0


def _width(s: str) -> int:
    """Columns a string takes in a terminal: CJK characters are two wide."""
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1 for ch in s)


def _pad(s: str, width: int) -> str:
    return s + " " * (width - _width(s))


def start(name: str, folder: Path, lang: str) -> tuple[str, int]:
    path, written = skeleton.start(name, Path(folder), lang)
    if written:
        return t(lang, "msg.start.wrote", file=path, name=catalog.get(name).name), 0
    backup = path.with_name(path.stem + ".old.py")
    return t(lang, "msg.start.exists", file=path, backup=backup), 1


def check(name: str, folder: Path, file: Path | None, lang: str, timeout: float) -> tuple[str, int]:
    ex = catalog.get(name)
    path = Path(file) if file is not None else Path(folder) / f"{ex.name}.py"
    result = grader.check(ex.name, path, timeout)
    if result.status != "missing":
        progress.record_check(path.parent if file is not None else Path(folder), ex.name, result.status, result.digest)
    return report.render(result, lang), 0 if result.passed else 1


def hint(name: str, folder: Path, lang: str, show_all: bool = False) -> tuple[str, int]:
    ex = catalog.get(name)
    shown = progress.entry(folder, ex.name).get("hints", 0)
    if show_all:
        upto = N_HINTS
    elif shown >= N_HINTS:
        return t(lang, "msg.hint.none", name=ex.name), 0
    else:
        upto = shown + 1
    progress.update(folder, ex.name, hints=max(shown, upto))
    first = 1 if show_all else upto
    lines = []
    for k in range(first, upto + 1):
        lines += [t(lang, "msg.hint", k=k, n=N_HINTS, name=ex.name), "  " + t(lang, f"{ex.name}.hint.{k}"), ""]
    if upto < N_HINTS:
        lines.append(t(lang, "msg.hint.more", name=ex.name))
    return "\n".join(lines).rstrip(), 0


def solution(name: str, folder: Path, lang: str, give_up: bool = False) -> tuple[str, int]:
    ex = catalog.get(name)
    record = progress.entry(folder, ex.name)
    if not record.get("ever_passed") and not give_up:
        return t(lang, "msg.solution.refused", name=ex.name), 1
    text = ex.solution_path.read_text(encoding="utf-8")
    if give_up and not record.get("ever_passed") and Path(folder).is_dir():
        progress.update(folder, ex.name, gave_up=True)
    return t(lang, "msg.solution.header", name=ex.name, file=ex.solution_path.name) + "\n\n" + text, 0

"""What glassformer says under `--lang zh`, for a fixed set of cheap commands, saved so that two trees can
be compared: the catalogue's conversion (tools/gettext_convert.py) must lose no Chinese.

    python tools/zh_side_by_side.py save DIR [--root TREE]   run the commands on TREE (default: this
                                                             repository), one file per command in DIR
    python tools/zh_side_by_side.py compare BEFORE AFTER     the commands whose output differs (exit 1)

E.g. before and after a conversion (a copy of the tree before it in /tmp/before: git archive | tar -x):
    python tools/zh_side_by_side.py save /tmp/zh-before --root /tmp/before
    python tools/zh_side_by_side.py save /tmp/zh-after
    python tools/zh_side_by_side.py compare /tmp/zh-before /tmp/zh-after
Each file holds the exit code, stdout and stderr; paths of the temporary folder are written as {tmp}.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {  # name -> the arguments after `glassformer --lang zh`; {tmp}: a fresh empty folder
    "help": ["--help"],
    "train-help": ["train", "--help"],
    "lesson-help": ["lesson", "--help"],
    "sample-help": ["sample", "--help"],
    "bench-help": ["bench", "--help"],
    "explore-help": ["explore", "--help"],
    "exercise-list": ["exercise", "list"],
    "lab-list": ["lab", "list"],
    "bad-n-heads": ["train", "--n_heads=5"],
    "argparse-error": ["train", "--max_steps"],
    "missing-file": ["data", "prepare", "file:{tmp}/missing.txt"],
    "unknown-verb": ["nosuch"],
}


def run(root: Path, args: list[str], tmp: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "GLASSFORMER_CACHE": f"{tmp}/cache", "COLUMNS": "100"}
    env.pop("GLASSFORMER_LANG", None)
    argv = [sys.executable, "-m", "glassformer", "--lang", "zh", *(a.replace("{tmp}", tmp) for a in args)]
    done = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    text = f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    return text.replace(tmp, "{tmp}")


def save(out: Path, root: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, args in COMMANDS.items():
        with tempfile.TemporaryDirectory() as tmp:
            (out / f"{name}.txt").write_text(run(root, args, tmp), encoding="utf-8")
        print(f"{name}: saved")


def compare(before: Path, after: Path) -> int:
    differ = 0
    for name in COMMANDS:
        old = (before / f"{name}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        new = (after / f"{name}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        if old != new:
            differ += 1
            sys.stdout.writelines(difflib.unified_diff(old, new, f"before/{name}", f"after/{name}"))
        print(f"{name}: {'same' if old == new else 'DIFFERS'}")
    print(f"{len(COMMANDS) - differ} of {len(COMMANDS)} commands say the same under --lang zh")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("save")
    s.add_argument("out", type=Path)
    s.add_argument("--root", type=Path, default=ROOT)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.what == "save":
        save(args.out, args.root.resolve())
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())

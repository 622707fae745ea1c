"""`glassformer --help`, `glassformer VERB --help` and the command table import no torch (issue 44.10):
torch takes seconds to import on a small machine, and a help needs none of it. How long they take
is bench/cli_startup.py's business (no timings here); this holds the cause."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import ROOT, said

SRC = ROOT / "src"

# in a fresh interpreter (this one has torch loaded already): every help the command line prints
PROBE = r"""
import contextlib, io, json, sys
from glassformer.cli import build_parser, main

import argparse
parsers = build_parser()._subparsers._group_actions[0].choices
verbs = sorted(parsers)
subverbs = [  # `lesson sine`, `exercise check`, `lab run`, `export gpt2`: the helps one level down
    [v, s] for v in verbs for a in parsers[v]._actions if isinstance(a, argparse._SubParsersAction) for s in a.choices
]
runs = []  # [argv, exit code, characters printed]
helps = [*([v, "--help"] for v in verbs), *([*s, "--help"] for s in subverbs)]
for argv in ([], ["--help"], ["--lang", "zh", "--help"], *helps):
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
    runs.append([argv, code, len(out.getvalue())])
print(json.dumps({"verbs": verbs, "runs": runs, "torch": "torch" in sys.modules,
                  "heavy": sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "matplotlib"))}))
"""


def _probe() -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC), "GLASSFORMER_LANG": "en"}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_no_help_of_the_command_line_imports_torch():
    seen = _probe()
    codes = {tuple(argv): (code, printed) for argv, code, printed in seen["runs"]}
    assert {"train", "sample", "trace", "patch", "heads", "attribute", "lesson", "notebooks"} <= set(seen["verbs"])
    assert {("lesson", "sine", "--help"), ("exercise", "check", "--help"), ("lab", "run", "--help")} <= set(codes)
    assert codes[()][0] == 2 and codes[()][1] > 0  # the bare command prints the table
    for argv, (code, printed) in codes.items():
        if argv:
            assert (code, printed > 0) == (0, True), argv  # each help was printed
    assert seen["torch"] is False, seen["heavy"]
    assert seen["heavy"] == []


def test_a_help_made_later_states_its_figure_when_shown(capsys):
    """A lesson's defaults live in config.py (which imports no torch), and the lesson reads them there:
    the help states the figures the lesson uses."""
    from glassformer.cli import main
    from glassformer.lessons import sine
    from glassformer.messages import t

    with said() as heard:
        try:
            main(["lesson", "sine", "--help"])
        except SystemExit as e:
            assert e.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for n in (sine.N_TRAIN, sine.N_VAL):  # the help of --n-train and --n-val, each with the lesson's figure
        [key] = [key for key, fields in heard if fields == {"default": n}]
        assert " ".join(t(key, default=n).split()) in out

"""No traceback for an expected failure, anywhere a user can reach: every verb of `glassformer`,
walked with bad input, ends with one or two lines on stderr and exit code 2 (usage) or 1 (failure);
an unexpected exception is reported as a bug with its traceback saved to a file."""

from __future__ import annotations

import argparse
import errno
import subprocess

import pytest
from reliability_kit import assert_clean_failure, cli, cli_said, python, subprocess_env

import glassformer.cli.sample as sample_cli
from glassformer.cli import OS_ERRORS, build_parser, options
from glassformer.config import get_preset
from glassformer.errors import DamagedFile

RANGED = {  # each range type of cli/options.py and values it must refuse
    options.count: ["0", "-5", "2.5"],
    options.count_or_zero: ["-1"],
    options.seed: ["-1", str(2**64)],
    options.probability: ["0", "1.5", "nan"],
    options.temperature: ["-0.1", "inf", "nan"],
    options.positive: ["0", "-1e-3", "inf"],
    options.finite: ["inf", "-inf", "nan"],
    options.threads: ["-1", "100000"],
}
UNRANGED_OK: set[tuple[str, str]] = set()  # (verb, option) pairs allowed a bare int/float: none so far


def leaf_parsers(parser=None, prefix=()):
    """(command words, parser) of every command that runs something, e.g. (("data", "prepare"), p)."""
    parser = parser or build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
        return
    for name, sub in subs[0].choices.items():
        yield from leaf_parsers(sub, prefix + (name,))


def words_for(parser, words) -> list[str]:
    """The command words plus a placeholder for each required positional (a run directory ...)."""
    positionals = [
        a
        for a in parser._actions
        if not a.option_strings and a.nargs in (None,) and not isinstance(a, argparse._SubParsersAction)
    ]
    return [*words, *("no-such-run" for _ in positionals)]


COMMANDS = list(leaf_parsers())


def test_the_walk_finds_every_verb():
    names = {words for words, _ in COMMANDS}  # each command's words, as typed
    assert {
        ("data", "prepare"),
        ("train",),
        ("sample",),
        ("demo",),
        ("trace",),
        ("attention",),
        ("grads",),
        ("params",),
        ("lesson", "fruit"),
        ("lesson", "hello-world"),
        ("lesson", "sine"),
    } <= names


@pytest.mark.parametrize("words, parser", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_every_number_a_verb_reads_has_a_range(words, parser):
    bare = [
        a.option_strings[0]
        for a in parser._actions
        if a.type in (int, float) and (" ".join(words), a.option_strings[0]) not in UNRANGED_OK
    ]
    assert not bare, (
        f"{' '.join(words)}: {bare} take a bare int/float; give each a range type from "
        f"glassformer/cli/options.py (count, probability, ...)"
    )


@pytest.mark.parametrize("words, parser", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_every_verb_refuses_bad_options_in_two_lines(words, parser):
    base = words_for(parser, words)
    cases = [[*base, "--no-such-option=1"]]
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0:
            continue
        flag = action.option_strings[-1]
        if action.type in RANGED:
            cases += [[*base, f"{flag}={bad}"] for bad in RANGED[action.type]]
        if action.type in (int, float, *RANGED):
            cases.append([*base, flag, "abc"])
        if action.choices:
            cases.append([*base, flag, "no-such-choice"])
        if action.type is options.utf8_text:
            cases.append([*base, f"{flag}=\udcff"])  # what a non-UTF-8 terminal's bytes become
    for argv in cases:
        code, out, err = cli(argv)
        assert_clean_failure(code, err, codes=(2,))


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["sample", "run", "--top-k", str(10**30)], "--top-k"),
        (["lab", "run", "mask-fill", "--fast", "--seeds", str(2**70)], "--seeds"),
    ],
)
def test_a_number_above_its_range_is_refused_naming_the_upper_bound(argv, flag):
    """Was "must be a whole number >= 1" for 10**30: the bound broken is the upper one, so that one is said."""
    value = argv[argv.index(flag) + 1]
    code, _, err, heard = cli_said(argv)
    [(above, refused)] = [(m, f) for m, f in heard if f.get("value") == value]
    assert code == 2 and refused["most"] < int(value) and flag in err
    _, _, _, low = cli_said([a if a != value else "0" for a in argv])  # below the range: another sentence
    [(below, _)] = [(m, f) for m, f in low if f.get("value") == "0"]
    assert above != below


def test_usage_errors_name_the_flag_and_the_range():
    code, _, err, heard = cli_said(["sample", "run", "--max-new-tokens", "-5"])
    assert code == 2 and heard.carrying(value="-5") and "--max-new-tokens" in err
    code, _, err, heard = cli_said(["sample", "run", "--top-p", "1.5"])
    assert code == 2 and heard.carrying(value="1.5") == [{"value": "1.5"}] and "--top-p" in err
    code, _, err, heard = cli_said(["train", "--lr=nan"])
    [finite] = heard.of("config.finite")
    assert code == 2 and finite["key"] == "lr" and "--lr" in err
    code, _, err, heard = cli_said(["train", "--threads=100000"])
    [threads] = heard.of("config.threads")
    assert code == 2 and threads["value"] == 100000 and threads["most"] < 100000


def test_an_unexpected_exception_is_reported_as_a_bug_with_a_saved_traceback(monkeypatch, tmp_path):
    boom = ZeroDivisionError("division by zero")

    def broken(args):
        raise boom

    monkeypatch.setattr(sample_cli, "run_sample", broken)
    code, _, err, heard = cli_said(["sample", "run"])
    assert_clean_failure(code, err, codes=(1,))
    [bug] = heard.carrying(who="glassformer sample", kind="ZeroDivisionError")  # a bug, with where its traceback is
    assert bug["detail"] == str(boom)  # the exception's first line
    crash = str(bug["path"])
    report = open(crash, encoding="utf-8").read()  # the crash file is English, for whoever fixes the bug
    assert crash.startswith(str(tmp_path)) and str(bug["path"]) in err
    assert any(line.split()[-3:] == ["glassformer", "sample", "run"] for line in report.splitlines())  # the command
    assert "Traceback" in report and "ZeroDivisionError" in report


@pytest.mark.parametrize("how", ["flag-after", "flag-before", "env"])
def test_debug_shows_the_traceback(how, monkeypatch):
    shown = DamagedFile("files.damaged", "{path} is damaged.", path="x.json")

    def damaged(args):
        raise shown

    monkeypatch.setattr(sample_cli, "run_sample", damaged)
    argv = {
        "flag-after": ["sample", "run", "--debug"],
        "flag-before": ["--debug", "sample", "run"],
        "env": ["sample", "run"],
    }[how]
    if how == "env":
        monkeypatch.setenv("GLASSFORMER_DEBUG", "1")
    code, _, err, heard = cli_said(argv)
    assert code == 1 and "Traceback" in err and {"path": "x.json"} in heard.of("files.damaged")
    assert heard.carrying(who="glassformer sample", message=shown) and err.strip().endswith(str(shown))


NO_MEMORY = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 9 bytes"  # torch's words


def _raise(error):
    def raising():
        raise error

    return raising


@pytest.mark.parametrize(
    "fail, code, said",
    [
        (  # what the errno means, after the path
            _raise(PermissionError(13, "Permission denied", "/data/out.txt")),
            1,
            lambda heard, err: (OS_ERRORS[errno.EACCES], {}) in heard and "/data/out.txt" in err,
        ),
        (
            _raise(OSError(28, "No space left on device", "/data/out.txt")),
            1,
            lambda heard, err: (OS_ERRORS[errno.ENOSPC], {}) in heard and "/data/out.txt" in err,
        ),
        (
            _raise(RuntimeError(NO_MEMORY)),
            1,  # out of memory: what to make smaller
            lambda heard, err: heard.carrying(
                detail="DefaultCPUAllocator: can't allocate memory: you tried to allocate 9 bytes"
            ),
        ),
        (
            _raise(KeyboardInterrupt()),
            130,
            lambda heard, err: heard.carrying(who="glassformer sample") == [{"who": "glassformer sample"}],
        ),
        (lambda: get_preset("bbay"), 2, lambda heard, err: heard.of("config.preset")[0]["name"] == "bbay"),  # usage
    ],
)
def test_environment_failures_are_sentences_not_tracebacks(fail, code, said, monkeypatch):
    def failing(args):
        fail()

    monkeypatch.setattr(sample_cli, "run_sample", failing)
    got, _, err, heard = cli_said(["sample", "run"])
    assert got == code and said(heard, err) and "Traceback" not in err and len(err.strip().splitlines()) <= 2


def test_a_value_error_from_inside_a_library_is_a_bug_not_a_usage_error(monkeypatch):
    def failing(args):
        import json

        json.loads("{")  # a parser message that names no file: glassformer must wrap such calls

    monkeypatch.setattr(sample_cli, "run_sample", failing)
    code, _, err, heard = cli_said(["sample", "run"])
    assert code == 1 and heard.carrying(who="glassformer sample", kind="JSONDecodeError")  # a bug, with a traceback


@pytest.mark.slow
def test_exit_codes_reach_the_shell():
    """The brief's example through a real process: `sample --max-new-tokens -5` exits 2, no traceback."""
    done = subprocess.run(
        [python(), "-m", "glassformer", "sample", "runs/x", "--max-new-tokens", "-5"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=120,
    )
    assert_clean_failure(done.returncode, done.stderr, codes=(2,))
    assert done.stdout == ""


def _verb_printing(text: str, times: int) -> str:
    """A python program whose `glassformer sample` prints `text` `times` times."""
    return (
        "import sys, glassformer.cli.sample as s\n"
        f"def printing(args):\n    for _ in range({times}): print({text!r})\n"
        "s.run_sample = printing\nfrom glassformer.cli import main\nsys.exit(main(['sample', 'run']))\n"
    )


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly_and_a_narrow_terminal_is_named():
    """`glassformer ... | head -1`: the reader leaves; no message, no traceback, the shell's code 141.
    A terminal that cannot show Chinese: one sentence saying so, not a UnicodeEncodeError."""
    done = subprocess.run(
        f'{python()} -c "$SCRIPT" | head -1',
        shell=True,
        capture_output=True,
        text=True,
        env={**subprocess_env(), "SCRIPT": _verb_printing("x" * 100, 100000)},
        timeout=120,
    )
    assert done.stdout == "x" * 100 + "\n" and done.stderr == ""
    done = subprocess.run(
        [python(), "-c", _verb_printing("你好", 1)],
        capture_output=True,
        timeout=120,
        env={**subprocess_env(), "PYTHONIOENCODING": "latin-1"},
    )
    assert_clean_failure(done.returncode, done.stderr.decode(), codes=(1,))
    err = done.stderr.decode("latin-1")  # what it cannot show is written as escapes
    shown = "你好".encode("latin-1", "backslashreplace").decode("latin-1")  # what it cannot show, as escapes
    assert "iso8859-1" in err and shown in err  # the terminal's encoding and the text it cannot show

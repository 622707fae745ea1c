"""`glassformer <verb>`: a thin dispatcher. Each verb lives in a module here and only calls the
library; a module adds its verbs with `register(subparsers)` (a module holds the verbs of one thing
a user does: cli/train.py makes a model (data, train, demo, bench, import, export), cli/sample.py
writes with one (sample), cli/evaluate.py grades one (eval), cli/inspect.py looks inside one (trace,
attention, grads, params, the causal views patch, heads, attribute, and experts), cli/learn.py teaches (lesson,
exercise, lab), cli/explore.py opens a browser (explore, notebooks)).

What every verb shares is done once, here:
  - option spelling: `--max-steps 500`, `--max_steps 500` and `--max_steps=500` are the same
    (`normalize_argv`); config overrides (`--key=value`) are parsed by config.parse_overrides;
  - threads: every verb that computes has `--threads N` with one default (devices.py); the verb
    runs inside `using_threads(N)` (train takes it as its TrainConfig field, the same rule);
  - errors: one path (`report`, below). An expected failure prints one or two lines naming the
    problem and the fix — exit code 2 for a usage error, 1 for a failure (errors.py); an
    unexpected one is a bug: a short note, and the traceback saved to a crash file it names.
    `--debug` anywhere (or GLASSFORMER_DEBUG=1) prints tracebacks too;
  - language: `--lang zh` anywhere (or GLASSFORMER_LANG=zh) speaks Chinese for the whole command:
    help, progress lines and errors all come from one catalogue, glassformer/messages (a verb
    prints `t("key", field=value)`, never a literal sentence; tests/messages/test_messages.py checks).

How a command ends when something goes wrong (the second half of this file):

    an expected failure          `glassformer VERB: error: MESSAGE` in one or two lines; exit 2 for a
                                 usage error, 1 for a failure (glassformer.errors says which)
      - a GlassformerError (errors.py), or a ValueError / FileNotFoundError raised with a message
        by glassformer's own checks (exit 2)
      - an OSError (a disk that is full, a folder that is not writable): the path and what to do
      - memory running out: what to make smaller
    Ctrl-C                       `interrupted`, exit 130
    the reader of stdout left    (`glassformer sample ... | head`) nothing more, exit 141
    anything else is a bug       a short note; the traceback goes to a crash file it names, exit 1

`--debug` anywhere on the command line, or GLASSFORMER_DEBUG=1, prints the traceback as well.
Every sentence is a key of the catalogue (glassformer/messages, `fail.*` and `os.*`), so it is said
in the user's language; the crash file itself stays English (it is read by whoever fixes the bug).
"""

from __future__ import annotations

import codecs
import errno
import importlib
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

import glassformer
from glassformer.cli.options import Parser, argparse_speaking, language_requested, normalize_argv
from glassformer.errors import EXIT_FAILURE, EXIT_USAGE, GlassformerError, UsageError
from glassformer.messages import N_, UnknownLanguage, note, speaking, t
from glassformer.text.corpora import default_cache_dir

# Building the parser imports no torch (3 to 7 s on a small machine): the verb modules import it,
# and what imports it, inside the verbs; a help that states a figure from such a module is made
# when shown (options.Later). So `glassformer --help` and `glassformer VERB --help` are instant;
# bench/cli_startup.py measures it and tests/e2e/cli/test_cli_startup.py holds it.
# verb modules, in the order `glassformer --help` lists them
VERB_MODULES = [
    "train",  # data, train, demo, bench, import, export
    "sample",
    "evaluate",  # eval
    "inspect",  # trace, attention, grads, params; patch, heads, attribute; repeats; experts
    "learn",  # lesson, exercise, lab
    "explore",  # explore, notebooks
    "post",  # sft, dpo, grpo, chat, diff
]


def build_parser() -> Parser:
    parser = Parser(prog="glassformer", description=t("A Transformer you can see through."))
    parser.add_argument(
        DEBUG_FLAG,
        action="store_true",
        help=t("on an error, print the Python traceback too (also: GLASSFORMER_DEBUG=1)"),
    )
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERB_MODULES:
        importlib.import_module(f"glassformer.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, debug = debug_requested(argv)  # --debug may stand anywhere, before or after the verb
    try:
        argv, lang = language_requested(argv)  # so may --lang; else GLASSFORMER_LANG, else English
    except (UsageError, UnknownLanguage) as e:
        return report(e, None, debug, argv)
    with speaking(lang):
        return _run(argv, debug)


def _run(argv: list[str], debug: bool) -> int:
    with argparse_speaking():  # argparse's own words ("usage:", "invalid choice") in the language too
        parser = build_parser()
        args, extra = parser.parse_known_args(normalize_argv(argv))  # a usage error: two lines, SystemExit(2)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        if extra and not getattr(args, "accepts_overrides", False):
            parser.error(t("unrecognized arguments: {args}", args=" ".join(extra)))
    args.overrides = extra
    try:
        from glassformer.devices import check_threads, using_threads  # torch: a verb is about to compute

        with using_threads(check_threads(getattr(args, "threads", 0))):
            return int(args.func(args) or 0)
    except (Exception, KeyboardInterrupt) as e:
        return report(e, getattr(args, "verb", None), debug, argv)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# How `glassformer` ends when something goes wrong: a sentence, never a traceback the user did not
# ask for (the cases: this module's docstring)
# ────────────────────────────────────────────────────────────────────────────────────────────────

DEBUG_ENV = "GLASSFORMER_DEBUG"
# a library error whose fix names a Python call, by its code: the command line's own words for it
CLI_WORDS = {
    "tokenizer.unseen": N_(
        "{n} character(s) not in the vocabulary of the run ({vocab} "
        "chars): {shown}{more}. A run reads only the characters of "
        "the text it was trained on: leave these out, or train a run "
        "on text that has them (glassformer train --data file:PATH)."
    )
}
DEBUG_FLAG = "--debug"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, the shell's code for Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what the shell reports for a writer whose reader left
PACKAGE_DIR = Path(glassformer.__file__).resolve().parent

# the command line's own words for a library error whose fix names a Python call, by its key

# what an OSError means to the user, by its errno: the key of its sentence in the catalogue
OS_ERRORS = {
    errno.ENOSPC: N_("the disk is full; free some space and run it again."),
    errno.EACCES: N_("permission denied; check the permissions of that path, or choose another location."),
    errno.EPERM: N_("permission denied; check the permissions of that path, or choose another location."),
    errno.EROFS: N_("the file system is read-only; choose another location."),
    errno.ENOENT: N_("no such file or directory; check the path."),
    errno.ENOTDIR: N_("a file stands where a directory is needed; check the path."),
    errno.EISDIR: N_("a directory stands where a file is needed; check the path."),
    errno.EEXIST: N_("a file stands where a directory is needed; check the path."),
}


def debug_requested(argv: list[str]) -> tuple[list[str], bool]:
    """(argv without --debug, whether --debug or GLASSFORMER_DEBUG=1 asked for tracebacks)."""
    kept = [a for a in argv if a != DEBUG_FLAG]
    return kept, len(kept) != len(argv) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def report(error: BaseException, verb: str | None, debug: bool, argv: list[str]) -> int:
    """Print what went wrong (stderr) and return the exit code."""
    who = f"glassformer {verb}" if verb else "glassformer"
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    if isinstance(error, KeyboardInterrupt):
        note(t("{who}: interrupted.", who=who))
        return EXIT_INTERRUPTED
    if isinstance(error, BrokenPipeError):  # the reader went away (`glassformer sample ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so exit's flush cannot fail again
        return EXIT_BROKEN_PIPE
    if isinstance(error, UnicodeEncodeError) and _same_codec(error.encoding, getattr(sys.stdout, "encoding", None)):
        print(
            t(
                "{who}: error: the terminal's encoding ({encoding}) cannot "
                "show {text!r}. Use a UTF-8 terminal (export LANG=C.UTF-8) "
                "or set PYTHONIOENCODING=utf-8.",
                who=who,
                encoding=getattr(sys.stdout, "encoding", "?"),
                text=error.object[error.start : error.end],
            ),
            file=sys.stderr,
        )
        return EXIT_FAILURE
    if isinstance(error, GlassformerError):
        # a library error whose fix names a Python call has the command line's own words
        message = t(CLI_WORDS[error.code], **error.fields) if error.code in CLI_WORDS else error
        note(t("{who}: error: {message}", who=who, message=message))
        return error.exit_code
    if _own_check(error):  # a ValueError or a path-not-found raised, with its message, by glassformer's code
        note(t("{who}: error: {message}", who=who, message=error))
        return EXIT_USAGE
    if _out_of_memory(error):
        note(
            t(
                "{who}: error: out of memory ({detail}). The model, batch or "
                "sequence is too large for this machine; make it smaller "
                "(--batch_size, --seq_len, --d_model, --n_layers).",
                who=who,
                detail=_first_line(error),
            )
        )
        return EXIT_FAILURE
    if isinstance(error, OSError):
        what = t(OS_ERRORS[error.errno]) if error.errno in OS_ERRORS else t("{reason}.", reason=error.strerror or error)
        print(
            t("{who}: error: {message}", who=who, message=f"{error.filename}: {what}" if error.filename else what),
            file=sys.stderr,
        )
        return EXIT_FAILURE
    path = save_crash_report(error, argv)
    note(
        t(
            "{who}: internal error ({kind}: {detail}). This is a bug in "
            "glassformer, not in what you typed.\nThe traceback is saved "
            "in {path}; please include that file when you report it "
            "(--debug prints it here).",
            who=who,
            kind=type(error).__name__,
            detail=_first_line(error),
            path=path,
        )
    )
    return EXIT_FAILURE


def save_crash_report(error: BaseException, argv: list[str]) -> Path:
    """Write the command, versions and traceback to crash-<time>-<pid>.txt in the cache directory
    (or the system's temp directory if that is not writable); return its path."""
    text = (
        f"glassformer {getattr(glassformer, '__version__', '?')} crash report\n"
        f"command: glassformer {' '.join(argv)}\n"
        f"python {platform.python_version()}, torch {_torch_version()}, {platform.platform()}\n\n"
        + "".join(traceback.format_exception(error))
    )
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    for folder in (default_cache_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8", errors="backslashreplace")
            return folder / name
        except OSError:
            continue
    return Path(t("(nowhere: neither the cache nor the temp directory is writable)"))


def _own_check(error: BaseException) -> bool:
    """A plain ValueError (not a codec's) or FileNotFoundError (built from a message, not by the OS)
    that glassformer's code raised: its message was written for the user."""
    ours = (isinstance(error, ValueError) and not isinstance(error, UnicodeError)) or (
        isinstance(error, FileNotFoundError) and error.errno is None
    )
    return ours and _raised_by_glassformer(error)


def _raised_by_glassformer(error: BaseException) -> bool:
    """Was `error` raised in glassformer's own code (its innermost frame), not deep inside a library?"""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and Path(tb.tb_frame.f_code.co_filename).resolve().is_relative_to(PACKAGE_DIR)


def _same_codec(a: str | None, b: str | None) -> bool:
    """Do two encoding names mean the same codec ('latin-1' and 'iso8859-1' do)?"""
    try:
        return codecs.lookup(a or "").name == codecs.lookup(b or "").name
    except LookupError:
        return False


def _torch_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    torch = sys.modules.get("torch")
    if torch is not None:
        return torch.__version__
    try:
        return version("torch")
    except PackageNotFoundError:
        return "?"


def _out_of_memory(error: BaseException) -> bool:
    torch = sys.modules.get("torch")  # an error from torch means torch is loaded; none if it is not
    oom = (MemoryError,) if torch is None else (MemoryError, torch.OutOfMemoryError)
    return isinstance(error, oom) or (isinstance(error, RuntimeError) and "can't allocate memory" in str(error))


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


if __name__ == "__main__":
    sys.exit(main())

"""What every verb's options share: one spelling rule, one `--threads`, one `--lang`, one range for
every number, and usage errors in two lines, in the user's language (glassformer/messages).

Every number a verb reads has its range here, as an argparse `type`, so a bad value is refused
before anything runs, with a message naming the flag ("argument --top-p: must be in (0, 1], got
'1.5'"). Use them for new options:

    count           whole number >= 1      (--max-new-tokens, --num-samples, --epochs ...)
    count_or_zero   whole number >= 0      (--sample-chars, where 0 means none)
    seed            whole number torch accepts as a seed
    probability     0 < p <= 1             (--top-p)
    temperature     finite, >= 0           (0 = greedy)
    positive        finite, > 0            (thresholds)
    threads         whole number >= 0      (0 = torch's choice)
    utf8_text       any text, refusing bytes that are not UTF-8 (a terminal in another encoding)

How the command line speaks the user's language (glassformer/messages chooses the words) is here
too, at the end:

    language_requested(argv)   `--lang zh` / `--lang=zh` anywhere on the line, else GLASSFORMER_LANG
    argparse_speaking()        argparse's own words ("usage:", "invalid choice") from the catalogue:
                               argparse asks gettext's default domain, which is glassformer's
                               catalogue (in the process's language) while a command line is parsed
    HelpFormatter              help holding Chinese wrapped by terminal columns (a character takes two)

Every help text and message is a key of the catalogue (`t("help.sample.top_p")`), never a literal:
tests/messages/test_messages.py checks this module and every verb's.
"""

from __future__ import annotations

import argparse
import contextlib
import gettext
import math
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from glassformer.config import DEFAULT_THREADS, MAX_THREADS
from glassformer.errors import UsageError
from glassformer.messages import DOMAIN, LANGS, LOCALE, N_, columns, language, resolve, t

_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_-]*")
MAX_PORT = 65535


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error in two lines (the problem, then where to read more) instead of
    the full usage block, and `-h` and `--lang` in the user's language; every subcommand's parser is
    one of these too (argparse makes subparsers of the parent's class)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["add_help"] = False  # added below, with its help in the user's language
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.add_argument(
            "-h", "--help", action="help", default=argparse.SUPPRESS, help=t("show this help message and exit")
        )
        # read (and removed) before parsing, anywhere on the line (language_requested); listed here so
        # every --help shows it, and args.lang holds the language every verb speaks
        self.add_argument(
            LANG_FLAG,
            choices=LANGS,
            default=language(),
            help=t(
                "language of help, messages and the verb's own text: en or "
                "zh (anywhere on the line; default: $GLASSFORMER_LANG, else "
                "en)"
            ),
        )

    def error(self, message: str):
        self.exit(2, t("{prog}: error: {message}\n(see `{prog} --help`)", prog=self.prog, message=message) + "\n")

    def format_help(self) -> str:
        for action in self._actions:  # a help made later (Later): made now, when it is shown
            if isinstance(action.help, Later):
                action.help = action.help()
        return super().format_help()


class Later:
    """A help text made only when its parser's help is shown: `help=Later(lambda: t("...",
    default=lesson.STEPS))` for a default that lives in a module which imports torch, so that
    building the parser (every command, and `glassformer --help`) does not import it."""

    def __init__(self, make) -> None:
        self.make = make

    def __call__(self) -> str:
        return self.make()

    def __mod__(self, params) -> str:  # argparse expands a help with `help % params`
        return self.make() % params


def normalize_argv(argv: list[str]) -> list[str]:
    """`--max_new_tokens` -> `--max-new-tokens` (also in `--key=value`): every option is defined
    with dashes, and both spellings reach it. Values are never touched."""
    out = []
    for token in argv:
        key, eq, value = token.partition("=")
        out.append(key.replace("_", "-") + eq + value if _OPTION.fullmatch(key) else token)
    return out


def runnable() -> str:
    """How to spell `glassformer` in a command this process prints so that it runs as printed in a new
    shell: `glassformer` when that name on PATH is this installation's; else the path of this
    installation's script (`.venv/bin/glassformer` after `make demo`, whose venv a new shell has not
    activated); else `PYTHON -m glassformer` with this interpreter."""
    here = Path(sys.executable).parent  # the venv's bin/ (sys.executable is not resolved: a venv's python is a link)
    for name in ("glassformer", "glassformer.exe"):
        script = here / name
        if script.is_file() and os.access(script, os.X_OK):
            found = shutil.which("glassformer")
            if found and Path(found).resolve() == script.resolve():
                return "glassformer"
            return _shell_path(script)
    return f"{_shell_path(Path(sys.executable))} -m glassformer"


def _shell_path(path: Path) -> str:
    """A path as a shell reads it: relative to here when under it (`.venv/bin/glassformer`), else absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        shown = str(absolute.relative_to(Path.cwd()))
    except ValueError:
        shown = str(absolute)
    return shlex.quote(shown if os.sep in shown else os.path.join(".", shown))


def add_threads(parser: argparse.ArgumentParser) -> None:
    """The one `--threads` option (see glassformer/devices.py for the rule and its reason)."""
    parser.add_argument(
        "--threads",
        type=threads,
        default=DEFAULT_THREADS,
        help=t("CPU threads for torch (default {default}; 0 = torch's choice, every core)", default=DEFAULT_THREADS),
    )


# ---- ranges: argparse types ------------------------------------------------------------------------
# Each refuses a bad value with its own whole sentence (the key `arg.<type>`), given the text typed.
def _whole(text: str, low: int, high: int, key: str, above: str | None = None) -> int:
    """`above`: the key for a value above `high` when `key`'s sentence states only the lower bound."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(t(key, value=text, most=high)) from None
    if not low <= value <= high:  # above a bound `key` does not state: say that one, not "a whole number >= 1"
        raise argparse.ArgumentTypeError(t(above if above and value > high else key, value=text, most=high))
    return value


def _real(text: str, ok, key: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(t(key, value=text)) from None
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(t(key, value=text))
    return value


def count(text: str) -> int:
    return _whole(
        text,
        1,
        sys.maxsize,
        N_("must be a whole number >= 1, got {value!r}"),
        above=N_("must be a whole number <= {most}, got {value!r}"),
    )


def count_or_zero(text: str) -> int:
    return _whole(
        text,
        0,
        sys.maxsize,
        N_("must be a whole number >= 0, got {value!r}"),
        above=N_("must be a whole number <= {most}, got {value!r}"),
    )


def seed(text: str) -> int:
    return _whole(text, 0, 2**63 - 1, N_("must be a whole number from 0 to 2**63-1, got {value!r}"))


def threads(text: str) -> int:
    return _whole(text, 0, MAX_THREADS, N_("must be a whole number from 0 (torch's choice) to {most}, got {value!r}"))


def probability(text: str) -> float:
    return _real(text, lambda p: 0 < p <= 1, N_("must be a number in (0, 1], got {value!r}"))


def temperature(text: str) -> float:
    return _real(text, lambda x: x >= 0, N_("must be a finite number >= 0 (0 = greedy), got {value!r}"))


def positive(text: str) -> float:
    return _real(text, lambda x: x > 0, N_("must be a finite number > 0, got {value!r}"))


def non_negative(text: str) -> float:
    return _real(text, lambda x: x >= 0, N_("must be a finite number >= 0, got {value!r}"))


def finite(text: str) -> float:
    return _real(text, lambda x: True, N_("must be a finite number, got {value!r}"))


def port(text: str) -> int:
    return _whole(text, 0, MAX_PORT, N_("must be a port number from 0 (any free port) to {most}, got {value!r}"))


def utf8_text(value: str) -> str:
    """Any text; a lone surrogate means the shell passed bytes that are not UTF-8."""
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise argparse.ArgumentTypeError(
            t(
                "{value!r} holds bytes that are not UTF-8 text; set your "
                "terminal to UTF-8 (e.g. export LANG=C.UTF-8) or convert the "
                "text with iconv -t UTF-8",
                value=value,
            )
        )
    return value


def index_within(flag: str, value: int, size: int, code: str, message: str) -> int:
    """A layer or head index the model has: 0 <= value < size, else the refusal `code`
    (arg.index.layers or arg.index.heads) with its sentence."""
    if not 0 <= value < size:
        raise UsageError(code, message, flag=flag, value=value, size=size, last=size - 1)
    return value


def add_tokenizer_options(parser: argparse.ArgumentParser) -> None:
    """How a text corpus is cut into tokens: the same four options on `data prepare` and `train`."""
    from glassformer.text.bpe import N_BYTES
    from glassformer.text.corpora import BACKENDS, DEFAULT_BPE_VOCAB, TOKENIZERS
    from glassformer.text.tokenizers import SEGMENTERS

    parser.add_argument("--tokenizer", choices=TOKENIZERS, default=None, help=t("char (default), word or bpe"))
    parser.add_argument(
        "--vocab-size",
        type=count,
        help=t(
            "bpe only: vocabulary size, at least {least} (default {default})", least=N_BYTES, default=DEFAULT_BPE_VOCAB
        ),
    )
    parser.add_argument(
        "--segment", choices=SEGMENTERS, help=t("word only: how to find words (default whitespace; jieba for Chinese)")
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help=t("bpe only: ours (Python, shows its work) or hf (the Hugging Face tokenizers library: same ids, faster)"),
    )


def tokenizer_options(args: argparse.Namespace) -> dict:
    """The options add_tokenizer_options read, as `prepare` takes them (only those given)."""
    given = {
        "tokenizer": args.tokenizer,
        "vocab_size": args.vocab_size,
        "segment": args.segment,
        "backend": args.backend,
    }
    return {k: v for k, v in given.items() if v is not None}


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The language: `--lang` read before parsing, argparse's own words, help wrapped by columns
# ────────────────────────────────────────────────────────────────────────────────────────────────

LANG_FLAG = "--lang"


def language_requested(argv: list[str]) -> tuple[list[str], str]:
    """(argv without `--lang X` / `--lang=X`, the language): --lang may stand anywhere, before or
    after the verb (like --debug); without it, GLASSFORMER_LANG decides, else English."""
    kept, flag, i = [], None, 0
    while i < len(argv):
        token = argv[i]
        if token == LANG_FLAG:
            if i + 1 == len(argv):
                raise UsageError(
                    "cli.lang_no_value",
                    "--lang needs a language after it: one of {langs} (e.g. --lang zh).",
                    langs=", ".join(LANGS),
                )
            flag, i = argv[i + 1], i + 2
            continue
        if token.startswith(LANG_FLAG + "="):
            flag = token.partition("=")[2]
        else:
            kept.append(token)
        i += 1
    return kept, resolve(flag)


def N_plural(one: str, many: str) -> tuple[str, str]:
    """Marks a sentence with a plural (argparse's ngettext) for Babel's extraction; returns the pair."""
    return one, many


# The sentences argparse says through gettext that glassformer's catalogue translates. Marked here so
# `make po` extracts them; tests/messages/test_catalogue.py checks each is still in this Python's argparse.
ARGPARSE_SAYS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
)
ARGPARSE_PLURALS = (N_plural("expected %s argument", "expected %s arguments"),)


@contextlib.contextmanager
def argparse_speaking():
    """argparse's own words ("usage: ", "invalid choice: ...", "show this help ...") come from
    gettext's default domain (argparse calls gettext.gettext and ngettext). While a command line is
    built and parsed, that domain is glassformer's catalogue and the language is the process's:
    gettext's own switches (textdomain, bindtextdomain, $LANGUAGE), set back afterwards."""
    domain, saved = gettext.textdomain(), os.environ.get("LANGUAGE")
    gettext.bindtextdomain(DOMAIN, str(LOCALE))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = language()  # gettext reads $LANGUAGE first; English has no catalogue: as written
    try:
        yield
    finally:
        gettext.textdomain(domain)
        if saved is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = saved


class HelpFormatter(argparse.HelpFormatter):
    """argparse's layout, but Chinese help is wrapped by terminal columns (a Chinese character takes
    two, and may end a line anywhere; a closing mark never starts one). English help keeps argparse's
    own wrapping, byte for byte, even where it quotes a Chinese example (一千二百零五)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not _by_columns(text):
            return super()._split_lines(text, width)
        return _wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not _by_columns(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in _wrap(" ".join(text.split()), width - len(indent)))


def _by_columns(text: str) -> bool:
    return language() == "zh" and columns(text) != len(text)


_PIECES = re.compile(r"\s+|[^\x00-\u2e7f]|[\x00-\u2e7f]+?(?=\s|[^\x00-\u2e7f]|$)")  # spaces, a wide char, a word
_NO_LINE_START, _NO_LINE_END = set("，。、；：！？）」』》〉…"), set("（「『《〈")


def _wrap(text: str, width: int) -> list[str]:
    """Greedy line filling by terminal columns, never breaking inside a run of narrow characters."""
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if line and columns(line + piece) > width and piece[0] not in _NO_LINE_START and not piece.isspace():
            carried = line[-1] if line[-1] in _NO_LINE_END else ""  # an opening mark goes with what it opens
            lines.append(line[: len(line) - len(carried)].rstrip())
            line = carried
        if line or not piece.isspace():
            line += piece
    return lines + ([line.rstrip()] if line.strip() else [])

"""The one error path: every failure glassformer expects is one of these, and its message says three
things — which file or flag, what is wrong with it, and how to fix it — in whole sentences written
at the raise site (so a later Chinese catalogue translates sentences, never stitched fragments).

    GlassformerError            an expected failure; `glassformer` prints it, exit code 1
    ├── UsageError              the command line asks for something impossible: exit code 2
    │   └── DeviceUnavailable   --device names hardware this machine does not have
    ├── NotFound                a file or run directory the user named is not there: exit code 2
    ├── DamagedFile             a file is there but cannot be used: damaged, wrong format, wrong encoding
    ├── WriteFailed             a file could not be written (disk full, no permission); nothing was lost
    │   └── DiskFull            the disk holding the run is full: how much is free, how much a checkpoint needs; exit 2
    ├── RunLocked               another process is training into the same run directory
    ├── WrongType               a library call got a value of the wrong type
    ├── Unsupported             well formed, but this model, build or machine cannot do it
    ├── MissingPackage          an optional package a feature needs is not installed (an ImportError)
    └── NoAttribute             a package's face has no such name (an AttributeError)

Each class also derives from the builtin exception a caller would have caught before
(`ValueError`, `FileNotFoundError`, `OSError`), so `except ValueError` keeps working.
The command line (cli/__init__.py) prints the message in one or two lines, without a traceback;
`--debug` or GLASSFORMER_DEBUG=1 shows the traceback too. Anything else that escapes is a bug:
the CLI says so and saves the traceback to a file it names.
"""

from __future__ import annotations

from glassformer.messages import in_language, language, t

EXIT_FAILURE = 1  # the command was fine; something it needed was not (a damaged file, a full disk)
EXIT_USAGE = 2  # the command line itself is wrong (argparse uses 2 as well)


class GlassformerError(Exception):
    """An expected failure, with a message that names the problem and the fix.

    Raised as `UsageError("config.heads", "d_model={d_model} is not divisible by n_heads={n_heads} ...",
    d_model=64, n_heads=5, nearest=4)`: a stable code, the English sentence (the gettext msgid: its
    Chinese is in the catalogue, glassformer/messages) and its fields. The sentence is made only when
    the error is shown, in the language of that moment, so a library caller, a test and the CLI all
    read `.code` and `.fields`, and only the boundary (CLI, page, notebook) turns them into words.
    """

    exit_code = EXIT_FAILURE

    def __init__(self, code: str, message: str, /, **fields) -> None:
        super().__init__(code)
        self.code, self.message, self.fields = code, message, fields
        self.lang = language()  # the language of the moment it was raised: its fields were made in it

    @property
    def key(self) -> str:  # the old name of `code`, for callers written before codes
        return self.code

    def __str__(self) -> str:
        return self.words(self.lang)

    def words(self, lang: str | None = None) -> str:
        """The sentence in `lang` (default: the language it was raised in)."""
        with in_language(lang):
            return t(self.message, **self.fields)

    def __reduce__(self):  # pickled (a worker process's error) with its fields, not just its code
        return _rebuild, (type(self), self.code, self.message, self.fields, self.lang)


def _rebuild(cls: type, code: str, message: str, fields: dict, lang: str) -> GlassformerError:
    error = cls(code, message, **fields)
    error.lang = lang
    return error


class Clause:
    """An English sentence (translated by the catalogue) given as a field of an error (a remedy, a
    "Did you mean ...?"): worded only when the error is shown, in the language of the moment it was
    made (as its error's own sentence), so code below the boundary (nn/, models/) never makes words.
    Compares equal to its words, as the string field it replaces."""

    def __init__(self, message: str, /, **fields) -> None:
        self.message, self.fields, self.lang = message, fields, language()

    def __str__(self) -> str:
        with in_language(self.lang):
            return t(self.message, **{k: str(v) if isinstance(v, Clause) else v for k, v in self.fields.items()})

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other) if isinstance(other, (str, Clause, Joined)) else NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __contains__(self, part: str) -> bool:
        return part in str(self)

    def __repr__(self) -> str:
        return repr(str(self))


class Joined(Clause):
    """Parts (strings or Clauses) joined by `sep` (a string or a Clause such as " or "), worded late."""

    def __init__(self, parts, sep=", ") -> None:  # noqa: ANN001 - each a str or a Clause
        super().__init__("")
        self.sep, self.parts = sep, list(parts)

    def __str__(self) -> str:
        with in_language(self.lang):
            return str(self.sep).join(str(p) for p in self.parts)


class UsageError(GlassformerError, ValueError):
    """An option or argument asks for something impossible (out of range, contradictory)."""

    exit_code = EXIT_USAGE


class DeviceUnavailable(UsageError):
    """--device (or --device=... in a config) names hardware this machine lacks."""


class NotFound(GlassformerError, FileNotFoundError):
    """A path the user gave (a run directory, a data file) does not exist or is not what it must be."""

    exit_code = EXIT_USAGE


class DamagedFile(GlassformerError, ValueError):
    """A file exists but cannot be used: empty, damaged, of another format or text encoding."""


class WriteFailed(GlassformerError, OSError):
    """A file could not be written; the message says what was kept (the previous checkpoint ...)."""


class DiskFull(WriteFailed):
    """The disk a run is written to is full. Exit code 2, as for a usage error: nothing about the run
    is wrong, the command needs space the user has to make (the message says how much)."""

    exit_code = EXIT_USAGE


class RunLocked(GlassformerError):
    """Another live process is training into this run directory."""


class WrongType(GlassformerError, TypeError):
    """A library call got a value of the wrong type (a string where a tensor belongs, ...)."""

    exit_code = EXIT_USAGE


class Unsupported(GlassformerError, RuntimeError):
    """The request is well formed but this model, build or machine cannot do it."""


class MissingPackage(GlassformerError, ImportError):
    """An optional package a feature needs is not installed (the message names the pip requirement)."""


class NoAttribute(GlassformerError, AttributeError):
    """A package's face was asked for a name it does not have (its module `__getattr__` says so)."""


class NoKey(GlassformerError, KeyError):
    """A mapping was asked for a key it does not hold (an activation cache: the nearest name is said)."""

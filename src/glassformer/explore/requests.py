"""What a request may say, checked before any tensor is made. Every mistake becomes a RequestError:
a 4xx status, one sentence naming the field and what it accepts, and a `code` the page can
translate. Nothing in a request names a file: the model was fixed when the server started.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 32_768  # a request body; 2000 CJK characters are 6000 bytes of UTF-8
    text_chars: int = 2_000  # typed text (the model sees at most its last max_len tokens)
    ids: int = 1_024  # ids sent back for generation (the page's whole text so far)
    new_tokens: int = 64  # tokens one generation request may ask for
    temperature: float = 5.0


LIMITS = Limits()


class RequestError(Exception):
    """A request the explorer refuses: `status` 4xx, a message that says how to fix it."""

    def __init__(self, message: str, status: int = 400, code: str = "bad_request", **extra) -> None:
        super().__init__(message)
        self.status, self.code, self.extra = status, code, extra

    def body(self) -> dict:
        return {"error": str(self), "code": self.code, **self.extra}


def parse_json(raw: bytes) -> dict:
    """The body as a JSON object (NaN and Infinity refused: they are not JSON)."""

    def refuse(constant: str):
        raise RequestError(f"the body contains {constant}, which is not JSON: send finite numbers.")

    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=refuse)
    except UnicodeDecodeError:
        raise RequestError("the body is not UTF-8 text.") from None
    except json.JSONDecodeError as e:
        raise RequestError(f"the body is not valid JSON ({e.msg} at character {e.pos}).") from None
    if not isinstance(body, dict):
        raise RequestError(f"the body must be a JSON object ({{...}}), not a {type(body).__name__}.")
    return body


@dataclass(frozen=True)
class Field:
    kind: str  # "int" | "float" | "str" | "bool" | "ints" | "pairs"
    default: object = None
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    most: int | None = None  # longest str / list


def _typed(name: str, value, f: Field):
    def fail(what: str):
        raise RequestError(f"{name!r} must be {what}, got {json.dumps(value)[:60]}.")

    is_int = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if f.kind == "int" and not is_int(value):
        fail("a whole number")
    if f.kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        fail("a number")
    if f.kind == "str" and not isinstance(value, str):
        fail("a string")
    if f.kind == "bool" and not isinstance(value, bool):
        fail("true or false")
    if f.kind == "ints" and not (isinstance(value, list) and all(is_int(v) for v in value)):
        fail("a list of whole numbers")
    if f.kind == "pairs" and not (
        isinstance(value, list)
        and all(isinstance(p, list) and len(p) == 2 and all(is_int(v) for v in p) for p in value)
    ):
        fail("a list of [layer, head] pairs")
    if f.most is not None and f.kind in ("str", "ints", "pairs") and len(value) > f.most:
        unit = "characters" if f.kind == "str" else "entries"
        raise RequestError(
            f"{name!r} is too long: {len(value)} {unit}, at most {f.most}.", 413, "too_long", field=name, most=f.most
        )
    if f.choices and value not in f.choices:
        fail(f"one of {list(f.choices)}")
    if f.kind in ("int", "float") and ((f.lo is not None and value < f.lo) or (f.hi is not None and value > f.hi)):
        fail(f"at least {f.lo}" if f.hi is None else f"between {f.lo} and {f.hi}")
    return value


def read(body: dict, spec: dict[str, Field]) -> dict:
    """Every field of `spec`, from `body` or its default; an unknown key is an error that lists the
    known ones (a misspelt option would otherwise be silently ignored)."""
    unknown = sorted(set(body) - set(spec))
    if unknown:
        raise RequestError(f"unknown field(s) {unknown}; this endpoint reads {sorted(spec)}.")
    return {name: f.default if body.get(name) is None else _typed(name, body[name], f) for name, f in spec.items()}


def check_range(name: str, value: int, size: int, what: str) -> int:
    if not 0 <= value < size:
        raise RequestError(
            f"{name}={value} is out of range: this model has {size} {what} (0 to {size - 1}).",
            422,
            "out_of_range",
            field=name,
        )
    return value


INPUT = {"text": Field("str", most=LIMITS.text_chars), "ids": Field("ints", most=LIMITS.ids)}
ABLATE = {"ablate": Field("pairs", default=[], most=4096)}
SHAPE = {
    "temperature": Field("float", 1.0, 0.0, LIMITS.temperature),
    "top_k": Field("int", 0, 0),  # 0: no top-k cut
    "top_p": Field("float", 1.0, 0.001, 1.0),
}  # 1: no top-p cut; 0 would cut every token
VIEW = {"layer": Field("int", 0, 0), "head": Field("int", 0, 0), "stage": Field("str")}
LANG = {"lang": Field("str", "en", choices=("en", "zh"))}

SPECS = {
    "analyze": {**INPUT, **ABLATE, **SHAPE, **VIEW, **LANG},
    "trace": {**INPUT, **LANG},
    "attention": {**INPUT, **ABLATE, **VIEW, "grid": Field("bool", False)},
    "vectors": {**INPUT, **ABLATE, **VIEW, "token": Field("int", 0, 0), **LANG},
    "next": {**INPUT, **ABLATE, **SHAPE},
    "generate": {
        "ids": Field("ints", most=LIMITS.ids),
        **ABLATE,
        **SHAPE,
        "n": Field("int", 1, 1, LIMITS.new_tokens),
        "seed": Field("int", 0, 0, 2**31 - 1),
        "session": Field("str", most=64),
    },
}

"""What a request may say, checked before any tensor is made. Every mistake becomes a RequestError:
a 4xx status, a stable code and its English sentence with its fields (the sentence names the field and
what it accepts, in the language the page asked in) and a `page_code` the page can act on. Nothing in
a request names a file: the model was fixed when the server started.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from glassformer.errors import GlassformerError
from glassformer.files import json_text
from glassformer.messages import N_


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 32_768  # a request body; 2000 CJK characters are 6000 bytes of UTF-8
    text_chars: int = 2_000  # typed text (the model sees at most its last max_len tokens)
    ids: int = 1_024  # ids sent back for generation (the page's whole text so far)
    new_tokens: int = 64  # tokens one generation request may ask for
    temperature: float = 5.0


LIMITS = Limits()


class RequestError(GlassformerError):
    """A request the explorer refuses: `status` 4xx, a `page_code` the page can act on, and a stable code
    with its English sentence and fields; the sentence, which says how to fix it, is made in the
    page's language."""

    def __init__(self, code: str, message: str, /, status: int = 400, page_code: str = "bad_request", **fields) -> None:
        super().__init__(code, message, **fields)
        self.status, self.page_code = status, page_code

    def body(self, lang: str | None = None) -> dict:
        """The JSON answer: the sentence in `lang`, the page code (as "code") and the stable code (as
        "key") with its fields (the page reads `chars`, `most`, `field` from them)."""
        return {"error": self.words(lang), "code": self.page_code, "key": self.code, **self.fields}

    def __reduce__(self):  # never pickled across processes, but keep GlassformerError's contract
        return _rebuild, (self.code, self.message, self.status, self.page_code, self.fields, self.lang)


def _rebuild(code: str, message: str, status: int, page_code: str, fields: dict, lang: str) -> RequestError:
    error = RequestError(code, message, status, page_code, **fields)
    error.lang = lang
    return error


def shown(value) -> str:
    """A request's value as the refusal quotes it: its JSON, cut at 60 characters."""
    return json_text(value, ensure_ascii=False)[:60]


def parse_json(raw: bytes) -> dict:
    """The body as a JSON object (NaN and Infinity refused: they are not JSON)."""

    def refuse(constant: str):
        raise RequestError(
            "explore.body.constant",
            "the body contains {constant}, which is not JSON: send finite numbers.",
            constant=constant,
        )

    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=refuse)
    except UnicodeDecodeError:
        raise RequestError("explore.body.not_utf8", "the body is not UTF-8 text.") from None
    except json.JSONDecodeError as e:
        raise RequestError(
            "explore.body.not_json",
            "the body is not valid JSON ({reason} at character {pos}).",
            reason=e.msg,
            pos=e.pos,
        ) from None
    except (RecursionError, ValueError) as e:  # nested thousands deep; an integer of thousands of digits
        raise RequestError(
            "explore.body.not_json",
            "the body is not valid JSON ({reason} at character {pos}).",
            reason=type(e).__name__,
            pos=0,
        ) from None
    if not isinstance(body, dict):
        raise RequestError(
            "explore.body.not_object",
            "the body must be a JSON object ({{...}}), not a {kind}.",
            kind=type(body).__name__,
        )
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
    def fail(code: str, message: str, **fields):
        raise RequestError(code, message, field=name, got=shown(value), **fields)

    is_int = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if f.kind == "int" and not is_int(value):
        fail("explore.field.int", N_("'{field}' must be a whole number, got {got}."))
    if f.kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        fail("explore.field.float", N_("'{field}' must be a number, got {got}."))
    if f.kind == "str" and not isinstance(value, str):
        fail("explore.field.str", N_("'{field}' must be a string, got {got}."))
    if f.kind == "bool" and not isinstance(value, bool):
        fail("explore.field.bool", N_("'{field}' must be true or false, got {got}."))
    if f.kind == "ints" and not (isinstance(value, list) and all(is_int(v) for v in value)):
        fail("explore.field.ints", N_("'{field}' must be a list of whole numbers, got {got}."))
    if f.kind == "pairs" and not (
        isinstance(value, list)
        and all(isinstance(p, list) and len(p) == 2 and all(is_int(v) for v in p) for p in value)
    ):
        fail("explore.field.pairs", N_("'{field}' must be a list of [layer, head] pairs, got {got}."))
    if f.most is not None and f.kind in ("str", "ints", "pairs") and len(value) > f.most:
        code, message = (
            ("explore.field.too_long.str", N_("'{field}' is too long: {length} characters, at most {most}."))
            if f.kind == "str"
            else ("explore.field.too_long.list", N_("'{field}' is too long: {length} entries, at most {most}."))
        )
        raise RequestError(code, message, 413, "too_long", field=name, length=len(value), most=f.most)
    if f.choices and value not in f.choices:
        fail(
            "explore.field.choice", N_("'{field}' must be one of {choices}, got {got}."), choices=shown(list(f.choices))
        )
    if f.kind in ("int", "float") and ((f.lo is not None and value < f.lo) or (f.hi is not None and value > f.hi)):
        if f.hi is None:
            fail("explore.field.at_least", N_("'{field}' must be at least {lo}, got {got}."), lo=f.lo)
        fail("explore.field.between", N_("'{field}' must be between {lo} and {hi}, got {got}."), lo=f.lo, hi=f.hi)
    return value


def read(body: dict, spec: dict[str, Field]) -> dict:
    """Every field of `spec`, from `body` or its default; an unknown key is an error that lists the
    known ones (a misspelt option would otherwise be silently ignored)."""
    unknown = sorted(set(body) - set(spec))
    if unknown:
        raise RequestError(
            "explore.field.unknown",
            "unknown field(s) {unknown}; this endpoint reads {known}.",
            unknown=shown(unknown),
            known=", ".join(sorted(spec)),
        )
    return {name: f.default if body.get(name) is None else _typed(name, body[name], f) for name, f in spec.items()}


def knobs(req: dict):
    """The request's repetition knobs as logits_processors.Knobs (None when every one is off). A value
    Knobs refuses (a penalty <= 0, min_p outside [0, 1] ...) is the request's fault: HTTP 422 with the
    check's own code and fields."""
    from glassformer.errors import UsageError
    from glassformer.logits_processors import Knobs

    values = {name: req[name] for name in KNOBS} | {"no_repeat_ngram": req["no_repeat_ngram"] or None}
    try:
        chosen = Knobs(**values)
    except UsageError as e:
        raise RequestError(e.code, e.message, 422, "bad_knob", **e.fields) from None
    return None if chosen == Knobs() else chosen


def check_range(name: str, value: int, size: int, code: str, message: str) -> int:
    """`value` in 0..size-1, else the refusal `code` (explore.range.layers | heads | tokens) with its sentence."""
    if not 0 <= value < size:
        raise RequestError(code, message, 422, "out_of_range", field=name, value=value, size=size, last=size - 1)
    return value


INPUT = {"text": Field("str", most=LIMITS.text_chars), "ids": Field("ints", most=LIMITS.ids)}
ABLATE = {"ablate": Field("pairs", default=[], most=4096)}
# the repetition knobs (logits_processors.Knobs), each at its "off" value by default; their ranges are
# Knobs' own checks (`knobs`), refused as the request's fault with the check's code, never checked twice
KNOBS = {
    "repetition_penalty": Field("float", 1.0),
    "frequency_penalty": Field("float", 0.0),
    "presence_penalty": Field("float", 0.0),
    "no_repeat_ngram": Field("int", 0, 0),  # 0: off (Knobs' None)
    "min_p": Field("float", 0.0),
    "typical_p": Field("float", 1.0),
}
SHAPE = {
    "temperature": Field("float", 1.0, 0.0, LIMITS.temperature),
    "top_k": Field("int", 0, 0),  # 0: no top-k cut
    "top_p": Field("float", 1.0, 0.001, 1.0),  # 1: no top-p cut; 0 would cut every token
    **KNOBS,
}
VIEW = {"layer": Field("int", 0, 0), "head": Field("int", 0, 0), "stage": Field("str")}
LANG = {"lang": Field("str", "en", choices=("en", "zh"))}

SPECS = {
    "analyze": {**INPUT, **ABLATE, **SHAPE, **VIEW, **LANG},
    "trace": {**INPUT, **LANG},
    "attention": {**INPUT, **ABLATE, **VIEW, "grid": Field("bool", False)},
    "vectors": {**INPUT, **ABLATE, **VIEW, "token": Field("int", 0, 0), **LANG},
    "next": {**INPUT, **ABLATE, **SHAPE},
    "rope": {**INPUT, "layer": Field("int", 0, 0), "head": Field("int", 0, 0), "positions": Field("ints", most=16)},
    "patching": {"text": Field("str", most=LIMITS.text_chars), "corrupt": Field("str", "", most=LIMITS.text_chars)},
    "patch_cell": {
        "text": Field("str", most=LIMITS.text_chars),
        "corrupt": Field("str", "", most=LIMITS.text_chars),
        "kind": Field("str", "position", choices=("position", "head")),
        "layer": Field("int", 0, 0),
        "index": Field("int", 0, 0),
        **SHAPE,
    },
    "experts": {**INPUT},
    "repeats": {
        "text": Field("str", most=LIMITS.text_chars),
        "control": Field("str", "", most=LIMITS.text_chars),
        "max_new_tokens": Field("int", 0, 0),  # 0: the rest of the context
        **LANG,
    },
    "generate": {
        "ids": Field("ints", most=LIMITS.ids),
        **ABLATE,
        **SHAPE,
        "n": Field("int", 1, 1, LIMITS.new_tokens),
        "seed": Field("int", 0, 0, 2**31 - 1),
        "session": Field("str", most=64),
    },
    "chat": {
        "message": Field("str", most=LIMITS.text_chars),
        "session": Field("str", most=64),
        "system": Field("str", most=LIMITS.text_chars),
        "max_new_tokens": Field("int", 32, 1, LIMITS.new_tokens),
        "seed": Field("int", 0, 0, 2**31 - 1),
        **SHAPE,
    },
    "diff": {"prompt": Field("str", most=LIMITS.text_chars), **LANG},
}

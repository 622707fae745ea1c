"""`assert_matches`: the one check behind every reference test (docs/architecture.md, "Tests").

Run our implementation and an independent reference on the same inputs and compare what comes
out (shape, dtype, largest absolute difference) and, when asked, the gradients with respect to
every floating-point input. A failure message always states the largest difference found, so a
failing reference test tells you by how much, not only that.

Tolerances used across tests/reference: float64 with weights copied across, 1e-10; float32, 1e-5.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import string
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import torch

ATOL = {torch.float64: 1e-10, torch.float32: 1e-5}

# the repository's root, whichever tier folder a test sits in (tools/tier_tests.py moves them)
ROOT = Path(__file__).resolve().parents[1]


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def assert_close(name: str, ours: torch.Tensor, ref: torch.Tensor, atol: float) -> float:
    """Shape, dtype and max |ours - ref| <= atol. NaN must sit where the reference has NaN, and
    an infinity where the reference has the same infinity (masked scores are -inf)."""
    assert ours.shape == ref.shape, f"{name}: shape {tuple(ours.shape)} != reference {tuple(ref.shape)}"
    assert ours.dtype == ref.dtype, f"{name}: dtype {ours.dtype} != reference {ref.dtype}"
    ours, ref = ours.detach(), ref.detach()
    nan_o, nan_r = torch.isnan(ours), torch.isnan(ref)
    assert torch.equal(nan_o, nan_r), f"{name}: {int((nan_o ^ nan_r).sum())} entries are NaN on one side only"
    diff = torch.where((ours == ref) | nan_o, 0.0, (ours - ref).abs())  # equal infinities differ by 0
    worst = float(diff.max()) if diff.numel() else 0.0
    where = tuple(int(i) for i in np.unravel_index(int(diff.argmax()), diff.shape)) if diff.numel() else ()
    assert worst <= atol, f"{name}: max abs diff {worst:.3e} > atol {atol:.1e} (at index {where})"
    return worst


def assert_matches(ours: Callable, reference: Callable, inputs, atol: float, grad: bool = True) -> float:
    """Compare ours(*inputs) with reference(*inputs): outputs, then d(outputs)/d(inputs).

    `inputs` is a tensor or a sequence of tensors (non-tensor entries are passed through). Each
    function gets its own detached copies, so neither can affect the other. Outputs may be a
    tensor or a tuple of tensors. For gradients both sides are pulled back through the same
    random cotangent, so every output element influences the comparison. Returns the largest
    difference seen (forward and gradients).
    """
    inputs = _as_tuple(inputs)

    def run(fn):
        xs = [
            x.detach().clone().requires_grad_(grad and x.is_floating_point()) if torch.is_tensor(x) else x
            for x in inputs
        ]
        return xs, _as_tuple(fn(*xs))

    xs_o, outs_o = run(ours)
    xs_r, outs_r = run(reference)
    assert len(outs_o) == len(outs_r), f"{len(outs_o)} outputs, reference has {len(outs_r)}"
    worst = max(assert_close(f"output[{i}]", a, b, atol) for i, (a, b) in enumerate(zip(outs_o, outs_r, strict=False)))
    if not grad:
        return worst

    diffable = [i for i, x in enumerate(xs_o) if torch.is_tensor(x) and x.requires_grad]
    assert diffable, "grad=True but no floating-point input to differentiate"
    gen = torch.Generator().manual_seed(1234)
    cotangents = [torch.randn(o.shape, generator=gen, dtype=o.dtype) for o in outs_o]

    def pull_back(xs, outs):
        pairs = [(o, c) for o, c in zip(outs, cotangents, strict=False) if o.requires_grad]
        grads = torch.autograd.grad(
            [o for o, _ in pairs], [xs[i] for i in diffable], grad_outputs=[c for _, c in pairs], allow_unused=True
        )
        return [torch.zeros_like(xs[i]) if g is None else g for i, g in zip(diffable, grads, strict=False)]

    for i, g_o, g_r in zip(diffable, pull_back(xs_o, outs_o), pull_back(xs_r, outs_r), strict=False):
        worst = max(worst, assert_close(f"grad of input[{i}]", g_o, g_r, atol))
    return worst


def numpy_fn(fn: Callable) -> Callable:
    """Wrap a NumPy function so assert_matches can call it like a torch one (forward only)."""

    def wrapped(*xs):
        args = [x.detach().numpy() if torch.is_tensor(x) else x for x in xs]
        return tuple(torch.from_numpy(np.asarray(o)) for o in _as_tuple(fn(*args)))

    return wrapped


def copy_linear(dst: torch.nn.Linear, weight: torch.Tensor, bias: torch.Tensor | None) -> None:
    """Overwrite a Linear's parameters in place (weights copied, never shared)."""
    with torch.no_grad():
        dst.weight.copy_(weight)
        if bias is not None:
            dst.bias.copy_(bias)


def randomize_(module: torch.nn.Module, std: float = 0.3) -> torch.nn.Module:
    """Give every parameter random values (LayerNorm gains, biases included), so no weight is a
    trivial 1 or 0 that would hide a mapping mistake."""
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(0.0, std)
    return module


def format_fields(text: str) -> set[str]:
    """The {names} a str.format template expects."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def assert_tables_match(en: dict[str, str], zh: dict[str, str], untranslated: frozenset[str] = frozenset()) -> None:
    """An English and a Chinese text table: the same keys, the same {fields} per key, and Chinese in
    every zh entry (except keys with no words to translate)."""
    assert en.keys() == zh.keys(), f"keys only in en: {en.keys() - zh.keys()}, only in zh: {zh.keys() - en.keys()}"
    for key in en:
        assert format_fields(en[key]) == format_fields(zh[key]), key
        if key not in untranslated:
            assert re.search(r"[\u4e00-\u9fff]", zh[key]), f"{key} is not translated"


def keyed(kind: type[BaseException], call: Callable, *args, **kw) -> tuple[str, dict]:
    """The catalogue key and fields of the typed error (glassformer.errors) that `call(*args, **kw)`
    raises: what a test pins, so the words stay the catalogue's. A field that holds an error (a
    config's problem) is given as its own (key, fields)."""
    import pytest

    from glassformer.errors import GlassformerError

    with pytest.raises(kind) as e:
        call(*args, **kw)
    fields = {k: (v.key, v.fields) if isinstance(v, GlassformerError) else v for k, v in e.value.fields.items()}
    return e.value.key, fields


class Said(list):
    """What the catalogue was asked to put into words, in order: (key, fields) pairs, as `t` got them.

    `("train.resumed", {"step": 20}) in heard` pins a key with all its fields; `heard.of("train.done")`
    lists the fields of each time a key was said, for a test that pins only the fields that matter."""

    def keys(self) -> list[str]:
        return [key for key, _ in self]

    def of(self, key: str) -> list[dict]:
        return [fields for said_key, fields in self if said_key == key]

    def sentences(self) -> list[tuple[str, dict]]:
        """What was said as sentences: an error shown is heard by its code as well, which is not one."""
        return [(message, fields) for message, fields in self if not CODE.fullmatch(message)]

    def worded(self, **fields) -> list[str]:
        """Each sentence said with these field values (and maybe others), as it reads now in the
        current language: a test compares output with it and never types the words."""
        return [
            _words(message, said)
            for message, said in self.sentences()
            if all(k in said and said[k] == v for k, v in fields.items())
        ]

    def sentence(self, **fields) -> str:
        """The one sentence said with these field values (maybe more than once, always alike), as it
        reads now: what a row, a label or a warning must read, found by its figures and names."""
        [words] = set(self.worded(**fields))
        return words

    def exactly(self, *names: str) -> list[tuple[str, dict]]:
        """Each sentence said whose fields are exactly `names`, as (English, fields): found by what it
        carries, so a test holds no English of its own."""
        return [(message, fields) for message, fields in self.sentences() if sorted(fields) == sorted(names)]

    def one(self, *names: str) -> tuple[str, dict]:
        """The one sentence said with exactly these fields."""
        [sentence] = self.exactly(*names)
        return sentence

    def renderings(self, **fields) -> list[str]:
        """The words of each sentence said with exactly these fields, in the current language."""
        return [_words(message, said) for message, said in self.sentences() if said == fields]

    def rendered(self, **fields) -> str:
        """The words of the one sentence said with exactly these fields."""
        [words] = self.renderings(**fields)
        return words

    def having(self, *names: str) -> list[dict]:
        """The fields of each sentence said that carries all of these fields (known by what it carries)."""
        return [fields for _, fields in self.sentences() if set(names) <= fields.keys()]

    def carrying(self, **fields) -> list[dict]:
        """The fields of each sentence said with all of these values (and maybe others): a test pins
        what was said by its figures and names, so rewording the English breaks nothing.

            assert heard.carrying(step=20, dir=run)   # some sentence told the learner both
        """
        return [said for _, said in self if all(k in said and said[k] == v for k, v in fields.items())]


CODE = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_-]+)+")  # an error's code ("config.choice"), as said() hears it


def _words(message: str, fields: dict) -> str:
    """The sentence as the catalogue words it now, by the real `t` (inside a said() block the modules'
    `t` is the recorder, which would hear this wording as one more sentence said)."""
    from glassformer import messages

    return getattr(messages.t, "real", messages.t)(message, **fields)


@contextlib.contextmanager
def said():
    """Write down every sentence made through `glassformer.messages.t` inside the block, as its
    catalogue key and fields, so a test asserts what was said, not how the English puts it:

        with said() as heard:
            main(["train", ...])
        assert ("train.resumed", {"step": 20}) in heard

    Each glassformer module holds its own name `t` (`from glassformer.messages import t`), so the
    recorder stands in for `t` in every loaded glassformer module that holds it, and in
    glassformer.messages itself (for `say` and for modules imported inside the block); on exit every
    module that holds the recorder gets the real `t` back. An error shown inside the block is heard by
    its code too (`heard.of("config.heads")`), with its fields, besides its English sentence.
    The words are still made and returned as before."""
    from glassformer import messages
    from glassformer.errors import GlassformerError

    real = messages.t
    heard = Said()
    real_words = GlassformerError.words

    def words(error: GlassformerError, lang: str | None = None) -> str:
        if error.code != error.message:  # (code, English); an old key is its own code and sentence
            heard.append((error.code, error.fields))
        return real_words(error, lang)

    def recording(key: str, /, **fields) -> str:
        heard.append((key, fields))
        return real(key, **fields)

    recording.real = real  # type: ignore[attr-defined]  # what Said's wordings use

    def holding(fn) -> list:
        return [
            m for name, m in list(sys.modules.items()) if name.startswith("glassformer") and getattr(m, "t", None) is fn
        ]

    for module in holding(real):
        module.t = recording
    GlassformerError.words = words
    try:
        yield heard
    finally:  # a module first imported inside the block took the recorder too: it gets `t` back as well
        GlassformerError.words = real_words
        for module in holding(recording):
            module.t = real


def shown(sentence: tuple[str, dict]) -> str:
    """A sentence (English, fields) as the user reads it now: its words, fields filled in."""
    return _words(*sentence)


def catalogues(texts: list[str], heard: Said, lang: str, distinct: bool = True) -> list[dict]:
    """Each of `texts` (a chart's title, axis, legend...) is a sentence the catalogue made in `lang` while the
    chart was drawn (heard by said()), in Chinese under zh wherever the catalogue translates it, and
    (unless `distinct` is False: a legend repeated on two panels) no two the same: their fields, in order,
    for the test to pin the figures and names each carries."""
    from glassformer.messages import has, translated

    seen = {translated(m, lang).format(**f): (m, f) for m, f in heard}  # as a reader of `lang` sees it
    for text in texts:
        assert text in seen, f"{text!r} is not a sentence of the catalogue said while drawing ({lang})"
        assert lang == "en" or not has(seen[text][0]) or re.search("[\u4e00-\u9fff]", text), (
            f"{text!r} is not in Chinese"
        )
    assert not distinct or len(set(texts)) == len(texts), texts
    return [seen[text][1] for text in texts]


def en(key: str, /, **fields) -> str:
    """The catalogue sentence `key` in English, its fields filled in: what an English page, table or
    line should hold (a test compares with it instead of typing the English)."""
    from glassformer import messages

    with messages.speaking("en"):
        return messages.t(key, **fields)


def zh(key: str, /, **fields) -> str:
    """The same sentence in Chinese."""
    from glassformer import messages

    with messages.speaking("zh"):
        return messages.t(key, **fields)


def in_catalogue(message: str) -> bool:
    """Has `message` its words in both languages? messages.has() says so for a translated sentence;
    this also counts an entry whose Chinese reads as its English ("logits", "T = {T}")."""
    from glassformer.messages import has

    return has(message) or message in _catalogue_ids()


@functools.cache
def _catalogue_ids() -> frozenset[str]:
    """Every msgid of the Chinese .po ("context\x04msgid" under a context); none before it exists."""
    from babel.messages.pofile import read_po

    from glassformer.messages import CONTEXT, LOCALE

    po = LOCALE / "zh" / "LC_MESSAGES" / "glassformer.po"
    if not po.exists():
        return frozenset()
    ids = set()
    with po.open("rb") as f:
        for m in read_po(f):
            english = m.id[0] if isinstance(m.id, tuple) else m.id
            if english:
                ids.add(f"{m.context}{CONTEXT}{english}" if m.context else english)
    return frozenset(ids)


def train_argv(tmp_path, out: str = "run", *extra: str, preset: str = "seed000", data: str = "builtin:seed") -> list:
    """A short, quiet `glassformer train` command line in tmp_path: a run in tmp_path/out, its data
    cache beside it, one thread; `extra` adds (or, given later, overrides) settings."""
    argv = ["train", "--preset", preset, "--data", data, "--out", str(tmp_path / out)]
    return [*argv, "--cache-dir", str(tmp_path / "cache"), "--no-progress", "--threads=1", *extra]


def declarations(model, keep: Callable[[str], bool] = lambda name: "." not in name) -> list[tuple]:
    """(name, stage, stage in Chinese, axes, means, means in Chinese) of the hook points `keep` picks,
    worded by the view (the model declares ids only)."""
    from glassformer.inspect.words import describe

    return [
        (n, d["stage"], z["stage"], h.axes, d["means"], z["means"])
        for n, h in model.hook_points().items()
        if keep(n)
        for d, z in [(describe(h, "en"), describe(h, "zh"))]
    ]


def formulas(model, keep: Callable[[str], bool]) -> list[tuple]:
    """(part, formula, symbols, note, note in Chinese or "" where it reads the same) of the parts
    `keep` picks, as the parameter table derives them, in module order."""
    from glassformer.inspect.params import _words, derived_parts

    return [
        (p, f.formula, f.symbols, en_, zh_ if zh_ != en_ else "")
        for p, f in derived_parts(model)
        if keep(p)
        for en_, zh_ in [(_words(f, "en"), _words(f, "zh"))]
    ]


def arithmetic_base(tmp, steps: int, n_sums: int):
    """A seed000 GPT pretrained `steps` steps on `n_sums` sums written out (its characters cover the
    post-training chats'), in tmp/base: the base run of the SFT, DPO and GRPO tests."""
    from glassformer.post.data import arithmetic_text
    from glassformer.train.run import new_run, train

    (tmp / "corpus.txt").write_text(arithmetic_text(n_sums, seed=1), encoding="utf-8")
    run = new_run(
        "seed000",
        [f"--max_steps={steps}", f"--eval_interval={steps}", "--eval_iters=2", "--seq_len=32", "--threads=1"],
        source=f"file:{tmp / 'corpus.txt'}",
        out=tmp / "base",
        cache_dir=tmp / "cache",
        progress=False,
        sample_chars=0,
    )
    assert train(run).status == "done"
    return tmp / "base"


def strict_json(text: str | bytes):
    """`text` parsed as JSON proper: a bare NaN, Infinity or -Infinity (which Python's json writes
    and reads, but JSON.parse in a browser and jq refuse) fails the test, naming the constant."""

    def refuse(constant: str):
        raise AssertionError(f"{constant} is not JSON: {str(text)[:200]}")

    return json.loads(text, parse_constant=refuse)

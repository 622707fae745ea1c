"""Hook points carry ids, never words (docs/architecture.md, "Hook points say what they are").

A view selects hook points by stage id; the words are looked up only when something is shown
(inspect/words.py). These tests fail if code compares a stage with text that is no stage id, if a
hook point of any kind holds words, or if nn/ or models/ import the message catalogue or the
parameter-formula helpers (words and bookkeeping live above the model)."""

from __future__ import annotations

import ast

import pytest
import torch
from helpers import ROOT, in_catalogue

from glassformer.config import ModelConfig
from glassformer.inspect.words import LETTER_WORDS, MEANS_WORDS, STAGE_WORDS
from glassformer.messages import translated
from glassformer.models import build_model
from glassformer.nn.hooks import LETTERS, STAGES, HookPoint

SRC = ROOT / "src" / "glassformer"
TINY = dict(d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8)
KINDS = {
    "gpt": ModelConfig(vocab_size=11, **TINY),
    "gpt, no norm, rotary": ModelConfig(vocab_size=11, norm="none", position="rotary", **TINY),
    "gpt, heads, alibi": ModelConfig(vocab_size=11, mha_style="heads", position="alibi", **TINY),
    "encoder": ModelConfig(kind="encoder", vocab_size=11, causal=False, **TINY),
    "regressor": ModelConfig(kind="regressor", vocab_size=0, d_in=2, d_out=1, norm="post", **TINY),
    "seq2seq": ModelConfig(kind="seq2seq", vocab_size=11, causal=False, pad_id=0, **TINY),
}


def _strings(node: ast.AST) -> list[str]:
    """The string literals a comparison's other side holds (one, or a tuple/list/set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def _is_stage(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "stage") or (
        isinstance(node, ast.Name) and node.id.endswith("STAGES")
    )


def stage_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, literal) of every string a hook's stage is compared with, or that a *STAGES constant holds."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_stage(s) for s in sides):
                found += [(node.lineno, s) for side in sides for s in _strings(side)]
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("STAGES") for t in node.targets
        ):
            found += [(node.lineno, s) for s in _strings(node.value)]
    return found


def test_no_code_compares_a_stage_with_anything_but_a_stage_id():
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        if not any(w in code for w in ("hook_points", "HookPoint", "STAGES")):
            continue  # a file that never reads a hook point (an exercise's own "stage" is no hook's)
        for line, text in stage_texts(ast.parse(path.read_text(encoding="utf-8"))):
            if text not in STAGES:
                wrong.append(f"{path.relative_to(SRC)}:{line}: {text!r}")
    assert wrong == []


def test_the_scan_finds_a_comparison_with_display_text():
    """The scan above can fail: the old spellings are caught."""
    old = 'STREAM_STAGES = ("+ position", "residual")\nnames = [n for n, hp in points if hp.stage == "+ position"]\n'
    assert [t for _, t in stage_texts(ast.parse(old)) if t not in STAGES] == ["+ position", "+ position"]


def _words() -> set[str]:
    keys = {*STAGE_WORDS.values(), *MEANS_WORDS.values()}
    return {translated(k, lang) for lang in ("en", "zh") for k in keys}


def has_words(point: HookPoint) -> bool:
    """Its stage, what it is and every letter of its axes have a sentence in both languages."""
    keys = [STAGE_WORDS.get(point.stage), MEANS_WORDS.get(point.means), *map(LETTER_WORDS.get, point.axes.split())]
    return all(k is not None and in_catalogue(k) for k in keys)


def test_every_stage_and_letter_id_has_words():
    assert set(STAGES) <= set(STAGE_WORDS) and set(LETTERS) <= set(LETTER_WORDS)
    assert all(in_catalogue(k) for k in [*STAGE_WORDS.values(), *LETTER_WORDS.values()])


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_hook_point_of_every_kind_holds_ids_and_no_words(kind):
    model = build_model(KINDS[kind])
    words = _words() - set(STAGES)  # some ids read like their English word ("scores")
    for name, point in model.hook_points().items():
        assert point.stage in STAGES, name
        assert has_words(point), name
        assert not {v for v in point.fields.values() if isinstance(v, str)} & words, name  # no words in a field
        assert set(vars(point)) - set(vars(torch.nn.Module())) == {"name", "stage", "axes", "means", "fields", "fns"}


def _pieces() -> dict[str, torch.nn.Module]:
    """The modern decoder's and the experts' pieces, standing alone until a model is built of them."""
    from glassformer.nn.attention_variants import QKNorm
    from glassformer.nn.glu import GatedFeedForward
    from glassformer.nn.mla import LatentAttention, MLAConfig
    from glassformer.nn.moe import MixtureOfExperts, Routing
    from glassformer.nn.rmsnorm import RMSNorm
    from glassformer.nn.rope_scaling import ScaledRotary

    return {
        "rms_norm": RMSNorm(8),
        "glu": GatedFeedForward(8, 16),
        "scaled rotary": ScaledRotary(4),
        "qk_norm": QKNorm(4),
        "moe, softmax": MixtureOfExperts(8, 16, 4, Routing("softmax", 2)),
        "moe, sigmoid, shared": MixtureOfExperts(8, 16, 4, Routing("sigmoid", 2), n_shared=1),
        "mla": LatentAttention(MLAConfig(8, 2, 4, 2, 2, 3, q_rank=4)),
    }


@pytest.mark.parametrize("piece", list(_pieces()))
def test_every_hook_point_of_the_standalone_pieces_holds_ids_with_words(piece):
    points = {name: m for name, m in _pieces()[piece].named_modules() if isinstance(m, HookPoint)}
    words = _words() - set(STAGES)
    assert points, piece
    for name, point in points.items():
        assert point.stage in STAGES, name
        assert has_words(point), name
        assert set(point.axes.split()) <= set(LETTERS), name
        assert not {v for v in point.fields.values() if isinstance(v, str)} & words, name


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


FORBIDDEN = ("glassformer.messages", "glassformer.inspect")  # the catalogue; the views and their formulas


def test_the_model_code_imports_no_catalogue_and_no_formula_helpers():
    wrong = {}
    for folder in ("nn", "models"):
        for path in sorted((SRC / folder).rglob("*.py")):
            bad = sorted(n for n in _imports(ast.parse(path.read_text(encoding="utf-8"))) if n.startswith(FORBIDDEN))
            if bad:
                wrong[f"{folder}/{path.name}"] = bad
    assert wrong == {}


def test_the_import_scan_sees_function_level_imports():
    tree = ast.parse("def f():\n    from glassformer.messages import t\n    return t('x')\n")
    assert any(n.startswith(FORBIDDEN) for n in _imports(tree))


def test_a_hook_point_is_declared_with_ids_and_worded_by_the_view():
    from glassformer.inspect.words import describe

    point = HookPoint("layer_norm", "B T C", "ln1.pre", i=1)
    assert (point.stage, point.axes, point.means, point.fields) == ("layer_norm", "B T C", "ln1.pre", {"i": 1})
    from glassformer.inspect.words import MEANS_WORDS, STAGE_WORDS

    # the glossary's sentences for these ids, with the point's fields
    assert describe(point, "en")["stage"] == translated(STAGE_WORDS["layer_norm"], "en").format(i=1)
    assert describe(point, "zh")["means"] == translated(MEANS_WORDS["ln1.pre"], "zh") != describe(point)["means"]
